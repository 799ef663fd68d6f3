//! Dense retrieval: every API's doc text embedded once, queries embedded at search time,
//! cosine similarity by one matrix-vector product.
//!
//! The vectors are one contiguous row-major `Vec<f32>`, L2-normalized, so cosine is a dot
//! product and a search is a single pass over memory. The dot product runs over chunks of
//! [`LANES`] floats with as many independent accumulators, which the compiler turns into SIMD
//! code without `unsafe` or intrinsics; large matrices are split over two threads. The best
//! `k` are picked with a partial selection. (One query is a matrix-vector product, bound by
//! memory bandwidth: a GEMM kernel's cache blocking pays off only for many queries at once.)
//!
//! Building is incremental: [`DenseIndex::refresh`] embeds only documents whose text is new
//! (a changed doc version changes the text); the rest keep their vectors. Across processes,
//! wrap the embedder in `toolsmith_llm::CachedEmbedder` so vectors persist in SQLite.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use toolsmith_llm::Embedder;

use crate::bm25::hits;
use crate::corpus::{Allowed, Corpus, FieldWeights};
use crate::error::{Error, Result};
use crate::retriever::{Filter, Hit, Retriever, top_k};

/// Floats per step of the dot product (two AVX registers, four SSE ones).
pub(crate) const LANES: usize = 16;

/// How the dense index is built.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DenseSettings {
    /// Which fields make up the embedded text (those with weight above 0). By default
    /// [`DenseSettings::DEFAULT_FIELDS`].
    pub fields: FieldWeights,
    /// Texts per call to the embedder. By default 256.
    pub batch_size: usize,
    /// Characters of doc text embedded at most (MiniLM reads 256 word pieces, about 1,000
    /// characters; longer texts only cost tokenization). By default 2,000.
    pub max_chars: usize,
}

impl DenseSettings {
    /// Tool name, API name and path, the API's description and its usage examples; the tool's
    /// description and the parameters are left out (measured on restbench-tmdb, see the crate
    /// docs: the tool description costs 1.8 NDCG@10 on the original docs, all fields 3.8,
    /// while examples add 0.7 to 3.4 on the refined docs).
    pub const DEFAULT_FIELDS: FieldWeights = FieldWeights {
        tool_name: 1.0,
        api_name: 1.0,
        tool_description: 0.0,
        api_description: 1.0,
        params: 0.0,
        examples: 1.0,
    };
}

impl Default for DenseSettings {
    fn default() -> Self {
        Self {
            fields: Self::DEFAULT_FIELDS,
            batch_size: 256,
            max_chars: 2_000,
        }
    }
}

/// Embedding vectors of every document of a corpus.
#[derive(Clone, Debug)]
pub struct DenseIndex {
    corpus: Arc<Corpus>,
    settings: DenseSettings,
    model: String,
    dims: usize,
    /// Row-major, one L2-normalized row of `dims` floats per document.
    vectors: Vec<f32>,
    /// The embedded text of each document, to tell what changed on a refresh.
    texts: Vec<String>,
}

impl DenseIndex {
    /// Embeds every document of `corpus`.
    pub async fn build(
        corpus: Arc<Corpus>,
        embedder: &dyn Embedder,
        settings: DenseSettings,
    ) -> Result<Self> {
        Self::build_with_progress(corpus, embedder, settings, &mut |_, _| {}).await
    }

    /// [`DenseIndex::build`], calling `progress(done, total)` after each batch.
    pub async fn build_with_progress(
        corpus: Arc<Corpus>,
        embedder: &dyn Embedder,
        settings: DenseSettings,
        progress: &mut (dyn FnMut(usize, usize) + Send),
    ) -> Result<Self> {
        let empty = Self {
            corpus: Arc::new(Corpus::default()),
            settings,
            model: embedder.model_id().to_owned(),
            dims: embedder.dimensions(),
            vectors: Vec::new(),
            texts: Vec::new(),
        };
        empty
            .refresh_with_progress(corpus, embedder, progress)
            .await
    }

    /// An index of `corpus` with the given vectors (row-major, `dims` per document; they are
    /// L2-normalized here). For vectors computed elsewhere and for speed measurements.
    pub fn from_vectors(
        corpus: Arc<Corpus>,
        model: &str,
        dims: usize,
        mut vectors: Vec<f32>,
    ) -> Result<Self> {
        if dims == 0 || vectors.len() != corpus.len().saturating_mul(dims) {
            return Err(Error::VectorShape {
                dims,
                rows: corpus.len(),
                got: vectors.len(),
            });
        }
        vectors.chunks_exact_mut(dims).for_each(normalize);
        Ok(Self {
            texts: vec![String::new(); corpus.len()],
            corpus,
            settings: DenseSettings::default(),
            model: model.to_owned(),
            dims,
            vectors,
        })
    }

    /// An index of `corpus` that reuses this index's vector of every document whose text is
    /// unchanged and embeds only the others. With the same embedder only; a different model
    /// or dimension re-embeds everything.
    pub async fn refresh(&self, corpus: Arc<Corpus>, embedder: &dyn Embedder) -> Result<Self> {
        self.refresh_with_progress(corpus, embedder, &mut |_, _| {})
            .await
    }

    async fn refresh_with_progress(
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
            .map(|d| {
                d.text(&settings.fields)
                    .chars()
                    .take(settings.max_chars)
                    .collect()
            })
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
        // Batches of similar lengths: a transformer pads each batch to its longest text, so
        // mixing short and long docs wastes most of the work on padding. (Each batch's vectors
        // are committed by a caching embedder as it returns, so an interrupted build resumes
        // where it stopped.)
        missing.sort_by_key(|&i| (texts.get(i).map_or(0, String::len), i));
        let total = missing.len();
        let batch = settings.batch_size.max(1);
        for (n, chunk) in missing.chunks(batch).enumerate() {
            let batch_texts: Vec<String> = chunk
                .iter()
                .map(|&i| texts.get(i).cloned().unwrap_or_default())
                .collect();
            let start = n * batch;
            let embedded = embedder
                .embed(&batch_texts)
                .await
                .map_err(|source| Error::Embed {
                    what: format!("APIs {start}..{} of {total} to embed", start + chunk.len()),
                    source,
                })?;
            if embedded.len() != chunk.len() {
                return Err(Error::EmbeddingShape {
                    model,
                    expected: format!("{} vectors", chunk.len()),
                    got: format!("{} vectors", embedded.len()),
                });
            }
            for (&i, mut v) in chunk.iter().zip(embedded) {
                if v.len() != dims {
                    return Err(Error::EmbeddingShape {
                        model,
                        expected: format!("{dims} dimensions"),
                        got: format!("{} dimensions", v.len()),
                    });
                }
                normalize(&mut v);
                if let Some(dst) = vectors.get_mut(i * dims..(i + 1) * dims) {
                    dst.copy_from_slice(&v);
                }
            }
            progress(start + chunk.len(), total);
        }
        Ok(Self {
            corpus,
            settings,
            model,
            dims,
            vectors,
            texts,
        })
    }

    fn row(&self, i: usize) -> Option<&[f32]> {
        self.vectors.get(i * self.dims..(i + 1) * self.dims)
    }

    /// The L2-normalized vector of document `i` (what the tool graph's similarity edges
    /// reuse instead of embedding the docs again).
    pub fn vector(&self, i: usize) -> Option<&[f32]> {
        self.row(i)
    }

    /// Every vector, row-major, one L2-normalized row of [`DenseIndex::dimensions`] floats per
    /// document (for baselines and measurements).
    pub fn matrix(&self) -> &[f32] {
        &self.vectors
    }

    /// The corpus it indexes.
    pub fn corpus(&self) -> &Arc<Corpus> {
        &self.corpus
    }

    /// Length of every vector.
    pub fn dimensions(&self) -> usize {
        self.dims
    }

    /// The embedder's model id.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Approximate heap memory the index holds: the vector matrix and the embedded texts
    /// kept to detect changes.
    pub fn heap_bytes(&self) -> usize {
        self.vectors.capacity() * size_of::<f32>()
            + self
                .texts
                .iter()
                .map(|t| t.capacity() + size_of::<String>())
                .sum::<usize>()
    }

    /// The `k` documents most similar to a query vector as `(document, cosine)`, best first.
    pub fn scores(&self, query: &[f32], k: usize, filter: &Filter) -> Result<Vec<(u32, f32)>> {
        if query.len() != self.dims {
            return Err(Error::VectorShape {
                dims: self.dims,
                rows: 1,
                got: query.len(),
            });
        }
        let allowed = self.corpus.allowed(filter);
        if allowed == Allowed::Nothing {
            return Ok(Vec::new());
        }
        let mut q = query.to_vec();
        normalize(&mut q);
        let all = score_rows(&self.vectors, self.dims, &q);
        let scored: Vec<(u32, f32)> = all
            .into_iter()
            .enumerate()
            .filter(|(i, _)| allowed == Allowed::All || self.corpus.passes(*i, allowed))
            .map(|(i, s)| (u32::try_from(i).unwrap_or(u32::MAX), s))
            .collect();
        Ok(top_k(scored, k))
    }
}

/// Floats of the matrix above which [`score_rows`] splits the rows over two threads (about
/// 5,000 rows of 384 dimensions: below it a thread costs more than it saves).
pub(crate) const PARALLEL_FLOATS: usize = 2_000_000;

/// The dot product of `q` with every `dims`-float row of the row-major `matrix`: one
/// matrix-vector product. Large matrices are split in two halves scored on two threads (the
/// product is bound by memory bandwidth, which one core does not saturate).
pub(crate) fn score_rows(matrix: &[f32], dims: usize, q: &[f32]) -> Vec<f32> {
    let rows = matrix.len() / dims.max(1);
    let mut out = vec![0.0f32; rows];
    let fill = |m: &[f32], o: &mut [f32]| {
        for (row, s) in m.chunks_exact(dims.max(1)).zip(o.iter_mut()) {
            *s = dot(row, q);
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    if matrix.len() < PARALLEL_FLOATS || threads < 2 || rows < 2 {
        fill(matrix, &mut out);
        return out;
    }
    let half = rows / 2;
    let (m1, m2) = matrix.split_at(half * dims);
    let (o1, o2) = out.split_at_mut(half);
    std::thread::scope(|scope| {
        scope.spawn(|| fill(m2, o2));
        fill(m1, o1);
    });
    out
}

/// Scales `v` to unit length (leaves a zero vector alone).
pub(crate) fn normalize(v: &mut [f32]) {
    let norm = dot(v, v).sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Dot product over [`LANES`]-float chunks with independent accumulators, so it vectorizes.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for ((s, x), y) in acc.iter_mut().zip(x).zip(y) {
            *s += x * y;
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// A [`DenseIndex`] with the embedder for queries.
#[derive(Clone)]
pub struct DenseRetriever {
    index: Arc<DenseIndex>,
    embedder: Arc<dyn Embedder>,
}

impl std::fmt::Debug for DenseRetriever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseRetriever")
            .field("model", &self.index.model)
            .field("apis", &self.index.corpus.len())
            .finish_non_exhaustive()
    }
}

impl DenseRetriever {
    /// Searches `index`, embedding queries with `embedder` (the one that built the index).
    pub fn new(index: Arc<DenseIndex>, embedder: Arc<dyn Embedder>) -> Self {
        Self { index, embedder }
    }

    /// The index.
    pub fn index(&self) -> &Arc<DenseIndex> {
        &self.index
    }

    /// The query's vector.
    pub async fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        let mut vectors = self
            .embedder
            .embed(&[query.to_owned()])
            .await
            .map_err(|source| Error::Embed {
                what: "the query".to_owned(),
                source,
            })?;
        vectors.pop().ok_or_else(|| Error::EmbeddingShape {
            model: self.index.model.clone(),
            expected: "1 vector".to_owned(),
            got: "none".to_owned(),
        })
    }

    /// `(document, cosine)` pairs for `query`, best first.
    pub async fn scores(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<(u32, f32)>> {
        let q = self.embed_query(query).await?;
        self.index.scores(&q, k, filter)
    }
}

#[async_trait]
impl Retriever for DenseRetriever {
    async fn search(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        let scored = self.scores(query, k, filter).await?;
        Ok(hits(&self.index.corpus, &scored))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_handles_tails_and_matches_the_naive_sum() {
        let a: Vec<f32> = (0..37).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..37).map(|i| 1.0 - i as f32 * 0.01).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-3);
        let mut v = vec![3.0, 4.0];
        normalize(&mut v);
        assert_eq!(v, vec![0.6, 0.8]);
    }

    /// xorshift64*: fixed-seed floats in [-1, 1).
    fn random(seed: &mut u64, n: usize) -> Vec<f32> {
        (0..n)
            .map(|_| {
                *seed ^= *seed >> 12;
                *seed ^= *seed << 25;
                *seed ^= *seed >> 27;
                let bits = seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
                bits as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn fast_scores_equal_the_plain_dot_product_and_top_k_equals_a_sort() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let dims = 384;
        // Above the threshold, so the two-thread path runs too.
        let rows = PARALLEL_FLOATS / dims + 7;
        let mut matrix = random(&mut seed, rows * dims);
        matrix.chunks_exact_mut(dims).for_each(normalize);
        let mut q = random(&mut seed, dims);
        normalize(&mut q);
        for m in [&matrix[..50 * dims], &matrix[..]] {
            let fast = score_rows(m, dims, &q);
            assert_eq!(fast.len(), m.len() / dims);
            for (row, s) in m.chunks_exact(dims).zip(&fast) {
                let plain: f32 = row.iter().zip(&q).map(|(a, b)| a * b).sum();
                assert!((plain - s).abs() < 1e-5, "{plain} vs {s}");
            }
        }
        let scored: Vec<(u32, f32)> = score_rows(&matrix, dims, &q)
            .into_iter()
            .enumerate()
            .map(|(i, s)| (i as u32, s))
            .collect();
        let mut sorted = scored.clone();
        sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for k in [1, 10, 100] {
            assert_eq!(top_k(scored.clone(), k), sorted[..k].to_vec(), "k = {k}");
        }
    }
}
