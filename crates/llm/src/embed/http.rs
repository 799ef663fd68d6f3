//! The OpenAI-compatible embeddings client (`POST {base_url}/embeddings`).

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use toolsmith_plumbing::text::truncate_chars;

use crate::embed::embedder::Embedder;
use crate::error::{Error, MAX_MESSAGE_CHARS, Result};
use crate::http::HttpCore;
use crate::redact::redact_url;
use crate::settings::LlmSettings;

/// Texts per request unless set otherwise.
pub(crate) const DEFAULT_HTTP_EMBED_BATCH: usize = 128;

/// Embeds through an OpenAI-compatible `/embeddings` endpoint, `batch_size` texts per request,
/// with the same retries and in-flight limit as the chat client.
#[derive(Clone, Debug)]
pub struct OpenAiEmbedder {
    http: HttpCore,
    model: String,
    dimensions: usize,
    batch_size: usize,
}

impl OpenAiEmbedder {
    /// A client for `settings.embedding_model`, whose vectors have `dimensions` floats
    /// (1536 for `text-embedding-3-small`); a server answering otherwise is an error.
    pub fn new(settings: &LlmSettings, dimensions: usize) -> Result<Self> {
        Ok(Self {
            http: HttpCore::new(settings)?,
            model: settings.embedding_model.clone(),
            dimensions,
            batch_size: DEFAULT_HTTP_EMBED_BATCH,
        })
    }

    /// Texts per request. By default, 128.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }
}

#[derive(Deserialize)]
struct WireEmbeddings {
    data: Vec<WireEmbedding>,
}

#[derive(Deserialize)]
struct WireEmbedding {
    index: Option<usize>,
    embedding: Vec<f32>,
}

#[async_trait]
impl Embedder for OpenAiEmbedder {
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(self.batch_size) {
            let body = json!({"model": self.model, "input": chunk});
            let raw = self.http.post_json("embeddings", &body).await?;
            let wire: WireEmbeddings =
                serde_json::from_str(&raw).map_err(|e| Error::MalformedResponse {
                    url: redact_url(&self.http.endpoint("embeddings")),
                    reason: format!("not an embeddings response: {e}"),
                    body_start: truncate_chars(raw.trim(), MAX_MESSAGE_CHARS),
                })?;
            let mut data = wire.data;
            if data.len() != chunk.len() {
                return Err(Error::EmbeddingShape {
                    model: self.model.clone(),
                    expected: format!("{} vectors", chunk.len()),
                    got: format!("{} vectors", data.len()),
                });
            }
            data.sort_by_key(|d| d.index.unwrap_or(usize::MAX));
            for d in data {
                if d.embedding.len() != self.dimensions {
                    return Err(Error::EmbeddingShape {
                        model: self.model.clone(),
                        expected: format!("{} dimensions", self.dimensions),
                        got: format!("{} dimensions", d.embedding.len()),
                    });
                }
                out.push(d.embedding);
            }
        }
        Ok(out)
    }

    fn model_id(&self) -> &str {
        &self.model
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }
}
