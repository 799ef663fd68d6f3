//! The agent pieces `solve` and `bench run` both build from the context: the configured LLM
//! behind the response cache, its budget, and a factory of the chosen solver.

use std::sync::Arc;

use anyhow::Context as _;
use toolsmith_catalog::Catalog;
use toolsmith_exec::JqSandbox;
use toolsmith_llm::{BudgetLimits, ChatModel};
use toolsmith_retrieve::ExpandingRetriever;
use toolsmith_solve::{
    AnyTool, AnyToolSettings, ConAgents, ConAgentsSettings, Dfsdt, DfsdtSettings, Hierarchy, React,
    ReactSettings, Runtime, Solver,
};

use crate::cli::{LlmArgs, SolverName};
use crate::context::Context;

/// The configured LLM (`--model` first) behind the response cache in the catalog database.
pub(crate) fn llm(ctx: &Context, args: &LlmArgs) -> anyhow::Result<Arc<dyn ChatModel>> {
    Ok(Arc::new(crate::llm::cached_chat(
        ctx,
        args.model.as_deref(),
        args.cache.into(),
    )?))
}

/// The LLM-call and token limits of `--max-llm-calls` and `--max-tokens`.
pub(crate) fn budget(args: &LlmArgs) -> BudgetLimits {
    BudgetLimits {
        max_calls: Some(args.max_llm_calls),
        max_tokens: args.max_tokens,
    }
}

/// AnyTool's settings from `[anytool]`, with search assistance off under `--protocol paper`
/// (or `[solve] protocol = "paper"`).
pub(crate) fn anytool_settings(ctx: &Context, paper: bool) -> anyhow::Result<AnyToolSettings> {
    let settings = ctx.config()?.anytool.clone();
    Ok(if paper { settings.paper() } else { settings })
}

/// `[anytool]` settings a command line overrides (`solve --seed-k`, `--trim-pool`); they
/// apply after the protocol's.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AnyToolOverrides {
    /// `seed_k`.
    pub(crate) seed_k: Option<usize>,
    /// `trim_pool`.
    pub(crate) trim_pool: Option<bool>,
}

impl AnyToolOverrides {
    fn apply(self, settings: AnyToolSettings) -> AnyToolSettings {
        AnyToolSettings {
            seed_k: self.seed_k.unwrap_or(settings.seed_k),
            trim_pool: self.trim_pool.unwrap_or(settings.trim_pool),
            ..settings
        }
    }
}

/// The jq sandbox of this binary (`__jq-sandbox`), where `read_result`'s filters (any solver,
/// once an observation was cut; the command sets it as the runtime's `jq`) and ConAgents'
/// filters run; none when the binary cannot be located.
pub(crate) fn jq_sandbox() -> Option<Arc<JqSandbox>> {
    let exe = std::env::current_exe().ok()?;
    Some(Arc::new(
        JqSandbox::new(exe).args([toolsmith_exec::sandbox::SUBCOMMAND]),
    ))
}

/// Builds the chosen agent over a runtime; ConAgents runs its jq filters in this binary as a
/// sandboxed child; AnyTool walks the `catalog`'s category -> tool -> API tree.
pub(crate) fn solvers(
    ctx: &Context,
    name: SolverName,
    catalog: &Catalog,
) -> anyhow::Result<impl Fn(Runtime) -> Box<dyn Solver> + Send + Sync + 'static> {
    solvers_with(ctx, name, catalog, AnyToolOverrides::default(), None)
}

/// [`solvers`] with AnyTool's settings overridden by the command line; AnyTool's
/// search-assisted seeding searches through `expanding` (the command's
/// `retrieval::Pipeline`, when it expands) to see why each producer was added.
pub(crate) fn solvers_with(
    ctx: &Context,
    name: SolverName,
    catalog: &Catalog,
    overrides: AnyToolOverrides,
    expanding: Option<Arc<ExpandingRetriever>>,
) -> anyhow::Result<impl Fn(Runtime) -> Box<dyn Solver> + Send + Sync + 'static> {
    let anytool = match name {
        SolverName::Anytool => {
            let settings = ctx.config()?.anytool.clone();
            let hierarchy = Arc::new(Hierarchy::from_catalog(catalog, settings.category_by));
            Some((hierarchy, settings, expanding))
        }
        _ => None,
    };
    let sandbox = match name {
        SolverName::Conagents => {
            Some(jq_sandbox().context("locating the toolsmith binary for the jq sandbox")?)
        }
        SolverName::React | SolverName::Dfsdt | SolverName::Anytool => None,
    };
    Ok(move |runtime: Runtime| -> Box<dyn Solver> {
        if let Some((hierarchy, settings, expanding)) = &anytool {
            let settings = overrides.apply(if runtime.settings.paper() {
                settings.clone().paper()
            } else {
                settings.clone()
            });
            let expander = match expanding {
                Some(expanding) if settings.search_assisted && runtime.retriever.is_some() => {
                    Some(Arc::clone(expanding))
                }
                _ => None,
            };
            let anytool = AnyTool::new(runtime, Arc::clone(hierarchy), settings);
            return Box::new(match expander {
                Some(expander) => anytool.with_expansion(expander),
                None => anytool,
            });
        }
        match (name, &sandbox) {
            (SolverName::Conagents, Some(sandbox)) => Box::new(ConAgents::new(
                runtime,
                Arc::clone(sandbox),
                ConAgentsSettings::default(),
            )),
            (SolverName::Dfsdt, _) => Box::new(Dfsdt::new(runtime, DfsdtSettings::default())),
            _ => Box::new(React::new(runtime, ReactSettings::default())),
        }
    })
}
