//! Offline, deterministic responses synthesized from an API's response
//! schema and examples: the default backend for benchmarks.
//!
//! A response depends only on the API id and the canonical arguments, so
//! the same call always returns the same body, and entities keep their
//! fields across APIs (see the `synth` module's notes). Where an API has
//! neither a schema nor an example, a [`ResponseOracle`] (an LLM, plugged in
//! by the binary) may invent one; without it the call is a `unsupported`
//! tool error.
//!
//! A response also follows what the call asked for: parameter defaults are
//! applied before seeding (no `page` and `page=1` agree), paged lists hold
//! a page of the documented size (else [`SimulatorSettings::page_size`])
//! that agrees with `total_results` and `total_pages`, list items satisfy
//! the filters that map to their fields (`with_original_language`,
//! `vote_average.gte`, `primary_release_date.gte`, `year`, `*_min`...),
//! and `append_to_response` adds the named sub-resources. Values are drawn
//! per entity type (a company's name from companies), one entity's fields
//! from one example record, and an entity shown by a search keeps its name
//! in later responses of the same simulator.

#[cfg(feature = "llm-oracle")]
mod oracle;
mod request;
mod rng;
mod synth;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
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
use request::Request;
use synth::{Labels, Limits, Pool, Synth};

/// The simulator's knobs (`[exec.simulate]` of `toolsmith.toml`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimulatorSettings {
    /// Fewest items in a synthesized list (unless the schema asks for more).
    pub min_items: usize,
    /// Most items in a synthesized list (unless the schema asks for more).
    pub max_items: usize,
    /// Below this depth only required properties are filled and lists are as
    /// short as the schema allows, which ends recursive schemas.
    pub max_depth: usize,
    /// Items per page of a paged list (`page`, `total_results`) when the
    /// API documents no page size.
    pub page_size: usize,
}

impl Default for SimulatorSettings {
    /// Lists of 1 to 5 items and objects filled down to depth 8: small
    /// enough to read, deep enough for every TMDB response; pages of 20
    /// items, TMDB's page size.
    fn default() -> Self {
        Self {
            min_items: 1,
            max_items: 5,
            max_depth: 8,
            page_size: 20,
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
    /// Sub-resources by tool and `METHOD path`, for `append_to_response`.
    paths: Arc<HashMap<(ToolId, String), ApiId>>,
    /// The labels (names, titles) each entity was shown with, so a detail
    /// carries the name its search showed.
    labels: Arc<Mutex<Labels>>,
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
        let mut paths = HashMap::new();
        for id in ids {
            if let Some(entry) = book.get(id) {
                let pool = pools.entry(id.tool().clone()).or_default();
                let entity = request::api_entity(entry, &Map::new());
                for example in &entry.api.api.response_examples {
                    pool.add_example(example, &entity, request::path_of(entry));
                }
                if let (Some(method), Some(path)) = (
                    entry.api.api.endpoint.method(),
                    entry.api.api.endpoint.path(),
                ) {
                    paths.insert((id.tool().clone(), format!("{method} {path}")), id.clone());
                }
            }
        }
        Self {
            book,
            pools: Arc::new(pools),
            paths: Arc::new(paths),
            labels: Arc::new(Mutex::new(Labels::default())),
            limits: Limits {
                min_items: settings.min_items,
                max_items: settings.max_items.max(settings.min_items),
                max_depth: settings.max_depth,
                page_size: settings.page_size.max(1),
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
    /// simulate from. The same arguments give the same value, except that
    /// an entity shown earlier keeps the labels it was shown with.
    pub fn synthesize(&self, entry: &BookEntry, args: &Value) -> Option<Value> {
        self.synthesize_at(entry, args, 0)
    }

    fn synthesize_at(&self, entry: &BookEntry, args: &Value, nesting: usize) -> Option<Value> {
        let api = &entry.api.api;
        let empty = Map::new();
        let args_map = request::with_defaults(entry, args.as_object().unwrap_or(&empty));
        let seed = stable_hash(&[
            api.id.to_string().as_bytes(),
            canonical_json(&Value::Object(args_map.clone())).as_bytes(),
        ]);
        let path_id = path_id(entry, &args_map);
        let default_pool = Pool::default();
        let pool = self.pools.get(api.id.tool()).unwrap_or(&default_pool);
        if let Some(schema) = api
            .response_schema
            .as_ref()
            .filter(|s| has_usable_schema(Some(s)))
        {
            let request = Request::new(entry, &args_map, &self.limits);
            let mut value = {
                let synth = Synth::new(
                    schema,
                    &args_map,
                    path_id.as_ref(),
                    pool,
                    &self.limits,
                    &request,
                    &self.labels,
                );
                synth.value(schema, seed)
            };
            if nesting == 0 {
                self.append_sub_resources(entry, &args_map, &mut value);
            }
            return Some(value);
        }
        let count = u64::try_from(api.response_examples.len()).ok()?;
        let pick = usize::try_from(seed % count.max(1)).ok()?;
        let mut example = api.response_examples.get(pick)?.clone();
        if let (Some(id), Value::Object(map)) = (path_id, &mut example) {
            map.entry("id").and_modify(|v| *v = id.clone());
        }
        Some(example)
    }

    /// Adds the sub-resources an `append_to_response` argument names (TMDB's
    /// `credits,images`): each is the response of the API at this API's
    /// path plus `/NAME`, called with the same arguments.
    fn append_sub_resources(&self, entry: &BookEntry, args: &Map<String, Value>, body: &mut Value) {
        let (Some(method), Some(path), Value::Object(map)) = (
            entry.api.api.endpoint.method(),
            entry.api.api.endpoint.path(),
            body,
        ) else {
            return;
        };
        for name in request::appended(args) {
            let key = (
                entry.api.api.id.tool().clone(),
                format!("{method} {}/{name}", path.trim_end_matches('/')),
            );
            let Some(sub) = self.paths.get(&key).and_then(|id| self.book.get(id)) else {
                continue;
            };
            let mut sub_args = args.clone();
            for expansion in request::EXPANSION_PARAMS {
                sub_args.remove(*expansion);
            }
            if let Some(value) = self.synthesize_at(sub, &Value::Object(sub_args), 1) {
                map.insert(name, value);
            }
        }
    }
}

/// The value of the path parameter that names the entity (`movie_id`), if any.
fn path_id(entry: &BookEntry, args: &Map<String, Value>) -> Option<Value> {
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
        .find_map(|p| args.get(&p.name).cloned())
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
