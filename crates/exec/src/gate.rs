//! [`WriteGate`]: keeps a model from changing a live API the user did not
//! open to writes. Only safe calls pass by default (GET, HEAD and OPTIONS, and
//! function tools their source declares read-only, such as MCP tools with
//! `readOnlyHint`); any other call needs its tool or API in the
//! [`WritePolicy`]. A refused call never reaches the backend: it is a
//! [`FailureKind::NotAllowed`] observation that tells the model, and the user
//! reading the trace, how to allow it.

use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use toolsmith_catalog::{ApiId, Effects, Endpoint, HttpMethod, ToolId};

use crate::error::{Error, Result};
use crate::executor::{ApiBook, BookEntry, Executor};
use crate::observation::{FailureKind, Observation, Provenance};

/// The tools and APIs a model may call with unsafe methods.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WritePolicy {
    tools: HashSet<ToolId>,
    apis: HashSet<ApiId>,
}

impl WritePolicy {
    /// Safe calls only.
    pub fn read_only() -> Self {
        Self::default()
    }

    /// The policy allowing each entry: a tool id (`tmdb`, all its APIs) or an
    /// API id (`tmdb/delete_list`). A malformed entry is an error naming it.
    pub fn allowing<S: AsRef<str>>(entries: impl IntoIterator<Item = S>) -> Result<Self> {
        let mut policy = Self::default();
        for entry in entries {
            let entry = entry.as_ref().trim();
            let bad = |e: &dyn std::fmt::Display| Error::AllowWrite {
                entry: entry.to_owned(),
                reason: e.to_string(),
            };
            if entry.contains('/') {
                policy.apis.insert(entry.parse().map_err(|e| bad(&e))?);
            } else {
                policy
                    .tools
                    .insert(ToolId::try_from(entry.to_owned()).map_err(|e| bad(&e))?);
            }
        }
        Ok(policy)
    }

    /// Whether `api` may be called with an unsafe method.
    pub fn allows(&self, api: &ApiId) -> bool {
        self.apis.contains(api) || self.tools.contains(api.tool())
    }
}

/// Whether calling an API cannot change anything, by its method or its
/// declared effects.
pub fn is_safe(entry: &BookEntry) -> bool {
    let api = &entry.api.api;
    match &api.endpoint {
        Endpoint::Http { method, .. } => {
            matches!(
                method,
                HttpMethod::Get | HttpMethod::Head | HttpMethod::Options
            )
        }
        Endpoint::Unlocated { .. } | Endpoint::Function { .. } => {
            api.access.effects == Effects::ReadOnly
        }
    }
}

/// An executor that only lets safe calls, and those the [`WritePolicy`]
/// allows, through to `inner`.
#[derive(Clone, Debug)]
pub struct WriteGate<E> {
    inner: E,
    book: Arc<ApiBook>,
    policy: WritePolicy,
}

impl<E> WriteGate<E> {
    /// Gates `inner`'s calls of the APIs of `book` by `policy`.
    pub fn new(inner: E, book: Arc<ApiBook>, policy: WritePolicy) -> Self {
        Self {
            inner,
            book,
            policy,
        }
    }

    /// The refusal of a call of `api`, or `None` when it may go through
    /// (APIs the book does not know pass to `inner`, which reports them).
    pub fn refusal(&self, api: &ApiId) -> Option<Observation> {
        let entry = self.book.get(api)?;
        if is_safe(entry) || self.policy.allows(api) {
            return None;
        }
        let what = match entry.api.api.endpoint.method() {
            Some(method) => format!("a {method} call"),
            None => "a tool not declared read-only".to_owned(),
        };
        let message = format!(
            "`{api}` is {what}, which may change the live API, and only safe calls \
             (GET, HEAD, OPTIONS, read-only tools) are made unless the user allows writes. \
             To allow it, run with `--allow-write {tool}` (or `--allow-write {api}`), or add \
             \"{tool}\" to `allow_writes` under [exec] in toolsmith.toml.",
            tool = api.tool(),
        );
        Some(Observation::tool_error(
            FailureKind::NotAllowed,
            message,
            Provenance::Live,
        ))
    }
}

#[async_trait]
impl<E: Executor> Executor for WriteGate<E> {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        if let Some(refused) = self.refusal(api) {
            tracing::info!(%api, "write refused: not in the allow-list");
            return Ok(refused);
        }
        self.inner.call(api, args).await
    }

    fn fork_for(&self, task: Option<&str>) -> Option<Arc<dyn Executor>> {
        let inner = self.inner.fork_for(task)?;
        Some(Arc::new(WriteGate {
            inner,
            book: Arc::clone(&self.book),
            policy: self.policy.clone(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> ApiId {
        s.parse().unwrap_or_else(|e| unreachable!("{e}"))
    }

    #[test]
    fn policies_allow_tools_or_single_apis() {
        let policy = WritePolicy::allowing(["tmdb", "library/delete_book"]).unwrap();
        assert!(policy.allows(&id("tmdb/delete_list")));
        assert!(policy.allows(&id("library/delete_book")));
        assert!(!policy.allows(&id("library/update_book")));
        assert!(!WritePolicy::read_only().allows(&id("tmdb/delete_list")));
        let err = WritePolicy::allowing(["tmdb/"]).unwrap_err().to_string();
        assert!(err.contains("`tmdb/`"), "{err}");
    }
}
