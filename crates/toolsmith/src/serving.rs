//! The service `serve` and `bench serve` both serve: a catalog view, the configured
//! retrieval pipeline over it (ranking, then dependency expansion from the stored graph), an executor, the jq sandbox (this binary as a child) and the `[serve]`
//! settings, put together as a `toolsmith_serve::ToolService`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use toolsmith_catalog::{Catalog, Store};
use toolsmith_exec::{Executor, JqSandbox};
use toolsmith_retrieve::Method;
use toolsmith_serve::{MakeSolver, ServiceParts, ToolService};

use crate::context::Context;
use crate::retrieval;

/// The service over `catalog`, a view of `store` (whose original docs give the retrieval
/// corpus its source descriptions when `[retrieve]` weighs them, as every command's); `solver`
/// and `runs` enable `/v1/solve` and `/v1/runs`.
pub(crate) async fn service(
    ctx: &Context,
    store: &Store,
    catalog: Catalog,
    method: Method,
    executor: Arc<dyn Executor>,
    solver: Option<MakeSolver>,
    runs: Option<PathBuf>,
) -> anyhow::Result<Arc<ToolService>> {
    let corpus = retrieval::corpus_of(store, &catalog, retrieval::SourceField::configured(ctx)?)?;
    // A large catalog without its dense index is served at once with BM25 (and a note).
    let spec = retrieval::PipelineSpec {
        vectors: retrieval::Vectors::Indexed,
        ..retrieval::PipelineSpec::new(ctx, Some(method))?
    };
    let retriever = retrieval::Pipeline::build(ctx, corpus, spec)
        .await?
        .retriever();
    let exe =
        std::env::current_exe().context("locating the toolsmith binary for the jq sandbox")?;
    let sandbox = JqSandbox::new(exe).args([toolsmith_exec::sandbox::SUBCOMMAND]);
    Ok(Arc::new(ToolService::new(ServiceParts {
        catalog,
        retriever,
        executor,
        sandbox: Some(sandbox),
        solver,
        runs,
        settings: ctx.config()?.serve.clone(),
    })))
}

/// A runtime with worker threads: a server answers many clients at once.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    toolsmith_plumbing::runtime::multi_thread().context("starting the async runtime")
}
