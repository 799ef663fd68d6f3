//! What `bench search-speed` reports: a row per size, a row per dense backend and size, the
//! embedding figures; as JSON (`--json`) or as two tables and notes.

use std::fmt;

use serde::Serialize;
use toolsmith_plumbing::measure::Latency;
use toolsmith_retrieve::HnswSettings;

use crate::table;

/// Dimensions of the random vectors the dense kernel is timed on (MiniLM's).
pub(super) const SPEED_DIMS: usize = 384;

/// One size's index figures and each method's latency.
#[derive(Debug, Serialize)]
pub(super) struct SpeedRow {
    pub(super) apis: usize,
    /// Whether the catalog was padded with synthetic APIs (empty docs) beyond ToolEnv2404's.
    pub(super) synthetic: bool,
    pub(super) bm25_build_ms: f64,
    pub(super) bm25_terms: usize,
    pub(super) bm25_mib: f64,
    pub(super) dense_load_ms: f64,
    pub(super) dense_mib: f64,
    /// The dense index's build time at this size from the measured embedding rate.
    pub(super) dense_embed_s: Option<f64>,
    /// Resident memory of the whole process after this row (the full catalog included).
    pub(super) rss_mib: Option<f64>,
    pub(super) bm25: Latency,
    pub(super) dense: Latency,
    /// Exact f32 brute force in its simplest form (plain loop dot product, full sort), timed
    /// in the same run as the dense index.
    pub(super) baseline: Latency,
    /// Baseline p50 over dense p50: how many times faster the dense index is.
    pub(super) speedup: f64,
    pub(super) hybrid: Latency,
}

/// One dense backend at one size.
#[derive(Debug, Serialize)]
pub(super) struct BackendRow {
    pub(super) apis: usize,
    pub(super) synthetic: bool,
    /// `exact f32`, `int8+rescore` or `hnsw`.
    pub(super) backend: &'static str,
    /// Time to make it from the f32 vectors (normalizing, quantizing, building the graph).
    pub(super) build_ms: f64,
    /// Heap bytes of what it holds (f32 matrix; + int8 codes; + the graph and its copy of
    /// the vectors, estimated).
    pub(super) mib: f64,
    /// Heap bytes it scans per query (`None` for the graph walk: it reads the rows it visits).
    pub(super) scanned_mib: Option<f64>,
    /// Growth of the process's resident memory while it was built (measured, unlike `mib`).
    pub(super) rss_growth_mib: Option<f64>,
    /// Why the row has no measurement (a build projected past `--max-build-secs`).
    pub(super) skipped: Option<String>,
    pub(super) latency: Latency,
    /// Share of the exact top 10 it returns.
    pub(super) recall_at_10: f64,
    /// The brute-force baseline's p50 over this backend's p50.
    pub(super) speedup: f64,
}

/// `bench search-speed`'s report.
#[derive(Debug, Serialize)]
pub(super) struct SpeedReport {
    pub(super) rows: Vec<SpeedRow>,
    pub(super) backends: Vec<BackendRow>,
    pub(super) query_embedding: Option<Latency>,
    pub(super) doc_embeddings_per_second: Option<f64>,
    pub(super) queries: usize,
    pub(super) peak_rss_mib: Option<f64>,
    /// ToolEnv2404's size (the text's note on synthetic rows).
    #[serde(skip)]
    pub(super) catalog_apis: usize,
    /// The HNSW graph's settings (the text's header of the backends table).
    #[serde(skip)]
    pub(super) hnsw: HnswSettings,
    /// How many candidates int8 rescores, as a multiple of k.
    #[serde(skip)]
    pub(super) rescore: usize,
}

/// A latency pair in milliseconds, `p50 / p99`.
fn ms(l: &Latency) -> String {
    format!("{:.2} / {:.2}", l.p50_us / 1e3, l.p99_us / 1e3)
}

/// A size, starred when synthetic APIs pad it.
fn apis(n: usize, synthetic: bool) -> String {
    if synthetic {
        format!("{n}*")
    } else {
        n.to_string()
    }
}

impl SpeedReport {
    fn sizes_table(&self) -> String {
        let mut out = table::new([
            "APIs",
            "BM25 build",
            "terms",
            "BM25 MiB",
            "dense MiB",
            "dense embed",
            "BM25 p50/p99",
            "dense p50/p99",
            "brute force p50/p99",
            "speedup",
            "hybrid p50/p99",
            "RSS MiB",
        ]);
        for r in &self.rows {
            out.add_row(vec![
                apis(r.apis, r.synthetic),
                format!("{:.0}ms", r.bm25_build_ms),
                r.bm25_terms.to_string(),
                format!("{:.1}", r.bm25_mib),
                format!("{:.1}", r.dense_mib),
                r.dense_embed_s
                    .map_or("-".to_owned(), |s| format!("{s:.0}s")),
                ms(&r.bm25),
                ms(&r.dense),
                ms(&r.baseline),
                format!("{:.1}x", r.speedup),
                ms(&r.hybrid),
                r.rss_mib.map_or("-".to_owned(), |m| format!("{m:.0}")),
            ]);
        }
        table::align_right(&mut out, 0..12);
        out.trim_fmt()
    }

    fn backend_cells(&self, b: &BackendRow) -> Vec<String> {
        if let Some(why) = &b.skipped {
            let mut cells = vec![apis(b.apis, b.synthetic), b.backend.to_owned()];
            cells.push(why.clone());
            cells.resize(10, "-".to_owned());
            return cells;
        }
        let base = self
            .rows
            .iter()
            .find(|r| r.apis == b.apis)
            .map_or("-".to_owned(), |r| {
                format!("{:.2}", r.baseline.p50_us / 1e3)
            });
        vec![
            apis(b.apis, b.synthetic),
            b.backend.to_owned(),
            format!("{:.0}ms", b.build_ms),
            format!("{:.1}", b.mib),
            b.rss_growth_mib
                .map_or("-".to_owned(), |m| format!("{m:.0}")),
            b.scanned_mib.map_or("-".to_owned(), |m| format!("{m:.1}")),
            ms(&b.latency),
            format!("{:.3}", b.recall_at_10),
            base,
            format!("{:.1}x", b.speedup),
        ]
    }

    fn backends_table(&self) -> String {
        let mut out = table::new([
            "APIs",
            "backend",
            "build",
            "MiB",
            "RSS+ MiB",
            "scanned MiB",
            "p50/p99",
            "recall@10",
            "brute force p50",
            "speedup",
        ]);
        for b in &self.backends {
            out.add_row(self.backend_cells(b));
        }
        table::align_right(&mut out, 0..10);
        out.trim_fmt()
    }

    /// The notes under the tables.
    fn notes(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.rows.iter().any(|r| r.synthetic) {
            lines.push(format!(
                "* synthetic: ToolEnv2404 has {} APIs; larger sizes add APIs with empty docs \
                 (their BM25 and hybrid figures time mostly empty documents)",
                self.catalog_apis
            ));
        }
        if let Some(rate) = self.doc_embeddings_per_second {
            lines.push(format!(
                "MiniLM document embedding: {rate:.0} API docs per second (batched)"
            ));
        }
        if let Some(peak) = self.peak_rss_mib {
            lines.push(format!("peak resident memory: {peak:.0} MiB"));
        }
        if let Some(l) = &self.query_embedding {
            lines.push(format!(
                "MiniLM query embedding (one query, uncached): {}",
                ms(l)
            ));
        }
        lines
    }
}

impl fmt::Display for SpeedReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = vec![format!(
            "{} queries per cell; dense = random unit vectors, {SPEED_DIMS} dims; latency in ms (p50 / p99); \
             brute force = plain loop dot product and full sort, same run (exact, same top 10); \
             speedup = its p50 over dense p50; {} build",
            self.queries,
            if cfg!(debug_assertions) {
                "DEBUG"
            } else {
                "release"
            }
        )];
        lines.push(self.sizes_table());
        lines.push(format!(
            "dense backends, same queries (recall@10 = share of the exact f32 top 10 found; \
             speedup = brute force p50 over the backend's p50; int8 rescores {}x k in f32; \
             hnsw: M {}, ef_construction {}, ef_search {}, rebuilt on every load; \
             MiB = held (hnsw: estimated; RSS+ = measured growth while building), \
             scanned = read per query):",
            self.rescore, self.hnsw.m, self.hnsw.ef_construction, self.hnsw.ef_search,
        ));
        lines.push(self.backends_table());
        lines.extend(self.notes());
        f.write_str(&lines.join("\n"))
    }
}
