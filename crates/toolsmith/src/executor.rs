//! The executor `call` and `solve` run tools with: live HTTP, MCP servers or the built-in
//! tools, the response cache and the simulator, over a snapshot of the catalog. Where a model
//! chooses the calls ([`Writes::Agent`]), the live HTTP and MCP backends sit behind a
//! [`WriteGate`]: only safe calls, and those the user allowed, reach them.

use std::sync::Arc;

use anyhow::Context as _;
use jiff::civil::Date;
use toolsmith_catalog::ApiId;
use toolsmith_exec::{
    ApiBook, Credentials, Executor, Fill, HttpExecutor, HttpSettings, LlmOracle, McpAddress,
    McpExecutor, Mode, ModeExecutor, NativeTools, Provenance, Redactor, ResponseCache, Simulator,
    SimulatorSettings, Validated, WriteGate, WritePolicy,
};
use toolsmith_llm::{Budget, CacheMode, ChatModel, Metered};

use crate::context::Context;

/// Who chooses the calls, and so what they may change on a live API.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Writes<'a> {
    /// The user typed the call (`toolsmith call`): it runs as given.
    User,
    /// A model chooses the calls: safe ones only, plus writes to the tools and APIs of
    /// `[exec] allow_writes` and of these `--allow-write` values.
    Agent(&'a [String]),
}

impl Writes<'_> {
    /// The policy of the live backends; `None` for the user's own calls.
    fn policy(self, ctx: &Context) -> anyhow::Result<Option<WritePolicy>> {
        match self {
            Self::User => Ok(None),
            Self::Agent(flags) => {
                let configured = &ctx.config()?.exec.allow_writes;
                let policy = WritePolicy::allowing(configured.iter().chain(flags))
                    .context("reading `--allow-write` and `[exec] allow_writes`")?;
                Ok(Some(policy))
            }
        }
    }
}

/// The date of the world the tools of `mode` answer from, which agents are told is today: the
/// simulated world's when the mode simulates (`[exec.simulate] today`, else the real UTC date),
/// the real UTC date when tools answer live or from recordings. The one place that date is
/// chosen; a run that fixes it passes it on to the simulator with [`build_dated`].
pub(crate) fn world_date(simulate: &SimulatorSettings, mode: Mode) -> Date {
    let simulates = matches!(mode, Mode::Simulate | Mode::ReplayOrSimulate);
    simulate
        .today
        .filter(|_| simulates)
        .unwrap_or_else(toolsmith_exec::utc_today)
}

/// The executor for a mode: live HTTP, MCP servers (tools imported from an
/// MCP address) or the built-in tools, the response cache, and the
/// simulator, over the catalog's APIs. When an LLM endpoint is configured, the
/// simulator asks it to invent the responses of APIs with no schema or example
/// (`oracle_cache` is the LLM cache's mode, so a replayed run replays those too). The
/// simulator's calls are an environment's, charged to no budget: a solver's tokens are its own.
pub(crate) fn build(
    ctx: &Context,
    book: Arc<ApiBook>,
    mode: Mode,
    oracle_cache: CacheMode,
    writes: Writes<'_>,
) -> anyhow::Result<Arc<dyn Executor>> {
    build_with(ctx, book, mode, oracle_cache, None, writes, None)
}

/// [`build`], with the simulated world at `today` whatever `[exec.simulate] today` says: the
/// date a run fixed and told its agents, so the simulator and the agents agree on it.
pub(crate) fn build_dated(
    ctx: &Context,
    book: Arc<ApiBook>,
    mode: Mode,
    oracle_cache: CacheMode,
    writes: Writes<'_>,
    today: Date,
) -> anyhow::Result<Arc<dyn Executor>> {
    build_with(ctx, book, mode, oracle_cache, None, writes, Some(today))
}

/// [`build`], with the simulator's LLM calls charged to `budget` when one is given: a
/// refinement run pays for the responses it has invented, and its `--max-tokens` bounds them.
pub(crate) fn build_charged(
    ctx: &Context,
    book: Arc<ApiBook>,
    mode: Mode,
    oracle_cache: CacheMode,
    budget: Option<Arc<Budget>>,
    writes: Writes<'_>,
) -> anyhow::Result<Arc<dyn Executor>> {
    build_with(ctx, book, mode, oracle_cache, budget, writes, None)
}

/// The executor of [`build_charged`], its simulated world at `today` when given (else as
/// `[exec.simulate] today` says).
fn build_with(
    ctx: &Context,
    book: Arc<ApiBook>,
    mode: Mode,
    oracle_cache: CacheMode,
    budget: Option<Arc<Budget>>,
    writes: Writes<'_>,
    today: Option<Date>,
) -> anyhow::Result<Arc<dyn Executor>> {
    // Every backend checks arguments against its schemas first; a refusal
    // carries that backend's provenance.
    let native = NativeTools::funcqa();
    let native = Arc::new(Validated::new(native.clone(), native, Provenance::Live));
    let tools: Vec<_> = book
        .ids()
        .filter_map(|id| book.get(id))
        .map(|e| e.tool.clone())
        .collect();
    let credentials = Credentials::from_lookup(&tools, |name| std::env::var(name).ok());
    let http = HttpExecutor::new(Arc::clone(&book), credentials, HttpSettings::default())?;
    let policy = writes.policy(ctx)?;
    let gated = |backend: Arc<dyn Executor>| -> Arc<dyn Executor> {
        match &policy {
            Some(policy) => Arc::new(WriteGate::new(backend, Arc::clone(&book), policy.clone())),
            None => backend,
        }
    };
    let mcp = mcp_executor(ctx, &book)?.map(|servers| McpRoute {
        call: gated(Arc::clone(&servers) as Arc<dyn Executor>),
        servers,
    });
    let live: Arc<dyn Executor> = Arc::new(Routed {
        native: Arc::clone(&native),
        mcp,
        other: gated(Arc::new(Validated::new(
            http,
            Arc::clone(&book),
            Provenance::Live,
        ))),
    });
    let simulator: Arc<dyn Executor> = Arc::new(Routed {
        native,
        mcp: None,
        other: Arc::new(Validated::new(
            simulator(ctx, Arc::clone(&book), oracle_cache, budget, today)?,
            book,
            Provenance::Simulated,
        )),
    });
    let db = ctx.db();
    let cache = Arc::new(
        ResponseCache::open(db)
            .with_context(|| format!("opening the response cache in {}", db.display()))?,
    );
    Ok(Arc::new(
        ModeExecutor::new(mode, cache)
            .live(live)
            .simulator(simulator)
            .redacting(redactor(ctx)?),
    ))
}

/// The secrets no observation may carry: the values of secret-named
/// variables of the environment (API keys, tokens) and those the `[mcp]`
/// table configures.
fn redactor(ctx: &Context) -> anyhow::Result<Redactor> {
    let mut redactor = Redactor::from_env();
    for secret in ctx.config()?.mcp.secrets(|var| std::env::var(var).ok()) {
        redactor.add(secret);
    }
    Ok(redactor)
}

/// The schema simulator, with the configured LLM as its oracle when there is one (required by
/// `[exec.simulate] fill = "llm"`), its calls charged to `budget` when given, its world at
/// `today` when given.
fn simulator(
    ctx: &Context,
    book: Arc<ApiBook>,
    cache: CacheMode,
    budget: Option<Arc<Budget>>,
    today: Option<Date>,
) -> anyhow::Result<Simulator> {
    let configured = &ctx.config()?.exec.simulate;
    let settings = &SimulatorSettings {
        today: today.or(configured.today),
        ..configured.clone()
    };
    let simulator = Simulator::with_settings(book, settings);
    // `fill = "llm"` needs the model (cached_chat says how to configure one); otherwise the
    // model, when there is one, only invents what has no schema.
    if settings.fill != Fill::Llm && !crate::llm::is_configured(&ctx.config()?.llm) {
        return Ok(simulator);
    }
    let model = crate::llm::cached_chat(ctx, None, cache)?;
    let model: Arc<dyn ChatModel> = match budget {
        Some(budget) => Arc::new(Metered::new(model, budget)),
        None => Arc::new(model),
    };
    Ok(simulator.with_oracle(Arc::new(LlmOracle::new(model))))
}

/// The MCP executor, when the book holds tools of MCP servers (the
/// `[mcp.servers]` of the config file are read only then).
fn mcp_executor(
    ctx: &Context,
    book: &Arc<ApiBook>,
) -> anyhow::Result<Option<Arc<Validated<McpExecutor>>>> {
    let has_mcp = book.ids().filter_map(|id| book.get(id)).any(|entry| {
        entry
            .tool
            .base_url
            .as_deref()
            .is_some_and(McpAddress::is_mcp)
    });
    if !has_mcp {
        return Ok(None);
    }
    let config = &ctx.config()?.mcp;
    let mcp = McpExecutor::new(
        Arc::clone(book),
        config.servers_from_env()?,
        config.client_settings(),
    );
    Ok(Some(Arc::new(Validated::new(
        mcp,
        Arc::clone(book),
        Provenance::Live,
    ))))
}

/// Sends the built-in tools' calls to them, MCP tools' calls to their
/// servers, and everything else on.
struct Routed {
    native: Arc<Validated<NativeTools>>,
    mcp: Option<McpRoute>,
    other: Arc<dyn Executor>,
}

/// The MCP servers, and the (possibly gated) way calls reach them.
struct McpRoute {
    servers: Arc<Validated<McpExecutor>>,
    call: Arc<dyn Executor>,
}

#[async_trait::async_trait]
impl Executor for Routed {
    async fn call(
        &self,
        api: &ApiId,
        args: &serde_json::Value,
    ) -> toolsmith_exec::Result<toolsmith_exec::Observation> {
        if api.tool() == self.native.inner().tool_id() {
            return self.native.call(api, args).await;
        }
        match &self.mcp {
            Some(mcp) if mcp.servers.inner().serves(api) => mcp.call.call(api, args).await,
            _ => self.other.call(api, args).await,
        }
    }

    /// Only `other` (the simulator or HTTP) can keep a session.
    fn fork_for(&self, task: Option<&str>) -> Option<Arc<dyn Executor>> {
        Some(Arc::new(Self {
            native: Arc::clone(&self.native),
            mcp: self.mcp.as_ref().map(|m| McpRoute {
                servers: Arc::clone(&m.servers),
                call: Arc::clone(&m.call),
            }),
            other: self.other.fork_for(task)?,
        }))
    }
}
