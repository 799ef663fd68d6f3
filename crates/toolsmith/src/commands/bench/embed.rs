//! `toolsmith bench embed`: the local MiniLM's speed, measured repeatably. Queries
//! (StableToolBench's G1 and G2) are embedded one at a time, as a search does (p50/p99); a
//! sample of ToolEnv2404's API docs spread over the whole catalog is embedded in one call, as
//! `toolsmith index` does (docs/s, and the projected time of all 46,802). `--reference` runs
//! candle's BERT (the path before the packed encoder) on the same texts, for a before/after in
//! one run, and reports the lowest cosine between the two paths' vectors.

use std::fmt;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde::Serialize;
use toolsmith_catalog::{DocSelector, Store};
use toolsmith_eval::{Benchmark, TOOLENV2404};
use toolsmith_llm::{LocalEmbedder, cosine};
use toolsmith_plumbing::measure::{load_average, quantile};
use toolsmith_retrieve::DenseSettings;

use crate::cli::BenchEmbedArgs;
use crate::context::Context;
use crate::{benchmarks, printer, retrieval, table};

/// One path's figures.
#[derive(Debug, Serialize)]
struct PathReport {
    path: &'static str,
    query_p50_ms: f64,
    query_p99_ms: f64,
    docs_per_second: Option<f64>,
    catalog_minutes: Option<f64>,
}

/// `bench embed --json`.
#[derive(Debug, Serialize)]
struct Report {
    threads: usize,
    batch: Option<usize>,
    queries: usize,
    query_tokens_mean: f64,
    docs: usize,
    catalog_apis: usize,
    /// The 1-minute load average when the run ended (the machine may be shared).
    load_average: Option<f64>,
    paths: Vec<PathReport>,
    /// The lowest cosine between the fast and reference vectors of the same text.
    min_cosine_vs_reference: Option<f32>,
}

/// The `q` quantile of the samples, in milliseconds.
fn percentile_ms(samples: &mut [Duration], q: f64) -> f64 {
    samples.sort_unstable();
    quantile(samples, q).as_secs_f64() * 1e3
}

type EmbedFn<'a> = dyn Fn(&[String]) -> toolsmith_llm::Result<Vec<Vec<f32>>> + 'a;

/// Times `embed` on each query alone and on the docs in one call; returns the report and the
/// vectors (queries, then docs) for the cross-check.
fn measure(
    path: &'static str,
    embed: &EmbedFn<'_>,
    queries: &[String],
    docs: &[String],
    catalog_apis: usize,
) -> anyhow::Result<(PathReport, Vec<Vec<f32>>)> {
    let mut vectors = Vec::with_capacity(queries.len() + docs.len());
    // Warm-up: thread pools, scratch buffers, caches.
    if let Some(q) = queries.first() {
        embed(std::slice::from_ref(q))?;
    }
    let mut samples = Vec::with_capacity(queries.len());
    for q in queries {
        let t = Instant::now();
        let mut v = embed(std::slice::from_ref(q))?;
        samples.push(t.elapsed());
        anyhow::ensure!(v.len() == 1, "{path}: no vector for a query");
        vectors.append(&mut v);
    }
    let (docs_per_second, catalog_minutes) = if docs.is_empty() {
        (None, None)
    } else {
        let t = Instant::now();
        let mut v = embed(docs)?;
        let secs = t.elapsed().as_secs_f64().max(1e-9);
        anyhow::ensure!(
            v.len() == docs.len(),
            "{path}: {} vectors for {} docs",
            v.len(),
            docs.len()
        );
        vectors.append(&mut v);
        let rate = docs.len() as f64 / secs;
        (Some(rate), Some(catalog_apis as f64 / rate / 60.0))
    };
    let report = PathReport {
        path,
        query_p50_ms: percentile_ms(&mut samples, 0.5),
        query_p99_ms: percentile_ms(&mut samples, 0.99),
        docs_per_second,
        catalog_minutes,
    };
    Ok((report, vectors))
}

/// Runs `bench embed`.
pub(crate) fn run(ctx: &Context, args: &BenchEmbedArgs) -> anyhow::Result<ExitCode> {
    let data = args.data.path();
    let mut queries: Vec<String> = Vec::new();
    for b in [Benchmark::ToolbenchG1, Benchmark::ToolbenchG2] {
        queries.extend(b.load(&data)?.queries.into_iter().map(|q| q.text));
    }
    anyhow::ensure!(!queries.is_empty(), "no queries under {}", data.display());
    let queries: Vec<String> = queries.iter().cycle().take(args.queries).cloned().collect();
    let (docs, catalog_apis) = doc_sample(ctx, args)?;
    let model = load_model(ctx, args)?;
    let report = measure_paths(ctx, args, &model, &queries, &docs, catalog_apis)?;
    printer::report(&report, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Every k-th API doc of ToolEnv2404, `--docs` of them (a sample with the catalog's mix of
/// short and long docs), as the dense index embeds them; and the catalog's size.
fn doc_sample(ctx: &Context, args: &BenchEmbedArgs) -> anyhow::Result<(Vec<String>, usize)> {
    if args.docs == 0 {
        return Ok((Vec::new(), 0));
    }
    let mut store = Store::in_memory()?;
    benchmarks::import_all(
        &mut store,
        &[args.data.path().join(TOOLENV2404)],
        *ctx.progress(),
    )?;
    // Docs as imported, embedded with the default fields: no source field to read.
    let corpus = retrieval::corpus(&store, &DocSelector::Active, retrieval::SourceField::Skip)?;
    let settings = DenseSettings::default();
    let all = corpus.docs();
    let step = (all.len() / args.docs.max(1)).max(1);
    let docs: Vec<String> = all
        .iter()
        .step_by(step)
        .take(args.docs)
        .map(|d| settings.embedded_text(d))
        .collect();
    Ok((docs, all.len()))
}

/// The local MiniLM with `--threads` and `--batch`.
fn load_model(ctx: &Context, args: &BenchEmbedArgs) -> anyhow::Result<LocalEmbedder> {
    let spinner = ctx.progress().spinner("loading the local embedding model");
    let mut model = LocalEmbedder::load_default().context("loading the local embedding model");
    spinner.finish_and_clear();
    if let Some(threads) = args.threads {
        model = model.and_then(|m| Ok(m.with_threads(threads)?));
    }
    if let Some(batch) = args.batch {
        model = model.map(|m| m.with_batch_size(batch));
    }
    model
}

/// Times the packed encoder, and with `--reference` candle's BERT on the same texts.
fn measure_paths(
    ctx: &Context,
    args: &BenchEmbedArgs,
    model: &LocalEmbedder,
    queries: &[String],
    docs: &[String],
    catalog_apis: usize,
) -> anyhow::Result<Report> {
    let progress = *ctx.progress();
    let query_tokens_mean =
        model.token_counts(queries)?.iter().sum::<usize>() as f64 / queries.len().max(1) as f64;
    let spinner = progress.spinner("timing the packed encoder");
    let fast = measure(
        "packed",
        &|t| model.embed_blocking(t),
        queries,
        docs,
        catalog_apis,
    );
    spinner.finish_and_clear();
    let (fast, fast_vectors) = fast?;
    let mut paths = vec![fast];
    let mut min_cosine = None;
    if args.reference {
        let spinner = progress.spinner("timing candle's BERT (the reference)");
        let reference = measure(
            "reference (candle)",
            &|t| model.embed_reference_blocking(t),
            queries,
            docs,
            catalog_apis,
        );
        spinner.finish_and_clear();
        let (reference, reference_vectors) = reference?;
        paths.push(reference);
        min_cosine = fast_vectors
            .iter()
            .zip(&reference_vectors)
            .map(|(a, b)| cosine(a, b))
            .reduce(f32::min);
    }
    Ok(Report {
        threads: model.threads(),
        batch: args.batch,
        queries: queries.len(),
        query_tokens_mean,
        docs: docs.len(),
        catalog_apis,
        load_average: load_average(),
        paths,
        min_cosine_vs_reference: min_cosine,
    })
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut t = table::new([
            "path",
            "query p50 ms",
            "query p99 ms",
            "docs/s",
            "all APIs (min)",
        ]);
        for p in &self.paths {
            let opt = |v: Option<f64>, digits: usize| {
                v.map_or_else(|| "-".to_owned(), |v| format!("{v:.digits$}"))
            };
            t.add_row(vec![
                p.path.to_owned(),
                format!("{:.2}", p.query_p50_ms),
                format!("{:.2}", p.query_p99_ms),
                opt(p.docs_per_second, 1),
                opt(p.catalog_minutes, 1),
            ]);
        }
        table::align_right(&mut t, 1..5);
        writeln!(f, "{}", t.trim_fmt())?;
        write!(
            f,
            "{} queries ({:.1} word pieces on average), {} docs of {} APIs, {} threads, load average {}",
            self.queries,
            self.query_tokens_mean,
            self.docs,
            self.catalog_apis,
            self.threads,
            self.load_average
                .map_or_else(|| "unknown".to_owned(), |l| format!("{l:.2}"))
        )?;
        if let Some(c) = self.min_cosine_vs_reference {
            write!(f, "\nlowest cosine, packed vs reference: {c:.6}")?;
        }
        Ok(())
    }
}
