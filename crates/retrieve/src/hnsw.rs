//! The approximate dense backend: a hierarchical navigable small world graph (HNSW, see
//! [`PAPER`]) over the dense index's unit vectors, for catalogs past what one brute-force scan
//! answers fast.
//!
//! **Crate: `hnsw_rs` rather than `instant-distance`.** Both are pure Rust and insert on
//! rayon's pool (both cores). `instant-distance` 0.6 (last release 2023) adds only 5 crates,
//! but fixes M at 32 at compile time, fixes `ef_search` when the graph is built, and has no
//! filtered search. `hnsw_rs` 0.3 (maintained, edition 2024) takes M, `ef_construction` and an
//! `ef` per query, so each is a setting here and a filtered search can widen its `ef`; it
//! costs about 40 more crates (`anndists`, `env_logger`, `mmap-rs`), compiled once, and only
//! this crate depends on it. Its own filtered walk (`search_filter`) is not used: the search
//! below post-filters a wider unfiltered walk, and scans the kept rows exactly when a filter
//! keeps few (see [`HnswSettings::exact_filtered_max`]).
//!
//! **Not persisted.** `hnsw_rs` dumps a graph to two files of its own format (no serde bytes
//! for the SQLite store) and reloads it with a borrow of the loader, so the graph is rebuilt
//! from the stored vectors when an index is loaded: its cost is the build time
//! `toolsmith bench search-speed` reports for each size.
//!
//! **f32 only.** The graph keeps its own f32 copy of each vector (`hnsw_rs` owns its points)
//! and returns exact cosines of the candidates it visits; `vectors = "int8"` applies to the
//! exact backend only.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use hnsw_rs::anndists::dist::Distance;
use hnsw_rs::hnsw::Hnsw;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Where the HNSW defaults come from.
pub const PAPER: &str = "Malkov & Yashunin, Efficient and robust approximate nearest neighbor \
    search using Hierarchical Navigable Small World graphs (2018, arXiv:1603.09320), section 4 \
    (parameter selection): M from 5 to 48, 16 a good trade-off for high recall; layer 0 keeps \
    up to 2M links; level scale mL = 1/ln(M); efConstruction large enough for recall near 1 \
    (200, hnswlib's default from the same authors)";

/// Which search the dense index answers with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DenseBackend {
    /// Scan every vector (f32 or int8): exact top-k.
    Exact,
    /// Walk an HNSW graph: approximate top-k, built from the vectors on first use.
    Hnsw,
    /// Exact below [`crate::DenseSettings::hnsw_from`] documents, HNSW from there on.
    #[default]
    Auto,
}

/// The HNSW graph's settings (`[retrieve.dense.hnsw]`). Defaults from [`PAPER`], `ef_search`
/// measured (see [`HnswSettings::ef_search`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HnswSettings {
    /// Links kept per node on each layer above 0 (M; layer 0 keeps up to 2M). 2 to 255. By
    /// default 16.
    pub m: usize,
    /// Candidates kept while inserting (efConstruction). By default 200.
    pub ef_construction: usize,
    /// Candidates kept while searching (ef; at least the `k` asked for). By default 128:
    /// recall@10 against exact search on 10,000 random 64-d unit vectors 0.974 (ef 64: 0.912,
    /// 256: 1.0; the test `hnsw_recall_at_10_on_10000_random_vectors` asserts at least 0.95).
    /// Uniform random 384-d vectors are the worst case (0.73 at 10,000: every point nearly
    /// equidistant); real embeddings cluster and do better.
    pub ef_search: usize,
    /// A filtered search whose filter keeps at most this many documents scans them exactly
    /// instead of walking the graph. By default 20,000 (a scan of that many rows costs about
    /// what a graph walk does).
    pub exact_filtered_max: usize,
    /// A filtered graph walk widens `ef` by the share of documents the filter drops, up to
    /// this; when fewer than `k` documents pass, the kept rows are scanned exactly. By default
    /// 2,000.
    pub filtered_ef_max: usize,
}

impl Default for HnswSettings {
    fn default() -> Self {
        Self {
            m: 16,
            ef_construction: 200,
            ef_search: 128,
            exact_filtered_max: 20_000,
            filtered_ef_max: 2_000,
        }
    }
}

impl HnswSettings {
    /// Checks the values `hnsw_rs` accepts (it exits the process on M above 256).
    pub fn validate(&self) -> Result<()> {
        let check = |name: &'static str, value: usize, ok: bool, expected: &'static str| {
            if ok {
                Ok(())
            } else {
                Err(Error::Setting {
                    name,
                    value,
                    expected,
                })
            }
        };
        check(
            "retrieve.dense.hnsw.m",
            self.m,
            (2..=255).contains(&self.m),
            "2 to 255",
        )?;
        check(
            "retrieve.dense.hnsw.ef_construction",
            self.ef_construction,
            self.ef_construction >= 1,
            "at least 1",
        )?;
        check(
            "retrieve.dense.hnsw.ef_search",
            self.ef_search,
            self.ef_search >= 1,
            "at least 1",
        )
    }
}

/// `1 - cos` of two unit vectors (never below 0: `hnsw_rs` asserts distances are not
/// negative, and a NaN becomes 0 rather than a panic in its ordering).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct UnitCosine;

impl Distance<f32> for UnitCosine {
    fn eval(&self, va: &[f32], vb: &[f32]) -> f32 {
        (1.0 - crate::kernel::dot_f32(va, vb)).max(0.0)
    }
}

/// Layers `hnsw_rs` may use (its maximum; with mL = 1/ln(16), a node reaches layer 16 with
/// probability 16^-16).
const MAX_LAYERS: usize = 16;

/// Rows inserted per parallel batch at least (`hnsw_rs` asks for about 1,000 per thread).
const MIN_BATCH: usize = 4_096;

/// Progress steps of a build (a log line or a callback each).
const STEPS: usize = 20;

/// An HNSW graph over the rows of a dense index: row `i` is document `i`.
pub(crate) struct HnswGraph {
    graph: Hnsw<'static, f32, UnitCosine>,
    /// The settings it was built with.
    built_with: HnswSettings,
    rows: usize,
    dims: usize,
    /// Links stored, over every layer.
    links: usize,
    /// How long the build took.
    took: Duration,
}

impl std::fmt::Debug for HnswGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HnswGraph")
            .field("rows", &self.rows)
            .field("m", &self.built_with.m)
            .field("ef_construction", &self.built_with.ef_construction)
            .field("links", &self.links)
            .finish_non_exhaustive()
    }
}

impl HnswGraph {
    /// Inserts every `dims`-float row of `matrix` in batches on rayon's pool, calling
    /// `progress(done, total)` after each; `None` when `progress` breaks (the partial graph is
    /// dropped).
    pub(crate) fn build(
        matrix: &[f32],
        dims: usize,
        settings: HnswSettings,
        progress: &mut dyn FnMut(usize, usize) -> ControlFlow<()>,
    ) -> Result<Option<Self>> {
        settings.validate()?;
        let dims = dims.max(1);
        let rows = matrix.len() / dims;
        let started = Instant::now();
        let mut graph = Hnsw::new(
            settings.m,
            rows.max(1),
            MAX_LAYERS,
            settings.ef_construction,
            UnitCosine,
        );
        let batch = (rows / STEPS).max(MIN_BATCH);
        let mut done = 0;
        for (n, chunk) in matrix.chunks(batch * dims).enumerate() {
            let items: Vec<(&[f32], usize)> = chunk
                .chunks_exact(dims)
                .enumerate()
                .map(|(j, row)| (row, n * batch + j))
                .collect();
            graph.parallel_insert_slice(&items);
            done += items.len();
            if progress(done, rows).is_break() {
                return Ok(None);
            }
        }
        graph.set_searching_mode(true);
        let links = graph
            .get_point_indexation()
            .into_iter()
            .map(|p| p.get_neighborhood_id().iter().map(Vec::len).sum::<usize>())
            .sum();
        Ok(Some(Self {
            graph,
            built_with: settings,
            rows,
            dims,
            links,
            took: started.elapsed(),
        }))
    }

    /// The settings the graph was built with.
    pub(crate) fn built_with(&self) -> HnswSettings {
        self.built_with
    }

    /// How long the build took.
    pub(crate) fn build_time(&self) -> Duration {
        self.took
    }

    /// The `k` rows nearest the unit vector `q` found with `ef` candidates, as
    /// `(row, cosine)`, best first, those `keep` rejects left out.
    pub(crate) fn search(
        &self,
        q: &[f32],
        k: usize,
        ef: usize,
        keep: &dyn Fn(usize) -> bool,
    ) -> Vec<(u32, f32)> {
        let ef = ef.max(k);
        self.graph
            .search(q, ef, ef)
            .into_iter()
            .filter(|n| keep(n.d_id))
            .take(k)
            .filter_map(|n| Some((u32::try_from(n.d_id).ok()?, 1.0 - n.distance)))
            .collect()
    }

    /// Approximate heap bytes: `hnsw_rs`'s copy of the vectors, its per-point record, and per
    /// link an `Arc` to a (point, distance) record.
    pub(crate) fn heap_bytes(&self) -> usize {
        /// A point: its vector's `Vec`, ids, the lock and the per-layer `Vec`s of links.
        const PER_POINT: usize = 160;
        /// A link: the `Arc` in the list (8) and its allocation (counts 16, `Arc` 8, f32).
        const PER_LINK: usize = 40;
        self.rows * (self.dims * size_of::<f32>() + PER_POINT) + self.links * PER_LINK
    }
}
