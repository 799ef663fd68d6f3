//! Benchmark query sets: what each query asks and which APIs answer it.
//!
//! Four file formats are read, each into the same [`Dataset`]:
//! - RestGPT's RestBench (`restbench-tmdb/restgpt/tmdb.json`): `{query, solution: ["GET /search/person", ...]}`;
//! - DRAFT's RestBench (`restbench-tmdb/draft/TMDB.json`): `{query, query_id, "relevant APIs": ["GET_search_person", ...]}`;
//! - ToolBench / StableToolBench / DRAFT's G2 (`toolbench/**.json`):
//!   `{query, query_id, "relevant APIs": [[tool, api], ...]}`;
//! - AnyToolBench: `{query, final_answer, query_id, gt_api_list: [{category_name, tool_name, api_name}]}`.
//!
//! Benchmarks that are not query-to-gold-API sets have loaders of their own: FuncQA
//! ([`load_funcqa`]: questions with a numeric answer), AnyToolBench with its reference answers
//! ([`load_anytoolbench`]) and ToolEval's default evaluation sets ([`load_tooleval`]: queries
//! with the tools offered and a reference run, no gold path).
//!
//! Gold answers stay names ([`GoldApi`]) until [`Dataset::resolve`] looks them up in a catalog
//! [`Store`], which knows every naming scheme (`GET /movie/{movie_id}`, `GET_movie_movie_id`,
//! ToolBench's tool and API names). A ToolBench gold API carries the category its query's
//! `api_list` gives it, which picks one of same-named tools filed in several categories.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use toolsmith_catalog::{ApiId, DocSelector, Scope, Store};

use crate::error::Result;

pub(crate) mod anytool;
mod expression;
pub(crate) mod funcqa;
mod query;
mod read;
pub(crate) mod tooleval;

pub use query::{GoldApi, Query};
use read::{bad, file_stem, read_items};

pub use anytool::load_anytoolbench;
pub use funcqa::load_funcqa;
pub use tooleval::load_tooleval;

/// A named set of queries with their gold APIs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Dataset {
    /// Where it came from: a benchmark name or a file name.
    pub name: String,
    /// The queries, in file order.
    pub queries: Vec<Query>,
}

/// A query whose gold APIs are catalog ids.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ResolvedQuery {
    /// The query's id.
    pub id: String,
    /// What the user asks.
    pub text: String,
    /// The distinct gold APIs, in the file's order (binary relevance: each counts once).
    pub gold: Vec<ApiId>,
    /// The query's candidate APIs that resolved to exactly one catalog API, in the file's
    /// order (empty when the file offers none).
    pub candidates: Vec<ApiId>,
    /// The gold answer, for datasets scored by their answer (FuncQA's number).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<f64>,
}

/// A gold name that did not resolve to exactly one API.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unresolved {
    /// The query it belongs to.
    pub query: String,
    /// The name.
    pub gold: GoldApi,
    /// The APIs it matched: none, or more than one (ambiguous).
    pub matches: Vec<ApiId>,
}

impl Unresolved {
    /// Whether the name matched no API (the catalog lacks it), as opposed to several.
    pub fn is_missing(&self) -> bool {
        self.matches.is_empty()
    }
}

/// Why the skipped queries of a [`Resolution`] were left out, counted per query.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SkipCauses {
    /// Queries with at least one gold API the catalog lacks.
    pub missing: usize,
    /// Queries whose every unresolved gold API matched several APIs.
    pub ambiguous: usize,
    /// Queries that name no gold API at all.
    pub no_gold: usize,
}

/// A dataset checked against a catalog.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Resolution {
    /// Queries whose every gold API resolved to exactly one catalog API: the ones to score.
    pub queries: Vec<ResolvedQuery>,
    /// Queries left out, with the names that failed.
    pub skipped: usize,
    /// Every gold name that did not resolve to exactly one API.
    pub unresolved: Vec<Unresolved>,
    /// Gold names that resolved only once their path parameters were ignored, with the API
    /// they matched (RestGPT's query 98 names `GET /person/{movie_id}/movie_credits`).
    pub repaired: Vec<(String, GoldApi, ApiId)>,
}

impl Resolution {
    /// The skipped queries by cause: missing beats ambiguous when a query has both.
    pub fn skip_causes(&self) -> SkipCauses {
        let mut by_query: HashMap<&str, bool> = HashMap::new();
        for u in &self.unresolved {
            *by_query.entry(u.query.as_str()).or_default() |= u.is_missing();
        }
        let missing = by_query.values().filter(|m| **m).count();
        let ambiguous = by_query.len() - missing;
        SkipCauses {
            missing,
            ambiguous,
            no_gold: self.skipped.saturating_sub(by_query.len()),
        }
    }
}

impl Dataset {
    /// Number of queries.
    pub fn len(&self) -> usize {
        self.queries.len()
    }

    /// Whether it has no queries.
    pub fn is_empty(&self) -> bool {
        self.queries.is_empty()
    }

    /// Looks every gold name up in `store`. A query is scored only when all its gold names
    /// resolve to exactly one API each; the others are counted in [`Resolution::skipped`] and
    /// their failing names listed in [`Resolution::unresolved`].
    pub fn resolve(&self, store: &Store) -> Result<Resolution> {
        let mut out = Resolution::default();
        let mut shapes: Option<HashMap<String, Vec<ApiId>>> = None;
        for query in &self.queries {
            let mut gold: Vec<ApiId> = Vec::with_capacity(query.gold.len());
            let mut complete = !query.gold.is_empty();
            for name in &query.gold {
                let mut matches = name.resolve(store)?;
                if let (GoldApi::Named(text), true) = (name, matches.is_empty()) {
                    if shapes.is_none() {
                        shapes = Some(endpoint_shapes(store)?);
                    }
                    let found = shapes.as_ref().and_then(|s| s.get(&shape(text)));
                    if let Some([one]) = found.map(Vec::as_slice) {
                        out.repaired
                            .push((query.id.clone(), name.clone(), one.clone()));
                        matches = vec![one.clone()];
                    }
                }
                match matches.as_slice() {
                    [one] => {
                        if !gold.contains(one) {
                            gold.push(one.clone());
                        }
                    }
                    _ => {
                        complete = false;
                        out.unresolved.push(Unresolved {
                            query: query.id.clone(),
                            gold: name.clone(),
                            matches,
                        });
                    }
                }
            }
            if complete {
                let mut candidates: Vec<ApiId> = Vec::with_capacity(query.candidates.len());
                for name in &query.candidates {
                    if let [one] = name.resolve(store)?.as_slice()
                        && !candidates.contains(one)
                    {
                        candidates.push(one.clone());
                    }
                }
                out.queries.push(ResolvedQuery {
                    id: query.id.clone(),
                    text: query.text.clone(),
                    gold,
                    candidates,
                    answer: query.answer,
                });
            } else {
                out.skipped += 1;
            }
        }
        Ok(out)
    }
}

/// `METHOD /path/{}/...`: an HTTP endpoint name with its path parameters' names erased.
fn shape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_param = false;
    for c in name.chars() {
        match c {
            '{' => {
                in_param = true;
                out.push_str("{}");
            }
            '}' => in_param = false,
            c if !in_param => out.push(c.to_ascii_lowercase()),
            _ => {}
        }
    }
    out
}

/// Every HTTP API of the catalog by [`shape`].
fn endpoint_shapes(store: &Store) -> Result<HashMap<String, Vec<ApiId>>> {
    let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
    let mut map: HashMap<String, Vec<ApiId>> = HashMap::new();
    for (_, entry) in catalog.apis() {
        let api = &entry.api;
        if let (Some(method), Some(path)) = (api.endpoint.method(), api.endpoint.path()) {
            map.entry(shape(&format!("{method} {path}")))
                .or_default()
                .push(api.id.clone());
        }
    }
    Ok(map)
}

/// The file formats [`load`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DatasetFormat {
    /// RestGPT's RestBench: `{query, solution: ["GET /path", ...]}`.
    RestGpt,
    /// DRAFT's RestBench: `{query, query_id, "relevant APIs": ["GET_path", ...]}`.
    DraftRestBench,
    /// ToolBench and its descendants: `{query, query_id, "relevant APIs": [[tool, api], ...]}`.
    ToolBench,
    /// AnyToolBench: `{query, query_id, gt_api_list: [{category_name, tool_name, api_name}]}`.
    AnyToolBench,
    /// FuncQA: `{question, answer, func: "<power>(0.89, 8)=0.3936"}`; the gold path is the
    /// call of the built-in tool `funcqa`, the gold answer the number.
    FuncQa,
}

/// Reads a dataset file, detecting its format from the first query.
pub fn load(path: &Path) -> Result<Dataset> {
    let items = read_items(path)?;
    let format = detect(path, &items)?;
    parse(path, &items, format)
}

/// Reads a dataset file in the given format.
pub fn load_as(path: &Path, format: DatasetFormat) -> Result<Dataset> {
    let items = read_items(path)?;
    parse(path, &items, format)
}

/// Reads several files into one dataset named `name`, prefixing each query id with its
/// file's stem so ids stay distinct.
pub fn load_merged(name: &str, paths: &[PathBuf]) -> Result<Dataset> {
    let mut queries = Vec::new();
    for path in paths {
        let part = load(path)?;
        let stem = file_stem(path);
        queries.extend(part.queries.into_iter().map(|mut q| {
            q.id = format!("{stem}/{}", q.id);
            q
        }));
    }
    Ok(Dataset {
        name: name.to_owned(),
        queries,
    })
}

const RELEVANT: &str = "relevant APIs";

fn detect(path: &Path, items: &[Value]) -> Result<DatasetFormat> {
    let Some(first) = items.first() else {
        return Err(bad(path, "no queries in the file"));
    };
    if first.get("solution").is_some() {
        return Ok(DatasetFormat::RestGpt);
    }
    if first.get(anytool::GT_API_LIST).is_some() {
        return Ok(DatasetFormat::AnyToolBench);
    }
    if funcqa::looks_like(first) {
        return Ok(DatasetFormat::FuncQa);
    }
    match first
        .get(RELEVANT)
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        Some(Value::String(_)) => Ok(DatasetFormat::DraftRestBench),
        Some(Value::Array(_)) => Ok(DatasetFormat::ToolBench),
        _ => Err(bad(
            path,
            "unknown query format: expected `solution` (RestGPT), `relevant APIs` (DRAFT, ToolBench) \
             , `gt_api_list` (AnyToolBench) or `question`, `answer` and `func` (FuncQA)",
        )),
    }
}

fn parse(path: &Path, items: &[Value], format: DatasetFormat) -> Result<Dataset> {
    if format == DatasetFormat::FuncQa {
        return Ok(Dataset {
            name: file_stem(path),
            queries: funcqa::parse_items(path, items)?
                .iter()
                .map(funcqa::FuncQaItem::to_query)
                .collect(),
        });
    }
    let queries = items
        .iter()
        .enumerate()
        .map(|(i, item)| parse_query(path, i, item, format))
        .collect::<Result<Vec<_>>>()?;
    Ok(Dataset {
        name: file_stem(path),
        queries,
    })
}

fn parse_query(path: &Path, i: usize, item: &Value, format: DatasetFormat) -> Result<Query> {
    let text = item
        .get("query")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(path, format!("query {i}: no `query` text")))?
        .trim()
        .to_owned();
    let id = match item.get("query_id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => i.to_string(),
    };
    let field = match format {
        DatasetFormat::RestGpt => "solution",
        DatasetFormat::DraftRestBench | DatasetFormat::ToolBench => RELEVANT,
        DatasetFormat::FuncQa => return Err(bad(path, "FuncQA items are not read one by one")),
        DatasetFormat::AnyToolBench => {
            let gold = anytool::gold_list(item)
                .map_err(|e| bad(path, format!("query {id}: {e}")))?
                .iter()
                .map(anytool::CategorizedApi::gold)
                .collect();
            return Ok(Query {
                id,
                text,
                gold,
                candidates: Vec::new(),
                answer: None,
            });
        }
    };
    let list = item
        .get(field)
        .and_then(Value::as_array)
        .ok_or_else(|| bad(path, format!("query {id}: no `{field}` list")))?;
    let gold = list
        .iter()
        .map(|g| {
            parse_gold(g, format)
                .map(|gold| with_category(gold, item))
                .ok_or_else(|| bad(path, format!("query {id}: bad gold API {g}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let candidates = candidates(item, format);
    Ok(Query {
        id,
        text,
        gold,
        candidates,
        answer: None,
    })
}

/// The `api_list` candidates of a DRAFT RestBench or ToolBench query (entries it cannot read
/// are left out).
fn candidates(item: &Value, format: DatasetFormat) -> Vec<GoldApi> {
    let Some(list) = item.get("api_list").and_then(Value::as_array) else {
        return Vec::new();
    };
    let text =
        |entry: &Value, field: &str| entry.get(field).and_then(Value::as_str).map(str::to_owned);
    list.iter()
        .filter_map(|entry| match format {
            DatasetFormat::DraftRestBench => text(entry, "tool_name").map(GoldApi::Named),
            DatasetFormat::ToolBench => Some(GoldApi::ToolBench {
                tool: text(entry, "tool_name")?,
                api: text(entry, "api_name")?,
                category: text(entry, CATEGORY),
            }),
            DatasetFormat::RestGpt | DatasetFormat::AnyToolBench | DatasetFormat::FuncQa => None,
        })
        .collect()
}

/// The text of an `api_list` entry's field.
fn field<'a>(entry: &'a Value, name: &str) -> Option<&'a str> {
    entry.get(name).and_then(Value::as_str)
}

/// The field of an `api_list` entry naming the tool's RapidAPI category.
const CATEGORY: &str = "category_name";

/// A ToolBench gold API with the category its query's `api_list` gives the same tool and API
/// (`relevant APIs` names only the tool and the API); other names unchanged.
fn with_category(gold: GoldApi, item: &Value) -> GoldApi {
    let GoldApi::ToolBench {
        tool,
        api,
        category: None,
    } = gold
    else {
        return gold;
    };
    let category = item
        .get("api_list")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|e| {
            field(e, "tool_name") == Some(tool.as_str())
                && field(e, "api_name") == Some(api.as_str())
        })
        .and_then(|e| field(e, CATEGORY))
        .map(str::to_owned);
    GoldApi::ToolBench {
        tool,
        api,
        category,
    }
}

fn parse_gold(g: &Value, format: DatasetFormat) -> Option<GoldApi> {
    match format {
        DatasetFormat::RestGpt | DatasetFormat::DraftRestBench => {
            // RestGPT's file has a few names with stray spaces ("GET  /movie/{movie_id} ").
            let name = g.as_str()?.split_whitespace().collect::<Vec<_>>().join(" ");
            (!name.is_empty()).then_some(GoldApi::Named(name))
        }
        DatasetFormat::AnyToolBench | DatasetFormat::FuncQa => None,
        DatasetFormat::ToolBench => match g.as_array()?.as_slice() {
            [tool, api] => Some(GoldApi::ToolBench {
                tool: tool.as_str()?.to_owned(),
                api: api.as_str()?.to_owned(),
                category: None,
            }),
            _ => None,
        },
    }
}
