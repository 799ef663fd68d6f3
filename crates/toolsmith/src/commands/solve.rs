//! `toolsmith solve`: answer a query with tools, printing the trace as it goes. The steps:
//! [`offered_tools`], the LLM and the solver from `agents`, the world's date
//! ([`executor::world_date`], told to the agent) and [`executor::build_dated`],
//! [`build_tracer`], then the run is saved and [`print_run`] shows it.

use std::fmt;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use serde::Serialize;
use tokio::runtime::Runtime as AsyncRuntime;
use toolsmith_catalog::{DocSelector, Store};
use toolsmith_exec::ApiBook;
use toolsmith_llm::{Budget, Metered};
use toolsmith_retrieve::{Filter, Retriever};
use toolsmith_solve::{
    AgentSettings, Finish, JsonlSink, RenderOptions, Run, RunStore, Runtime, Stamped, Toolset,
    TraceSink, Tracer,
};

use crate::cli::{SolveArgs, SolverName};
use crate::context::Context;
use crate::{agents, executor, printer, retrieval};

/// Runs `toolsmith solve`. Exit 0 with an answer, 1 without one, 2 on errors.
pub(super) fn run(ctx: &Context, args: &SolveArgs) -> anyhow::Result<ExitCode> {
    let rt = ctx.runtime()?;
    let selector = args.docs.selector();
    let store = ctx.store()?;
    let catalog = store.catalog(&selector, &toolsmith_catalog::Scope::default())?;
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let paper = runs_paper_protocol(ctx, args)?;
    let overrides = anytool_overrides(args)?;
    let pipeline = pipeline(ctx, &rt, args, &store, &selector, paper)?;
    let retriever = pipeline.as_ref().map(retrieval::Pipeline::retriever);
    let toolset = offered_tools(&rt, args, &book, retriever.as_deref())?;
    let runtime = agent_runtime(ctx, args, book, retriever)?;
    let expanding = pipeline.as_ref().and_then(retrieval::Pipeline::expanding);
    let solver = agents::solvers_with(ctx, args.solver, &catalog, overrides, expanding)?(runtime);
    let run = rt.block_on(solver.solve(&args.query, toolset))?;
    if let Some(note) = pipeline.as_ref().and_then(retrieval::Pipeline::usage_note) {
        printer::note(note);
    }
    let id = RunStore::open(ctx.db())?.save(&run)?;
    print_run(&run, id, args.json.json)?;
    Ok(if run.finish == Finish::Answered {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Whether the run follows the paper's protocol: `--protocol` when given, else `[solve]`.
fn runs_paper_protocol(ctx: &Context, args: &SolveArgs) -> anyhow::Result<bool> {
    Ok(args
        .protocol
        .protocol
        .map_or(ctx.config()?.solve.paper(), |p| {
            toolsmith_solve::Protocol::from(p) == toolsmith_solve::Protocol::Paper
        }))
}

/// AnyTool's `--seed-k` and `--trim-pool`, refused for any other solver.
fn anytool_overrides(args: &SolveArgs) -> anyhow::Result<agents::AnyToolOverrides> {
    if args.solver != SolverName::Anytool && (args.seed_k.is_some() || args.trim_pool().is_some()) {
        bail!("--seed-k and --trim-pool/--no-trim-pool apply to --solver anytool only");
    }
    Ok(agents::AnyToolOverrides {
        seed_k: args.seed_k,
        trim_pool: args.trim_pool(),
    })
}

/// The retrieval pipeline over the selected docs of `store`, when the run retrieves
/// (`--retrieve K`, `--search-tool`, or search-assisted AnyTool).
fn pipeline(
    ctx: &Context,
    rt: &AsyncRuntime,
    args: &SolveArgs,
    store: &Store,
    selector: &DocSelector,
    paper: bool,
) -> anyhow::Result<Option<retrieval::Pipeline>> {
    let assisted =
        args.solver == SolverName::Anytool && agents::anytool_settings(ctx, paper)?.search_assisted;
    if args.retrieve.is_none() && !args.search_tool && !assisted {
        return Ok(None);
    }
    let corpus = retrieval::corpus(store, selector, retrieval::SourceField::configured(ctx)?)?;
    let spec = retrieval::PipelineSpec {
        cache: args.llm.cache.into(),
        ..retrieval::PipelineSpec::new(ctx, None)?
    }
    .with_intents(ctx, args.intents.choice())?
    .with_rerank(ctx, args.rerank.choice())?;
    Ok(Some(
        rt.block_on(retrieval::Pipeline::build(ctx, corpus, spec))?,
    ))
}

/// What the agent runs with: the metered model within the query's budget, the executor as of
/// the world's date serving this query as its task, the retriever, the configured settings
/// (told the date, with `--protocol`'s rules when given) and the tracer.
fn agent_runtime(
    ctx: &Context,
    args: &SolveArgs,
    book: Arc<ApiBook>,
    retriever: Option<Arc<dyn Retriever>>,
) -> anyhow::Result<Runtime> {
    let mode = args.mode.mode.into();
    // The agent is told the date the tools answer as of, and the simulator kept to it.
    let today = executor::world_date(&ctx.config()?.exec.simulate, mode);
    let executor = executor::build_dated(
        ctx,
        Arc::clone(&book),
        mode,
        args.llm.cache.into(),
        executor::Writes::Agent(&args.writes.allow_write),
        today,
    )?;
    // The simulator's session serves this query as its task (the user's premises).
    let executor = toolsmith_exec::task_session(&executor, &args.query);
    let budget = Arc::new(Budget::new(agents::budget(&args.llm)));
    let settings = AgentSettings {
        today: Some(today),
        ..ctx.config()?.solve.clone()
    };
    let settings = match args.protocol.protocol {
        Some(protocol) => settings.with_protocol(protocol.into()),
        None => settings,
    };
    Ok(Runtime {
        llm: Arc::new(Metered::new(agents::llm(ctx, &args.llm)?, budget)),
        executor,
        retriever,
        book,
        settings,
        tracer: build_tracer(args)?,
        jq: crate::agents::jq_sandbox(),
    })
}

/// The tools the agent sees: the `--tools` APIs, or the top `--retrieve K` for the query,
/// plus the `search_tools` meta-tool with `--search-tool`.
fn offered_tools(
    rt: &AsyncRuntime,
    args: &SolveArgs,
    book: &ApiBook,
    retriever: Option<&dyn Retriever>,
) -> anyhow::Result<Toolset> {
    let options = RenderOptions {
        include_examples: args.examples,
    };
    let mut toolset = Toolset::default();
    if !args.tools.is_empty() {
        for id in &args.tools {
            let entry = book
                .get(id)
                .with_context(|| format!("no API `{id}` in the catalog"))?;
            toolset.add(&entry.api, &options);
        }
    } else if let (Some(k), Some(retriever)) = (args.retrieve, retriever) {
        let hits = rt.block_on(retriever.search(&args.query, k, &Filter::default()))?;
        for hit in hits {
            if let Some(entry) = book.get(&hit.api) {
                toolset.add(&entry.api, &options);
            }
        }
    } else if !args.search_tool && args.solver != SolverName::Anytool {
        bail!("say which tools the agent sees: --tools ID,..., --retrieve K or --search-tool");
    }
    for clash in toolset.clashes() {
        printer::note(format!("warning: {clash}"));
    }
    if args.search_tool {
        toolset = toolset.with_search_tool();
    }
    Ok(toolset)
}

/// Prints each event as it happens.
struct Terminal;

impl TraceSink for Terminal {
    fn event(&self, event: &Stamped) {
        printer::note(toolsmith_solve::render(&event.event));
    }
}

/// The trace goes to the terminal (unless `--json`) and to the `--trace` file.
fn build_tracer(args: &SolveArgs) -> anyhow::Result<Tracer> {
    let mut tracer = Tracer::new();
    if !args.json.json {
        tracer = tracer.with_sink(Arc::new(Terminal));
    }
    if let Some(path) = &args.trace {
        let file = std::fs::File::create(path)
            .with_context(|| format!("creating the trace file {}", path.display()))?;
        tracer = tracer.with_sink(Arc::new(JsonlSink::new(file)));
    }
    Ok(tracer)
}

/// The run as JSON, or its answer on stdout and a summary on stderr.
fn print_run(run: &Run, id: i64, json: bool) -> anyhow::Result<()> {
    printer::report(&Solved(run), json)?;
    if json {
        return Ok(());
    }
    let ended = run
        .limit()
        .map_or_else(String::new, |limit| format!("; ended by the {limit} limit"));
    printer::note(format!(
        "run {id}: {} LLM calls, {} tokens, {}{ended}",
        run.llm_calls(),
        run.tokens(),
        run.call_counts()
    ));
    Ok(())
}

/// `toolsmith solve`'s report: the whole run as JSON, its answer as text.
#[derive(Serialize)]
#[serde(transparent)]
struct Solved<'a>(&'a Run);

impl fmt::Display for Solved<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0.answer {
            Some(answer) => f.write_str(answer),
            None => write!(
                f,
                "no answer ({}): {}",
                self.0.finish.as_str(),
                self.0.detail.as_deref().unwrap_or("")
            ),
        }
    }
}
