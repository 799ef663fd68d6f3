//! Arguments checked once, in front of any executor: [`Validated`] refuses a
//! call whose arguments break the API's input schema before the backend
//! sees it, and compiles each API's schema only once. A string given for a
//! list of scalars is first split on commas into the list when every piece
//! is a valid item ([`coerce_lists`]).
//!
//! Backends ([`HttpExecutor`](crate::HttpExecutor),
//! [`Simulator`](crate::Simulator), [`McpExecutor`](crate::McpExecutor),
//! [`NativeTools`]) do not check arguments themselves; whoever builds an
//! executor for a user wraps it.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use async_trait::async_trait;
use jsonschema::Validator;
use serde_json::Value;
use toolsmith_catalog::ApiId;

use crate::error::Result;
use crate::executor::{ApiBook, Executor};
use crate::native::NativeTools;
use crate::observation::{FailureKind, Observation, Provenance};

mod coerce;

pub use self::coerce::{Coercion, coerce_lists};

/// Where a [`Validated`] executor finds the input schema of an API.
///
/// Implemented by [`ApiBook`] (the catalog's schemas), [`NativeTools`] (the
/// built-in tools' schema), `Arc<T>`, and pairs `(A, B)`, which ask `A`
/// first, then `B`.
pub trait InputSchemas: Send + Sync {
    /// The JSON Schema of `api`'s arguments; `None` when this source does
    /// not know the API (the call then goes through unchecked, and the
    /// backend says what it thinks of an API it does not know).
    fn input_schema(&self, api: &ApiId) -> Option<Value>;
}

impl InputSchemas for ApiBook {
    fn input_schema(&self, api: &ApiId) -> Option<Value> {
        self.get(api).map(|entry| entry.input_schema.clone())
    }
}

impl InputSchemas for NativeTools {
    fn input_schema(&self, api: &ApiId) -> Option<Value> {
        self.input_schema_of(api)
    }
}

impl<T: InputSchemas + ?Sized> InputSchemas for Arc<T> {
    fn input_schema(&self, api: &ApiId) -> Option<Value> {
        (**self).input_schema(api)
    }
}

impl<A: InputSchemas, B: InputSchemas> InputSchemas for (A, B) {
    fn input_schema(&self, api: &ApiId) -> Option<Value> {
        self.0
            .input_schema(api)
            .or_else(|| self.1.input_schema(api))
    }
}

/// An API's input schema and its compiled form; `validator` is `None` when the
/// schema does not compile (the catalog's problem, not the caller's: such calls
/// go through unchecked, with lists still split).
#[derive(Debug)]
struct Checker {
    schema: Value,
    validator: Option<Validator>,
}

type Compiled = Arc<Checker>;

/// An executor that checks arguments against each API's input schema
/// before calling `inner`.
///
/// A string given for a list of scalars is split into the list first when
/// every piece is a valid item ([`coerce_lists`]); the backend gets the list.
/// A call whose arguments are not a JSON object, or break the schema, is
/// answered with a [`FailureKind::BadParameters`] observation with the given
/// provenance, naming each offending argument and the rule it breaks;
/// `inner` is not called. Each API's schema is compiled on its first call
/// and kept; the cache is shared by all threads calling this executor.
pub struct Validated<E> {
    inner: E,
    schemas: Arc<dyn InputSchemas>,
    provenance: Provenance,
    compiled: Mutex<HashMap<ApiId, Compiled>>,
    compilations: AtomicUsize,
}

impl<E> fmt::Debug for Validated<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validated")
            .field("provenance", &self.provenance)
            .field("compilations", &self.compilations())
            .finish_non_exhaustive()
    }
}

impl<E> Validated<E> {
    /// Checks the arguments of calls to `inner` against the schemas of
    /// `schemas`; refusals carry `provenance` (the provenance `inner`'s own
    /// observations have: [`Provenance::Simulated`] for a simulator,
    /// [`Provenance::Live`] otherwise).
    pub fn new(inner: E, schemas: impl InputSchemas + 'static, provenance: Provenance) -> Self {
        Self {
            inner,
            schemas: Arc::new(schemas),
            provenance,
            compiled: Mutex::new(HashMap::new()),
            compilations: AtomicUsize::new(0),
        }
    }

    /// The executor the checked calls go to.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// How many schemas this executor has compiled so far: at most one per API.
    pub fn compilations(&self) -> usize {
        self.compilations.load(Ordering::Relaxed)
    }

    /// The schema of `api`, compiled on the first call, then kept; `None` for
    /// an API the schemas do not know.
    fn validator(&self, api: &ApiId) -> Option<Compiled> {
        // Compiling under the lock keeps it to once per API even when
        // several calls to a new API arrive together; it happens once per API.
        let mut compiled = self.compiled.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = compiled.get(api) {
            return Some(found.clone());
        }
        let schema = self.schemas.input_schema(api)?;
        self.compilations.fetch_add(1, Ordering::Relaxed);
        let validator = match jsonschema::validator_for(&schema) {
            Ok(v) => Some(v),
            Err(err) => {
                tracing::warn!(%api, %err, "input schema does not compile; arguments not checked");
                None
            }
        };
        let checker = Arc::new(Checker { schema, validator });
        compiled.insert(api.clone(), Arc::clone(&checker));
        Some(checker)
    }
}

#[async_trait]
impl<E: Executor> Executor for Validated<E> {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        let start = Instant::now();
        let Some(checker) = self.validator(api) else {
            return self.inner.call(api, args).await;
        };
        let (args, coerced) = coerce_lists(&checker.schema, args);
        for change in &coerced {
            tracing::info!(%api, %change, "argument coerced");
        }
        if let Some(refused) = refusal(checker.validator.as_ref(), &args, self.provenance) {
            return Ok(refused.with_latency(start.elapsed()));
        }
        self.inner.call(api, &args).await
    }

    fn fork_for(&self, task: Option<&str>) -> Option<Arc<dyn Executor>> {
        let inner = self.inner.fork_for(task)?;
        let compiled = self.compiled.lock().map(|c| c.clone()).unwrap_or_default();
        Some(Arc::new(Validated {
            inner,
            schemas: Arc::clone(&self.schemas),
            provenance: self.provenance,
            compiled: Mutex::new(compiled),
            compilations: AtomicUsize::new(0),
        }))
    }
}

/// `None` when `args` is an object that conforms to `validator` (or there is
/// no validator); otherwise the `bad_parameters` observation to return
/// instead of making the call.
fn refusal(
    validator: Option<&Validator>,
    args: &Value,
    provenance: Provenance,
) -> Option<Observation> {
    if !args.is_object() {
        return Some(Observation::tool_error(
            FailureKind::BadParameters,
            format!(
                "arguments must be a JSON object of parameter name to value, got {}",
                toolsmith_plumbing::json::type_name(args)
            ),
            provenance,
        ));
    }
    let problems: Vec<String> = validator?
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
    (!problems.is_empty()).then(|| {
        Observation::tool_error(
            FailureKind::BadParameters,
            format!("invalid arguments, no call made: {}", problems.join("; ")),
            provenance,
        )
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::native::ArithOp;
    use crate::testing::ScriptedExecutor;

    /// One API with a fixed schema.
    struct OneSchema(ApiId, Value);

    impl InputSchemas for OneSchema {
        fn input_schema(&self, api: &ApiId) -> Option<Value> {
            (api == &self.0).then(|| self.1.clone())
        }
    }

    fn movie_api() -> ApiId {
        "movies/search_movie".parse().unwrap()
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {"page": {"type": "integer"}, "query": {"type": "string"}},
            "required": ["query"]
        })
    }

    fn validated(
        inner: ScriptedExecutor,
        provenance: Provenance,
    ) -> Arc<Validated<ScriptedExecutor>> {
        Arc::new(Validated::new(
            inner,
            OneSchema(movie_api(), schema()),
            provenance,
        ))
    }

    #[tokio::test]
    async fn names_the_parameter_and_the_rule_and_never_calls_the_backend() {
        let exec = validated(
            ScriptedExecutor::new().respond(movie_api(), json!({"results": []})),
            Provenance::Simulated,
        );
        let obs = exec
            .call(&movie_api(), &json!({"page": "two"}))
            .await
            .unwrap();
        assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
        assert_eq!(obs.provenance, Provenance::Simulated);
        assert_eq!(obs.status, None);
        let text = serde_json::to_string(&obs).unwrap();
        assert!(text.contains("parameter `page`"), "{text}");
        assert!(text.contains("rule `type`"), "{text}");
        assert!(text.contains("query"), "{text}");
        assert!(text.contains("rule `required`"), "{text}");
        let obs = exec.call(&movie_api(), &json!([1])).await.unwrap();
        assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
        assert!(serde_json::to_string(&obs).unwrap().contains("an array"));
        assert!(
            exec.inner().calls().is_empty(),
            "the backend saw a bad call"
        );

        let ok = exec
            .call(&movie_api(), &json!({"query": "x", "page": 2}))
            .await
            .unwrap();
        assert!(ok.is_ok(), "{ok:?}");
        assert_eq!(
            exec.inner().calls(),
            [(movie_api(), json!({"query": "x", "page": 2}))]
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn compiles_each_schema_once_across_many_concurrent_calls() {
        let exec = validated(
            ScriptedExecutor::new().respond(movie_api(), json!({"results": []})),
            Provenance::Live,
        );
        let calls = (0..64).map(|i| {
            let exec = Arc::clone(&exec);
            tokio::spawn(async move {
                let args = if i % 2 == 0 {
                    json!({"query": "x"})
                } else {
                    json!({"page": 1})
                };
                exec.call(&movie_api(), &args).await.unwrap()
            })
        });
        let mut refused = 0;
        for call in calls {
            if !call.await.unwrap().is_ok() {
                refused += 1;
            }
        }
        assert_eq!(refused, 32);
        assert_eq!(exec.compilations(), 1);
        assert_eq!(exec.inner().calls().len(), 32);
    }

    #[tokio::test]
    async fn unknown_apis_and_broken_schemas_go_through() {
        let other: ApiId = "movies/get_movie".parse().unwrap();
        let exec = validated(
            ScriptedExecutor::new().respond(other.clone(), json!({"id": 1})),
            Provenance::Live,
        );
        let obs = exec.call(&other, &json!("not an object")).await.unwrap();
        assert!(
            obs.is_ok(),
            "an API without a schema is the backend's to judge"
        );
        assert_eq!(exec.compilations(), 0);

        let broken = Validated::new(
            ScriptedExecutor::new().respond(movie_api(), json!({})),
            OneSchema(movie_api(), json!({"type": 12})),
            Provenance::Live,
        );
        for _ in 0..3 {
            assert!(
                broken
                    .call(&movie_api(), &json!({"x": 1}))
                    .await
                    .unwrap()
                    .is_ok()
            );
        }
        assert_eq!(
            broken.compilations(),
            1,
            "a broken schema is not recompiled"
        );
    }

    #[tokio::test]
    async fn a_comma_separated_string_for_a_list_is_sent_as_the_list_or_refused() {
        let search: ApiId = "spotify/search".parse().unwrap();
        let schema = json!({"type": "object", "required": ["q", "type"], "properties": {
            "q": {"type": "string"},
            "type": {"type": "array", "items": {"type": "string",
                     "enum": ["album", "artist", "playlist", "track"]}}}});
        let exec = Validated::new(
            ScriptedExecutor::new().respond(search.clone(), json!({"albums": {}})),
            OneSchema(search.clone(), schema),
            Provenance::Simulated,
        );
        let obs = exec
            .call(&search, &json!({"q": "Abba", "type": "album,track"}))
            .await
            .unwrap();
        assert!(obs.is_ok(), "{obs:?}");
        assert_eq!(
            exec.inner().calls(),
            [(
                search.clone(),
                json!({"q": "Abba", "type": ["album", "track"]})
            )]
        );
        // A piece that is no valid item: the string is refused as given.
        let obs = exec
            .call(&search, &json!({"q": "Abba", "type": "album,song"}))
            .await
            .unwrap();
        assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
        let text = serde_json::to_string(&obs).unwrap();
        assert!(text.contains("parameter `type`"), "{text}");
        assert_eq!(exec.inner().calls().len(), 1, "the backend saw a bad call");
    }

    #[tokio::test]
    async fn native_tools_and_books_combine() {
        let tools = Arc::new(NativeTools::funcqa());
        let exec = Validated::new(
            Arc::clone(&tools),
            (Arc::clone(&tools), Arc::new(ApiBook::new())),
            Provenance::Live,
        );
        let add = tools.api_id(ArithOp::Add);
        let obs = exec.call(&add, &json!({"input": "1,two"})).await.unwrap();
        assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
        assert!(serde_json::to_string(&obs).unwrap().contains("rule `type`"));
        let obs = exec.call(&add, &json!({"input": [1, 2]})).await.unwrap();
        assert_eq!(obs.body.json(), Some(&json!({"result": 3})));
        // Numbers written as one string are split into the list the tool takes.
        let obs = exec.call(&add, &json!({"input": "1, 2.5"})).await.unwrap();
        assert_eq!(obs.body.json(), Some(&json!({"result": 3.5})));
    }
}
