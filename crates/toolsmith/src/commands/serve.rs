//! `toolsmith serve`: the catalog as an MCP server (stdio or streamable HTTP) and an HTTP API,
//! until the MCP client leaves (stdio) or the process is told to stop (Ctrl-C, SIGTERM), after
//! finishing the requests in flight.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use toolsmith_catalog::{DocSelector, Scope};
use toolsmith_exec::{ApiBook, Executor, Mode};
use toolsmith_llm::{Budget, BudgetLimits, CacheMode, ChatModel, Metered, OpenAiClient};
use toolsmith_plumbing::Secret;
use toolsmith_serve::{CancellationToken, HttpOptions, MakeSolver, SHUTDOWN_GRACE, ToolService};
use toolsmith_solve::{AgentSettings, Runtime, Tracer};

use crate::cli::{McpTransportArg, ServeArgs, SolverName};
use crate::context::Context;
use crate::{agents, env, executor, printer, serving};

mod call_log;
mod solve_cache;

/// Where the HTTP server listens with `--mcp http` and no `--http`.
const DEFAULT_ADDR: &str = "127.0.0.1:8765";

/// LLM calls one `/v1/solve` run may make (as `solve --max-llm-calls` by default).
const SOLVE_MAX_LLM_CALLS: u64 = 200;

/// Runs `toolsmith serve`.
pub(super) fn run(ctx: &Context, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
    if catalog.api_count() == 0 {
        bail!(
            "the catalog {} has no APIs: import some first",
            ctx.db().display()
        );
    }
    let (stdio, http) = transports(args)?;
    let token = token(args)?;
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let mode = args.mode.mode.into();
    let executor = executor::build(
        ctx,
        Arc::clone(&book),
        mode,
        CacheMode::ReadWrite,
        executor::Writes::Agent(&args.writes.allow_write),
    )?;
    let solver = solver_factory(ctx, Arc::clone(&executor), book, &catalog, mode)?;
    let method = ctx
        .config()?
        .retrieve
        .method(args.method.method.map(Into::into));
    let rt = serving::runtime()?;
    rt.block_on(async {
        let stopped = stop_signal();
        let service = serving::service(
            ctx,
            &store,
            catalog,
            method,
            executor,
            solver,
            Some(ctx.db().to_path_buf()),
        )
        .await?;
        let stop = CancellationToken::new();
        let keep = service.settings().call_log_keep;
        let pruner = tokio::spawn(call_log::prune_every_minute(
            ctx.db().to_path_buf(),
            keep,
            stop.clone(),
        ));
        let server = match http {
            Some(addr) => {
                let options = HttpOptions {
                    token: token.clone(),
                    mcp: !stdio,
                    stop: stop.clone(),
                    allowed_hosts: args.allowed_hosts.clone(),
                };
                Some(start_http(addr, Arc::clone(&service), options).await?)
            }
            None => None,
        };
        if stdio {
            tokio::select! {
                served = toolsmith_serve::serve_stdio(service) => served.context("serving MCP on stdio")?,
                () = stopped => {}
            }
        } else {
            stopped.await;
            printer::note("stopping: finishing the requests in flight");
        }
        stop.cancel();
        if let Some(server) = server {
            match tokio::time::timeout(SHUTDOWN_GRACE, server).await {
                Ok(done) => done.context("the HTTP server task failed")??,
                Err(_) => printer::note("requests still in flight after the grace period were dropped"),
            }
        }
        pruner.await.context("the call log pruner failed")?;
        call_log::prune(ctx.db(), keep);
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Listens on `addr`, announces it on stderr, and serves the HTTP API (and `/mcp` when
/// `options.mcp`) until `options.stop` is cancelled.
async fn start_http(
    addr: SocketAddr,
    service: Arc<ToolService>,
    options: HttpOptions,
) -> anyhow::Result<tokio::task::JoinHandle<std::io::Result<()>>> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("listening on {addr}"))?;
    let local = listener.local_addr()?;
    printer::note(format!(
        "serving {} APIs on http://{local} (API: /v1, OpenAPI: /openapi.json{}{})",
        service.len(),
        if options.mcp { ", MCP: /mcp" } else { "" },
        if options.token.is_some() {
            ", bearer token required"
        } else {
            ""
        },
    ));
    let stop = options.stop.clone();
    let app = toolsmith_serve::router(service, options);
    Ok(tokio::spawn(toolsmith_serve::serve(
        listener,
        app,
        stop.cancelled_owned(),
    )))
}

/// Whether MCP runs on stdio, and where the HTTP server listens.
fn transports(args: &ServeArgs) -> anyhow::Result<(bool, Option<SocketAddr>)> {
    Ok(match (args.mcp, args.http) {
        (Some(McpTransportArg::Http), None) => (false, Some(DEFAULT_ADDR.parse()?)),
        (Some(McpTransportArg::Http), Some(addr)) | (None, Some(addr)) => (false, Some(addr)),
        (Some(McpTransportArg::Stdio) | None, http) => (true, http),
    })
}

/// The bearer token: `--token`, else from `--token-env VAR` (which must be set), else
/// `TOOLSMITH_SERVE_TOKEN` (which, when set, must not be empty: an empty one would serve
/// without a token silently).
fn token(args: &ServeArgs) -> anyhow::Result<Option<Secret>> {
    if let Some(token) = &args.token {
        if token.is_empty() {
            bail!("--token is empty");
        }
        return Ok(Some(Secret::new(token.clone())));
    }
    match &args.token_env {
        Some(var) => match std::env::var(var) {
            Ok(value) if !value.is_empty() => Ok(Some(Secret::new(value))),
            _ => bail!("--token-env {var}: the environment variable {var} is not set or empty"),
        },
        None => match std::env::var_os(env::SERVE_TOKEN) {
            None => Ok(None),
            Some(value) => match value.into_string() {
                Ok(value) if !value.trim().is_empty() => Ok(Some(Secret::new(value))),
                _ => bail!(
                    "{}: the variable is set but empty (or not UTF-8); set a token or unset it \
                     to serve without one",
                    env::SERVE_TOKEN
                ),
            },
        },
    }
}

/// ReAct over the configured LLM for `/v1/solve`, when an LLM is configured. Its answers are
/// kept in memory under `[serve] solve_cache_entries`, never in the db (see [`solve_cache`]).
/// Each run's agent is told the date the tools of `mode` answer as of on the day it runs (the
/// server outlives days; the simulator's sessions take theirs when they start, alike).
fn solver_factory(
    ctx: &Context,
    executor: Arc<dyn Executor>,
    book: Arc<ApiBook>,
    catalog: &toolsmith_catalog::Catalog,
    mode: Mode,
) -> anyhow::Result<Option<MakeSolver>> {
    if !crate::llm::is_configured(&ctx.config()?.llm) {
        return Ok(None);
    }
    let config = ctx.config()?;
    let client =
        OpenAiClient::new(&config.llm_settings(None)).context("configuring the LLM client")?;
    let llm: Arc<dyn ChatModel> = Arc::new(solve_cache::MemoChat::new(
        client,
        config.serve.solve_cache_entries,
    ));
    let make = agents::solvers(ctx, SolverName::React, catalog)?;
    let simulate = config.exec.simulate.clone();
    Ok(Some(Arc::new(move || {
        let budget = Arc::new(Budget::new(BudgetLimits {
            max_calls: Some(SOLVE_MAX_LLM_CALLS),
            max_tokens: None,
        }));
        make(Runtime {
            llm: Arc::new(Metered::new(Arc::clone(&llm), budget)),
            executor: Arc::clone(&executor),
            retriever: None,
            book: Arc::clone(&book),
            settings: AgentSettings {
                today: Some(executor::world_date(&simulate, mode)),
                ..AgentSettings::default()
            },
            tracer: Tracer::new(),
            jq: crate::agents::jq_sandbox(),
        })
    })))
}

/// A future that completes on Ctrl-C or SIGTERM. The handlers are installed when this is
/// called (inside the runtime), so a signal that comes right after the server announces
/// itself still stops it cleanly.
fn stop_signal() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            return Box::pin(async move {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = int.recv() => {}
                }
            });
        }
    }
    Box::pin(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
