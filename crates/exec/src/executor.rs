//! The [`Executor`] contract, the catalog snapshot executors read
//! ([`ApiBook`]), and the argument check every executor makes first.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use toolsmith_catalog::{ApiEntry, ApiId, Catalog, Store, Tool, export};

use crate::error::{Error, Result};
use crate::observation::{FailureKind, Observation, Provenance};

/// Runs one API call.
///
/// A tool that fails (bad arguments, 404, timeout) is still
/// `Ok(Observation)`: the agent must see the failure. `Err` is for
/// toolsmith's own failures: an API it does not know, a missing recording.
#[async_trait]
pub trait Executor: Send + Sync {
    /// Calls `api` with `args` (a JSON object of argument name to value).
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation>;
}

#[async_trait]
impl<T: Executor + ?Sized> Executor for Arc<T> {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        (**self).call(api, args).await
    }
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

/// Checks `args` against an API's input schema. `None` when they conform;
/// otherwise a `bad_parameters` observation naming each offending argument
/// and the rule it breaks, to return instead of making the call.
pub fn check_arguments(
    input_schema: &Value,
    args: &Value,
    provenance: Provenance,
) -> Option<Observation> {
    if !args.is_object() {
        return Some(Observation::tool_error(
            FailureKind::BadParameters,
            format!(
                "arguments must be a JSON object of parameter name to value, got {}",
                json_type(args)
            ),
            provenance,
        ));
    }
    let validator = match jsonschema::validator_for(input_schema) {
        Ok(v) => v,
        // A schema the validator cannot compile is the catalog's problem, not
        // the caller's: let the call through rather than refuse every call.
        Err(err) => {
            tracing::warn!(%err, "input schema does not compile; arguments not checked");
            return None;
        }
    };
    let problems: Vec<String> = validator
        .iter_errors(args)
        .take(5)
        .map(|err| {
            let location = err.instance_path().to_string();
            let param = location.trim_start_matches('/');
            let schema_path = err.schema_path().to_string();
            let rule = schema_path
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_owned();
            if param.is_empty() {
                format!("{err} (rule `{rule}`)")
            } else {
                format!("parameter `{param}`: {err} (rule `{rule}`)")
            }
        })
        .collect();
    if problems.is_empty() {
        None
    } else {
        Some(Observation::tool_error(
            FailureKind::BadParameters,
            format!("invalid arguments, no call made: {}", problems.join("; ")),
            provenance,
        ))
    }
}

pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_the_parameter_and_the_rule() {
        let schema = json!({
            "type": "object",
            "properties": {"page": {"type": "integer"}, "query": {"type": "string"}},
            "required": ["query"]
        });
        assert!(
            check_arguments(&schema, &json!({"query": "x", "page": 2}), Provenance::Live).is_none()
        );
        let obs = check_arguments(&schema, &json!({"page": "two"}), Provenance::Live).unwrap();
        assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
        let text = serde_json::to_string(&obs).unwrap();
        assert!(text.contains("parameter `page`"), "{text}");
        assert!(text.contains("rule `type`"), "{text}");
        assert!(text.contains("query"), "{text}");
        assert!(text.contains("rule `required`"), "{text}");
        let obs = check_arguments(&schema, &json!([1]), Provenance::Live).unwrap();
        assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
    }
}
