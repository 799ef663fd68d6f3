//! `toolsmith refine`: refine docs with EasyTool, DRAFT or synthetic-query expansion
//! (`queries`) into new catalog doc versions, with a progress bar, a token budget,
//! `--dry-run` and `--resume`.

mod expnet;

use std::collections::HashSet;
use std::fmt;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use anyhow::{Context as _, bail};
use indicatif::ProgressBar;
use serde::Serialize;
use toolsmith_catalog::{ApiId, Catalog, DocLabel, DocSelector, Scope, Store, ToolEntry};
use toolsmith_exec::ApiBook;
use toolsmith_llm::{Budget, BudgetLimits, CacheMode, ChatModel, Metered};
use toolsmith_refine::{
    ApiJob, Draft, DraftSettings, EasyTool, EasyToolSettings, Estimate, Method, QueryExpansion,
    QueryWriter, QueryWriterSettings, RefineObserver, RefineStore, Refiner, Round, RunEnd, RunId,
    RunReport, RunSpec, Runner,
};

use crate::cli::{CallMode, RefineArgs};
use crate::context::Context;
use crate::{doc_gate, executor, printer, retrieval};

/// Runs `toolsmith refine`. Exit 0 when the run finished or stopped at its budget.
pub(super) fn run(ctx: &Context, args: &RefineArgs) -> anyhow::Result<ExitCode> {
    let job = Job::build(ctx, args)?;
    if job.spec.method == Method::ExpNet {
        return expnet::run(expnet::Job {
            ctx,
            args,
            store: job.store,
            refine: &job.refine,
            run: job.run,
            spec: &job.spec,
            view: &job.view,
            mode: job.mode,
        });
    }
    if args.dry_run {
        // The simulator asks the model for the responses of APIs it has nothing to build
        // from (no response schema or example), and the run pays for those calls too.
        let invents = matches!(job.mode, CallMode::Simulate | CallMode::ReplayOrSimulate)
            && crate::llm::is_configured(&ctx.config()?.llm);
        printer::report(&dry_run(&job.spec, &job.tools, invents)?, args.json.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    let report = job.refine(ctx, args)?;
    printer::report(&report, args.json.json)?;
    if !args.json.json {
        printer::note(report.next_step());
    }
    if matches!(report.report.end, RunEnd::Finished) {
        gate_after(ctx, args, report.method.label())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--gate`: the run's new docs go through the activation gate (`docs gate LABEL`) on the
/// named eval set, or on the newest eval split; without the flag, only when one exists.
fn gate_after(ctx: &Context, args: &RefineArgs, label: DocLabel) -> anyhow::Result<()> {
    let dataset = match (&args.gate, args.no_gate) {
        (_, true) => return Ok(()),
        (Some(Some(dataset)), _) => dataset.clone(),
        (Some(None), _) => doc_gate::default_eval_split(ctx)?.context(
            "--gate: no eval split to gate on; name a dataset (`--gate restbench-tmdb`)",
        )?,
        (None, _) => match doc_gate::default_eval_split(ctx)? {
            Some(dataset) => dataset,
            None => return Ok(()),
        },
    };
    let request = doc_gate::GateRequest {
        label,
        dataset,
        data_dir: toolsmith_plumbing::data::data_dir()
            .unwrap_or_else(|_| std::path::PathBuf::from("../shared/data")),
        untested: doc_gate::Untested::Keep,
        method: None,
        scope: None,
    };
    let report = doc_gate::run(ctx, &request)?;
    printer::report(&report, args.json.json)
}

/// A run to start or resume: its spec, the docs it starts from and the tools it refines.
struct Job {
    store: Store,
    refine: RefineStore,
    /// The run resumed, `None` for a new one (created when it starts).
    run: Option<RunId>,
    spec: RunSpec,
    view: Catalog,
    tools: Vec<ToolEntry>,
    /// Where tool calls go: the flag's for a new run, the stored one's on resume.
    mode: CallMode,
}

impl Job {
    fn build(ctx: &Context, args: &RefineArgs) -> anyhow::Result<Self> {
        let store = ctx.store()?;
        let refine = RefineStore::open(ctx.db())
            .with_context(|| format!("opening the refine tables in {}", ctx.db().display()))?;
        let (run, spec, from, mode) = match &args.resume {
            Some(which) => {
                let id = match which.as_str() {
                    "latest" => refine.latest_run()?.context(
                        "no refinement run to resume (see `toolsmith refine --method ...`)",
                    )?,
                    raw => raw.parse::<RunId>()?,
                };
                let spec = refine.run(id)?.spec;
                let (from, mode) = (spec.from_label.clone(), call_mode(spec.mode));
                (Some(id), spec, from, mode)
            }
            None => (
                None,
                new_spec(ctx, args, &store)?,
                args.from.clone(),
                args.mode,
            ),
        };
        let view = store.catalog(&DocSelector::Label(from), &Scope::default())?;
        let tools = toolsmith_refine::plan(&view, |id| spec.apis.contains(id));
        if tools.is_empty() {
            bail!("no API matches --apis (see `toolsmith tools`)");
        }
        Ok(Self {
            store,
            refine,
            run,
            spec,
            view,
            tools,
            mode,
        })
    }

    /// Runs EasyTool or DRAFT over the tools through the [`Runner`], within the budget.
    fn refine(self, ctx: &Context, args: &RefineArgs) -> anyhow::Result<RefineReport> {
        let book = Arc::new(ApiBook::from_catalog(&self.view));
        let budget = Arc::new(Budget::new(BudgetLimits {
            max_calls: args.max_llm_calls,
            max_tokens: args.max_tokens,
        }));
        let executor = executor::build_charged(
            ctx,
            book,
            self.mode.into(),
            args.cache.into(),
            Some(Arc::clone(&budget)),
            executor::Writes::Agent(&args.writes.allow_write),
        )?;
        let chat = crate::llm::cached_chat(ctx, args.model.as_deref(), args.cache.into())?;
        let writer =
            crate::llm::model_for_role(ctx, args.model.as_deref(), self.spec.method.writer_role())?;
        let llm: Arc<dyn ChatModel> = Arc::new(Metered::new(chat, Arc::clone(&budget)));
        let refiner = refiner(ctx, &self.spec, llm, executor)?;
        let run = match self.run {
            Some(id) => id,
            None => self.refine.create_run(&RunSpec {
                writer: Some(writer),
                ..self.spec.clone()
            })?,
        };
        let bar = Bar::new(ctx, &self.tools, Arc::clone(&budget), self.spec.method);
        let catalog = Mutex::new(self.store);
        let runner = Runner::new(
            refiner.as_ref(),
            &catalog,
            &self.refine,
            &bar,
            args.concurrency,
        );
        let report = ctx.runtime()?.block_on(runner.run(run, &self.tools))?;
        bar.bar.finish_and_clear();
        let used = budget.used();
        Ok(RefineReport {
            report,
            tokens: used.tokens(),
            llm_calls: used.calls,
            invented_quotes: bar.quotes.load(std::sync::atomic::Ordering::Relaxed),
            invented_removed: bar.removed.load(std::sync::atomic::Ordering::Relaxed),
            run,
            method: self.spec.method,
        })
    }
}

/// The run's refiner, with the run's stored settings.
fn refiner(
    ctx: &Context,
    spec: &RunSpec,
    llm: Arc<dyn ChatModel>,
    executor: Arc<dyn toolsmith_exec::Executor>,
) -> anyhow::Result<Box<dyn Refiner>> {
    Ok(match spec.method {
        Method::Draft => {
            let settings: DraftSettings = serde_json::from_value(spec.settings.clone())
                .context("reading the run's DRAFT settings")?;
            let embedder = retrieval::embedder(ctx, CacheMode::ReadWrite)?;
            Box::new(Draft::new(llm, embedder, executor, settings)?)
        }
        Method::EasyTool => {
            let settings: EasyToolSettings = serde_json::from_value(spec.settings.clone())
                .context("reading the run's EasyTool settings")?;
            Box::new(EasyTool::new(llm, executor, settings)?)
        }
        Method::Queries => {
            let settings: QueryWriterSettings = serde_json::from_value(spec.settings.clone())
                .context("reading the run's query writer settings")?;
            let embedder = retrieval::embedder(ctx, CacheMode::ReadWrite)?;
            let writer = QueryWriter::new(llm, Some(embedder), settings)?;
            Box::new(QueryExpansion::new(writer))
        }
        Method::ExpNet => bail!("ToolExpNet runs through its own loop"),
    })
}

/// What an EasyTool or DRAFT run did and spent.
#[derive(Debug, Serialize)]
struct RefineReport {
    report: RunReport,
    tokens: u64,
    llm_calls: u64,
    /// Values of invented responses this attempt's rewrites quoted (issue 31).
    invented_quotes: usize,
    /// Of those, the ones removed with their sentence (none under `trust`).
    invented_removed: usize,
    #[serde(skip)]
    run: RunId,
    #[serde(skip)]
    method: Method,
}

impl RefineReport {
    /// What to do next: look at and activate the new docs, or continue past the budget.
    fn next_step(&self) -> String {
        match &self.report.end {
            RunEnd::Finished => format!(
                "see `toolsmith docs history API --rounds`; make them active with `toolsmith docs activate --all {}`",
                self.method.label()
            ),
            RunEnd::Budget(why) => format!(
                "stopped at the budget ({why}); continue with `toolsmith refine --resume {}`",
                self.run
            ),
        }
    }
}

impl fmt::Display for RefineReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = &self.report;
        let stored = report.apis.iter().filter(|(_, v)| v.is_some()).count();
        let refused = report.refused.len();
        let refused_note = match refused {
            0 => String::new(),
            n => format!(" ({n} of them: no model reply was usable, see below)"),
        };
        write!(
            f,
            "run {} ({}): {} APIs refined ({stored} new `{}` doc versions), {} done before, {} failed{refused_note}, {} tool descriptions; {} LLM calls, {} tokens",
            self.run,
            self.method,
            report.apis.len() - refused,
            self.method.label(),
            report.already_done,
            report.failed.len() + refused,
            report.tools.iter().filter(|(_, v)| v.is_some()).count(),
            self.llm_calls,
            self.tokens
        )?;
        for (api, error) in report.failed.iter().chain(&report.refused) {
            write!(f, "\n  failed {api}: {error}")?;
        }
        if self.invented_quotes > 0 {
            write!(
                f,
                "\n  rewrites quoted {} values only an invented response held; {} removed with their sentence (`[refine] invented_values`)",
                self.invented_quotes, self.invented_removed
            )?;
        }
        Ok(())
    }
}

/// The spec of a new run: the method's settings (file, then flags) and the chosen APIs.
fn new_spec(ctx: &Context, args: &RefineArgs, store: &Store) -> anyhow::Result<RunSpec> {
    let method: Method = args
        .method
        .context("say which method: --method easytool|draft|expnet|queries")?
        .into();
    let config = &ctx.config()?.refine;
    let invented = args
        .invented_values
        .map_or(config.invented_values, Into::into);
    let settings = match method {
        Method::Draft => {
            let mut s = config.draft.clone();
            if args.no_diversity {
                s.diversity = false;
            }
            if args.no_adaptive_stop {
                s.adaptive_stop = false;
            }
            if let Some(n) = args.max_rounds {
                s.max_rounds = n;
            }
            s.invented_values = invented;
            s.validate()?;
            serde_json::to_value(s)?
        }
        Method::EasyTool => {
            let mut s = config.easytool.clone();
            s.invented_values = invented;
            s.validate()?;
            serde_json::to_value(s)?
        }
        Method::ExpNet => expnet::settings(&config.expnet, args)?,
        Method::Queries => {
            config.queries.validate()?;
            serde_json::to_value(&config.queries)?
        }
    };
    let all = store.catalog(&DocSelector::Active, &Scope::default())?;
    let filters: Vec<&str> = args
        .apis
        .as_deref()
        .map(|f| {
            f.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let ids: HashSet<ApiId> = all.apis().map(|(_, a)| a.api.id.clone()).collect();
    // Each item once: whether it is some API's whole id.
    let filters: Vec<(&str, bool)> = filters
        .into_iter()
        .map(|f| (f, f.parse::<ApiId>().is_ok_and(|id| ids.contains(&id))))
        .collect();
    let apis: Vec<ApiId> = all
        .apis()
        .map(|(_, a)| a.api.id.clone())
        .filter(|id| filters.is_empty() || filters.iter().any(|&(f, whole)| matches(id, f, whole)))
        .collect();
    if apis.is_empty() {
        bail!(
            "no API matches --apis {} (see `toolsmith tools`)",
            args.apis.as_deref().unwrap_or("")
        );
    }
    Ok(RunSpec {
        method,
        apis,
        settings,
        mode: args.mode.into(),
        from_label: args.from.clone(),
        writer: None,
    })
}

/// An API id matches a filter item equal to it or to its tool's id, or containing it; an item
/// that is some API's `whole` id selects that API alone (`tmdb/get_movie_movie_id` is not also
/// `tmdb/get_movie_movie_id_credits`).
fn matches(id: &ApiId, filter: &str, whole: bool) -> bool {
    let full = id.to_string();
    full == filter || id.tool().as_str() == filter || (!whole && full.contains(filter))
}

/// The flag value of a stored run's call mode.
fn call_mode(mode: toolsmith_exec::Mode) -> CallMode {
    use toolsmith_exec::Mode;
    match mode {
        Mode::Live => CallMode::Live,
        Mode::Record => CallMode::Record,
        Mode::Replay => CallMode::Replay,
        Mode::ReplayOrSimulate => CallMode::ReplayOrSimulate,
        Mode::Simulate => CallMode::Simulate,
    }
}

/// The most one API of a run can cost.
type Estimator = Box<dyn Fn(&ApiJob) -> Estimate>;

/// The most one API of the run can cost, from the run's settings alone (no model is built).
fn estimator(spec: &RunSpec) -> anyhow::Result<Estimator> {
    Ok(match spec.method {
        Method::Draft => {
            let settings: DraftSettings = serde_json::from_value(spec.settings.clone())
                .context("reading the run's DRAFT settings")?;
            Box::new(move |job| settings.estimate(job))
        }
        Method::EasyTool => {
            let settings: EasyToolSettings = serde_json::from_value(spec.settings.clone())
                .context("reading the run's EasyTool settings")?;
            Box::new(move |job| settings.estimate(job))
        }
        Method::Queries => {
            let settings: QueryWriterSettings = serde_json::from_value(spec.settings.clone())
                .context("reading the run's query writer settings")?;
            Box::new(move |job| settings.estimate(job))
        }
        Method::ExpNet => bail!("ToolExpNet estimates through its own loop"),
    })
}

/// What the run would cost at most, spending nothing; needs no LLM. With `invents`, each
/// tool call of an API with no response schema or example is one more LLM request (the
/// simulator's), of about the size of the refiner's own. Every request counts its repairs.
fn dry_run(spec: &RunSpec, tools: &[ToolEntry], invents: bool) -> anyhow::Result<DryRun> {
    let estimate = estimator(spec)?;
    let jobs = toolsmith_refine::jobs(tools);
    let mut total = Estimate::default();
    for job in &jobs {
        let mut one = estimate(job);
        let api = &job.entry.api;
        if invents && api.response_schema.is_none() && api.response_examples.is_empty() {
            let per_call = one.tokens / one.llm_calls.max(1);
            one += Estimate::of_requests(one.tool_calls, per_call, 0);
        }
        total += one;
    }
    // One more request per tool for its description (expansion leaves tools alone).
    if spec.method != Method::Queries {
        total += Estimate::of_requests(tools.len() as u64, 0, 0);
    }
    Ok(DryRun {
        method: spec.method,
        apis: jobs.len(),
        tools: tools.len(),
        estimate: total,
    })
}

/// `refine --dry-run`: what the run would cost at most.
#[derive(Debug, Serialize)]
struct DryRun {
    method: Method,
    apis: usize,
    tools: usize,
    estimate: Estimate,
}

impl fmt::Display for DryRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = &self.estimate;
        write!(
            f,
            "{} on {} APIs of {} tools: at most {} LLM calls ({} requests, each repaired at most {} times after a malformed reply), about {} tokens, {} tool calls (dry run: nothing spent)",
            self.method,
            self.apis,
            self.tools,
            total.llm_calls,
            total.requests,
            toolsmith_refine::max_replies_per_request() - 1,
            total.tokens,
            total.tool_calls
        )
    }
}

/// The progress bar: APIs done, rounds, tokens.
struct Bar {
    bar: ProgressBar,
    budget: Arc<Budget>,
    rounds: std::sync::atomic::AtomicUsize,
    /// Invented values quoted by rewrites, and those removed.
    quotes: std::sync::atomic::AtomicUsize,
    removed: std::sync::atomic::AtomicUsize,
}

impl Bar {
    fn new(ctx: &Context, tools: &[ToolEntry], budget: Arc<Budget>, method: Method) -> Self {
        let apis = tools.iter().map(|t| t.apis.len()).sum();
        Self {
            bar: ctx.progress().bar(apis, format!("refining ({method})")),
            budget,
            rounds: std::sync::atomic::AtomicUsize::new(0),
            quotes: std::sync::atomic::AtomicUsize::new(0),
            removed: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    fn update(&self) {
        let rounds = self.rounds.load(std::sync::atomic::Ordering::Relaxed);
        self.bar.set_message(format!(
            "refining: {rounds} rounds, {} tokens",
            self.budget.used().tokens()
        ));
    }
}

impl RefineObserver for Bar {
    fn run_started(&self, _run: RunId, _apis: usize, done: usize) {
        self.bar.inc(done as u64);
    }
    fn round_finished(&self, _api: &ApiId, round: &Round) {
        self.rounds
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let quotes = &round.invented_quotes;
        let removed = quotes.iter().filter(|q| q.removed).count();
        self.quotes
            .fetch_add(quotes.len(), std::sync::atomic::Ordering::Relaxed);
        self.removed
            .fetch_add(removed, std::sync::atomic::Ordering::Relaxed);
        self.update();
    }
    fn api_finished(&self, _api: &ApiId, _version: Option<u32>) {
        self.bar.inc(1);
        self.update();
    }
    fn api_failed(&self, api: &ApiId, error: &str) {
        self.bar.inc(1);
        self.bar.println(format!("{api}: {error}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_filter_item_is_an_id_a_tool_or_a_part_of_an_id() {
        let id: ApiId = "tmdb/get_search_movie".parse().unwrap();
        assert!(matches(&id, "tmdb/get_search_movie", true));
        assert!(matches(&id, "tmdb", false));
        assert!(matches(&id, "search", false));
        assert!(!matches(&id, "spotify", false));
    }

    #[test]
    fn a_whole_api_id_selects_that_api_alone() {
        let details: ApiId = "tmdb/get_movie_movie_id".parse().unwrap();
        let credits: ApiId = "tmdb/get_movie_movie_id_credits".parse().unwrap();
        assert!(matches(&details, "tmdb/get_movie_movie_id", true));
        assert!(!matches(&credits, "tmdb/get_movie_movie_id", true));
        assert!(matches(&credits, "movie_id", false));
        assert!(matches(&details, "movie_id", false));
    }

    #[test]
    fn stored_call_modes_read_back() {
        for mode in [
            CallMode::Live,
            CallMode::Replay,
            CallMode::Simulate,
            CallMode::Record,
            CallMode::ReplayOrSimulate,
        ] {
            assert_eq!(call_mode(mode.into()), mode);
        }
    }
}
