//! Offline, deterministic responses synthesized from an API's response
//! schema and examples: the default backend for benchmarks.
//!
//! A response depends only on the API id and the canonical arguments, so
//! the same call always returns the same body, and entities keep their
//! fields across APIs (see the `synth` module's notes). Where an API has
//! neither a schema nor an example, a [`ResponseOracle`] (an LLM, plugged in
//! by the binary) may invent one; without it the call is a `unsupported`
//! tool error.

#[cfg(feature = "llm-oracle")]
mod oracle;
mod rng;
mod synth;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use serde_json::{Map, Value};
use toolsmith_catalog::{ApiId, ParamLocation, ToolId};

use crate::canonical::{canonical_json, stable_hash};
use crate::error::Result;
use crate::executor::{ApiBook, BookEntry, Executor};
use crate::observation::{FailureKind, Observation, Provenance};
#[cfg(feature = "llm-oracle")]
pub use oracle::{LlmOracle, ORACLE_ROLE};
use synth::{Limits, Pool, Synth};

/// The simulator's knobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimulatorSettings {
    /// Fewest items in a synthesized list (unless the schema asks for more).
    pub min_items: usize,
    /// Most items in a synthesized list (unless the schema asks for more).
    pub max_items: usize,
    /// Below this depth only required properties are filled and lists are as
    /// short as the schema allows, which ends recursive schemas.
    pub max_depth: usize,
}

impl Default for SimulatorSettings {
    /// Lists of 1 to 5 items and objects filled down to depth 8: small
    /// enough to read, deep enough for every TMDB response.
    fn default() -> Self {
        Self {
            min_items: 1,
            max_items: 5,
            max_depth: 8,
        }
    }
}

/// Invents a response for an API that has no schema or example to simulate
/// from (StableToolBench's approach, with an LLM). The binary plugs one in;
/// this crate ships none.
#[async_trait]
pub trait ResponseOracle: Send + Sync {
    /// A plausible JSON response of `api` to `args`, or why there is none.
    async fn invent(&self, api: &BookEntry, args: &Value) -> std::result::Result<Value, String>;
}

/// The simulating executor.
#[derive(Clone)]
pub struct Simulator {
    book: Arc<ApiBook>,
    pools: Arc<HashMap<ToolId, Pool>>,
    limits: Limits,
    oracle: Option<Arc<dyn ResponseOracle>>,
}

impl std::fmt::Debug for Simulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulator")
            .field("apis", &self.book.len())
            .field("limits", &self.limits)
            .field("oracle", &self.oracle.is_some())
            .finish()
    }
}

impl Simulator {
    /// A simulator of the APIs in `book`, with default settings.
    pub fn new(book: Arc<ApiBook>) -> Self {
        Self::with_settings(book, &SimulatorSettings::default())
    }

    /// A simulator with explicit settings.
    pub fn with_settings(book: Arc<ApiBook>, settings: &SimulatorSettings) -> Self {
        let mut ids: Vec<&ApiId> = book.ids().collect();
        ids.sort();
        let mut pools: HashMap<ToolId, Pool> = HashMap::new();
        for id in ids {
            if let Some(entry) = book.get(id) {
                let pool = pools.entry(id.tool().clone()).or_default();
                for example in &entry.api.api.response_examples {
                    pool.add_example(example);
                }
            }
        }
        Self {
            book,
            pools: Arc::new(pools),
            limits: Limits {
                min_items: settings.min_items,
                max_items: settings.max_items.max(settings.min_items),
                max_depth: settings.max_depth,
            },
            oracle: None,
        }
    }

    /// Uses `oracle` for APIs with nothing to simulate from.
    pub fn with_oracle(mut self, oracle: Arc<dyn ResponseOracle>) -> Self {
        self.oracle = Some(oracle);
        self
    }

    /// The APIs this simulator knows.
    pub fn book(&self) -> &Arc<ApiBook> {
        &self.book
    }

    /// Whether an API has a response schema or example to simulate from.
    pub fn can_simulate(entry: &BookEntry) -> bool {
        has_usable_schema(entry.api.api.response_schema.as_ref())
            || !entry.api.api.response_examples.is_empty()
    }

    /// The synthesized response body, `None` when the API has nothing to
    /// simulate from. Pure: the same arguments give the same value.
    pub fn synthesize(&self, entry: &BookEntry, args: &Value) -> Option<Value> {
        let api = &entry.api.api;
        let empty = Map::new();
        let args_map = args.as_object().unwrap_or(&empty);
        let seed = stable_hash(&[
            api.id.to_string().as_bytes(),
            canonical_json(args).as_bytes(),
        ]);
        let path_id = path_id(entry, args_map);
        let default_pool = Pool::default();
        let pool = self.pools.get(api.id.tool()).unwrap_or(&default_pool);
        if let Some(schema) = api
            .response_schema
            .as_ref()
            .filter(|s| has_usable_schema(Some(s)))
        {
            let synth = Synth::new(schema, args_map, path_id, pool, &self.limits);
            return Some(synth.value(schema, seed));
        }
        let count = u64::try_from(api.response_examples.len()).ok()?;
        let pick = usize::try_from(seed % count.max(1)).ok()?;
        let mut example = api.response_examples.get(pick)?.clone();
        if let (Some(id), Value::Object(map)) = (path_id, &mut example) {
            map.entry("id").and_modify(|v| *v = id.clone());
        }
        Some(example)
    }
}

/// The value of the path parameter that names the entity (`movie_id`), if any.
fn path_id<'a>(entry: &BookEntry, args: &'a Map<String, Value>) -> Option<&'a Value> {
    entry
        .api
        .api
        .params
        .iter()
        .filter(|p| p.location == ParamLocation::Path)
        .filter(|p| {
            let n = p.name.to_ascii_lowercase();
            n == "id" || n.ends_with("_id") || n.ends_with("id")
        })
        .find_map(|p| args.get(&p.name))
}

/// Whether a schema describes anything beyond "some object".
fn has_usable_schema(schema: Option<&Value>) -> bool {
    let Some(Value::Object(map)) = schema else {
        return false;
    };
    let bare_object = map.get("type").and_then(Value::as_str) == Some("object")
        && map
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty)
        && !map.contains_key("additionalProperties")
        && !map.contains_key("allOf")
        && !map.contains_key("oneOf")
        && !map.contains_key("anyOf");
    !bare_object
        && [
            "type",
            "properties",
            "items",
            "$ref",
            "allOf",
            "oneOf",
            "anyOf",
            "enum",
            "const",
        ]
        .iter()
        .any(|k| map.contains_key(*k))
}

#[async_trait]
impl Executor for Simulator {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        let start = Instant::now();
        let entry = self.book.entry(api)?;
        let (body, provenance) = match self.synthesize(entry, args) {
            Some(body) => (body, Provenance::Simulated),
            None => match &self.oracle {
                Some(oracle) => match oracle.invent(entry, args).await {
                    Ok(body) => (body, Provenance::Invented),
                    Err(reason) => {
                        return Ok(Observation::tool_error(
                            FailureKind::Unsupported,
                            format!("cannot simulate `{api}`: {reason}"),
                            Provenance::Simulated,
                        )
                        .with_latency(start.elapsed()));
                    }
                },
                None => {
                    return Ok(Observation::tool_error(
                        FailureKind::Unsupported,
                        format!("cannot simulate `{api}`: it has no response schema or example to simulate from"),
                        Provenance::Simulated,
                    )
                    .with_latency(start.elapsed()));
                }
            },
        };
        let mut obs = Observation::ok_json(body, provenance);
        obs.status = Some(200);
        Ok(obs.with_latency(start.elapsed()))
    }
}
