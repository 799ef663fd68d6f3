//! The [`Executor`] contract and the catalog snapshot executors read
//! ([`ApiBook`]). Arguments are checked in front of executors, by
//! [`Validated`](crate::Validated).

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use toolsmith_catalog::{ApiEntry, ApiId, Catalog, Store, Tool, export};

use crate::error::{Error, Result};
use crate::observation::Observation;

/// Runs one API call.
///
/// A tool that fails (bad arguments, 404, timeout) is still
/// `Ok(Observation)`: the agent must see the failure. `Err` is for
/// toolsmith's own failures: an API it does not know, a missing recording.
#[async_trait]
pub trait Executor: Send + Sync {
    /// Calls `api` with `args` (a JSON object of argument name to value).
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation>;

    /// The same executor over a session of its own: what a session remembers (the
    /// simulator's created, changed and deleted items, the entities it showed) starts
    /// pristine, while what no session owns (caches, connections) stays shared. `None` when
    /// the executor keeps no session, so sharing it is the same.
    fn fork(&self) -> Option<Arc<dyn Executor>> {
        self.fork_for(None)
    }

    /// [`Executor::fork`] for a session that serves one task: `task` is the user's request
    /// (the query a solver answers), which the simulator takes as facts about the user's own
    /// account (the playlist "My R&B" a request names exists). Wrappers pass it on.
    fn fork_for(&self, task: Option<&str>) -> Option<Arc<dyn Executor>> {
        let _ = task;
        None
    }
}

#[async_trait]
impl<T: Executor + ?Sized> Executor for Arc<T> {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        (**self).call(api, args).await
    }

    fn fork_for(&self, task: Option<&str>) -> Option<Arc<dyn Executor>> {
        (**self).fork_for(task)
    }
}

/// `executor` over a fresh session ([`Executor::fork`]), or `executor` itself when it keeps
/// no session: what a benchmark gives each query, so that no query sees another's changes.
pub fn fresh_session(executor: &Arc<dyn Executor>) -> Arc<dyn Executor> {
    executor.fork().unwrap_or_else(|| Arc::clone(executor))
}

/// [`fresh_session`] for one task (the user's request a solver answers): a simulator
/// fills the user's own account with what the request presupposes.
pub fn task_session(executor: &Arc<dyn Executor>, task: &str) -> Arc<dyn Executor> {
    executor
        .fork_for(Some(task))
        .unwrap_or_else(|| Arc::clone(executor))
}

/// One API as an executor needs it: the API, its tool, and its input schema.
#[derive(Clone, Debug)]
pub struct BookEntry {
    /// The API with its active doc.
    pub api: ApiEntry,
    /// The tool it belongs to (base URL, security schemes).
    pub tool: Tool,
    /// JSON Schema of its arguments ([`export::input_schema`]).
    pub input_schema: Value,
}

/// A snapshot of the catalog entries executors need, loaded once and shared
/// (the SQLite store itself cannot cross threads).
#[derive(Clone, Debug, Default)]
pub struct ApiBook {
    entries: HashMap<ApiId, Arc<BookEntry>>,
}

impl ApiBook {
    /// An empty book.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every API of a catalog view.
    pub fn from_catalog(catalog: &Catalog) -> Self {
        let mut book = Self::new();
        for (tool, api) in catalog.apis() {
            book.insert(tool.tool.clone(), api.clone());
        }
        book
    }

    /// The named APIs, read from the store.
    pub fn load(store: &Store, ids: &[ApiId]) -> Result<Self> {
        let mut book = Self::new();
        for id in ids {
            let api = store.api(id)?;
            let tool = store.tool(id.tool())?;
            book.insert(tool, api);
        }
        Ok(book)
    }

    /// Adds (or replaces) one API.
    pub fn insert(&mut self, tool: Tool, api: ApiEntry) {
        let input_schema = export::input_schema(&api);
        self.entries.insert(
            api.api.id.clone(),
            Arc::new(BookEntry {
                api,
                tool,
                input_schema,
            }),
        );
    }

    /// The entry of an API.
    pub fn get(&self, id: &ApiId) -> Option<&Arc<BookEntry>> {
        self.entries.get(id)
    }

    /// The entry of an API, or [`Error::UnknownApi`].
    pub fn entry(&self, id: &ApiId) -> Result<&Arc<BookEntry>> {
        self.get(id).ok_or_else(|| Error::UnknownApi(id.clone()))
    }

    /// Every API id, in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = &ApiId> {
        self.entries.keys()
    }

    /// Number of APIs.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
