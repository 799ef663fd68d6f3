//! The driver of `toolsmith refine --method expnet`: ToolExpNet's trial and error over the stored tool graph
//! (`toolsmith graph build`), writing `expnet` doc versions; `--resume` skips finished steps.

use std::collections::BTreeSet;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context as _, bail};
use indicatif::ProgressBar;
use toolsmith_catalog::ApiId;
use toolsmith_catalog::{Catalog, Store};
use toolsmith_exec::ApiBook;
use toolsmith_graph::EdgeKey;
use toolsmith_graph::GraphStore;
use toolsmith_llm::{Budget, BudgetLimits, ChatModel, Metered};
use toolsmith_refine::{
    ActorMode, ExpNet, ExpNetSettings, RefineObserver, RefineStore, RunId, RunSpec,
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

/// Runs (or resumes) a ToolExpNet run over the stored graph's edges and nodes among the run's
/// APIs. With `actor = "execute"` the actor is ReAct over every API of `view`, its calls going
/// where `mode` says.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    ctx: &Context,
    args: &RefineArgs,
    store: Store,
    refine: &RefineStore,
    run: Option<RunId>,
    spec: &RunSpec,
    view: &Catalog,
    mode: CallMode,
) -> anyhow::Result<ExitCode> {
    let settings: ExpNetSettings = serde_json::from_value(spec.settings.clone())
        .context("reading the run's ToolExpNet settings")?;
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
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: args.max_llm_calls,
        max_tokens: args.max_tokens,
    }));
    let chat = crate::llm::cached_chat(ctx, args.model.as_deref(), args.cache.into())?;
    let llm: Arc<dyn ChatModel> = Arc::new(Metered::new(chat, Arc::clone(&budget)));
    // One insight step per node of the run's APIs (`--apis`) per iteration.
    let selected: BTreeSet<&ApiId> = spec.apis.iter().collect();
    let nodes = loaded
        .nodes
        .iter()
        .filter(|n| selected.contains(&n.api))
        .count();
    let steps = nodes * settings.iterations as usize;
    let bar = Arc::new(ExpNetBar {
        bar: ctx.progress().bar(steps, "expnet"),
        budget: Arc::clone(&budget),
        edges: AtomicUsize::new(0),
    });
    let execute = settings.actor == ActorMode::Execute;
    let actor = if execute { "execute" } else { "select" };
    let mut expnet = ExpNet::new(Arc::clone(&llm), settings)?
        .with_observer(Arc::clone(&bar) as Arc<dyn RefineObserver>);
    if execute {
        let book = Arc::new(ApiBook::from_catalog(view));
        let executor = crate::executor::build_charged(
            ctx,
            Arc::clone(&book),
            mode.into(),
            args.cache.into(),
            Some(Arc::clone(&budget)),
            crate::executor::Writes::Agent(&args.writes.allow_write),
        )?;
        let runtime = Runtime {
            llm,
            executor,
            retriever: None,
            book,
            settings: ctx.config()?.solve.clone(),
            tracer: Tracer::new(),
        };
        let entries: Vec<_> = view.apis().map(|(_, a)| a.clone()).collect();
        let toolset = Toolset::new(&entries, &RenderOptions::default());
        expnet = expnet.with_solver(
            move || {
                let runtime = Runtime {
                    tracer: Tracer::new(),
                    ..runtime.clone()
                };
                Box::new(React::new(runtime, ReactSettings::default()))
            },
            toolset,
        );
    }
    if args.dry_run {
        bar.bar.finish_and_clear();
        // ReAct's depth limit bounds its calls per request (each call is at least one node).
        let steps = ReactSettings::default().max_depth as u64;
        let estimate = expnet.estimate(view, &loaded, &spec.apis, steps);
        if args.json.json {
            printer::json(&serde_json::json!({
                "method": "expnet", "apis": nodes, "actor": actor,
                "estimate": estimate,
            }))?;
        } else {
            printer::line(format!(
                "expnet on {nodes} APIs of the graph ({actor} actor): at most {} LLM calls, about {} tokens, {} tool calls (dry run: nothing spent)",
                estimate.llm_calls, estimate.tokens, estimate.tool_calls
            ))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let run = match run {
        Some(id) => id,
        None => refine.create_run(spec)?,
    };
    let catalog = Mutex::new(store);
    let rt = ctx.runtime()?;
    let outcome = rt.block_on(expnet.run(run, view, &catalog, &graph, refine));
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
    refine.end_run(run, &toolsmith_refine::RunEnd::Finished)?;
    let used = budget.used();
    if args.json.json {
        printer::json(
            &serde_json::json!({"run": run, "report": report, "tokens": used.tokens(), "llm_calls": used.calls}),
        )?;
    } else {
        printer::line(format!(
            "run {run} (expnet): {} edges tried, {}/{} requests answered right, {} edges added, {} removed, {} new `expnet` doc versions, {} steps done before; {} LLM calls, {} tokens",
            report.edges_tried,
            report.correct,
            report.trials,
            report.added.len(),
            report.removed.len(),
            report.insights.len(),
            report.already_done,
            used.calls,
            used.tokens()
        ))?;
        printer::note(
            "see `toolsmith graph show`; use them with `--doc-version expnet` or `toolsmith docs activate --all expnet`",
        );
    }
    Ok(ExitCode::SUCCESS)
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
