//! `bench run`, `bench list`, `bench show` and `bench compare`: solver benchmarks through
//! eval's harness, stored in eval's tables of the catalog database.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context as _, bail};
use indicatif::ProgressBar;
use serde::Serialize;
use toolsmith_catalog::{DocSelector, Scope};
use toolsmith_eval::{
    BenchObserver, BenchRun, BenchSpec, BenchStore, Benchmark, Comparison, Harness, QueryScores,
    RunId, RunSummary, ToolsOffered,
};
use toolsmith_exec::ApiBook;
use toolsmith_solve::{AgentSettings, RenderOptions, Runtime, Tracer};

use crate::cli::{BenchCompareArgs, BenchRunArgs, BenchShowArgs};
use crate::context::Context;
use crate::progress::Progress;
use crate::{agents, benchmarks, executor, printer, retrieval, table};

/// What `bench run --json` prints.
#[derive(Debug, Serialize)]
struct RunReport<'a> {
    run: RunId,
    name: &'a str,
    spec: &'a BenchSpec,
    /// Queries of the dataset left out because a gold API did not resolve in the catalog.
    skipped: usize,
    summary: &'a RunSummary,
}

/// A stored run with its summary (`bench list --json`, `bench show RUN --json`).
#[derive(Debug, Serialize)]
struct RunWithSummary {
    #[serde(flatten)]
    run: BenchRun,
    summary: RunSummary,
}

/// `bench show RUN --json`: the run, its summary and each query's scores.
#[derive(Debug, Serialize)]
struct RunDetail {
    #[serde(flatten)]
    run: RunWithSummary,
    queries: Vec<QueryRow>,
}

#[derive(Debug, Serialize)]
struct QueryRow {
    query_id: String,
    scores: QueryScores,
}

/// The spec of a new run from the flags, or the stored spec of `--resume` (a new `--limit`
/// and `--concurrency` apply).
fn spec(store: &BenchStore, args: &BenchRunArgs) -> anyhow::Result<(Option<RunId>, BenchSpec)> {
    if let Some(id) = args.resume {
        let id = RunId(id);
        let mut spec = store.run(id)?.spec;
        spec.limit = args.limit.or(spec.limit);
        spec.concurrency = args.concurrency;
        store.update_spec(id, &spec)?;
        return Ok((Some(id), spec));
    }
    let Some(dataset) = &args.dataset else {
        bail!("say which dataset to run: --dataset NAME|PATH (or --resume RUN)");
    };
    let benchmark = Benchmark::parse(dataset)?;
    let mut spec = BenchSpec::new(&benchmark, args.solver.into());
    spec.catalog.clone_from(&args.catalog);
    spec.doc_version.clone_from(&args.docs.doc_version);
    if let Some(tools) = args.tools {
        spec.tools = tools;
    }
    if let Some(mode) = args.mode {
        spec.mode = mode.into();
    }
    spec.limit = args.limit;
    spec.concurrency = args.concurrency;
    spec.seed = args.seed;
    if let Some(name) = &args.name {
        spec.name.clone_from(name);
    }
    Ok((None, spec))
}

/// Runs `bench run`: exit 0 when the run is complete.
pub(super) fn run(ctx: &Context, args: &BenchRunArgs) -> anyhow::Result<ExitCode> {
    let bench = BenchStore::open(ctx.db())
        .with_context(|| format!("opening the benchmark tables in {}", ctx.db().display()))?;
    let (resumed, mut spec) = spec(&bench, args)?;
    let benchmark = spec.benchmark()?;
    let data = args.data.path();
    let store = benchmarks::spec_catalog(ctx, &spec, &benchmark, &data)?;
    let dataset = benchmark.load(&data)?;
    let resolution = dataset.resolve(&store)?;
    if resolution.skipped > 0 {
        printer::note(format!(
            "{} of {} queries left out: a gold API is not in the catalog",
            resolution.skipped,
            dataset.len()
        ));
    }
    // A query file without candidate lists (RestGPT's format) offers the whole catalog.
    let no_candidates = resolution.queries.iter().all(|q| q.candidates.is_empty());
    if resumed.is_none()
        && args.tools.is_none()
        && spec.tools == ToolsOffered::Candidates
        && no_candidates
    {
        spec.tools = ToolsOffered::All;
    }
    let selector = spec
        .doc_version
        .clone()
        .map_or(DocSelector::Active, DocSelector::Label);
    let book = Arc::new(ApiBook::from_catalog(
        &store.catalog(&selector, &Scope::default())?,
    ));
    let rt = ctx.runtime()?;
    let retriever = match spec.tools {
        ToolsOffered::Retrieve(_) | ToolsOffered::SearchTool => {
            let corpus = retrieval::corpus(&store, &selector)?;
            let method = ctx.config()?.retrieve.method(None);
            Some(rt.block_on(retrieval::retriever(ctx, method, corpus))?)
        }
        ToolsOffered::Candidates | ToolsOffered::All => None,
    };
    let runtime = Runtime {
        llm: agents::llm(ctx, &args.llm)?,
        executor: executor::build(ctx, Arc::clone(&book), spec.mode, args.llm.cache.into())?,
        retriever,
        book,
        settings: AgentSettings {
            seed: Some(spec.seed),
            ..AgentSettings::default()
        },
        tracer: Tracer::new(),
    };
    let harness = Harness::new(runtime, agents::solvers(spec.solver.into())?)
        .with_render(RenderOptions::default())
        .with_query_budget(agents::budget(&args.llm));
    let id = match resumed {
        Some(id) => id,
        None => bench.create_run(&spec)?,
    };
    printer::note(format!("bench run {id} ({})", spec.name));
    let bar = Bar::new(*ctx.progress());
    let summary = rt.block_on(harness.run(&bench, id, &spec, &resolution.queries, &bar))?;
    bar.finish();
    if args.json.json {
        printer::json(&RunReport {
            run: id,
            name: &spec.name,
            spec: &spec,
            skipped: resolution.skipped,
            summary: &summary,
        })?;
    } else {
        print_summaries(&[(id, spec.name.clone(), summary)])?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The progress bar of a run: queries done, pass (success) and CP so far, tokens; elapsed and
/// ETA from indicatif.
struct Bar {
    progress: Progress,
    bar: Mutex<Option<ProgressBar>>,
    tally: Mutex<Tally>,
}

#[derive(Default)]
struct Tally {
    done: usize,
    success: usize,
    cp: usize,
    tokens: u64,
}

impl Bar {
    fn new(progress: Progress) -> Self {
        Self {
            progress,
            bar: Mutex::new(None),
            tally: Mutex::new(Tally::default()),
        }
    }

    fn finish(&self) {
        if let Ok(bar) = self.bar.lock()
            && let Some(bar) = bar.as_ref()
        {
            bar.finish_and_clear();
        }
    }
}

impl BenchObserver for Bar {
    fn run_started(&self, total: usize, done: usize) {
        let bar = self.progress.bar(total, "queries");
        bar.set_position(u64::try_from(done).unwrap_or(0));
        bar.enable_steady_tick(Duration::from_millis(500));
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn query_finished(&self, _query_id: &str, scores: &QueryScores) {
        let Ok(mut tally) = self.tally.lock() else {
            return;
        };
        tally.done += 1;
        tally.success += usize::from(scores.success);
        tally.cp += usize::from(scores.correct_path);
        tally.tokens += scores.tokens;
        if let Ok(bar) = self.bar.lock()
            && let Some(bar) = bar.as_ref()
        {
            bar.inc(1);
            bar.set_message(format!(
                "pass {}/{} CP {}/{} {} tokens",
                tally.success, tally.done, tally.cp, tally.done, tally.tokens
            ));
        }
    }
}

fn pct(value: f64) -> String {
    format!("{value:.1}")
}

fn opt(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"))
}

/// One row per run: the summary table `bench run` prints.
fn print_summaries(rows: &[(RunId, String, RunSummary)]) -> anyhow::Result<()> {
    let mut t = table::new([
        "run",
        "name",
        "queries",
        "CP%",
        "path-set%",
        "F1",
        "LCS",
        "success%",
        "coverage%",
        "ΔSL",
        "tokens",
        "LLM calls",
        "tool calls",
    ]);
    for (id, name, s) in rows {
        t.add_row(vec![
            id.to_string(),
            name.clone(),
            s.queries.to_string(),
            pct(s.cp),
            pct(s.path_set),
            format!("{:.3}", s.path_f1),
            format!("{:.3}", s.lcs_rate),
            pct(s.success),
            pct(s.coverage),
            opt(s.delta_solution_length),
            s.tokens.to_string(),
            s.llm_calls.to_string(),
            s.tool_calls.to_string(),
        ]);
    }
    table::align_right(&mut t, [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    table::print(&t)?;
    if let [(_, _, s)] = rows
        && !s.errors.is_empty()
    {
        let kinds: Vec<String> = s
            .errors
            .iter()
            .map(|(kind, n)| format!("{} {n}", kind.as_str()))
            .collect();
        printer::line(format!(
            "error kinds of failed queries: {}",
            kinds.join(", ")
        ))?;
    }
    Ok(())
}

fn open(ctx: &Context) -> anyhow::Result<BenchStore> {
    BenchStore::open(ctx.db())
        .with_context(|| format!("opening the benchmark tables in {}", ctx.db().display()))
}

/// Runs `bench list`.
pub(super) fn list(ctx: &Context, json: bool) -> anyhow::Result<ExitCode> {
    let bench = open(ctx)?;
    let runs = bench
        .runs()?
        .into_iter()
        .map(|run| {
            let summary = bench.summary(run.id)?;
            Ok(RunWithSummary { run, summary })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    if json {
        printer::json(&runs)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut t = table::new([
        "run", "name", "dataset", "solver", "tools", "queries", "CP%", "success%", "finished",
    ]);
    for r in &runs {
        let spec = &r.run.spec;
        t.add_row(vec![
            r.run.id.to_string(),
            r.run.name.clone(),
            table::first_line(&spec.dataset, 40),
            spec.solver.to_string(),
            spec.tools.to_string(),
            r.summary.queries.to_string(),
            pct(r.summary.cp),
            pct(r.summary.success),
            if r.run.finished_ms.is_some() {
                "yes"
            } else {
                "no"
            }
            .to_owned(),
        ]);
    }
    table::align_right(&mut t, [0, 5, 6, 7]);
    table::print(&t)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `bench show RUN [QUERY]`.
pub(super) fn show(ctx: &Context, args: &BenchShowArgs) -> anyhow::Result<ExitCode> {
    let bench = open(ctx)?;
    let id = RunId(args.run);
    let run = bench.run(id)?;
    if let Some(query) = &args.query {
        let Some(result) = bench.result(id, query)? else {
            bail!("run {id} has no result for query `{query}`");
        };
        if args.json.json {
            printer::json(&result)?;
            return Ok(ExitCode::SUCCESS);
        }
        printer::line(format!("query {query}: {}", result.run.query))?;
        for event in &result.run.trace {
            printer::line(toolsmith_solve::render(&event.event))?;
        }
        printer::json(&result.scores)?;
        return Ok(ExitCode::SUCCESS);
    }
    let scores = bench.scores(id)?;
    let summary = RunSummary::of(scores.iter().map(|(_, s)| s));
    if args.json.json {
        printer::json(&RunDetail {
            run: RunWithSummary { run, summary },
            queries: scores
                .into_iter()
                .map(|(query_id, scores)| QueryRow { query_id, scores })
                .collect(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    printer::line(format!(
        "run {id} {}: {} on {}, tools {}, mode {}, seed {}",
        run.name,
        run.spec.solver,
        run.spec.dataset,
        run.spec.tools,
        run.spec.mode.as_str(),
        run.spec.seed
    ))?;
    print_summaries(&[(id, run.name.clone(), summary)])?;
    let mut t = table::new([
        "query", "finish", "CP", "path-set", "F1", "success", "covered", "calls", "tokens",
        "errors",
    ]);
    let yes = |b: bool| if b { "yes" } else { "no" }.to_owned();
    for (query, s) in &scores {
        t.add_row(vec![
            query.clone(),
            s.finish.as_str().to_owned(),
            yes(s.correct_path),
            yes(s.path_set),
            format!("{:.3}", s.path_f1),
            yes(s.success),
            yes(s.offered_covers),
            s.api_calls.to_string(),
            s.tokens.to_string(),
            s.errors
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(","),
        ]);
    }
    table::align_right(&mut t, [4, 7, 8]);
    table::print(&t)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `bench compare RUN...`.
pub(super) fn compare(ctx: &Context, args: &BenchCompareArgs) -> anyhow::Result<ExitCode> {
    let bench = open(ctx)?;
    let runs = args
        .runs
        .iter()
        .map(|id| {
            let run = bench.run(RunId(*id))?;
            Ok((*id, run.name, bench.summary(RunId(*id))?))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let comparison = Comparison::of(&runs);
    if args.json.json {
        printer::json(&comparison)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut header = vec!["run".to_owned(), "name".to_owned(), "queries".to_owned()];
    header.extend(comparison.metrics.iter().map(|m| (*m).to_owned()));
    let mut t = table::new(header);
    for (i, row) in comparison.runs.iter().enumerate() {
        let mut cells = vec![
            row.id.to_string(),
            row.name.clone(),
            row.queries.to_string(),
        ];
        for metric in &comparison.metrics {
            let value = row.values.get(metric).copied().flatten();
            let delta = row.deltas.get(metric).copied().flatten();
            // Counts print whole, scores with two decimals.
            let places = if ["tokens", "llm_calls", "tool_calls"].contains(metric) {
                0
            } else {
                2
            };
            cells.push(match (value, delta) {
                (None, _) => "-".to_owned(),
                (Some(v), Some(d)) if i > 0 => format!("{v:.places$} ({d:+.places$})"),
                (Some(v), _) => format!("{v:.places$}"),
            });
        }
        t.add_row(cells);
    }
    table::align_right(
        &mut t,
        (0..3 + comparison.metrics.len()).filter(|c| *c != 1),
    );
    table::print(&t)?;
    Ok(ExitCode::SUCCESS)
}
