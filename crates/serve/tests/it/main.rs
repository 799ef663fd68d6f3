//! The MCP server and the HTTP API against the TMDB catalog, with the simulator as executor.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should fail loudly

mod guard;
mod http;
mod mcp;
mod mcp_http;
mod openapi;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use toolsmith_catalog::ApiId;
use toolsmith_catalog::testing::tmdb_catalog;
use toolsmith_exec::{ApiBook, Executor, Observation, Provenance, Simulator, Validated};
use toolsmith_retrieve::{Bm25Index, Corpus, RetrieveSettings};
use toolsmith_serve::{MakeSolver, ServeSettings, ServiceParts, ToolService};

/// The simulator, slowed down: a call in flight long enough to shut down under it.
pub(crate) struct Slow<E>(pub E, pub Duration);

#[async_trait]
impl<E: Executor> Executor for Slow<E> {
    async fn call(&self, api: &ApiId, args: &Value) -> toolsmith_exec::Result<Observation> {
        tokio::time::sleep(self.1).await;
        self.0.call(api, args).await
    }
}

/// Holds every call until the test lets it go, and tells the test when one has started:
/// a call in flight without guessing how long one takes.
#[derive(Clone)]
pub(crate) struct Gate {
    started: Arc<tokio::sync::Semaphore>,
    release: Arc<tokio::sync::Semaphore>,
}

impl Gate {
    pub(crate) fn new() -> Self {
        Self {
            started: Arc::new(tokio::sync::Semaphore::new(0)),
            release: Arc::new(tokio::sync::Semaphore::new(0)),
        }
    }

    /// Waits until a call has reached the executor.
    pub(crate) async fn started(&self) {
        self.started.acquire().await.unwrap().forget();
    }

    /// Lets `n` held calls finish.
    pub(crate) fn release(&self, n: usize) {
        self.release.add_permits(n);
    }
}

/// The simulator behind a [`Gate`].
pub(crate) struct Held<E>(pub E, pub Gate);

#[async_trait]
impl<E: Executor> Executor for Held<E> {
    async fn call(&self, api: &ApiId, args: &Value) -> toolsmith_exec::Result<Observation> {
        self.1.started.add_permits(1);
        self.1.release.acquire().await.unwrap().forget();
        self.0.call(api, args).await
    }
}

/// The TMDB catalog served with BM25 search and every call held at `gate`.
pub(crate) fn held_service(gate: Gate) -> Arc<ToolService> {
    let catalog = tmdb_catalog();
    let corpus = Arc::new(Corpus::from_catalog(&catalog));
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let simulator = Validated::new(
        Simulator::new(Arc::clone(&book)),
        book,
        Provenance::Simulated,
    );
    Arc::new(ToolService::new(ServiceParts {
        retriever: Arc::new(Bm25Index::build(corpus, RetrieveSettings::default().bm25)),
        catalog,
        executor: Arc::new(Held(simulator, gate)),
        sandbox: None,
        solver: None,
        runs: None,
        settings: ServeSettings::default(),
    }))
}

/// The TMDB catalog served with BM25 search and the validated simulator.
pub(crate) fn service(settings: ServeSettings) -> Arc<ToolService> {
    service_with(settings, Duration::ZERO, None, None)
}

pub(crate) fn service_with(
    settings: ServeSettings,
    delay: Duration,
    solver: Option<MakeSolver>,
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
