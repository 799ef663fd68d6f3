//! The job of one bench run, shared by `bench run` and each cell of `bench matrix`: load the
//! dataset and its catalog, build the retrieval pipeline (with dependency expansion as the
//! spec says), run or resume the harness with a progress bar, judge when asked, summarize.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context as _;
use indicatif::ProgressBar;
use toolsmith_catalog::{Catalog, DocSelector, Scope, Store};
use toolsmith_eval::{
    BenchObserver, BenchSpec, BenchStore, Benchmark, Expansion, Harness, LlmJudge, PassRates,
    QueryScores, RunId, RunSummary, ToolsOffered, judge_pass_rates,
};
use toolsmith_exec::ApiBook;
use toolsmith_llm::ChatModel;
use toolsmith_solve::{AgentSettings, RenderOptions, Runtime, Tracer};

use crate::cli::LlmArgs;
use crate::context::Context;
use crate::progress::Progress;
use crate::{agents, benchmarks, executor, printer, retrieval};

/// The benchmark tables of the catalog database.
pub(crate) fn open(ctx: &Context) -> anyhow::Result<BenchStore> {
    BenchStore::open(ctx.db())
        .with_context(|| format!("opening the benchmark tables in {}", ctx.db().display()))
}

/// The stored spec of run `id`, with a new `--limit` (when given) and `--concurrency`.
pub(crate) fn resumed_spec(
    store: &BenchStore,
    id: RunId,
    limit: Option<usize>,
    concurrency: usize,
) -> anyhow::Result<BenchSpec> {
    let mut spec = store.run(id)?.spec;
    spec.limit = limit.or(spec.limit);
    spec.concurrency = concurrency;
    store.update_spec(id, &spec)?;
    Ok(spec)
}

/// Whether a run is judged after it ran.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Judging {
    /// Not judged (judged rates stored earlier are still reported).
    No,
    /// Judged this many times (`None`: `[judge] runs`, else 1).
    Runs(Option<usize>),
}

impl From<crate::cli::JudgeArg> for Judging {
    fn from(arg: crate::cli::JudgeArg) -> Self {
        if arg.judge || arg.judge_runs.is_some() {
            Self::Runs(arg.judge_runs)
        } else {
            Self::No
        }
    }
}

/// One bench run to carry out: what `bench run` does, and each cell of `bench matrix`.
pub(crate) struct Job<'a> {
    /// The stored run to resume; `None` for a new one.
    pub(crate) resumed: Option<RunId>,
    /// What to run.
    pub(crate) spec: BenchSpec,
    /// Whether the tools offered were chosen; if not, a new run over a dataset without
    /// candidate lists offers the whole catalog.
    pub(crate) tools_chosen: bool,
    /// Where the benchmark data is.
    pub(crate) data: PathBuf,
    /// The model and its per-query limits.
    pub(crate) llm: &'a LlmArgs,
    /// `--allow-write` values.
    pub(crate) allow_write: &'a [String],
    /// Whether to judge it.
    pub(crate) judging: Judging,
    /// `--intents`/`--no-intents` (`None`: `[retrieve.intents]`).
    pub(crate) intents: Option<bool>,
    /// `--rerank`/`--no-rerank` (`None`: `[retrieve.rerank]`).
    pub(crate) rerank: Option<bool>,
    /// The reranking settings the run began with (`None`: `[retrieve.rerank]`).
    pub(crate) rerank_settings: Option<toolsmith_retrieve::RerankSettings>,
}

/// A finished (or resumed and finished) run.
pub(crate) struct Outcome {
    pub(crate) id: RunId,
    pub(crate) spec: BenchSpec,
    /// Queries left out because a gold API did not resolve in the catalog.
    pub(crate) skipped: usize,
    pub(crate) summary: RunSummary,
    pub(crate) judged: Option<PassRates>,
}

/// The dataset and catalog a run reads.
pub(crate) struct Loaded {
    queries: Vec<toolsmith_eval::ResolvedQuery>,
    skipped: usize,
    pub(crate) store: Store,
    catalog: Catalog,
    selector: DocSelector,
    /// The dataset is scored by its answers (FuncQA).
    funcqa: bool,
    benchmark: Benchmark,
}

/// Loads the dataset and the catalog of `spec`, offering every API to a new run whose
/// dataset has no candidate lists and whose tools were not chosen.
pub(crate) fn load(ctx: &Context, job: &mut Job<'_>) -> anyhow::Result<Loaded> {
    let spec = &mut job.spec;
    let benchmark = spec.benchmark()?;
    let dataset = benchmarks::load_dataset(ctx, &benchmark, &job.data)?;
    let funcqa = !dataset.queries.is_empty() && dataset.queries.iter().all(|q| q.answer.is_some());
    let store = benchmarks::spec_catalog(ctx, spec, &benchmark, &job.data, funcqa)?;
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
    if job.resumed.is_none()
        && !job.tools_chosen
        && spec.tools == ToolsOffered::Candidates
        && no_candidates
    {
        spec.tools = ToolsOffered::All;
    }
    let selector = spec
        .doc_version
        .clone()
        .map_or(DocSelector::Active, DocSelector::Label);
    let catalog = store.catalog(&selector, &Scope::default())?;
    Ok(Loaded {
        queries: resolution.queries,
        skipped: resolution.skipped,
        store,
        catalog,
        selector,
        funcqa,
        benchmark,
    })
}

/// The retrieval pipeline of a run that retrieves (`retrieve:K`, `search-tool`, or
/// search-assisted AnyTool), with dependency expansion as the spec says.
fn pipeline(
    ctx: &Context,
    rt: &tokio::runtime::Runtime,
    job: &Job<'_>,
    loaded: &Loaded,
) -> anyhow::Result<Option<retrieval::Pipeline>> {
    let spec = &job.spec;
    let assisted = spec.solver == toolsmith_eval::SolverKind::Anytool
        && agents::anytool_settings(ctx, spec.protocol == toolsmith_solve::Protocol::Paper)?
            .search_assisted;
    let retrieves = assisted
        || matches!(
            spec.tools,
            ToolsOffered::Retrieve { .. } | ToolsOffered::SearchTool
        );
    if !retrieves {
        return Ok(None);
    }
    let own = spec.catalog.is_none() && !loaded.funcqa && loaded.benchmark.uses_own_catalog();
    let mut pipeline = retrieval::PipelineSpec {
        vectors: retrieval::Vectors::EmbedMissing,
        graph: retrieval::GraphSource::for_benchmark(own, &loaded.catalog),
        cache: job.llm.cache.into(),
        ..retrieval::PipelineSpec::new(ctx, None)?
    }
    .with_intents(ctx, job.intents)?
    .with_rerank(ctx, job.rerank)?
    .with_rerank_settings(job.rerank_settings);
    if spec.expansion == Expansion::Off {
        pipeline = pipeline.without_expansion();
    }
    let corpus = retrieval::corpus(
        &loaded.store,
        &loaded.selector,
        retrieval::SourceField::configured(ctx)?,
    )?;
    Ok(Some(rt.block_on(retrieval::Pipeline::build(
        ctx, corpus, pipeline,
    ))?))
}

/// The date of the run's world, fixed when it starts ([`executor::world_date`]) and kept in its
/// spec: its agents are told it and its simulator answers as of it, so resuming or replaying the
/// run on a later day sends the same prompts. A resumed run stored before the date was recorded
/// fixes it now, and stores it.
fn fix_date(
    bench: &BenchStore,
    job: &mut Job<'_>,
    simulate: &toolsmith_exec::SimulatorSettings,
) -> anyhow::Result<jiff::civil::Date> {
    if let Some(today) = job.spec.today {
        return Ok(today);
    }
    let today = executor::world_date(simulate, job.spec.mode);
    job.spec.today = Some(today);
    if let Some(id) = job.resumed {
        bench.update_spec(id, &job.spec)?;
    }
    Ok(today)
}

/// Runs (or resumes) `job` to the end, judges it when asked, and summarizes it.
pub(crate) fn execute(
    ctx: &Context,
    bench: &BenchStore,
    mut job: Job<'_>,
) -> anyhow::Result<Outcome> {
    let config = ctx.config()?;
    let loaded = load(ctx, &mut job)?;
    let today = fix_date(bench, &mut job, &config.exec.simulate)?;
    let book = Arc::new(ApiBook::from_catalog(&loaded.catalog));
    let rt = ctx.runtime()?;
    let pipeline = pipeline(ctx, &rt, &job, &loaded)?;
    let shared = Shared {
        llm: agents::llm(ctx, job.llm)?,
        book,
        today,
    };
    let harness = harness(ctx, &job, &loaded, pipeline.as_ref(), &shared)?;
    let id = match job.resumed {
        Some(id) => id,
        None => bench.create_run(&job.spec)?,
    };
    printer::note(format!("bench run {id} ({})", job.spec.name));
    let bar = Bar::new(*ctx.progress());
    rt.block_on(harness.run(bench, id, &job.spec, &loaded.queries, &bar))?;
    bar.finish();
    if let Some(note) = pipeline.as_ref().and_then(retrieval::Pipeline::usage_note) {
        printer::note(note);
    }
    let judged = judged(ctx, &rt, bench, id, job.judging, shared)?;
    let summary = RunSummary::priced(
        bench.scores(id)?.iter().map(|(_, s)| s),
        config.prices.as_ref(),
    )
    .with_judging(judged.as_ref(), config.prices.as_ref());
    Ok(Outcome {
        id,
        spec: job.spec,
        skipped: loaded.skipped,
        summary,
        judged,
    })
}

/// What a run's agents and its judge share: the model, the book of the catalog's APIs, and
/// the date of the run's world.
struct Shared {
    llm: Arc<dyn ChatModel>,
    book: Arc<ApiBook>,
    today: jiff::civil::Date,
}

/// The harness that runs `job`'s queries: its agents' runtime (the model, the executor as of
/// the run's date, the retriever of `pipeline`, the configured agent settings with the spec's
/// seed and protocol) and the spec's solvers.
fn harness(
    ctx: &Context,
    job: &Job<'_>,
    loaded: &Loaded,
    pipeline: Option<&retrieval::Pipeline>,
    shared: &Shared,
) -> anyhow::Result<Harness> {
    let config = ctx.config()?;
    let spec = &job.spec;
    let runtime = Runtime {
        llm: Arc::clone(&shared.llm),
        executor: executor::build_dated(
            ctx,
            Arc::clone(&shared.book),
            spec.mode,
            job.llm.cache.into(),
            executor::Writes::Agent(job.allow_write),
            shared.today,
        )?,
        retriever: pipeline.map(retrieval::Pipeline::retriever),
        book: Arc::clone(&shared.book),
        settings: AgentSettings {
            seed: Some(spec.seed),
            today: Some(shared.today),
            ..config.solve.clone()
        }
        .with_protocol(spec.protocol),
        tracer: Tracer::new(),
        jq: crate::agents::jq_sandbox(),
    };
    let solvers = agents::solvers_with(
        ctx,
        spec.solver.into(),
        &loaded.catalog,
        agents::AnyToolOverrides::default(),
        pipeline.and_then(retrieval::Pipeline::expanding),
    )?;
    Ok(Harness::new(runtime, solvers)
        .with_render(RenderOptions::default())
        .with_query_budget(agents::budget(job.llm)))
}

/// The judged pass rates of run `id`: judged now by the shared model when `judging` asks,
/// else those stored earlier, if any.
fn judged(
    ctx: &Context,
    rt: &tokio::runtime::Runtime,
    bench: &BenchStore,
    id: RunId,
    judging: Judging,
    shared: Shared,
) -> anyhow::Result<Option<PassRates>> {
    let Judging::Runs(runs) = judging else {
        return Ok(bench.pass_rates(id)?);
    };
    let config = ctx.config()?;
    let judge = LlmJudge::new(shared.llm, config.judge.llm()).with_book(shared.book);
    let settings = config.judge.settings(runs);
    printer::note(format!(
        "judging run {id} ({} judge run{})",
        settings.runs,
        if settings.runs == 1 { "" } else { "s" }
    ));
    Ok(Some(rt.block_on(judge_pass_rates(
        &judge, bench, id, &settings,
    ))?))
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
