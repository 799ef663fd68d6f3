//! The embedded default embedder: sentence-transformers' all-MiniLM-L6-v2 (384 dimensions) on
//! the CPU with candle, as sentence-transformers runs it: word pieces truncated to 256, mean
//! pooling over the attention mask, L2 normalization.
//!
//! The files come from `scripts/install-model.sh`. The forward pass is [`bert`]'s packed,
//! padding-free encoder: one text (a query) splits each matrix product over every core; many
//! texts (a catalog) are cut into batches of similar length that run one per core at once.
//! Candle's `BertModel` stays as the reference the fast path is checked against
//! ([`LocalEmbedder::embed_reference_blocking`]; loaded on first use only). Everything runs
//! in `spawn_blocking`.
//!
//! [`bert`]: crate::embed::bert

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, DTYPE};
use rayon::prelude::*;
use tokenizers::{Tokenizer, TruncationParams};

use crate::embed::bert::{Encoder, Threads};
use crate::embed::embedder::Embedder;
use crate::error::{Error, Result};
use crate::settings::default_models_dir;

/// The model's name, its directory under the models dir, and its cache namespace.
pub(crate) const MINILM_MODEL_ID: &str = "all-MiniLM-L6-v2";
/// Texts per forward pass unless set otherwise (batches run one per core at once).
pub(crate) const DEFAULT_LOCAL_EMBED_BATCH: usize = 32;
/// Word pieces kept per text (sentence-transformers' `max_seq_length` for this model).
pub(crate) const MINILM_MAX_TOKENS: usize = 256;
/// The files the model needs.
const MODEL_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

struct Loaded {
    encoder: Encoder,
    tokenizer: Tokenizer,
    config: Config,
    weights_path: PathBuf,
    /// Candle's BERT over the same weights: the reference, loaded on first use.
    reference: OnceLock<std::result::Result<BertModel, String>>,
}

/// all-MiniLM-L6-v2 on the CPU. Cheap to clone (the weights are shared).
#[derive(Clone)]
pub struct LocalEmbedder {
    loaded: Arc<Loaded>,
    pool: Arc<rayon::ThreadPool>,
    threads: usize,
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
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

fn local_err(
    what: impl Into<String>,
) -> impl FnOnce(Box<dyn std::error::Error + Send + Sync>) -> Error {
    let what = what.into();
    move |source| Error::LocalModel { what, source }
}

fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("minilm-{i}"))
        .build()
        .map_err(|e| Error::LocalModel {
            what: format!("starting {threads} embedding threads"),
            source: Box::new(e),
        })
}

/// The machine's cores (1 when unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
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
        let encoder = Encoder::load(&weights_path, &config)?;
        let threads = cores();
        Ok(Self {
            loaded: Arc::new(Loaded {
                encoder,
                tokenizer,
                config,
                weights_path,
                reference: OnceLock::new(),
            }),
            pool: Arc::new(thread_pool(threads)?),
            threads,
            model_id: MINILM_MODEL_ID.to_owned(),
            dimensions,
            batch_size: DEFAULT_LOCAL_EMBED_BATCH,
        })
    }

    /// Texts per forward pass. By default, 32.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size.max(1);
        self
    }

    /// Threads the model runs on (at least 1). By default, the machine's cores.
    pub fn with_threads(mut self, threads: usize) -> Result<Self> {
        let threads = threads.max(1);
        self.pool = Arc::new(thread_pool(threads)?);
        self.threads = threads;
        Ok(self)
    }

    /// The threads the model runs on.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Word pieces of each text as the model reads it (with [CLS] and [SEP], truncated to 256).
    pub fn token_counts(&self, texts: &[String]) -> Result<Vec<usize>> {
        Ok(self
            .encode(texts)?
            .iter()
            .map(|e| e.get_ids().len())
            .collect())
    }

    fn encode(&self, texts: &[String]) -> Result<Vec<tokenizers::Encoding>> {
        self.loaded
            .tokenizer
            .encode_batch(texts.iter().map(String::as_str).collect::<Vec<_>>(), true)
            .map_err(local_err("tokenizing"))
    }

    /// Embeds on the calling thread (and the embedder's own worker threads);
    /// [`Embedder::embed`] runs this in `spawn_blocking`.
    pub fn embed_blocking(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encodings = self.encode(texts)?;
        // Shortest first, so the texts of a batch (and so the batches the cores share) are
        // of similar size; results go back to input order.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings.get(i).map_or(0, |e| e.get_ids().len()));
        let batches: Vec<&[usize]> = order.chunks(self.batch_size).collect();
        let run = |chunk: &[usize], threads: Threads| {
            let texts: Vec<(&[u32], &[u32])> = chunk
                .iter()
                .filter_map(|&i| encodings.get(i))
                .map(|e| (e.get_ids(), e.get_type_ids()))
                .collect();
            self.loaded.encoder.embed(&texts, threads)
        };
        let vectors: Vec<Result<Vec<Vec<f32>>>> = if batches.len() > 1 && self.threads > 1 {
            // One batch per core at a time, so every step of the forward pass runs in
            // parallel, not only the matrix products; rayon's work stealing keeps the cores
            // busy to the end, and `collect` keeps the batches' order.
            self.pool.install(|| {
                batches
                    .par_iter()
                    .map(|chunk| run(chunk, Threads::One))
                    .collect()
            })
        } else {
            let threads = Threads::Many(self.threads);
            self.pool
                .install(|| batches.iter().map(|chunk| run(chunk, threads)).collect())
        };
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for (chunk, batch) in batches.iter().zip(vectors) {
            for (&i, v) in chunk.iter().zip(batch?) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = v;
                }
            }
        }
        Ok(out)
    }

    /// Candle's `BertModel` over the same weights: the slower reference path the fast
    /// encoder is checked against (and `bench embed` compares with). Texts are sorted by
    /// length and padded per batch of [`LocalEmbedder::with_batch_size`]. Loads the
    /// reference model on first use.
    pub fn embed_reference_blocking(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let model = self
            .loaded
            .reference
            .get_or_init(|| {
                let weights = std::fs::read(&self.loaded.weights_path)
                    .map_err(|e| format!("reading {}: {e}", self.loaded.weights_path.display()))?;
                let vb = VarBuilder::from_buffered_safetensors(weights, DTYPE, &Device::Cpu)
                    .map_err(|e| format!("reading the weights: {e}"))?;
                BertModel::load(vb, &self.loaded.config)
                    .map_err(|e| format!("building the BERT model: {e}"))
            })
            .as_ref()
            .map_err(|e| Error::LocalModel {
                what: "loading the reference model".to_owned(),
                source: e.clone().into(),
            })?;
        let encodings = self.encode(texts)?;
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings.get(i).map_or(0, |e| e.get_ids().len()));
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(self.batch_size) {
            let batch: Vec<&tokenizers::Encoding> =
                chunk.iter().filter_map(|&i| encodings.get(i)).collect();
            let vectors = reference_forward(model, &batch)?;
            for (&i, v) in chunk.iter().zip(vectors) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = v;
                }
            }
        }
        Ok(out)
    }
}

/// The reference forward: pad to the batch's longest text, mask, mean-pool, normalize.
fn reference_forward(model: &BertModel, batch: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>> {
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
    let device = &Device::Cpu;
    let ids = Tensor::from_vec(ids, (rows, width), device).map_err(&err)?;
    let types = Tensor::from_vec(types, (rows, width), device).map_err(&err)?;
    let mask = Tensor::from_vec(mask, (rows, width), device).map_err(&err)?;
    let hidden = model.forward(&ids, &types, Some(&mask)).map_err(&err)?;
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
