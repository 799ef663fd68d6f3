//! The dense index: the vectors of every document, and its search.

use std::ops::ControlFlow;
use std::sync::{Arc, OnceLock};

use toolsmith_llm::Embedder;

use super::settings::{DenseSettings, VectorFormat};
use super::views::RowMap;
use crate::corpus::Corpus;
use crate::error::{Error, Result};
use crate::hnsw::{DenseBackend, HnswGraph};
use crate::kernel::{Int8Matrix, normalize};

/// Embedding vectors of every document of a corpus.
#[derive(Clone, Debug)]
pub struct DenseIndex {
    pub(super) corpus: Arc<Corpus>,
    pub(super) settings: DenseSettings,
    pub(super) model: String,
    pub(super) dims: usize,
    /// Row-major, one L2-normalized row of `dims` floats per document.
    pub(super) vectors: Arc<[f32]>,
    /// The embedded text of each row (the docs', then their views'), to tell what changed
    /// on a refresh.
    pub(super) texts: Vec<String>,
    /// Which doc each row belongs to.
    pub(super) rows: RowMap,
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
            rows: RowMap::docs_only(0),
            int8: OnceLock::new(),
            hnsw: OnceLock::new(),
        };
        empty
            .refresh_with_progress(corpus, embedder, progress)
            .await
    }

    /// An index of `corpus` with the given vectors (row-major, `dims` per row; they are
    /// L2-normalized here): one row per document, optionally followed by one row per view of
    /// each document in order ([`CorpusDoc::views`](crate::CorpusDoc::views); without them
    /// the views are left out). For vectors computed elsewhere and for speed measurements.
    /// It is searched with the default settings (f32; exact below
    /// [`DenseSettings::HNSW_FROM`] documents, HNSW from there, its graph built on the first
    /// search); [`DenseIndex::with_search_settings`] changes them.
    pub fn from_vectors(
        corpus: Arc<Corpus>,
        model: &str,
        dims: usize,
        mut vectors: Vec<f32>,
    ) -> Result<Self> {
        let counts: Vec<usize> = corpus.docs().iter().map(|d| d.views().count()).collect();
        let with_views = RowMap::with_views(&counts);
        let rows = if vectors.len() == with_views.rows().saturating_mul(dims) {
            with_views
        } else {
            RowMap::docs_only(corpus.len())
        };
        if dims == 0 || vectors.len() != rows.rows().saturating_mul(dims) {
            return Err(Error::VectorShape {
                dims,
                rows: corpus.len(),
                got: vectors.len(),
            });
        }
        vectors.chunks_exact_mut(dims).for_each(normalize);
        Ok(Self {
            texts: vec![String::new(); rows.rows()],
            rows,
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
    /// embedded text settings are kept as they were built, and so are the views embedded:
    /// `views` changes only how they are scored (`doc_only` ignores them).
    pub fn with_search_settings(mut self, settings: DenseSettings) -> Self {
        let DenseSettings {
            views,
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
            views,
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
        let rows = self.rows.rows();
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

    pub(super) fn int8_codes(&self) -> Option<&Int8Matrix> {
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

    /// Row `i`'s vector: document `i`'s below the corpus's length, a view's past it.
    pub(super) fn row(&self, i: usize) -> Option<&[f32]> {
        self.vectors.get(i * self.dims..(i + 1) * self.dims)
    }

    /// The L2-normalized vector of document `i` (what the tool graph's similarity edges
    /// reuse instead of embedding the docs again).
    pub fn vector(&self, i: usize) -> Option<&[f32]> {
        self.row(i)
    }

    /// Every vector, row-major, one L2-normalized row of [`DenseIndex::dimensions`] floats per
    /// document, then one per view of each document (for baselines and measurements).
    pub fn matrix(&self) -> &[f32] {
        &self.vectors
    }

    /// Views embedded (vectors past the documents' own).
    pub fn views(&self) -> usize {
        self.rows.view_rows()
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
}
