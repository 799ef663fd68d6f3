//! `toolsmith refine --method expnet`: ToolExpNet's trial and error over the stored tool graph
//! (`toolsmith graph build`), writing `expnet` doc versions; `--resume` skips finished steps.

use std::collections::BTreeSet;
use std::fmt;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context as _, bail};
use indicatif::ProgressBar;
use serde::Serialize;
use toolsmith_catalog::ApiId;
use toolsmith_catalog::{Catalog, Store};
use toolsmith_exec::ApiBook;
use toolsmith_graph::EdgeKey;
use toolsmith_graph::GraphStore;
use toolsmith_llm::{Budget, BudgetLimits, ChatModel, Metered};
use toolsmith_refine::{
    ActorMode, Estimate, ExpNet, ExpNetReport, ExpNetSettings, RefineObserver, RefineStore, RunId,
    RunSpec,
};
use toolsmith_solve::{React, ReactSettings, RenderOptions, Runtime, Toolset, Tracer};

use crate::cli::{CallMode, RefineArgs};
use crate::context::Context;
use crate::printer;

/// A new run's settings: the file's `[refine.expnet]`, then the flags.
pub(crate) fn settings(
    config: &ExpNetSettings,
    args: &RefineArgs,
) -> anyhow::Result<serde_json::Value> {
    let mut s = config.clone();
    if let Some(n) = args.iterations {
        s.iterations = n;
    }
    if let Some(n) = args.max_try {
        s.max_try = n;
    }
    s.similarity &= !args.no_similarity;
    s.dependency &= !args.no_dependency;
    s.trial &= !args.no_trial;
    s.validate()?;
    Ok(serde_json::to_value(s)?)
}

/// A ToolExpNet run to start or resume, and where it reads and writes.
pub(super) struct Job<'a> {
    pub(super) ctx: &'a Context,
    pub(super) args: &'a RefineArgs,
    pub(super) store: Store,
    pub(super) refine: &'a RefineStore,
    /// The run resumed, `None` for a new one.
    pub(super) run: Option<RunId>,
    pub(super) spec: &'a RunSpec,
    /// The docs the run starts from.
    pub(super) view: &'a Catalog,
    /// Where the actor's tool calls go.
    pub(super) mode: CallMode,
}

/// Runs (or resumes) a ToolExpNet run over the stored graph's edges and nodes among the run's
/// APIs. With `actor = "execute"` the actor is ReAct over every API of the view, its calls
/// going where the job's mode says.
pub(super) fn run(job: Job<'_>) -> anyhow::Result<ExitCode> {
    let (ctx, args) = (job.ctx, job.args);
    let settings: ExpNetSettings = serde_json::from_value(job.spec.settings.clone())
        .context("reading the run's ToolExpNet settings")?;
    let (graph, loaded) = stored_graph(ctx)?;
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: args.max_llm_calls,
        max_tokens: args.max_tokens,
    }));
    // One insight step per node of the run's APIs (`--apis`) per iteration.
    let selected: BTreeSet<&ApiId> = job.spec.apis.iter().collect();
    let nodes = loaded
        .nodes
        .iter()
        .filter(|n| selected.contains(&n.api))
        .count();
    let bar = Arc::new(ExpNetBar {
        bar: ctx
            .progress()
            .bar(nodes * settings.iterations as usize, "expnet"),
        budget: Arc::clone(&budget),
        edges: AtomicUsize::new(0),
    });
    let actor = settings.actor;
    let expnet =
        expnet(&job, settings, &budget)?.with_observer(Arc::clone(&bar) as Arc<dyn RefineObserver>);
    if args.dry_run {
        bar.bar.finish_and_clear();
        // ReAct's depth limit bounds its calls per request (each call is at least one node).
        let steps = ReactSettings::default().max_depth as u64;
        let report = DryRun {
            method: "expnet",
            apis: nodes,
            actor: actor_name(actor),
            estimate: expnet.estimate(job.view, &loaded, &job.spec.apis, steps),
        };
        printer::report(&report, args.json.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    let run = match job.run {
        Some(id) => id,
        None => job.refine.create_run(&RunSpec {
            writer: Some(crate::llm::model_for_role(
                ctx,
                args.model.as_deref(),
                job.spec.method.writer_role(),
            )?),
            ..job.spec.clone()
        })?,
    };
    let catalog = Mutex::new(job.store);
    let outcome = ctx
        .runtime()?
        .block_on(expnet.run(run, job.view, &catalog, &graph, job.refine));
    bar.bar.finish_and_clear();
    let report = match outcome {
        Ok(report) => report,
        Err(e) if e.is_budget() => {
            printer::note(format!(
                "stopped at the budget; finished steps are kept: continue with `toolsmith refine --resume {run}`"
            ));
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(e.into()),
    };
    job.refine
        .end_run(run, &toolsmith_refine::RunEnd::Finished)?;
    let used = budget.used();
    let report = Report {
        run,
        report,
        tokens: used.tokens(),
        llm_calls: used.calls,
    };
    printer::report(&report, args.json.json)?;
    if !args.json.json {
        printer::note(
            "see `toolsmith graph show`; use them with `--doc-version expnet` or `toolsmith docs activate --all expnet`",
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The stored tool graph (`toolsmith graph build`), which must not be empty.
fn stored_graph(ctx: &Context) -> anyhow::Result<(GraphStore, toolsmith_graph::Graph)> {
    let db = ctx.db();
    let graph = GraphStore::open(db)
        .with_context(|| format!("opening the tool graph in {}", db.display()))?;
    let loaded = graph.load()?;
    if loaded.nodes.is_empty() {
        bail!(
            "no tool graph in {}: run `toolsmith graph build` first",
            db.display()
        );
    }
    Ok((graph, loaded))
}

/// The actor's name in the reports.
fn actor_name(actor: ActorMode) -> &'static str {
    match actor {
        ActorMode::Execute => "execute",
        ActorMode::Select => "select",
    }
}

/// ToolExpNet over the metered model; with the `execute` actor, ReAct over every API of the
/// view as its solver, its calls charged to the same budget.
fn expnet(job: &Job<'_>, settings: ExpNetSettings, budget: &Arc<Budget>) -> anyhow::Result<ExpNet> {
    let (ctx, args) = (job.ctx, job.args);
    let chat = crate::llm::cached_chat(ctx, args.model.as_deref(), args.cache.into())?;
    let llm: Arc<dyn ChatModel> = Arc::new(Metered::new(chat, Arc::clone(budget)));
    let execute = settings.actor == ActorMode::Execute;
    let expnet = ExpNet::new(Arc::clone(&llm), settings)?;
    if !execute {
        return Ok(expnet);
    }
    let book = Arc::new(ApiBook::from_catalog(job.view));
    let executor = crate::executor::build_charged(
        ctx,
        Arc::clone(&book),
        job.mode.into(),
        args.cache.into(),
        Some(Arc::clone(budget)),
        crate::executor::Writes::Agent(&args.writes.allow_write),
    )?;
    let runtime = Runtime {
        llm,
        executor,
        retriever: None,
        book,
        settings: ctx.config()?.solve.clone(),
        tracer: Tracer::new(),
        jq: crate::agents::jq_sandbox(),
    };
    let entries: Vec<_> = job.view.apis().map(|(_, a)| a.clone()).collect();
    let toolset = Toolset::new(&entries, &RenderOptions::default());
    Ok(expnet.with_solver(
        move || {
            let runtime = Runtime {
                tracer: Tracer::new(),
                ..runtime.clone()
            };
            Box::new(React::new(runtime, ReactSettings::default()))
        },
        toolset,
    ))
}

/// `refine --method expnet --dry-run`: what the run would cost at most.
#[derive(Debug, Serialize)]
struct DryRun {
    method: &'static str,
    apis: usize,
    actor: &'static str,
    estimate: Estimate,
}

impl fmt::Display for DryRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expnet on {} APIs of the graph ({} actor): at most {} LLM calls, about {} tokens, {} tool calls (dry run: nothing spent)",
            self.apis,
            self.actor,
            self.estimate.llm_calls,
            self.estimate.tokens,
            self.estimate.tool_calls
        )
    }
}

/// What a ToolExpNet run did and spent.
#[derive(Debug, Serialize)]
struct Report {
    run: RunId,
    report: ExpNetReport,
    tokens: u64,
    llm_calls: u64,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.report;
        write!(
            f,
            "run {} (expnet): {} edges tried, {}/{} requests answered right, {} edges added, {} removed, {} new `expnet` doc versions, {} steps done before; {} LLM calls, {} tokens",
            self.run,
            r.edges_tried,
            r.correct,
            r.trials,
            r.added.len(),
            r.removed.len(),
            r.insights.len(),
            r.already_done,
            self.llm_calls,
            self.tokens
        )
    }
}

/// The progress bar of an expnet run: one tick per API insight step of every iteration (each
/// trial step's edges are added to its length when sampled), tokens in the message.
struct ExpNetBar {
    bar: ProgressBar,
    budget: Arc<Budget>,
    edges: AtomicUsize,
}

impl ExpNetBar {
    fn update(&self, what: &str) {
        self.bar.set_message(format!(
            "expnet {what}: {} edges tried, {} tokens",
            self.edges.load(Ordering::Relaxed),
            self.budget.used().tokens()
        ));
    }
}

impl RefineObserver for ExpNetBar {
    fn trial_started(&self, iteration: u32, edges: usize) {
        self.bar.inc_length(edges as u64);
        self.update(&format!("iteration {iteration}, trial"));
    }
    fn edge_tried(&self, _edge: &EdgeKey, _outcome: Option<(usize, usize)>) {
        self.edges.fetch_add(1, Ordering::Relaxed);
        self.bar.inc(1);
        self.update("trial");
    }
    fn api_finished(&self, _api: &ApiId, _version: Option<u32>) {
        self.bar.inc(1);
        self.update("insights");
    }
}
