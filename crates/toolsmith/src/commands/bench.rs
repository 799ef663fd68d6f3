//! `toolsmith bench`: measure retrieval quality on the standard benchmarks
//! (`bench retrieval`) and search speed on slices of ToolEnv2404 (`bench search-speed`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::Serialize;
use toolsmith_catalog::{DocLabel, ImportOptions, Store, read_source};
use toolsmith_eval::{Benchmark, RetrievalScores, TOOLENV2404};
use toolsmith_llm::{CacheMode, Embedder, LocalEmbedder};
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Corpus, DenseIndex, DenseSettings, Filter, HybridSettings, Method,
    build_retriever, fuse,
};

use crate::cli::Global;
use crate::commands::search::{corpus, embedder, runtime};
use crate::commands::{open_store, selector};
use crate::printer;
use crate::settings::retrieve_config;

/// Measure retrieval quality or speed.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// What to measure.
    #[command(subcommand)]
    pub what: BenchCommand,
}

/// The benchmarks.
#[derive(Debug, clap::Subcommand)]
pub enum BenchCommand {
    /// NDCG@1/3/5/10 and Recall@5/10 of a retrieval method on a benchmark's queries.
    Retrieval(RetrievalArgs),
    /// Index build time and query latency (p50/p99) per method on 1k, 10k and 46,802 APIs of
    /// ToolEnv2404. The dense kernel is timed on random unit vectors of 384 dimensions.
    SearchSpeed(SpeedArgs),
}

/// Flags of `bench retrieval`.
#[derive(Debug, clap::Args)]
pub struct RetrievalArgs {
    /// restbench-tmdb, toolbench-draft282, toolbench-g1, toolbench-g2, or a query file (scored
    /// against the `--db` catalog). A named benchmark builds its own corpus in memory.
    #[arg(long)]
    pub dataset: String,
    /// bm25, dense or hybrid. By default `[retrieve] method` of toolsmith.toml, else hybrid.
    #[arg(long)]
    pub method: Option<Method>,
    /// Score the docs of this label (`draft-ref`, `easytool-ref`) instead of the original ones.
    #[arg(long = "doc-version")]
    pub doc_version: Option<DocLabel>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// The shared benchmark data (default: `$TOOLSMITH_DATA`, else `../shared/data`).
    #[arg(long = "data-dir", env = "TOOLSMITH_DATA")]
    pub data_dir: Option<PathBuf>,
}

/// Flags of `bench search-speed`.
#[derive(Debug, clap::Args)]
pub struct SpeedArgs {
    /// Catalog sizes to measure (the first N APIs of ToolEnv2404).
    #[arg(long, value_delimiter = ',', default_value = "1000,10000,46802")]
    pub sizes: Vec<usize>,
    /// Queries timed per size and method (StableToolBench's G1 and G2 queries, cycled).
    #[arg(long, default_value_t = 300)]
    pub queries: usize,
    /// Also time embedding each query with the local MiniLM model.
    #[arg(long = "embed-queries")]
    pub embed_queries: bool,
    /// Also time embedding this many API docs with the local MiniLM model (batched, as an
    /// index build does), to give the dense index's build time at each size.
    #[arg(long = "embed-docs", value_name = "N")]
    pub embed_docs: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// The shared benchmark data (default: `$TOOLSMITH_DATA`, else `../shared/data`).
    #[arg(long = "data-dir", env = "TOOLSMITH_DATA")]
    pub data_dir: Option<PathBuf>,
}

/// Runs `toolsmith bench`.
pub fn run(global: &Global, args: &BenchArgs) -> anyhow::Result<ExitCode> {
    match &args.what {
        BenchCommand::Retrieval(a) => retrieval(global, a),
        BenchCommand::SearchSpeed(a) => speed(a),
    }
}

fn data_dir(flag: Option<&PathBuf>) -> PathBuf {
    flag.cloned()
        .unwrap_or_else(|| PathBuf::from("../shared/data"))
}

/// The result of `bench retrieval --json`. Scores in percent.
#[derive(Debug, Serialize)]
struct RetrievalReport {
    dataset: String,
    method: Method,
    doc_version: String,
    queries: usize,
    skipped: usize,
    #[serde(rename = "ndcg@1")]
    ndcg_1: f64,
    #[serde(rename = "ndcg@3")]
    ndcg_3: f64,
    #[serde(rename = "ndcg@5")]
    ndcg_5: f64,
    #[serde(rename = "ndcg@10")]
    ndcg_10: f64,
    #[serde(rename = "recall@5")]
    recall_5: f64,
    #[serde(rename = "recall@10")]
    recall_10: f64,
}

fn import_all(store: &mut Store, sources: &[PathBuf]) -> anyhow::Result<()> {
    for source in sources {
        let batch = read_source(source, &ImportOptions::default())
            .with_context(|| format!("reading {}", source.display()))?;
        store
            .import(&batch, false)
            .with_context(|| format!("importing {}", source.display()))?;
    }
    Ok(())
}

fn retrieval(global: &Global, args: &RetrievalArgs) -> anyhow::Result<ExitCode> {
    let data = data_dir(args.data_dir.as_ref());
    let benchmark = Benchmark::parse(&args.dataset)?;
    let store = match &benchmark {
        Benchmark::File(_) => open_store(global)?,
        named => {
            let mut store = Store::in_memory()?;
            import_all(&mut store, &named.corpus_sources(&data))?;
            store
        }
    };
    let dataset = benchmark
        .load(&data)
        .with_context(|| format!("loading {} from {}", benchmark.name(), data.display()))?;
    let resolved = dataset.resolve(&store)?;
    if resolved.skipped > 0 {
        printer::note(format!(
            "{} of {} queries skipped: a gold API is not in the catalog or ambiguous ({} names, e.g. {})",
            resolved.skipped,
            dataset.len(),
            resolved.unresolved.len(),
            resolved
                .unresolved
                .iter()
                .take(3)
                .map(|u| u.gold.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    for (query, name, api) in &resolved.repaired {
        printer::note(format!(
            "query {query}: gold `{name}` matched {api} by path shape"
        ));
    }
    let corpus = corpus(&store, &selector(args.doc_version.as_ref()))?;
    let config = retrieve_config()?;
    let method = config.method(args.method);
    let embedder = if method.embeds() {
        Some(embedder(&global.db, &config, CacheMode::ReadWrite)?)
    } else {
        None
    };
    let rt = runtime()?;
    let scores = rt.block_on(async {
        let retriever = build_retriever(method, corpus, embedder, &config.settings()).await?;
        let mut runs = Vec::with_capacity(resolved.queries.len());
        for q in &resolved.queries {
            let hits = retriever.search(&q.text, 10, &Filter::default()).await?;
            runs.push((
                hits.into_iter().map(|h| h.api).collect::<Vec<_>>(),
                q.gold.clone(),
            ));
        }
        anyhow::Ok(
            RetrievalScores::mean(runs.iter().map(|(r, g)| (r.as_slice(), g.as_slice()))).percent(),
        )
    })?;
    let report = RetrievalReport {
        dataset: benchmark.name(),
        method,
        doc_version: args
            .doc_version
            .as_ref()
            .map_or_else(|| "original".to_owned(), ToString::to_string),
        queries: scores.queries,
        skipped: resolved.skipped,
        ndcg_1: scores.ndcg_1,
        ndcg_3: scores.ndcg_3,
        ndcg_5: scores.ndcg_5,
        ndcg_10: scores.ndcg_10,
        recall_5: scores.recall_5,
        recall_10: scores.recall_10,
    };
    if args.json {
        printer::json(&report)?;
    } else {
        printer::line(format!(
            "{} / {} / {} docs, {} queries{}",
            report.dataset,
            report.method,
            report.doc_version,
            report.queries,
            if report.skipped > 0 {
                format!(" ({} skipped)", report.skipped)
            } else {
                String::new()
            }
        ));
        printer::line("NDCG@1  NDCG@3  NDCG@5  NDCG@10  Recall@5  Recall@10");
        printer::line(format!(
            "{:>6.1}  {:>6.1}  {:>6.1}  {:>7.1}  {:>8.1}  {:>9.1}",
            report.ndcg_1,
            report.ndcg_3,
            report.ndcg_5,
            report.ndcg_10,
            report.recall_5,
            report.recall_10
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// Dimensions of the random vectors the dense kernel is timed on (MiniLM's).
const SPEED_DIMS: usize = 384;

/// p50 and p99 of one method at one size, in microseconds.
#[derive(Debug, Serialize)]
struct Latency {
    p50_us: f64,
    p99_us: f64,
}

#[derive(Debug, Serialize)]
struct SpeedRow {
    apis: usize,
    bm25_build_ms: f64,
    bm25_terms: usize,
    bm25_mib: f64,
    dense_load_ms: f64,
    dense_mib: f64,
    /// The dense index's build time at this size from the measured embedding rate.
    dense_embed_s: Option<f64>,
    /// Resident memory of the whole process after this row (the full catalog included).
    rss_mib: Option<f64>,
    bm25: Latency,
    dense: Latency,
    hybrid: Latency,
}

fn latency(mut samples: Vec<Duration>) -> Latency {
    samples.sort_unstable();
    let at = |q: f64| {
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        let i = ((samples.len().saturating_sub(1)) as f64 * q).round() as usize;
        samples.get(i).map_or(0.0, |d| d.as_secs_f64() * 1e6)
    };
    Latency {
        p50_us: at(0.5),
        p99_us: at(0.99),
    }
}

/// xorshift64*: deterministic random floats in [-1, 1) without a dependency.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
        #[allow(clippy::cast_precision_loss)]
        let unit = bits as f32 / (1u64 << 24) as f32;
        unit * 2.0 - 1.0
    }

    fn vector(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.next()).collect()
    }
}

fn speed(args: &SpeedArgs) -> anyhow::Result<ExitCode> {
    let data = data_dir(args.data_dir.as_ref());
    let started = Instant::now();
    let mut store = Store::in_memory()?;
    import_all(&mut store, &[data.join(TOOLENV2404)])?;
    let full = corpus(&store, &toolsmith_catalog::DocSelector::Active)?;
    printer::note(format!(
        "imported {} APIs of ToolEnv2404 in {:.1}s",
        full.len(),
        started.elapsed().as_secs_f64()
    ));
    let mut queries: Vec<String> = Vec::new();
    for b in [Benchmark::ToolbenchG1, Benchmark::ToolbenchG2] {
        queries.extend(b.load(&data)?.queries.into_iter().map(|q| q.text));
    }
    anyhow::ensure!(!queries.is_empty(), "no queries under {}", data.display());
    let n = args.queries.max(1);
    let texts: Vec<&String> = queries.iter().cycle().take(n).collect();
    let mut rng = Xorshift(0x9e37_79b9_7f4a_7c15);
    let vectors: Vec<Vec<f32>> = (0..n).map(|_| rng.vector(SPEED_DIMS)).collect();
    let none = Filter::default();
    let hybrid = HybridSettings::default();
    let model = if args.embed_queries || args.embed_docs.is_some() {
        Some(LocalEmbedder::load_default().context("loading the local embedding model")?)
    } else {
        None
    };
    let docs_per_second = match (&model, args.embed_docs) {
        (Some(model), Some(n)) => Some(doc_embedding_rate(model, &full, n)?),
        _ => None,
    };
    let mut rows = Vec::new();
    for &size in &args.sizes {
        let corpus = Arc::new(full.prefix(size));
        let t = Instant::now();
        let bm25 = Bm25Index::build(corpus.clone(), Bm25Settings::default());
        let bm25_build = t.elapsed();
        let rows_needed = corpus.len() * SPEED_DIMS;
        let raw = rng.vector(rows_needed);
        let t = Instant::now();
        let dense = DenseIndex::from_vectors(corpus.clone(), "random-unit", SPEED_DIMS, raw)?;
        let dense_load = t.elapsed();
        let (mut lb, mut ld, mut lh) = (Vec::new(), Vec::new(), Vec::new());
        let mut checksum = 0usize;
        for (q, v) in texts.iter().zip(&vectors) {
            let t = Instant::now();
            checksum += bm25.scores(q, 10, &none).len();
            lb.push(t.elapsed());
            let t = Instant::now();
            checksum += dense.scores(v, 10, &none)?.len();
            ld.push(t.elapsed());
            let t = Instant::now();
            let depth = hybrid.depth;
            let lexical = bm25.scores(q, depth, &none);
            let semantic = dense.scores(v, depth, &none)?;
            checksum += fuse(hybrid.fusion, &lexical, &semantic, 10).len();
            lh.push(t.elapsed());
        }
        anyhow::ensure!(
            checksum > 0,
            "no results at all: the measurement timed nothing"
        );
        #[allow(clippy::cast_precision_loss)]
        rows.push(SpeedRow {
            apis: corpus.len(),
            bm25_build_ms: bm25_build.as_secs_f64() * 1e3,
            bm25_terms: bm25.vocabulary(),
            bm25_mib: bm25.heap_bytes() as f64 / MIB,
            dense_load_ms: dense_load.as_secs_f64() * 1e3,
            dense_mib: dense.heap_bytes() as f64 / MIB,
            dense_embed_s: docs_per_second.map(|rate| corpus.len() as f64 / rate),
            rss_mib: memory_kib("VmRSS").map(|k| k / 1024.0),
            bm25: latency(lb),
            dense: latency(ld),
            hybrid: latency(lh),
        });
    }
    let embed = match &model {
        Some(model) if args.embed_queries => Some(query_embedding_latency(model, &texts)?),
        _ => None,
    };
    if args.json {
        printer::json(&serde_json::json!({
            "rows": rows,
            "query_embedding": embed,
            "doc_embeddings_per_second": docs_per_second,
            "queries": n,
            "peak_rss_mib": memory_kib("VmHWM").map(|k| k / 1024.0),
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    printer::line(format!(
        "{n} queries per cell; dense = random unit vectors, {SPEED_DIMS} dims; latency in ms (p50 / p99)"
    ));
    printer::line(
        "   APIs  BM25 build  terms  BM25 MiB  dense MiB  dense embed   BM25 p50/p99    dense p50/p99   hybrid p50/p99  RSS MiB",
    );
    let ms = |l: &Latency| format!("{:>6.2} /{:>6.2}", l.p50_us / 1e3, l.p99_us / 1e3);
    for r in &rows {
        printer::line(format!(
            "{:>7}  {:>8.0}ms  {:>6}  {:>8.1}  {:>9.1}  {:>10}  {}  {}  {}  {:>7}",
            r.apis,
            r.bm25_build_ms,
            r.bm25_terms,
            r.bm25_mib,
            r.dense_mib,
            r.dense_embed_s
                .map_or("-".to_owned(), |s| format!("{s:.0}s")),
            ms(&r.bm25),
            ms(&r.dense),
            ms(&r.hybrid),
            r.rss_mib.map_or("-".to_owned(), |m| format!("{m:.0}")),
        ));
    }
    if let Some(rate) = docs_per_second {
        printer::line(format!(
            "MiniLM document embedding: {rate:.0} API docs per second (batched)"
        ));
    }
    if let Some(peak) = memory_kib("VmHWM") {
        printer::line(format!("peak resident memory: {:.0} MiB", peak / 1024.0));
    }
    if let Some(l) = embed {
        printer::line(format!(
            "MiniLM query embedding (one query, uncached): {}",
            ms(&l)
        ));
    }
    Ok(ExitCode::SUCCESS)
}

const MIB: f64 = 1024.0 * 1024.0;

/// A `/proc/self/status` memory line in KiB (`VmRSS`, `VmHWM`); `None` off Linux.
fn memory_kib(key: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// API docs embedded per second by the local MiniLM, over the first `n` docs of `corpus` with
/// the dense index's text fields, batched as an index build does.
fn doc_embedding_rate(model: &LocalEmbedder, corpus: &Corpus, n: usize) -> anyhow::Result<f64> {
    let fields = DenseSettings::default().fields;
    let texts: Vec<String> = corpus
        .docs()
        .iter()
        .take(n.max(1))
        .map(|d| d.text(&fields))
        .collect();
    let rt = runtime()?;
    let t = Instant::now();
    let vectors = rt.block_on(model.embed(&texts))?;
    let secs = t.elapsed().as_secs_f64();
    anyhow::ensure!(
        vectors.len() == texts.len(),
        "the model returned {} vectors for {} texts",
        vectors.len(),
        texts.len()
    );
    #[allow(clippy::cast_precision_loss)]
    Ok(texts.len() as f64 / secs.max(1e-9))
}

fn query_embedding_latency(model: &LocalEmbedder, texts: &[&String]) -> anyhow::Result<Latency> {
    let rt = runtime()?;
    let mut samples = Vec::new();
    for q in texts.iter().take(100) {
        let one = [(*q).clone()];
        let t = Instant::now();
        let v = rt.block_on(model.embed(&one))?;
        samples.push(t.elapsed());
        anyhow::ensure!(v.len() == 1, "the model returned no vector");
    }
    Ok(latency(samples))
}
