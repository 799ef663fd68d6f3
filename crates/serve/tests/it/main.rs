//! The MCP server and the HTTP API against the TMDB catalog, with the simulator as executor.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should fail loudly

mod http;
mod mcp;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use toolsmith_catalog::ApiId;
use toolsmith_catalog::testing::tmdb_catalog;
use toolsmith_exec::{ApiBook, Executor, Observation, Provenance, Simulator, Validated};
use toolsmith_retrieve::{Bm25Index, Corpus, RetrieveSettings};
use toolsmith_serve::{ServeSettings, ServiceParts, SolverFactory, ToolService};

/// The simulator, slowed down: a call in flight long enough to shut down under it.
pub(crate) struct Slow<E>(pub E, pub Duration);

#[async_trait]
impl<E: Executor> Executor for Slow<E> {
    async fn call(&self, api: &ApiId, args: &Value) -> toolsmith_exec::Result<Observation> {
        tokio::time::sleep(self.1).await;
        self.0.call(api, args).await
    }
}

/// The TMDB catalog served with BM25 search and the validated simulator.
pub(crate) fn service(settings: ServeSettings) -> Arc<ToolService> {
    service_with(settings, Duration::ZERO, None, None)
}

pub(crate) fn service_with(
    settings: ServeSettings,
    delay: Duration,
    solver: Option<SolverFactory>,
    runs: Option<std::path::PathBuf>,
) -> Arc<ToolService> {
    let catalog = tmdb_catalog();
    let corpus = Arc::new(Corpus::from_catalog(&catalog));
    let retriever = Arc::new(Bm25Index::build(corpus, RetrieveSettings::default().bm25));
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let simulator = Validated::new(
        Simulator::new(Arc::clone(&book)),
        book,
        Provenance::Simulated,
    );
    Arc::new(ToolService::new(ServiceParts {
        catalog,
        retriever,
        executor: Arc::new(Slow(simulator, delay)),
        sandbox: None,
        solver,
        runs,
        settings,
    }))
}
