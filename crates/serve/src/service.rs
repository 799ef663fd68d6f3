//! [`ToolService`]: what both front ends (MCP and HTTP) serve, built once by the binary from
//! its settings: the catalog's active docs, a retriever over them, an executor in its mode,
//! the kept results of the output-size contract, and optionally a solver and its run store.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolsmith_catalog::{ApiEntry, ApiId, Catalog, ToolId, UsageExample, export, render};
use toolsmith_exec::{Executor, FailureKind, JqSandbox, Outcome, Provenance};
use toolsmith_retrieve::{Filter, Retriever};
use toolsmith_solve::{Finish, RenderOptions, RunStore, Stamped, Toolset};

use crate::error::{Error, Result};
use crate::results::{Clipped, Page, ResultHandle, ResultStore};
use crate::settings::ServeSettings;

pub use toolsmith_solve::MakeSolver;

/// What the binary hands over to build a [`ToolService`].
pub struct ServiceParts {
    /// The catalog view served (the active docs).
    pub catalog: Catalog,
    /// Search over that view.
    pub retriever: Arc<dyn Retriever>,
    /// Runs the calls, in the chosen mode, with argument validation in front.
    pub executor: Arc<dyn Executor>,
    /// Runs `read_result`'s jq filters; without it only paging works.
    pub sandbox: Option<JqSandbox>,
    /// Builds solvers for `/v1/solve`; without it that route answers `solve_unavailable`.
    pub solver: Option<MakeSolver>,
    /// The SQLite file runs are stored in (the catalog database), for `/v1/solve` and `/v1/runs`.
    pub runs: Option<PathBuf>,
    /// Limits and defaults.
    pub settings: ServeSettings,
}

/// One API as search results show it: enough to call it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolCard {
    /// The API's id (`tool/api`): what `describe_tool` and `call_tool` take.
    pub id: ApiId,
    /// The name it is callable by directly in an MCP session once found.
    pub name: String,
    /// Its tool.
    pub tool: ToolId,
    /// The active doc's description.
    pub description: String,
    /// JSON Schema of its arguments.
    pub input_schema: Value,
    /// The search score (higher is better), in search results only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

/// The full active doc of one API.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolDoc {
    /// The API's id.
    pub id: ApiId,
    /// The name it is callable by in an MCP session.
    pub name: String,
    /// The source's human name of the API.
    pub title: String,
    /// Its tool.
    pub tool: ToolId,
    /// The tool's category.
    pub category: String,
    /// The active doc's description.
    pub description: String,
    /// The active doc's version and label, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc_version: Option<String>,
    /// JSON Schema of its arguments.
    pub input_schema: Value,
    /// Worked examples of calling it.
    pub examples: Vec<UsageExample>,
    /// The doc as an LLM reads it (Markdown).
    pub markdown: String,
}

/// One page of the catalog's APIs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolPage {
    /// APIs that pass the filter.
    pub total: usize,
    /// Index of the first one shown.
    pub offset: usize,
    /// The page.
    pub tools: Vec<ToolCard>,
}

/// Which APIs `GET /v1/tools` lists.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct ListQuery {
    /// Skip this many (at most 2^32 - 1, as the document says).
    #[serde(default, deserialize_with = "crate::wire::paging")]
    pub offset: usize,
    /// At most this many (capped by the settings).
    #[serde(default, deserialize_with = "crate::wire::optional_paging")]
    pub limit: Option<usize>,
    /// Only this tool's APIs.
    pub tool: Option<ToolId>,
    /// Only tools of this category (case-insensitive).
    pub category: Option<String>,
    /// Only APIs whose id, name or description contains this (case-insensitive).
    pub q: Option<String>,
}

/// What one call returned, under the output-size contract.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CallReply {
    /// The API called.
    pub id: ApiId,
    /// Whether the tool succeeded.
    pub ok: bool,
    /// Why it failed (`bad_parameters`, `not_found`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    /// The failure's message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The HTTP status, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Where the answer came from (`live`, `simulated`, `replayed`, ...).
    pub provenance: Provenance,
    /// Time the executor took, in milliseconds.
    pub latency_ms: u64,
    /// The response body: whole, or its first page and a handle.
    pub result: Clipped,
}

/// `read_result`'s arguments: a page at an offset, or a jq filter's output.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct ReadRequest {
    /// The handle of a cut result.
    pub handle: ResultHandle,
    /// The character to start the page at (default 0; `null` is the default too).
    #[serde(default, deserialize_with = "crate::wire::optional_count")]
    pub offset: Option<usize>,
    /// A jq filter run over the whole result (JSON), instead of paging.
    #[serde(default)]
    pub jq_filter: Option<String>,
}

/// `POST /v1/solve`'s body.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct SolveRequest {
    /// The task, in words.
    pub query: String,
    /// Tools offered to the agent: the top hits for the query (default from the settings;
    /// `null` is the default too).
    #[serde(default, deserialize_with = "crate::wire::optional_count")]
    pub tools: Option<usize>,
}

/// A finished solver run.
#[derive(Clone, Debug, Serialize)]
pub struct SolveReply {
    /// The stored run's id (for `GET /v1/runs/{id}`), when a run store is configured.
    pub run_id: Option<i64>,
    /// How it ended.
    pub finish: Finish,
    /// The answer, when there is one.
    pub answer: Option<String>,
    /// Why it ended without one.
    pub detail: Option<String>,
    /// The APIs offered to the agent.
    pub offered: Vec<ApiId>,
    /// Every event of the run.
    pub trace: Vec<Stamped>,
}

/// A stored run's trace.
#[derive(Clone, Debug, Serialize)]
pub struct RunReply {
    /// The run.
    pub id: i64,
    /// Its events.
    pub trace: Vec<Stamped>,
}

/// One API as served.
struct Served {
    entry: ApiEntry,
    tool: ToolId,
    category: String,
    name: String,
    input_schema: Value,
}

/// The catalog, search and calls, shared by every session and request.
pub struct ToolService {
    apis: BTreeMap<ApiId, Served>,
    by_name: HashMap<String, ApiId>,
    retriever: Arc<dyn Retriever>,
    executor: Arc<dyn Executor>,
    sandbox: Option<JqSandbox>,
    solver: Option<MakeSolver>,
    runs: Option<PathBuf>,
    results: ResultStore,
    settings: ServeSettings,
}

impl std::fmt::Debug for ToolService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolService")
            .field("apis", &self.apis.len())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl ToolService {
    /// The service over `parts`.
    pub fn new(parts: ServiceParts) -> Self {
        let mut apis = BTreeMap::new();
        let mut by_name = HashMap::new();
        for (tool, api) in parts.catalog.apis() {
            let id = api.api.id.clone();
            let name = export::function_name(&id);
            by_name.insert(name.clone(), id.clone());
            apis.insert(
                id,
                Served {
                    input_schema: export::input_schema(api),
                    entry: api.clone(),
                    tool: tool.tool.id.clone(),
                    category: tool.tool.category.clone(),
                    name,
                },
            );
        }
        let s = &parts.settings;
        Self {
            results: ResultStore::new(s.max_result_chars, s.page_chars, s.max_stored_results),
            apis,
            by_name,
            retriever: parts.retriever,
            executor: parts.executor,
            sandbox: parts.sandbox,
            solver: parts.solver,
            runs: parts.runs,
            settings: parts.settings,
        }
    }

    /// The limits and defaults in force.
    pub fn settings(&self) -> &ServeSettings {
        &self.settings
    }

    /// Number of APIs served.
    pub fn len(&self) -> usize {
        self.apis.len()
    }

    /// Whether no API is served.
    pub fn is_empty(&self) -> bool {
        self.apis.is_empty()
    }

    /// The first `n` APIs in id order (the tools an MCP session offers from the start).
    pub fn first_apis(&self, n: usize) -> Vec<ApiId> {
        self.apis.keys().take(n).cloned().collect()
    }

    /// The API an id (`tool/api`) or a callable name (`api_for_tool`) names.
    pub fn lookup(&self, raw: &str) -> Option<ApiId> {
        if let Ok(id) = raw.parse::<ApiId>()
            && self.apis.contains_key(&id)
        {
            return Some(id);
        }
        self.by_name.get(raw).cloned()
    }

    /// The callable name of an API (ToolBench's `<api>_for_<tool>`).
    pub fn name_of(&self, id: &ApiId) -> Option<&str> {
        self.apis.get(id).map(|s| s.name.as_str())
    }

    /// Like [`lookup`](Self::lookup), but an unknown id is an [`Error::UnknownTool`] that
    /// carries the closest matches: the ids nearest by edit distance first (a typo), then
    /// the best search hits for its words.
    pub async fn resolve(&self, raw: &str) -> Result<ApiId> {
        if let Some(id) = self.lookup(raw) {
            return Ok(id);
        }
        let n = self.settings.closest_matches;
        let mut closest = toolsmith_catalog::closest_ids(raw, self.apis.keys(), n);
        let query: String = raw
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { ' ' })
            .collect();
        if closest.len() < n && !query.trim().is_empty() {
            let hits = self.retriever.search(&query, n, &Filter::default()).await?;
            for hit in hits {
                if closest.len() < n && !closest.contains(&hit.api) {
                    closest.push(hit.api);
                }
            }
        }
        Err(Error::UnknownTool {
            id: raw.to_owned(),
            closest,
        })
    }

    /// The card of a served API.
    pub(crate) fn card(&self, id: &ApiId, score: Option<f32>) -> Option<ToolCard> {
        self.apis.get(id).map(|s| ToolCard {
            id: id.clone(),
            name: s.name.clone(),
            tool: s.tool.clone(),
            description: s.entry.description().to_owned(),
            input_schema: s.input_schema.clone(),
            score,
        })
    }

    /// Hybrid (or the configured method's) search over the served docs: the `k` best APIs.
    pub async fn search(&self, query: &str, k: Option<usize>) -> Result<Vec<ToolCard>> {
        if query.trim().is_empty() {
            return Err(Error::BadRequest("`query` must not be empty".to_owned()));
        }
        let k = k.unwrap_or(self.settings.default_k);
        if k == 0 || k > self.settings.max_k {
            return Err(Error::BadRequest(format!(
                "`k` must be between 1 and {}, not {k}",
                self.settings.max_k
            )));
        }
        let hits = self.retriever.search(query, k, &Filter::default()).await?;
        Ok(hits
            .iter()
            .filter_map(|h| self.card(&h.api, Some(h.score)))
            .collect())
    }

    /// The full active doc of an API.
    pub async fn describe(&self, raw: &str) -> Result<ToolDoc> {
        let id = self.resolve(raw).await?;
        let served = self.apis.get(&id).ok_or_else(|| Error::UnknownTool {
            id: raw.to_owned(),
            closest: Vec::new(),
        })?;
        let doc = served.entry.doc.as_ref();
        Ok(ToolDoc {
            name: served.name.clone(),
            title: served.entry.api.name.clone(),
            tool: served.tool.clone(),
            category: served.category.clone(),
            description: served.entry.description().to_owned(),
            doc_version: doc.map(|d| format!("{} ({})", d.version, d.label.as_str())),
            input_schema: served.input_schema.clone(),
            examples: doc.map(|d| d.doc.examples.clone()).unwrap_or_default(),
            markdown: render::api_markdown(&served.entry),
            id,
        })
    }

    /// A page of the served APIs.
    pub fn list(&self, query: &ListQuery) -> ToolPage {
        let needle = query.q.as_deref().map(str::to_lowercase);
        let category = query.category.as_deref().map(str::to_lowercase);
        let matching: Vec<&ApiId> = self
            .apis
            .iter()
            .filter(|(id, s)| {
                query.tool.as_ref().is_none_or(|t| &s.tool == t)
                    && category
                        .as_ref()
                        .is_none_or(|c| &s.category.to_lowercase() == c)
                    && needle.as_ref().is_none_or(|n| {
                        id.to_string().contains(n.as_str())
                            || s.entry.api.name.to_lowercase().contains(n.as_str())
                            || s.entry.description().to_lowercase().contains(n.as_str())
                    })
            })
            .map(|(id, _)| id)
            .collect();
        let limit = query
            .limit
            .unwrap_or(self.settings.max_page)
            .min(self.settings.max_page);
        ToolPage {
            total: matching.len(),
            offset: query.offset,
            tools: matching
                .into_iter()
                .skip(query.offset)
                .take(limit)
                .filter_map(|id| self.card(id, None))
                .collect(),
        }
    }

    /// Calls an API through the executor (its mode, validation and failure kinds); the body
    /// comes back under the output-size contract.
    pub async fn call(&self, raw: &str, arguments: &Value) -> Result<CallReply> {
        let id = self.resolve(raw).await?;
        if !arguments.is_object() {
            return Err(Error::BadRequest(format!(
                "the arguments of `{id}` must be a JSON object, not {}",
                toolsmith_plumbing::json::type_name(arguments)
            )));
        }
        let observation = self.executor.call(&id, arguments).await?;
        let body = match &observation.body {
            toolsmith_exec::Body::Empty => Value::Null,
            toolsmith_exec::Body::Json(v) => v.clone(),
            toolsmith_exec::Body::Text(t) => Value::String(t.clone()),
        };
        let message = match &observation.outcome {
            Outcome::Ok => None,
            Outcome::ToolError { message, .. } | Outcome::TransportError { message, .. } => {
                Some(message.clone())
            }
        };
        Ok(CallReply {
            ok: observation.is_ok(),
            failure: observation.failure(),
            message,
            status: observation.status,
            provenance: observation.provenance,
            latency_ms: u64::try_from(observation.latency.as_millis()).unwrap_or(u64::MAX),
            result: self.results.clip(body),
            id,
        })
    }

    /// Any reply (a search's, a doc) under the output-size contract.
    pub fn clip(&self, value: Value) -> Clipped {
        self.results.clip(value)
    }

    /// A page of a cut result, or a jq filter's output over the whole of it (itself clipped).
    pub async fn read_result(&self, request: &ReadRequest) -> Result<Value> {
        match (&request.jq_filter, request.offset) {
            (Some(_), Some(_)) => Err(Error::BadRequest(
                "give `offset` or `jq_filter`, not both".to_owned(),
            )),
            (Some(filter), None) => {
                let stored = self.results.get(&request.handle)?;
                let sandbox = self.sandbox.as_ref().ok_or(Error::NoSandbox)?;
                let out = sandbox.run(filter, &stored.value).await?;
                let value = json!({
                    "handle": request.handle,
                    "values": out.values,
                    "truncated": out.truncated,
                });
                Ok(to_value(&self.results.clip(value)))
            }
            (None, offset) => {
                let page: Page = self.results.page(&request.handle, offset.unwrap_or(0))?;
                Ok(to_value(&page))
            }
        }
    }

    /// Runs a solver on `request.query` with the top hits as its tools, stores the run, and
    /// returns it with its trace.
    pub async fn solve(&self, request: &SolveRequest) -> Result<SolveReply> {
        if request.query.trim().is_empty() {
            return Err(Error::BadRequest("`query` must not be empty".to_owned()));
        }
        let k = request.tools.unwrap_or(self.settings.solve_tools);
        if k == 0 || k > self.settings.max_k {
            return Err(Error::BadRequest(format!(
                "`tools` must be between 1 and {}, not {k}",
                self.settings.max_k
            )));
        }
        // A bad request is told so first, whether or not this server can solve.
        let factory = self.solver.as_ref().ok_or(Error::SolveUnavailable)?;
        let hits = self
            .retriever
            .search(&request.query, k, &Filter::default())
            .await?;
        let mut toolset = Toolset::default();
        let mut offered = Vec::new();
        for hit in hits {
            if let Some(served) = self.apis.get(&hit.api) {
                toolset.add(&served.entry, &RenderOptions::default());
                offered.push(hit.api);
            }
        }
        let mut run = factory().solve(&request.query, toolset).await?;
        run.solver.push_str(SERVED_RUN);
        let run_id = match &self.runs {
            Some(path) => {
                let path = path.clone();
                let saved = run.clone();
                let keep = self.settings.solve_runs_keep;
                Some(
                    tokio::task::spawn_blocking(move || save_run(&path, &saved, keep))
                        .await
                        .map_err(|e| Error::Task(e.to_string()))??,
                )
            }
            None => None,
        };
        Ok(SolveReply {
            run_id,
            finish: run.finish,
            answer: run.answer,
            detail: run.detail,
            offered,
            trace: run.trace,
        })
    }

    /// The trace of a stored run.
    pub async fn run(&self, id: i64) -> Result<RunReply> {
        let path = self.runs.clone().ok_or(Error::RunNotFound(id))?;
        let read = tokio::task::spawn_blocking(move || RunStore::open(&path)?.trace(id))
            .await
            .map_err(|e| Error::Task(e.to_string()))?;
        match read {
            Ok(trace) => Ok(RunReply { id, trace }),
            Err(toolsmith_solve::Error::Store {
                source: rusqlite::Error::QueryReturnedNoRows,
                ..
            }) => Err(Error::RunNotFound(id)),
            Err(other) => Err(other.into()),
        }
    }
}

/// What the solver name of a run `/v1/solve` stored ends with (`react@serve`): those runs,
/// and only those, are pruned to [`ServeSettings::solve_runs_keep`].
pub(crate) const SERVED_RUN: &str = "@serve";

/// Stores `run`, then drops the oldest runs served here past the newest `keep` (runs of
/// `toolsmith solve` and the benchmarks are left alone).
fn save_run(path: &std::path::Path, run: &toolsmith_solve::Run, keep: usize) -> Result<i64> {
    let store_err = |source| toolsmith_solve::Error::Store {
        context: "pruning the runs /v1/solve stored".to_owned(),
        source,
    };
    let id = RunStore::open(path)?.save(run)?;
    let conn = rusqlite::Connection::open(path).map_err(store_err)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(store_err)?;
    let keep = i64::try_from(keep).unwrap_or(i64::MAX);
    conn.execute(
        "DELETE FROM runs WHERE solver LIKE '%' || ?1 AND id NOT IN
           (SELECT id FROM runs WHERE solver LIKE '%' || ?1 ORDER BY id DESC LIMIT ?2)",
        rusqlite::params![SERVED_RUN, keep],
    )
    .map_err(store_err)?;
    Ok(id)
}

/// A reply as JSON (these types hold nothing that fails to serialize).
pub(crate) fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}
