//! The dense index: the vectors of every document, and its search.

use std::ops::ControlFlow;
use std::sync::{Arc, OnceLock};

use toolsmith_llm::Embedder;

use super::settings::{DenseSettings, VectorFormat};
use crate::corpus::{Allowed, Corpus, Field};
use crate::error::{Error, Result};
use crate::explain::{DenseExplanation, DenseView};
use crate::hnsw::{DenseBackend, HnswGraph};
use crate::kernel::normalize;
use crate::kernel::{Int8Matrix, score_rows_into, top_scores, with_scores};
use crate::retriever::{Filter, top_k};

/// Embedding vectors of every document of a corpus.
#[derive(Clone, Debug)]
pub struct DenseIndex {
    pub(super) corpus: Arc<Corpus>,
    pub(super) settings: DenseSettings,
    pub(super) model: String,
    pub(super) dims: usize,
    /// Row-major, one L2-normalized row of `dims` floats per document.
    pub(super) vectors: Arc<[f32]>,
    /// The embedded text of each document, to tell what changed on a refresh.
    pub(super) texts: Vec<String>,
    /// The int8 codes, with `vectors = "int8"`: made on first use (or [`DenseIndex::warm`]).
    pub(super) int8: OnceLock<Arc<Int8Matrix>>,
    /// The HNSW graph, when the backend is HNSW: made when the index is built, or on first
    /// use (or [`DenseIndex::warm`]).
    pub(super) hnsw: OnceLock<Arc<HnswGraph>>,
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
            vectors: Arc::from(Vec::new()),
            texts: Vec::new(),
            int8: OnceLock::new(),
            hnsw: OnceLock::new(),
        };
        empty
            .refresh_with_progress(corpus, embedder, progress)
            .await
    }

    /// An index of `corpus` with the given vectors (row-major, `dims` per document; they are
    /// L2-normalized here). For vectors computed elsewhere and for speed measurements. It is
    /// searched with the default settings (f32; exact below [`DenseSettings::HNSW_FROM`]
    /// documents, HNSW from there, its graph built on the first search);
    /// [`DenseIndex::with_search_settings`] changes them.
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
            vectors: vectors.into(),
            int8: OnceLock::new(),
            hnsw: OnceLock::new(),
        })
    }

    /// This index searched as `settings` say (vector format, rescoring depth, backend and
    /// its settings); the int8 codes and the HNSW graph are made on first use or by
    /// [`DenseIndex::warm`] (a graph built with other M or `ef_construction` is dropped). The
    /// embedded text settings are kept as they were built.
    pub fn with_search_settings(mut self, settings: DenseSettings) -> Self {
        let DenseSettings {
            vectors,
            rescore,
            backend,
            hnsw_from,
            hnsw,
            query_cache_entries,
            ..
        } = settings;
        let rebuild = self.hnsw.get().is_some_and(|g| {
            let old = g.built_with();
            (old.m, old.ef_construction) != (hnsw.m, hnsw.ef_construction)
        });
        if rebuild {
            self.hnsw = OnceLock::new();
        }
        self.settings = DenseSettings {
            vectors,
            rescore,
            backend,
            hnsw_from,
            hnsw,
            query_cache_entries,
            ..self.settings
        };
        self
    }

    /// Makes the int8 codes or the HNSW graph, whichever the search uses, now instead of at
    /// the first query (to time it, or to keep it off the first query's latency).
    pub fn warm(&self) -> Result<()> {
        let _ = self.int8_codes();
        self.graph().map(|_| ())
    }

    /// [`DenseIndex::warm`] calling `progress(done, total)` after each batch of the HNSW
    /// build; when it breaks, the build stops, nothing is kept, and this returns `false`
    /// (`bench search-speed` stops a build that would take too long). `true` when the search
    /// is ready (or needs no graph).
    pub fn warm_with_progress(
        &self,
        progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
    ) -> Result<bool> {
        let _ = self.int8_codes();
        if self.backend() != DenseBackend::Hnsw || self.hnsw.get().is_some() {
            return Ok(true);
        }
        match HnswGraph::build(&self.vectors, self.dims, self.settings.hnsw, progress)? {
            Some(graph) => {
                let _ = self.hnsw.set(Arc::new(graph));
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The backend the search uses: [`DenseBackend::Exact`] or [`DenseBackend::Hnsw`]
    /// (`auto` resolved against the number of documents).
    pub fn backend(&self) -> DenseBackend {
        match self.settings.backend {
            DenseBackend::Auto if self.corpus.len() >= self.settings.hnsw_from => {
                DenseBackend::Hnsw
            }
            DenseBackend::Auto => DenseBackend::Exact,
            chosen => chosen,
        }
    }

    /// How long the HNSW graph took to build, once built.
    pub fn hnsw_build_time(&self) -> Option<std::time::Duration> {
        self.hnsw.get().map(|g| g.build_time())
    }

    /// The HNSW graph when the backend is HNSW, built now if it is not yet (with a log line
    /// per step: a large catalog takes minutes).
    pub(super) fn graph(&self) -> Result<Option<&HnswGraph>> {
        if self.backend() != DenseBackend::Hnsw {
            return Ok(None);
        }
        if let Some(graph) = self.hnsw.get() {
            return Ok(Some(graph));
        }
        let settings = self.settings.hnsw;
        settings.validate()?;
        let rows = self.corpus.len();
        tracing::info!(
            rows,
            m = settings.m,
            ef_construction = settings.ef_construction,
            "building the HNSW graph of the dense index"
        );
        let started = std::time::Instant::now();
        let built = HnswGraph::build(&self.vectors, self.dims, settings, &mut |done, total| {
            tracing::info!(
                "HNSW graph: {done} of {total} vectors inserted ({:.0}s)",
                started.elapsed().as_secs_f64()
            );
            ControlFlow::Continue(())
        })?;
        // The progress above never breaks, so the build is complete.
        let Some(built) = built else { return Ok(None) };
        Ok(Some(self.hnsw.get_or_init(|| Arc::new(built))))
    }

    fn int8_codes(&self) -> Option<&Int8Matrix> {
        (self.settings.vectors == VectorFormat::Int8).then(|| {
            &**self
                .int8
                .get_or_init(|| Arc::new(Int8Matrix::quantize(&self.vectors, self.dims)))
        })
    }

    /// The vector format the search scans.
    pub fn vector_format(&self) -> VectorFormat {
        self.settings.vectors
    }

    pub(super) fn row(&self, i: usize) -> Option<&[f32]> {
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

    /// Approximate heap memory the index holds: the vector matrix, the int8 codes and the
    /// HNSW graph if made, and the embedded texts kept to detect changes.
    pub fn heap_bytes(&self) -> usize {
        self.vectors.len() * size_of::<f32>()
            + self.int8.get().map_or(0, |m| m.heap_bytes())
            + self.hnsw.get().map_or(0, |g| g.heap_bytes())
            + self
                .texts
                .iter()
                .map(|t| t.capacity() + size_of::<String>())
                .sum::<usize>()
    }

    /// Why document `doc` scores what it does for the query vector `query`: the cosine of
    /// the two (the exact f32 one, as an int8 scan rescores its candidates), and which of the
    /// document's text its vector was embedded from.
    pub fn explain_doc(&self, query: &[f32], doc: u32) -> Option<DenseExplanation> {
        if query.len() != self.dims {
            return None;
        }
        let row = self.row(doc as usize)?;
        let mut q = query.to_vec();
        normalize(&mut q);
        let d = self.corpus.doc(doc as usize)?;
        let fields = Field::ALL
            .into_iter()
            .filter(|&f| self.settings.fields.get(f) > 0.0 && !d.field(f).trim().is_empty())
            .collect();
        let passages = self
            .texts
            .get(doc as usize)
            .map_or(1, |t| self.settings.passages(t).len().max(1));
        Some(DenseExplanation {
            similarity: crate::kernel::dot_f32(row, &q),
            model: self.model.clone(),
            view: DenseView { fields, passages },
        })
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
        let keep = |i: usize| allowed == Allowed::All || self.corpus.passes(i, allowed);
        if let Some(graph) = self.graph()? {
            return Ok(self.approximate(graph, &q, k, allowed));
        }
        let rows = self.corpus.len();
        Ok(with_scores(rows, |scores| match self.int8_codes() {
            Some(int8) => {
                int8.score_into(&q, scores);
                let depth = k.saturating_mul(self.settings.rescore.max(1));
                let candidates = top_scores(scores, depth, keep);
                self.rescored(candidates.into_iter().map(|(i, _)| i).collect(), &q, k)
            }
            None => {
                score_rows_into(&self.vectors, self.dims, &q, scores);
                top_scores(scores, k, keep)
            }
        }))
    }

    /// The HNSW search: a graph walk with `ef_search` candidates; with a filter, the kept
    /// documents scanned exactly when they are few, else a walk with `ef` widened by the
    /// share the filter drops and the results post-filtered, falling back to the exact scan
    /// of the kept documents when fewer than `k` pass.
    fn approximate(
        &self,
        graph: &HnswGraph,
        q: &[f32],
        k: usize,
        allowed: Allowed,
    ) -> Vec<(u32, f32)> {
        let hnsw = &self.settings.hnsw;
        let ef = hnsw.ef_search.max(k);
        if allowed == Allowed::All {
            return graph.search(q, k, ef, &|_| true);
        }
        let rows = self.corpus.len();
        let kept: Vec<u32> = (0..rows)
            .filter(|&i| self.corpus.passes(i, allowed))
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        if kept.len() > hnsw.exact_filtered_max {
            let widened = ef.saturating_mul(rows.div_ceil(kept.len().max(1)));
            let ef = widened.min(hnsw.filtered_ef_max.max(ef));
            let found = graph.search(q, k, ef, &|i| self.corpus.passes(i, allowed));
            if found.len() >= k.min(kept.len()) {
                return found;
            }
        }
        self.rescored(kept, q, k)
    }

    /// The best `k` of `candidates` by their exact f32 cosine with the unit vector `q` (the
    /// int8 scan's rescoring).
    fn rescored(&self, candidates: Vec<u32>, q: &[f32], k: usize) -> Vec<(u32, f32)> {
        let scored = candidates
            .into_iter()
            .filter_map(|i| Some((i, crate::kernel::dot_f32(self.row(i as usize)?, q))))
            .collect();
        top_k(scored, k)
    }
}
