//! `toolsmith bench retrieval` and `bench search-speed`: measure retrieval quality on the
//! standard benchmarks and search speed on slices of ToolEnv2404. (`bench run`, `list`,
//! `show` and `compare`, the solver benchmarks, are `bench_runs`.)

use std::ops::ControlFlow;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::Serialize;
use toolsmith_catalog::{ApiId, DocSelector, Scope, Store};
use toolsmith_eval::{
    BenchStore, Benchmark, RetrievalResult, RetrievalScores, TOOLENV2404, ndcg_curve,
    offered_covers,
};
use toolsmith_llm::{Embedder, LocalEmbedder};
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Corpus, CorpusDoc, DenseBackend, DenseIndex, DenseSettings,
    ExpandMode, ExpandSettings, Filter, Method, VectorFormat, fused_scores,
};

use crate::cli::{RetrievalArgs, SpeedArgs};
use crate::context::Context;
use crate::{benchmarks, printer, retrieval, table};

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
    /// Offered-path coverage of the plain top-K, %.
    #[serde(rename = "coverage@5")]
    coverage_5: f64,
    #[serde(rename = "coverage@10")]
    coverage_10: f64,
    #[serde(rename = "coverage@20")]
    coverage_20: f64,
    /// The same with dependency expansion; `None` when the catalog has no dependency edges.
    expanded: Option<ExpandedCoverage>,
    /// Coverage at the cut-offs of `--coverage-k`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    coverage_curve: Vec<CoveragePoint>,
    /// The queries the expanded offer misses at `--misses K`.
    #[serde(skip_serializing_if = "Option::is_none")]
    misses: Option<Vec<Miss>>,
    /// With `--offers`: each query's offer at each `--coverage-k` cut-off.
    #[serde(skip_serializing_if = "Option::is_none")]
    offers: Option<Vec<QueryOffer>>,
}

/// The APIs offered to one query at one cut-off, dependency expansion included.
#[derive(Debug, Serialize)]
struct QueryOffer {
    query: String,
    k: usize,
    apis: Vec<ApiId>,
}

/// Offered-path coverage at one cut-off K.
#[derive(Debug, Serialize)]
struct CoveragePoint {
    k: usize,
    /// Coverage of the plain top-K, %.
    plain: f64,
    /// Coverage with dependency expansion, % (`None` without dependency edges).
    expanded: Option<f64>,
    /// Mean tools offered with expansion.
    offered: f64,
}

/// A query whose gold path the expanded offer does not cover.
#[derive(Debug, Serialize)]
struct Miss {
    query: String,
    /// The gold APIs not offered, each with its rank (1-based) in the query's ranking.
    missing: Vec<MissingGold>,
    /// The gold APIs offered.
    offered_gold: Vec<ApiId>,
    /// What expansion added: `api <- feeds.param` (producer) or `api -> feeds.param`.
    added: Vec<String>,
}

/// A gold API left out of the offer.
#[derive(Debug, Serialize)]
struct MissingGold {
    api: ApiId,
    /// Its rank in the query's ranking (1-based), `None` below the ranking's depth.
    rank: Option<usize>,
}

/// Offered-path coverage (%) and mean tools offered with dependency expansion at each K.
#[derive(Debug, Default, Serialize)]
struct ExpandedCoverage {
    mode: ExpandMode,
    budget: usize,
    swap: usize,
    #[serde(rename = "coverage@5")]
    coverage_5: f64,
    #[serde(rename = "coverage@10")]
    coverage_10: f64,
    #[serde(rename = "coverage@20")]
    coverage_20: f64,
    #[serde(rename = "offered@5")]
    offered_5: f64,
    #[serde(rename = "offered@10")]
    offered_10: f64,
    #[serde(rename = "offered@20")]
    offered_20: f64,
}

/// The cut-offs coverage is reported at.
const COVERAGE_KS: [usize; 3] = [5, 10, 20];

/// Coverage sums over queries: plain hits, expanded hits, tools offered expanded, per K.
struct CoverageSums {
    plain: Vec<f64>,
    expanded: Vec<f64>,
    offered: Vec<f64>,
}

impl CoverageSums {
    fn new(ks: usize) -> Self {
        Self {
            plain: vec![0.0; ks],
            expanded: vec![0.0; ks],
            offered: vec![0.0; ks],
        }
    }
}

/// Why expansion added an API, in a line: `api <- consumer.param` for a producer,
/// `api -> producer.param` for a consumer.
fn added_line(a: &toolsmith_retrieve::Added) -> String {
    match a.link {
        toolsmith_retrieve::Link::Producer => format!("{} <- {}.{}", a.api, a.feeds, a.param),
        toolsmith_retrieve::Link::Consumer => format!("{} -> {}.{}", a.api, a.feeds, a.param),
        toolsmith_retrieve::Link::Rank => format!("{} (rank)", a.api),
    }
}

/// The APIs `pipeline` offers for `query` at `k`: the top `k`, then expansion's.
async fn offered_apis(
    pipeline: &retrieval::Pipeline,
    query: &str,
    k: usize,
) -> anyhow::Result<Vec<ApiId>> {
    let (hits, _) = pipeline.offer(query, k, &Filter::default()).await?;
    Ok(hits.into_iter().map(|h| h.api).collect())
}

/// The NDCG@k curve stored for the report goes from k = 1 to this.
const CURVE_K: usize = 10;

/// Runs `bench retrieval`.
pub(super) fn retrieval(ctx: &Context, args: &RetrievalArgs) -> anyhow::Result<ExitCode> {
    let data = args.data.path();
    let benchmark = Benchmark::parse(&args.dataset)?;
    let store = match &benchmark {
        Benchmark::File(_) => ctx.store()?,
        named => {
            let mut store = Store::in_memory()?;
            benchmarks::import_all(&mut store, &named.corpus_sources(&data), *ctx.progress())?;
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
    // Reading a large catalog and deriving its dependency edges takes seconds: say so.
    let spinner = ctx.progress().spinner(format!(
        "reading the {} catalog and deriving its dependency edges",
        benchmark.name()
    ));
    let corpus = retrieval::corpus(&store, &args.docs.selector())?;
    let config = ctx.config()?;
    let method = config.retrieve.method(args.method.method.map(Into::into));
    // Dependency expansion, always measured, over the graph `bench run` would expand by: the
    // stored one over the context's own catalog, else one derived from the benchmark's.
    let mut expand = ExpandSettings {
        enabled: true,
        ..config.retrieve.expand
    };
    if let Some(budget) = args.expand_budget {
        expand.budget = budget;
    }
    let catalog = store.catalog(&args.docs.selector(), &Scope::default())?;
    let own = matches!(benchmark, Benchmark::File(_));
    let spec = retrieval::PipelineSpec {
        method,
        vectors: retrieval::Vectors::EmbedMissing,
        expand,
        graph: retrieval::GraphSource::for_benchmark(own, &catalog),
        ..retrieval::PipelineSpec::new(ctx, Some(method))?
    };
    spinner.finish_and_clear();
    // The standard cut-offs, then `--coverage-k`'s.
    let ks: Vec<usize> = COVERAGE_KS
        .into_iter()
        .chain(args.coverage_k.iter().copied())
        .collect();
    let max_k = ks.iter().copied().chain(args.misses).max().unwrap_or(20);
    let rt = ctx.runtime()?;
    let ((scores, curve), sums, misses, expands, offers) = rt.block_on(async {
        let pipeline = retrieval::Pipeline::build(ctx, corpus, spec).await?;
        let ranker = pipeline.ranker();
        let mut runs = Vec::with_capacity(resolved.queries.len());
        let mut sums = CoverageSums::new(ks.len());
        let mut misses = Vec::new();
        let mut offers = Vec::new();
        let bar = ctx.progress().bar(resolved.queries.len(), "queries");
        let depth = max_k.max(expand.pool).max(expand.depth);
        for q in &resolved.queries {
            let hits = ranker.search(&q.text, 10, &Filter::default()).await;
            let pool: Vec<ApiId> = ranker
                .search(&q.text, depth, &Filter::default())
                .await?
                .into_iter()
                .map(|h| h.api)
                .collect();
            for (i, &k) in ks.iter().enumerate() {
                let top: Vec<ApiId> = pool.iter().take(k).cloned().collect();
                sums.plain[i] += offered_covers(&top, &q.gold) as u8 as f64;
                // What the pipeline offers an agent at K (`bench run --tools retrieve:K`).
                let offered = offered_apis(&pipeline, &q.text, k).await?;
                sums.expanded[i] += offered_covers(&offered, &q.gold) as u8 as f64;
                sums.offered[i] += offered.len() as f64;
                if args.offers && i >= COVERAGE_KS.len() {
                    offers.push(QueryOffer {
                        query: q.text.clone(),
                        k,
                        apis: offered,
                    });
                }
            }
            if let Some(k) = args.misses {
                let (hits, added) = pipeline.offer(&q.text, k, &Filter::default()).await?;
                let offered: Vec<ApiId> = hits.into_iter().map(|h| h.api).collect();
                if !offered_covers(&offered, &q.gold) {
                    let (hit, missing): (Vec<&ApiId>, Vec<&ApiId>) =
                        q.gold.iter().partition(|g| offered.contains(g));
                    misses.push(Miss {
                        query: q.text.clone(),
                        missing: missing
                            .into_iter()
                            .map(|g| MissingGold {
                                api: g.clone(),
                                rank: pool.iter().position(|a| a == g).map(|r| r + 1),
                            })
                            .collect(),
                        offered_gold: hit.into_iter().cloned().collect(),
                        added: added.iter().map(added_line).collect(),
                    });
                }
            }
            bar.inc(1);
            runs.push((
                hits?.into_iter().map(|h| h.api).collect::<Vec<_>>(),
                q.gold.clone(),
            ));
        }
        bar.finish_and_clear();
        let pairs = || runs.iter().map(|(r, g)| (r.as_slice(), g.as_slice()));
        let curve: Vec<f64> = ndcg_curve(pairs(), CURVE_K)
            .into_iter()
            .map(|v| v * 100.0)
            .collect();
        anyhow::Ok((
            (RetrievalScores::mean(pairs()).percent(), curve),
            sums,
            misses,
            pipeline.expands(),
            offers,
        ))
    })?;
    let n = resolved.queries.len().max(1) as f64;
    let pct = |x: f64| 100.0 * x / n;
    let report = RetrievalReport {
        dataset: benchmark.name(),
        method,
        doc_version: args
            .docs
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
        coverage_5: pct(sums.plain[0]),
        coverage_10: pct(sums.plain[1]),
        coverage_20: pct(sums.plain[2]),
        expanded: expands.then(|| ExpandedCoverage {
            mode: expand.mode,
            budget: expand.budget,
            swap: expand.swap,
            coverage_5: pct(sums.expanded[0]),
            coverage_10: pct(sums.expanded[1]),
            coverage_20: pct(sums.expanded[2]),
            offered_5: sums.offered[0] / n,
            offered_10: sums.offered[1] / n,
            offered_20: sums.offered[2] / n,
        }),
        coverage_curve: ks
            .iter()
            .enumerate()
            .skip(COVERAGE_KS.len())
            .map(|(i, &k)| CoveragePoint {
                k,
                plain: pct(sums.plain[i]),
                expanded: expands.then(|| pct(sums.expanded[i])),
                offered: sums.offered[i] / n,
            })
            .collect(),
        misses: args.misses.map(|_| misses),
        offers: args.offers.then_some(offers),
    };
    // Kept for the report's NDCG@k curves.
    BenchStore::open(ctx.db())
        .and_then(|bench| {
            bench.save_retrieval(&RetrievalResult {
                dataset: report.dataset.clone(),
                method,
                doc_version: args.docs.doc_version.clone(),
                queries: scores.queries,
                ndcg: curve,
                recall_5: scores.recall_5,
                recall_10: scores.recall_10,
            })
        })
        .with_context(|| format!("storing the retrieval result in {}", ctx.db().display()))?;
    if args.json.json {
        return printer::json(&report).map(|()| ExitCode::SUCCESS);
    }
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
    ))?;
    let mut out = table::new([
        "NDCG@1",
        "NDCG@3",
        "NDCG@5",
        "NDCG@10",
        "Recall@5",
        "Recall@10",
    ]);
    out.add_row(
        [
            report.ndcg_1,
            report.ndcg_3,
            report.ndcg_5,
            report.ndcg_10,
            report.recall_5,
            report.recall_10,
        ]
        .map(|score| format!("{score:.1}")),
    );
    table::align_right(&mut out, 0..6);
    table::print(&out)?;
    let mut cov = table::new([
        "offered-path coverage",
        "@5",
        "@10",
        "@20",
        "tools offered @5/@10/@20",
    ]);
    cov.add_row(vec![
        "top-K".to_owned(),
        format!("{:.1}", report.coverage_5),
        format!("{:.1}", report.coverage_10),
        format!("{:.1}", report.coverage_20),
        "5 / 10 / 20".to_owned(),
    ]);
    if let Some(e) = &report.expanded {
        cov.add_row(vec![
            format!(
                "top-K + dependency {} (budget {}, swap {})",
                match e.mode {
                    ExpandMode::Producers => "producers",
                    ExpandMode::Neighbours => "neighbours",
                },
                e.budget,
                e.swap
            ),
            format!("{:.1}", e.coverage_5),
            format!("{:.1}", e.coverage_10),
            format!("{:.1}", e.coverage_20),
            format!(
                "{:.1} / {:.1} / {:.1}",
                e.offered_5, e.offered_10, e.offered_20
            ),
        ]);
    }
    table::align_right(&mut cov, 1..4);
    table::print(&cov)?;
    if !report.coverage_curve.is_empty() {
        let mut out = table::new(["K", "top-K coverage", "expanded coverage", "tools offered"]);
        for p in &report.coverage_curve {
            out.add_row(vec![
                p.k.to_string(),
                format!("{:.1}", p.plain),
                p.expanded
                    .map_or_else(|| "-".to_owned(), |e| format!("{e:.1}")),
                format!("{:.1}", p.offered),
            ]);
        }
        table::align_right(&mut out, 0..4);
        table::print(&out)?;
    }
    for miss in report.misses.iter().flatten() {
        let missing: Vec<String> = miss
            .missing
            .iter()
            .map(|m| match m.rank {
                Some(r) => format!("{} (rank {r})", m.api),
                None => format!("{} (not ranked)", m.api),
            })
            .collect();
        printer::line(format!(
            "missed: {}\n  missing: {}\n  added: {}",
            miss.query,
            missing.join(", "),
            miss.added.join("; ")
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Dimensions of the random vectors the dense kernel is timed on (MiniLM's).
const SPEED_DIMS: usize = 384;

/// p50 and p99 of one method at one size, in microseconds.
#[derive(Clone, Copy, Debug, Serialize)]
struct Latency {
    p50_us: f64,
    p99_us: f64,
}

#[derive(Debug, Serialize)]
struct SpeedRow {
    apis: usize,
    /// Whether the catalog was padded with synthetic APIs (empty docs) beyond ToolEnv2404's.
    synthetic: bool,
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
    /// Exact f32 brute force in its simplest form (plain loop dot product, full sort), timed
    /// in the same run as the dense index.
    baseline: Latency,
    /// Baseline p50 over dense p50: how many times faster the dense index is.
    speedup: f64,
    hybrid: Latency,
}

/// One dense backend at one size.
#[derive(Debug, Serialize)]
struct BackendRow {
    apis: usize,
    synthetic: bool,
    /// `exact f32`, `int8+rescore` or `hnsw`.
    backend: &'static str,
    /// Time to make it from the f32 vectors (normalizing, quantizing, building the graph).
    build_ms: f64,
    /// Heap bytes of what it holds (f32 matrix; + int8 codes; + the graph and its copy of
    /// the vectors, estimated).
    mib: f64,
    /// Heap bytes it scans per query (`None` for the graph walk: it reads the rows it visits).
    scanned_mib: Option<f64>,
    /// Growth of the process's resident memory while it was built (measured, unlike `mib`).
    rss_growth_mib: Option<f64>,
    /// Why the row has no measurement (a build projected past `--max-build-secs`).
    skipped: Option<String>,
    latency: Latency,
    /// Share of the exact top 10 it returns.
    recall_at_10: f64,
    /// The brute-force baseline's p50 over this backend's p50.
    speedup: f64,
}

/// A corpus of `size` APIs: ToolEnv2404's first ones, padded with synthetic APIs (empty
/// docs, 1,000 to a tool) beyond its size.
fn sized_corpus(full: &Corpus, size: usize) -> anyhow::Result<Corpus> {
    if size <= full.len() {
        return Ok(full.prefix(size));
    }
    let mut docs: Vec<CorpusDoc> = full.docs().to_vec();
    for i in full.len()..size {
        let tool = format!("synthetic{}", i / 1_000);
        docs.push(CorpusDoc {
            api: format!("{tool}/api{i}")
                .parse()
                .with_context(|| format!("synthetic API id {tool}/api{i}"))?,
            tool: tool
                .parse()
                .with_context(|| format!("synthetic tool id {tool}"))?,
            category: "synthetic".to_owned(),
            fields: Default::default(),
        });
    }
    Ok(Corpus::from_docs(docs))
}

/// The simplest exact dense search, the baseline `bench search-speed` prints beside the dense
/// index: a plain loop dot product with every row and a full sort.
fn brute_force(matrix: &[f32], dims: usize, query: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut scored: Vec<(u32, f32)> = Vec::with_capacity(matrix.len() / dims.max(1));
    for (i, row) in matrix.chunks_exact(dims.max(1)).enumerate() {
        let mut s = 0.0f32;
        for (a, b) in row.iter().zip(query) {
            s += a * b;
        }
        scored.push((u32::try_from(i).unwrap_or(u32::MAX), s));
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(k);
    scored
}

fn latency(mut samples: Vec<Duration>) -> Latency {
    samples.sort_unstable();
    let at = |q: f64| {
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
        let unit = bits as f32 / (1u64 << 24) as f32;
        unit * 2.0 - 1.0
    }

    fn vector(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.next()).collect()
    }
}

/// Runs `bench search-speed`.
pub(super) fn speed(ctx: &Context, args: &SpeedArgs) -> anyhow::Result<ExitCode> {
    let data = args.data.path();
    let progress = *ctx.progress();
    let started = Instant::now();
    let mut store = Store::in_memory()?;
    benchmarks::import_all(&mut store, &[data.join(TOOLENV2404)], progress)?;
    let full = retrieval::corpus(&store, &DocSelector::Active)?;
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
    let config = ctx.config()?;
    let hybrid = config.retrieve.hybrid;
    let configured_vectors = config.retrieve.dense.vectors;
    let hnsw_settings = DenseSettings {
        backend: DenseBackend::Hnsw,
        ..config.retrieve.dense
    };
    let max_build = Duration::from_secs(args.max_build_secs);
    let model = if args.embed_queries || args.embed_docs.is_some() {
        let spinner = progress.spinner("loading the local embedding model");
        let model = LocalEmbedder::load_default();
        spinner.finish_and_clear();
        Some(model.context("loading the local embedding model")?)
    } else {
        None
    };
    let rt = ctx.runtime()?;
    let docs_per_second = match (&model, args.embed_docs) {
        (Some(model), Some(n)) => {
            let spinner = progress.spinner(format!("embedding {n} API docs"));
            let rate = doc_embedding_rate(&rt, model, &full, n);
            spinner.finish_and_clear();
            Some(rate?)
        }
        _ => None,
    };
    let mut rows = Vec::new();
    let mut backends: Vec<BackendRow> = Vec::new();
    for &size in &args.sizes {
        let synthetic = size > full.len();
        let corpus = Arc::new(sized_corpus(&full, size)?);
        let bar = progress.bar(n, format!("{} APIs: building", corpus.len()));
        let t = Instant::now();
        let bm25 = Bm25Index::build(corpus.clone(), Bm25Settings::default());
        let bm25_build = t.elapsed();
        let rows_needed = corpus.len() * SPEED_DIMS;
        let raw = rng.vector(rows_needed);
        let t = Instant::now();
        // The exact f32 scan at every size (`auto` would walk a graph from `hnsw_from` on).
        let search = DenseSettings {
            backend: DenseBackend::Exact,
            vectors: VectorFormat::F32,
            ..DenseSettings::default()
        };
        let dense = DenseIndex::from_vectors(corpus.clone(), "random-unit", SPEED_DIMS, raw)?
            .with_search_settings(search);
        let dense_load = t.elapsed();
        let t = Instant::now();
        let int8 = dense.clone().with_search_settings(DenseSettings {
            vectors: VectorFormat::Int8,
            ..search
        });
        int8.warm()?;
        let int8_build = t.elapsed();
        // Hybrid search fuses BM25 with the dense scan as configured (int8 by default).
        let configured = match configured_vectors {
            VectorFormat::Int8 => int8.clone(),
            VectorFormat::F32 => dense.clone(),
        };
        let (hnsw, hnsw_build, hnsw_rss) = hnsw_index(&dense, hnsw_settings, max_build, progress)?;
        bar.set_message(format!("{} APIs: queries", corpus.len()));
        let (mut lb, mut ld, mut lh, mut lx) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut l8 = Vec::new();
        let mut found8 = 0usize;
        let (mut lg, mut found_graph) = (Vec::new(), 0usize);
        let mut checksum = 0usize;
        let mut disagree = 0usize;
        let ids = |s: &[(u32, f32)]| s.iter().map(|h| h.0).collect::<Vec<_>>();
        // One pass over the queries per method, as a server answering with one index would
        // run (and as the NumPy baseline loops): interleaving the methods per query would
        // time each against caches the others just filled with their own data.
        let mut exact_top: Vec<Vec<u32>> = Vec::with_capacity(n);
        for q in &texts {
            let t = Instant::now();
            checksum += bm25.scores(q, 10, &none).len();
            lb.push(t.elapsed());
        }
        for v in &vectors {
            let t = Instant::now();
            let fast = dense.scores(v, 10, &none)?;
            ld.push(t.elapsed());
            checksum += fast.len();
            exact_top.push(ids(&fast));
        }
        for (v, want) in vectors.iter().zip(&exact_top) {
            let t = Instant::now();
            let approx = int8.scores(v, 10, &none)?;
            l8.push(t.elapsed());
            found8 += approx.iter().filter(|h| want.contains(&h.0)).count();
        }
        if let Ok(graph) = &hnsw {
            for (v, want) in vectors.iter().zip(&exact_top) {
                let t = Instant::now();
                let approx = graph.scores(v, 10, &none)?;
                lg.push(t.elapsed());
                found_graph += approx.iter().filter(|h| want.contains(&h.0)).count();
            }
        }
        for (v, want) in vectors.iter().zip(&exact_top) {
            let t = Instant::now();
            let exact = brute_force(dense.matrix(), SPEED_DIMS, v, 10);
            lx.push(t.elapsed());
            disagree += usize::from(*want != ids(&exact));
        }
        for (q, v) in texts.iter().zip(&vectors) {
            let t = Instant::now();
            checksum += fused_scores(&bm25, &configured, hybrid, (q, v), 10, &none)?.len();
            lh.push(t.elapsed());
            bar.inc(1);
        }
        bar.finish_and_clear();
        anyhow::ensure!(
            checksum > 0,
            "no results at all: the measurement timed nothing"
        );
        anyhow::ensure!(
            disagree == 0,
            "the dense index and the brute-force baseline ranked {disagree} of {n} queries \
             differently at {} APIs",
            corpus.len()
        );
        let (dense_latency, baseline) = (latency(ld), latency(lx));
        let wanted = (n * 10).max(1) as f64;
        let mut row = |backend: &'static str,
                       build: Duration,
                       mib: f64,
                       scanned_mib: Option<f64>,
                       lat: Latency,
                       found: usize| {
            backends.push(BackendRow {
                apis: corpus.len(),
                synthetic,
                backend,
                build_ms: build.as_secs_f64() * 1e3,
                mib,
                scanned_mib,
                rss_growth_mib: None,
                skipped: None,
                speedup: baseline.p50_us / lat.p50_us.max(1e-3),
                latency: lat,
                recall_at_10: found as f64 / wanted,
            });
        };
        let f32_mib = dense.heap_bytes() as f64 / MIB;
        let matrix_mib = size_of_val(dense.matrix()) as f64 / MIB;
        let int8_mib = int8.heap_bytes() as f64 / MIB;
        row(
            "exact f32",
            dense_load,
            f32_mib,
            Some(matrix_mib),
            dense_latency,
            n * 10,
        );
        row(
            "int8+rescore",
            int8_build,
            int8_mib,
            Some(int8_mib - f32_mib),
            latency(l8),
            found8,
        );
        match &hnsw {
            Ok(graph) => {
                let mib = graph.heap_bytes() as f64 / MIB;
                row("hnsw", hnsw_build, mib, None, latency(lg), found_graph);
                if let Some(last) = backends.last_mut() {
                    last.rss_growth_mib = hnsw_rss;
                }
            }
            Err(why) => backends.push(BackendRow {
                apis: corpus.len(),
                synthetic,
                backend: "hnsw",
                build_ms: hnsw_build.as_secs_f64() * 1e3,
                mib: 0.0,
                scanned_mib: None,
                rss_growth_mib: None,
                skipped: Some(why.clone()),
                latency: Latency {
                    p50_us: 0.0,
                    p99_us: 0.0,
                },
                recall_at_10: 0.0,
                speedup: 0.0,
            }),
        }
        rows.push(SpeedRow {
            apis: corpus.len(),
            synthetic,
            bm25_build_ms: bm25_build.as_secs_f64() * 1e3,
            bm25_terms: bm25.vocabulary(),
            bm25_mib: bm25.heap_bytes() as f64 / MIB,
            dense_load_ms: dense_load.as_secs_f64() * 1e3,
            dense_mib: f32_mib,
            dense_embed_s: docs_per_second.map(|rate| corpus.len() as f64 / rate),
            rss_mib: memory_kib("VmRSS").map(|k| k / 1024.0),
            bm25: latency(lb),
            speedup: baseline.p50_us / dense_latency.p50_us.max(1e-3),
            dense: dense_latency,
            baseline,
            hybrid: latency(lh),
        });
    }
    let embed = match &model {
        Some(model) if args.embed_queries => {
            let bar = progress.bar(texts.len().min(QUERY_EMBEDDINGS), "embedding queries");
            let latency = query_embedding_latency(&rt, model, &texts, &bar);
            bar.finish_and_clear();
            Some(latency?)
        }
        _ => None,
    };
    if args.json.json {
        printer::json(&serde_json::json!({
            "rows": rows,
            "backends": backends,
            "query_embedding": embed,
            "doc_embeddings_per_second": docs_per_second,
            "queries": n,
            "peak_rss_mib": memory_kib("VmHWM").map(|k| k / 1024.0),
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    printer::line(format!(
        "{n} queries per cell; dense = random unit vectors, {SPEED_DIMS} dims; latency in ms (p50 / p99); \
         brute force = plain loop dot product and full sort, same run (exact, same top 10); \
         speedup = its p50 over dense p50; {} build",
        if cfg!(debug_assertions) {
            "DEBUG"
        } else {
            "release"
        }
    ))?;
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
    let ms = |l: &Latency| format!("{:.2} / {:.2}", l.p50_us / 1e3, l.p99_us / 1e3);
    let apis = |n: usize, synthetic: bool| {
        if synthetic {
            format!("{n}*")
        } else {
            n.to_string()
        }
    };
    for r in &rows {
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
    table::print(&out)?;
    let graph = hnsw_settings.hnsw;
    printer::line(format!(
        "dense backends, same queries (recall@10 = share of the exact f32 top 10 found; \
         speedup = brute force p50 over the backend's p50; int8 rescores {}x k in f32; \
         hnsw: M {}, ef_construction {}, ef_search {}, rebuilt on every load; \
         MiB = held (hnsw: estimated; RSS+ = measured growth while building), \
         scanned = read per query):",
        DenseSettings::default().rescore,
        graph.m,
        graph.ef_construction,
        graph.ef_search,
    ))?;
    let mut table_b = table::new([
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
    for b in &backends {
        if let Some(why) = &b.skipped {
            let mut cells = vec![apis(b.apis, b.synthetic), b.backend.to_owned()];
            cells.push(why.clone());
            cells.resize(10, "-".to_owned());
            table_b.add_row(cells);
            continue;
        }
        let base = rows
            .iter()
            .find(|r| r.apis == b.apis)
            .map_or("-".to_owned(), |r| {
                format!("{:.2}", r.baseline.p50_us / 1e3)
            });
        table_b.add_row(vec![
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
        ]);
    }
    table::align_right(&mut table_b, 0..10);
    table::print(&table_b)?;
    if rows.iter().any(|r| r.synthetic) {
        printer::line(format!(
            "* synthetic: ToolEnv2404 has {} APIs; larger sizes add APIs with empty docs \
             (their BM25 and hybrid figures time mostly empty documents)",
            full.len()
        ))?;
    }
    if let Some(rate) = docs_per_second {
        printer::line(format!(
            "MiniLM document embedding: {rate:.0} API docs per second (batched)"
        ))?;
    }
    if let Some(peak) = memory_kib("VmHWM") {
        printer::line(format!("peak resident memory: {:.0} MiB", peak / 1024.0))?;
    }
    if let Some(l) = embed {
        printer::line(format!(
            "MiniLM query embedding (one query, uncached): {}",
            ms(&l)
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}

const MIB: f64 = 1024.0 * 1024.0;

/// `dense` searched through an HNSW graph built now with a progress bar, its build time and
/// the growth of resident memory meanwhile; `Err(why)` instead when the build, projected from
/// the batches done, would take longer than `max_build` (it is stopped there).
#[allow(clippy::type_complexity)]
fn hnsw_index(
    dense: &DenseIndex,
    settings: DenseSettings,
    max_build: Duration,
    progress: crate::progress::Progress,
) -> anyhow::Result<(Result<DenseIndex, String>, Duration, Option<f64>)> {
    let graph = dense.clone().with_search_settings(settings);
    let rss = memory_kib("VmRSS");
    let bar = progress.bar(
        dense.corpus().len(),
        format!("{} APIs: HNSW graph", dense.corpus().len()),
    );
    let t = Instant::now();
    let mut projected = Duration::ZERO;
    let built = graph.warm_with_progress(&mut |done, total| {
        bar.set_position(done as u64);
        // Insertion slows as the graph grows (about log n), so a linear projection is a
        // lower bound.
        projected = t.elapsed().mul_f64(total as f64 / done.max(1) as f64);
        if done < total && projected > max_build {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    bar.finish_and_clear();
    let took = t.elapsed();
    if !built {
        return Ok((
            Err(format!(
                "build stopped: would take at least {:.0}s (> --max-build-secs {})",
                projected.as_secs_f64(),
                max_build.as_secs()
            )),
            took,
            None,
        ));
    }
    let growth = rss
        .zip(memory_kib("VmRSS"))
        .map(|(before, after)| (after - before) / 1024.0);
    Ok((Ok(graph), took, growth))
}

/// A `/proc/self/status` memory line in KiB (`VmRSS`, `VmHWM`); `None` off Linux.
fn memory_kib(key: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// API docs embedded per second by the local MiniLM, over the first `n` docs of `corpus` with
/// the dense index's text fields, batched as an index build does.
fn doc_embedding_rate(
    rt: &tokio::runtime::Runtime,
    model: &LocalEmbedder,
    corpus: &Corpus,
    n: usize,
) -> anyhow::Result<f64> {
    let settings = DenseSettings::default();
    let texts: Vec<String> = corpus
        .docs()
        .iter()
        .take(n.max(1))
        .map(|d| settings.embedded_text(d))
        .collect();
    let t = Instant::now();
    let vectors = rt.block_on(model.embed(&texts))?;
    let secs = t.elapsed().as_secs_f64();
    anyhow::ensure!(
        vectors.len() == texts.len(),
        "the model returned {} vectors for {} texts",
        vectors.len(),
        texts.len()
    );
    Ok(texts.len() as f64 / secs.max(1e-9))
}

/// Queries embedded one by one to time the query embedding.
const QUERY_EMBEDDINGS: usize = 100;

fn query_embedding_latency(
    rt: &tokio::runtime::Runtime,
    model: &LocalEmbedder,
    texts: &[&String],
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<Latency> {
    let mut samples = Vec::new();
    for q in texts.iter().take(QUERY_EMBEDDINGS) {
        let one = [(*q).clone()];
        let t = Instant::now();
        let v = rt.block_on(model.embed(&one))?;
        samples.push(t.elapsed());
        bar.inc(1);
        anyhow::ensure!(v.len() == 1, "the model returned no vector");
    }
    Ok(latency(samples))
}
