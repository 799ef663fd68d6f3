//! The executor commands share: live HTTP (or the built-in tools), the
//! response cache and the simulator, over a snapshot of the catalog.

use std::sync::Arc;

use anyhow::Context;
use toolsmith_catalog::ApiId;
use toolsmith_exec::{
    ApiBook, Credentials, Executor, HttpExecutor, HttpSettings, Mode, ModeExecutor, NativeTools,
    ResponseCache, Simulator,
};

use crate::cli::Global;

/// The executor for a mode: live HTTP (or the built-in tools), the response
/// cache, and the simulator, over the catalog's APIs.
pub(crate) fn build(
    global: &Global,
    book: Arc<ApiBook>,
    mode: Mode,
) -> anyhow::Result<Arc<dyn Executor>> {
    let native = Arc::new(NativeTools::funcqa());
    let tools: Vec<_> = book
        .ids()
        .filter_map(|id| book.get(id))
        .map(|e| e.tool.clone())
        .collect();
    let credentials = Credentials::from_lookup(&tools, |name| std::env::var(name).ok());
    let http: Arc<dyn Executor> = Arc::new(HttpExecutor::new(
        Arc::clone(&book),
        credentials,
        HttpSettings::default(),
    )?);
    let live: Arc<dyn Executor> = Arc::new(Routed {
        native: Arc::clone(&native),
        other: http,
    });
    let simulator: Arc<dyn Executor> = Arc::new(Routed {
        native,
        other: Arc::new(Simulator::new(book)),
    });
    let cache = Arc::new(
        ResponseCache::open(&global.db)
            .with_context(|| format!("opening the response cache in {}", global.db.display()))?,
    );
    Ok(Arc::new(
        ModeExecutor::new(mode, cache)
            .live(live)
            .simulator(simulator),
    ))
}

/// Sends the built-in tools' calls to them and everything else on.
struct Routed {
    native: Arc<NativeTools>,
    other: Arc<dyn Executor>,
}

#[async_trait::async_trait]
impl Executor for Routed {
    async fn call(
        &self,
        api: &ApiId,
        args: &serde_json::Value,
    ) -> toolsmith_exec::Result<toolsmith_exec::Observation> {
        if api.tool() == self.native.tool_id() {
            self.native.call(api, args).await
        } else {
            self.other.call(api, args).await
        }
    }
}
