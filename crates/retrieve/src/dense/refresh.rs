//! Building an index incrementally: only documents whose text is new are embedded.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use toolsmith_llm::Embedder;

use super::index::DenseIndex;
use super::settings::Pooling;
use crate::corpus::Corpus;
use crate::error::{Error, Result};

use crate::kernel::normalize;

impl DenseIndex {
    /// An index of `corpus` that reuses this index's vector of every document whose text is
    /// unchanged and embeds only the others. With the same embedder only; a different model
    /// or dimension re-embeds everything.
    pub async fn refresh(&self, corpus: Arc<Corpus>, embedder: &dyn Embedder) -> Result<Self> {
        self.refresh_with_progress(corpus, embedder, &mut |_, _| {})
            .await
    }

    pub(super) async fn refresh_with_progress(
        &self,
        corpus: Arc<Corpus>,
        embedder: &dyn Embedder,
        progress: &mut (dyn FnMut(usize, usize) + Send),
    ) -> Result<Self> {
        let dims = embedder.dimensions();
        let model = embedder.model_id().to_owned();
        let same_model = model == self.model && dims == self.dims;
        let settings = self.settings;
        let texts: Vec<String> = corpus
            .docs()
            .iter()
            .map(|d| settings.embedded_text(d))
            .collect();
        let mut known: HashMap<&str, usize> = HashMap::new();
        if same_model {
            for (i, t) in self.texts.iter().enumerate() {
                if !t.is_empty() {
                    known.insert(t.as_str(), i);
                }
            }
        }
        let mut vectors = vec![0.0f32; texts.len().saturating_mul(dims)];
        let mut missing: Vec<usize> = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            match known.get(text.as_str()) {
                Some(&old) => {
                    let (Some(src), Some(dst)) =
                        (self.row(old), vectors.get_mut(i * dims..(i + 1) * dims))
                    else {
                        missing.push(i);
                        continue;
                    };
                    dst.copy_from_slice(src);
                }
                None => missing.push(i),
            }
        }
        // A long doc is embedded as passages whose vectors are pooled into the doc's row.
        let mut work: Vec<(usize, &str, f32)> = Vec::new();
        let mut parts = vec![0usize; texts.len()];
        for &i in &missing {
            let Some(text) = texts.get(i) else { continue };
            let split = settings.passages(text);
            parts[i] = split.len();
            for p in split {
                let weight = match settings.pooling {
                    Pooling::Mean => 1.0,
                    Pooling::Length => p.chars().count() as f32,
                };
                work.push((i, p, weight));
            }
        }
        // Batches of similar lengths: a transformer pads each batch to its longest text, so
        // mixing short and long passages wastes most of the work on padding. (Each batch's
        // vectors are committed by a caching embedder as it returns, so an interrupted build
        // resumes where it stopped.)
        work.sort_by_key(|&(i, p, _)| (p.len(), i));
        let total = work.len();
        let batch = settings.batch_size.max(1);
        for (n, chunk) in work.chunks(batch).enumerate() {
            let batch_texts: Vec<String> = chunk.iter().map(|&(_, p, _)| p.to_owned()).collect();
            let start = n * batch;
            let embedded = embedder
                .embed(&batch_texts)
                .await
                .map_err(|source| Error::Embed {
                    what: format!(
                        "passages {start}..{} of {total} to embed ({} APIs)",
                        start + chunk.len(),
                        missing.len()
                    ),
                    source,
                })?;
            if embedded.len() != chunk.len() {
                return Err(Error::EmbeddingShape {
                    model,
                    expected: format!("{} vectors", chunk.len()),
                    got: format!("{} vectors", embedded.len()),
                });
            }
            for (&(i, _, weight), mut v) in chunk.iter().zip(embedded) {
                if v.len() != dims {
                    return Err(Error::EmbeddingShape {
                        model,
                        expected: format!("{dims} dimensions"),
                        got: format!("{} dimensions", v.len()),
                    });
                }
                normalize(&mut v);
                let Some(dst) = vectors.get_mut(i * dims..(i + 1) * dims) else {
                    continue;
                };
                if parts.get(i) == Some(&1) {
                    // One passage: the vector exactly as a whole-text embedding gives it.
                    dst.copy_from_slice(&v);
                } else {
                    for (d, x) in dst.iter_mut().zip(&v) {
                        *d += weight * x;
                    }
                }
            }
            progress(start + chunk.len(), total);
        }
        for (i, _) in parts.iter().enumerate().filter(|(_, n)| **n > 1) {
            if let Some(row) = vectors.get_mut(i * dims..(i + 1) * dims) {
                normalize(row);
            }
        }
        let index = Self {
            corpus,
            settings,
            model,
            dims,
            vectors: vectors.into(),
            texts,
            int8: OnceLock::new(),
            hnsw: OnceLock::new(),
        };
        // At index time, not on the first search: the graph of a large catalog takes minutes.
        index.graph()?;
        Ok(index)
    }
}
