//! The embedded default embedder: sentence-transformers' all-MiniLM-L6-v2 (384 dimensions) on
//! the CPU with candle, as sentence-transformers runs it: word pieces truncated to 256, mean
//! pooling over the attention mask, L2 normalization.
//!
//! The files come from `scripts/install-model.sh`. Texts are sorted by length before batching
//! so each batch pads little, and the model runs in `spawn_blocking`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, DTYPE};
use tokenizers::{Tokenizer, TruncationParams};

use crate::embed::Embedder;
use crate::error::{Error, Result};
use crate::settings::default_models_dir;

/// The model's name, its directory under the models dir, and its cache namespace.
pub(crate) const MINILM_MODEL_ID: &str = "all-MiniLM-L6-v2";
/// Texts per forward pass unless set otherwise.
pub(crate) const DEFAULT_LOCAL_EMBED_BATCH: usize = 64;
/// Word pieces kept per text (sentence-transformers' `max_seq_length` for this model).
pub(crate) const MINILM_MAX_TOKENS: usize = 256;
/// The files the model needs.
const MODEL_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

struct Loaded {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
}

/// all-MiniLM-L6-v2 on the CPU. Cheap to clone (the weights are shared).
#[derive(Clone)]
pub struct LocalEmbedder {
    loaded: Arc<Loaded>,
    model_id: String,
    dimensions: usize,
    batch_size: usize,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("model_id", &self.model_id)
            .field("dimensions", &self.dimensions)
            .field("batch_size", &self.batch_size)
            .finish_non_exhaustive()
    }
}

fn local_err(
    what: impl Into<String>,
) -> impl FnOnce(Box<dyn std::error::Error + Send + Sync>) -> Error {
    let what = what.into();
    move |source| Error::LocalModel { what, source }
}

fn candle_err(what: &'static str) -> impl Fn(candle_core::Error) -> Error {
    move |e| Error::LocalModel {
        what: what.to_owned(),
        source: Box::new(e),
    }
}

impl LocalEmbedder {
    /// The model directory used by [`LocalEmbedder::load_default`]:
    /// `default_models_dir()/all-MiniLM-L6-v2`.
    pub fn default_dir() -> PathBuf {
        default_models_dir().join(MINILM_MODEL_ID)
    }

    /// Loads the model from [`LocalEmbedder::default_dir`].
    pub fn load_default() -> Result<Self> {
        Self::load(Self::default_dir())
    }

    /// Loads `config.json`, `tokenizer.json` and `model.safetensors` from `dir`. Blocking
    /// (reads ~90 MB); a missing file is [`Error::ModelMissing`].
    pub fn load(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        for file in MODEL_FILES {
            let path = dir.join(file);
            if !path.is_file() {
                return Err(Error::ModelMissing { path });
            }
        }
        let config_path = dir.join("config.json");
        let config_text = std::fs::read_to_string(&config_path)
            .map_err(|e| local_err(format!("reading {}", config_path.display()))(Box::new(e)))?;
        let config: Config = serde_json::from_str(&config_text)
            .map_err(|e| local_err(format!("parsing {}", config_path.display()))(Box::new(e)))?;
        let dimensions = config.hidden_size;

        let tokenizer_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(local_err(format!("loading {}", tokenizer_path.display())))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MINILM_MAX_TOKENS,
                ..TruncationParams::default()
            }))
            .map_err(local_err("setting truncation"))?;
        tokenizer.with_padding(None);

        let weights_path = dir.join("model.safetensors");
        let weights = std::fs::read(&weights_path)
            .map_err(|e| local_err(format!("reading {}", weights_path.display()))(Box::new(e)))?;
        let device = Device::Cpu;
        let vb = VarBuilder::from_buffered_safetensors(weights, DTYPE, &device)
            .map_err(candle_err("reading the weights"))?;
        let model = BertModel::load(vb, &config).map_err(candle_err("building the BERT model"))?;
        Ok(Self {
            loaded: Arc::new(Loaded {
                model,
                tokenizer,
                device,
            }),
            model_id: MINILM_MODEL_ID.to_owned(),
            dimensions,
            batch_size: DEFAULT_LOCAL_EMBED_BATCH,
        })
    }

    /// Texts per forward pass. By default, 64.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Embeds on the calling thread; [`Embedder::embed`] runs this in `spawn_blocking`.
    pub fn embed_blocking(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let tok = &self.loaded.tokenizer;
        let encodings = tok
            .encode_batch(texts.iter().map(String::as_str).collect::<Vec<_>>(), true)
            .map_err(local_err("tokenizing"))?;
        // Shortest first, so each batch pads little; results go back to input order.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(self.batch_size) {
            let batch: Vec<&tokenizers::Encoding> = chunk.iter().map(|&i| &encodings[i]).collect();
            let vectors = self.forward(&batch)?;
            for (&i, v) in chunk.iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    fn forward(&self, batch: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>> {
        let err = candle_err("running the model");
        let width = batch
            .iter()
            .map(|e| e.get_ids().len())
            .max()
            .unwrap_or(0)
            .max(1);
        let rows = batch.len();
        let mut ids = Vec::with_capacity(rows * width);
        let mut types = Vec::with_capacity(rows * width);
        let mut mask = Vec::with_capacity(rows * width);
        for e in batch {
            let n = e.get_ids().len();
            ids.extend_from_slice(e.get_ids());
            types.extend_from_slice(e.get_type_ids());
            mask.extend_from_slice(e.get_attention_mask());
            // Pad with [PAD] = 0, masked out.
            ids.extend(std::iter::repeat_n(0u32, width - n));
            types.extend(std::iter::repeat_n(0u32, width - n));
            mask.extend(std::iter::repeat_n(0u32, width - n));
        }
        let device = &self.loaded.device;
        let ids = Tensor::from_vec(ids, (rows, width), device).map_err(&err)?;
        let types = Tensor::from_vec(types, (rows, width), device).map_err(&err)?;
        let mask = Tensor::from_vec(mask, (rows, width), device).map_err(&err)?;
        let hidden = self
            .loaded
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(&err)?;
        let mask = mask
            .to_dtype(DType::F32)
            .map_err(&err)?
            .unsqueeze(2)
            .map_err(&err)?;
        let summed = hidden
            .broadcast_mul(&mask)
            .map_err(&err)?
            .sum(1)
            .map_err(&err)?;
        let counts = mask
            .sum(1)
            .map_err(&err)?
            .clamp(1e-9f32, f32::MAX)
            .map_err(&err)?;
        let mean = summed.broadcast_div(&counts).map_err(&err)?;
        let norms = mean
            .sqr()
            .map_err(&err)?
            .sum_keepdim(1)
            .map_err(&err)?
            .sqrt()
            .map_err(&err)?
            .clamp(1e-12f32, f32::MAX)
            .map_err(&err)?;
        let normalized = mean.broadcast_div(&norms).map_err(&err)?;
        normalized.to_vec2::<f32>().map_err(&err)
    }
}

#[async_trait]
impl Embedder for LocalEmbedder {
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let this = self.clone();
        let texts = texts.to_vec();
        tokio::task::spawn_blocking(move || this.embed_blocking(&texts))
            .await
            .map_err(|e| Error::Task(format!("local embedder: {e}")))?
    }

    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_model_says_how_to_install_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = LocalEmbedder::load(dir.path()).unwrap_err();
        assert!(matches!(err, Error::ModelMissing { .. }));
        assert!(
            err.to_string().contains("scripts/install-model.sh"),
            "{err}"
        );
    }
}
