//! `toolsmith solve`: answer a query with tools, printing the trace as it goes.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use toolsmith_catalog::{ApiId, DocLabel, Scope};
use toolsmith_exec::{ApiBook, JqSandbox, Mode};
use toolsmith_llm::{
    Budget, BudgetLimits, CacheDb, CacheMode, CachedChat, ChatModel, Metered, OpenAiClient,
};
use toolsmith_retrieve::{Filter, Retriever, build_retriever};
use toolsmith_solve::{
    AgentSettings, ConAgents, ConAgentsSettings, Dfsdt, DfsdtSettings, Finish, JsonlSink, React,
    ReactSettings, RenderOptions, RunStore, Runtime, Solver, Stamped, Toolset, TraceSink, Tracer,
};

use crate::cli::Global;
use crate::commands::search::{corpus, embedder, runtime};
use crate::commands::{executor, open_store, selector};
use crate::printer;

/// The agents `solve` can run.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum SolverName {
    /// ReAct (ToolBench's CoT@n).
    React,
    /// Depth-first search-based decision tree (ToolBench's DFSDT, width 2).
    Dfsdt,
    /// Grounding, execution and observing agents with iterative calibration.
    Conagents,
}

/// Answer a query by calling tools.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// The user's request.
    pub query: String,
    /// Which agent.
    #[arg(long, value_enum, default_value = "react")]
    pub solver: SolverName,
    /// Offer exactly these APIs (`tool/api`, comma-separated).
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["retrieve", "search_tool"])]
    pub tools: Vec<ApiId>,
    /// Offer the top K APIs found by hybrid retrieval.
    #[arg(long, value_name = "K")]
    pub retrieve: Option<usize>,
    /// Offer a `search_tools` meta-tool the agent calls to find tools itself.
    #[arg(long)]
    pub search_tool: bool,
    /// How tools are called: live, record, replay, replay-or-simulate, simulate.
    #[arg(long, default_value = "simulate")]
    pub mode: Mode,
    /// Render tools from the docs of this label instead of the active ones.
    #[arg(long = "doc-version")]
    pub doc_version: Option<DocLabel>,
    /// Add the docs' usage examples to tool descriptions.
    #[arg(long)]
    pub examples: bool,
    /// Also write the trace as JSON lines here.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Model (default: `TOOLSMITH_MODEL`, else `[llm] model` in toolsmith.toml).
    #[arg(long)]
    pub model: Option<String>,
    /// LLM response cache: off, read-write, replay (a miss is an error).
    #[arg(long, default_value = "read-write")]
    pub cache: CacheMode,
    /// Stop after this many LLM calls.
    #[arg(long, default_value_t = 200)]
    pub max_llm_calls: u64,
    /// Stop after this many tokens.
    #[arg(long)]
    pub max_tokens: Option<u64>,
    /// Print the result as JSON instead of the trace.
    #[arg(long)]
    pub json: bool,
}

/// Prints each event as it happens.
struct Terminal;

impl TraceSink for Terminal {
    fn event(&self, event: &Stamped) {
        printer::note(toolsmith_solve::render(&event.event));
    }
}

/// Runs `toolsmith solve`. Exit 0 with an answer, 1 without one, 2 on errors.
pub fn run(global: &Global, args: &SolveArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(global)?;
    let selector = selector(args.doc_version.as_ref());
    let catalog = store.catalog(&selector, &Scope::default())?;
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let options = RenderOptions {
        include_examples: args.examples,
    };
    let rt = runtime()?;

    let needs_retriever = args.retrieve.is_some() || args.search_tool;
    let retriever: Option<Arc<dyn Retriever>> = if needs_retriever {
        let corpus = corpus(&store, &selector)?;
        let config = crate::settings::retrieve_config()?;
        let method = config.method(None);
        let embedder = if method.embeds() {
            Some(embedder(&global.db, &config, CacheMode::ReadWrite)?)
        } else {
            None
        };
        Some(rt.block_on(build_retriever(
            method,
            corpus,
            embedder,
            &config.settings(),
        ))?)
    } else {
        None
    };
    let mut toolset = Toolset::default();
    if !args.tools.is_empty() {
        for id in &args.tools {
            let entry = book
                .get(id)
                .with_context(|| format!("no API `{id}` in the catalog"))?;
            toolset.add(&entry.api, &options);
        }
    } else if let (Some(k), Some(retriever)) = (args.retrieve, &retriever) {
        let hits = rt.block_on(retriever.search(&args.query, k, &Filter::default()))?;
        for hit in hits {
            if let Some(entry) = book.get(&hit.api) {
                toolset.add(&entry.api, &options);
            }
        }
    } else if !args.search_tool {
        bail!("say which tools the agent sees: --tools ID,..., --retrieve K or --search-tool");
    }
    if args.search_tool {
        toolset = toolset.with_search_tool();
    }

    let executor = executor::build(global, Arc::clone(&book), args.mode)?;
    let settings = crate::settings::llm_settings(args.model.as_deref())?;
    let client = OpenAiClient::new(&settings).context("configuring the LLM client")?;
    let cached = CachedChat::new(
        client,
        CacheDb::open(&global.db).context("opening the LLM cache")?,
        args.cache,
    );
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: Some(args.max_llm_calls),
        max_tokens: args.max_tokens,
    }));
    let llm: Arc<dyn ChatModel> = Arc::new(Metered::new(cached, budget));

    let mut tracer = Tracer::new();
    if !args.json {
        tracer = tracer.with_sink(Arc::new(Terminal));
    }
    if let Some(path) = &args.trace {
        let file = std::fs::File::create(path)
            .with_context(|| format!("creating the trace file {}", path.display()))?;
        tracer = tracer.with_sink(Arc::new(JsonlSink::new(file)));
    }
    let runtime = Runtime {
        llm,
        executor,
        retriever,
        book,
        settings: AgentSettings::default(),
        tracer,
    };
    let solver: Box<dyn Solver> = match args.solver {
        SolverName::React => Box::new(React::new(runtime, ReactSettings::default())),
        SolverName::Dfsdt => Box::new(Dfsdt::new(runtime, DfsdtSettings::default())),
        SolverName::Conagents => {
            let exe = std::env::current_exe()
                .context("locating the toolsmith binary for the jq sandbox")?;
            let sandbox = JqSandbox::new(exe).args([toolsmith_exec::sandbox::SUBCOMMAND]);
            Box::new(ConAgents::new(
                runtime,
                Arc::new(sandbox),
                ConAgentsSettings::default(),
            ))
        }
    };
    let run = rt.block_on(solver.solve(&args.query, toolset))?;
    let id = RunStore::open(&global.db)?.save(&run)?;
    if args.json {
        printer::json(&run)?;
    } else {
        match &run.answer {
            Some(answer) => printer::line(answer),
            None => printer::line(format!(
                "no answer ({}): {}",
                run.finish.as_str(),
                run.detail.as_deref().unwrap_or("")
            )),
        }
        printer::note(format!(
            "run {id}: {} LLM calls, {} tokens, {} API calls",
            run.llm_calls(),
            run.tokens(),
            run.api_calls().len()
        ));
    }
    Ok(if run.finish == Finish::Answered {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
