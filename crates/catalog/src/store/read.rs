//! Reading the store: the catalog with one doc version per tool and API, doc
//! histories, and name resolution.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Row, params};
use serde::Serialize;

use super::Store;
use crate::error::{Error, Result};
use crate::id::{ApiId, DocLabel, DocTarget, ToolId};
use crate::import::records::alias;
use crate::model::{Api, Doc, DocVersion, Tool};

/// Which doc version to read for each tool and API.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DocSelector {
    /// The active version (what agents see).
    #[default]
    Active,
    /// The latest version with this label; the active one where there is none.
    Label(DocLabel),
}

/// A tool with its chosen doc and its APIs.
#[derive(Clone, Debug, Serialize)]
pub struct ToolEntry {
    /// The tool.
    pub tool: Tool,
    /// Its chosen doc version, if it has any.
    pub doc: Option<DocVersion>,
    /// Its APIs in source order.
    pub apis: Vec<ApiEntry>,
}

/// An API with its chosen doc.
#[derive(Clone, Debug, Serialize)]
pub struct ApiEntry {
    /// The API.
    pub api: Api,
    /// Its chosen doc version, if it has any.
    pub doc: Option<DocVersion>,
}

impl ApiEntry {
    /// The description of the chosen doc, or "".
    pub fn description(&self) -> &str {
        self.doc.as_ref().map_or("", |d| d.doc.description.as_str())
    }
}

/// A view of the catalog with one doc per tool and API.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Catalog {
    /// Tools in id order.
    pub tools: Vec<ToolEntry>,
}

impl Catalog {
    /// Every API, tool by tool.
    pub fn apis(&self) -> impl Iterator<Item = (&ToolEntry, &ApiEntry)> {
        self.tools
            .iter()
            .flat_map(|t| t.apis.iter().map(move |a| (t, a)))
    }

    /// Number of APIs.
    pub fn api_count(&self) -> usize {
        self.tools.iter().map(|t| t.apis.len()).sum()
    }
}

/// Restricts a catalog read to a category or tool.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Only tools of this category (case-insensitive).
    pub category: Option<String>,
    /// Only this tool.
    pub tool: Option<ToolId>,
}

impl Store {
    /// The catalog (or part of it) with the chosen doc version of everything.
    pub fn catalog(&self, selector: &DocSelector, scope: &Scope) -> Result<Catalog> {
        let docs = self.doc_map(selector)?;
        let category = scope.category.as_deref();
        let tool = scope.tool.as_ref().map(ToolId::as_str);
        let mut tools: Vec<ToolEntry> = self
            .conn
            .prepare(
                "SELECT id, name, category, base_url, security FROM tools
                 WHERE (?1 IS NULL OR lower(category) = lower(?1)) AND (?2 IS NULL OR id = ?2) ORDER BY id",
            )
            .and_then(|mut s| s.query_map(params![category, tool], tool_row)?.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(Error::store("reading tools"))?
            .into_iter()
            .map(|raw| {
                let tool = raw.into_tool()?;
                let doc = docs.get(&DocTarget::Tool(tool.id.clone()).to_string()).cloned();
                Ok(ToolEntry { tool, doc, apis: Vec::new() })
            })
            .collect::<Result<_>>()?;
        let index: HashMap<String, usize> = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.tool.id.to_string(), i))
            .collect();
        let mut stmt = self
            .conn
            .prepare(
                "SELECT a.id, a.name, a.source_name, a.endpoint, a.params, a.request_body, a.response_schema, a.response_examples, a.access, a.tool_id
                 FROM apis a JOIN tools t ON t.id = a.tool_id
                 WHERE (?1 IS NULL OR lower(t.category) = lower(?1)) AND (?2 IS NULL OR t.id = ?2) ORDER BY a.tool_id, a.ordinal",
            )
            .map_err(Error::store("reading APIs"))?;
        let rows = stmt
            .query_map(params![category, tool], |r| {
                Ok((api_row(r)?, r.get::<_, String>(9)?))
            })
            .map_err(Error::store("reading APIs"))?;
        for row in rows {
            let (raw, tool_id) = row.map_err(Error::store("reading an API"))?;
            let api = raw.into_api()?;
            let doc = docs
                .get(&DocTarget::Api(api.id.clone()).to_string())
                .cloned();
            if let Some(&i) = index.get(&tool_id) {
                tools[i].apis.push(ApiEntry { api, doc });
            }
        }
        Ok(Catalog { tools })
    }

    /// One API with its active doc.
    pub fn api(&self, id: &ApiId) -> Result<ApiEntry> {
        let raw = self
            .conn
            .query_row(
                "SELECT id, name, source_name, endpoint, params, request_body, response_schema, response_examples, access FROM apis WHERE id = ?1",
                [id.to_string()],
                api_row,
            )
            .optional()
            .map_err(Error::store(format!("reading API {id}")))?
            .ok_or_else(|| Error::UnknownApi(id.clone()))?;
        let doc = self
            .doc_history(&DocTarget::Api(id.clone()))?
            .into_iter()
            .find(|d| d.active);
        Ok(ApiEntry {
            api: raw.into_api()?,
            doc,
        })
    }

    /// One tool (without its APIs' docs; use [`Store::catalog`] with a scope for those).
    pub fn tool(&self, id: &ToolId) -> Result<Tool> {
        self.conn
            .query_row(
                "SELECT id, name, category, base_url, security FROM tools WHERE id = ?1",
                [id.as_str()],
                tool_row,
            )
            .optional()
            .map_err(Error::store(format!("reading tool {id}")))?
            .ok_or_else(|| Error::UnknownTool(id.clone()))?
            .into_tool()
    }

    /// Every version of a tool's or API's doc, oldest first.
    pub fn doc_history(&self, target: &DocTarget) -> Result<Vec<DocVersion>> {
        let key = target.to_string();
        self.conn
            .prepare(
                "SELECT d.version, d.label, d.source, d.created_at_ms, d.description, d.examples, d.queries, (a.doc_id = d.id)
                 FROM docs d LEFT JOIN active_docs a ON a.target = d.target WHERE d.target = ?1 ORDER BY d.version",
            )
            .and_then(|mut s| s.query_map([&key], doc_row)?.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(Error::store(format!("reading docs of {key}")))?
            .into_iter()
            .map(RawDoc::into_doc)
            .collect()
    }

    /// The APIs a name (source name, `GET /path`, ToolBench key, id) refers to.
    pub fn resolve_api(&self, name: &str) -> Result<Vec<ApiId>> {
        self.resolve(name, "api")?
            .into_iter()
            .map(|s| s.parse().map_err(Error::from))
            .collect()
    }

    /// The API a ToolBench dataset names by tool and API name.
    pub fn resolve_toolbench_api(&self, tool: &str, api: &str) -> Result<Vec<ApiId>> {
        self.resolve_api(&alias::toolbench_api(tool, api))
    }

    /// The tools a name refers to.
    pub fn resolve_tool(&self, name: &str) -> Result<Vec<ToolId>> {
        self.resolve(name, "tool")?
            .into_iter()
            .map(|s| s.parse().map_err(Error::from))
            .collect()
    }

    fn resolve(&self, name: &str, kind: &str) -> Result<Vec<String>> {
        self.conn
            .prepare_cached(
                "SELECT target FROM aliases WHERE alias = ?1 AND kind = ?2 ORDER BY target",
            )
            .and_then(|mut s| {
                s.query_map(params![alias::normalize(name), kind], |r| r.get(0))?
                    .collect()
            })
            .map_err(Error::store(format!("resolving {name}")))
    }

    /// The doc labels in the store with how many tools and APIs carry each.
    pub fn doc_labels(&self) -> Result<Vec<(DocLabel, usize)>> {
        self.conn
            .prepare("SELECT label, COUNT(DISTINCT target) FROM docs GROUP BY label ORDER BY label")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(Error::store("counting doc labels"))?
            .into_iter()
            .map(|(label, n)| Ok((label.parse()?, usize::try_from(n).unwrap_or(0))))
            .collect()
    }

    fn doc_map(&self, selector: &DocSelector) -> Result<HashMap<String, DocVersion>> {
        let active_sql = "SELECT a.target, d.version, d.label, d.source, d.created_at_ms, d.description, d.examples, d.queries, 1
                          FROM active_docs a JOIN docs d ON d.id = a.doc_id";
        let mut map = self.read_docs(active_sql, params![])?;
        if let DocSelector::Label(label) = selector {
            let labelled = self.read_docs(
                "SELECT d.target, d.version, d.label, d.source, d.created_at_ms, d.description, d.examples, d.queries,
                        EXISTS (SELECT 1 FROM active_docs a WHERE a.doc_id = d.id)
                 FROM docs d WHERE d.label = ?1 AND d.version = (SELECT MAX(version) FROM docs e WHERE e.target = d.target AND e.label = ?1)",
                params![label.as_str()],
            )?;
            map.extend(labelled);
        }
        Ok(map)
    }

    fn read_docs(
        &self,
        sql: &str,
        params: &[&dyn rusqlite::ToSql],
    ) -> Result<HashMap<String, DocVersion>> {
        let rows = self
            .conn
            .prepare(sql)
            .and_then(|mut s| {
                s.query_map(params, |r| Ok((r.get::<_, String>(0)?, doc_row_at(r, 1)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(Error::store("reading docs"))?;
        rows.into_iter()
            .map(|(target, raw)| Ok((target, raw.into_doc()?)))
            .collect()
    }
}

struct RawTool {
    id: String,
    name: String,
    category: String,
    base_url: Option<String>,
    security: String,
}

fn tool_row(r: &Row<'_>) -> rusqlite::Result<RawTool> {
    Ok(RawTool {
        id: r.get(0)?,
        name: r.get(1)?,
        category: r.get(2)?,
        base_url: r.get(3)?,
        security: r.get(4)?,
    })
}

impl RawTool {
    fn into_tool(self) -> Result<Tool> {
        let security = serde_json::from_str(&self.security)
            .map_err(|e| Error::Corrupt(format!("tool {}: security: {e}", self.id)))?;
        Ok(Tool {
            id: self.id.parse()?,
            name: self.name,
            category: self.category,
            base_url: self.base_url,
            security,
        })
    }
}

struct RawApi {
    id: String,
    name: String,
    source_name: String,
    endpoint: String,
    params: String,
    request_body: Option<String>,
    response_schema: Option<String>,
    response_examples: String,
    access: String,
}

fn api_row(r: &Row<'_>) -> rusqlite::Result<RawApi> {
    Ok(RawApi {
        id: r.get(0)?,
        name: r.get(1)?,
        source_name: r.get(2)?,
        endpoint: r.get(3)?,
        params: r.get(4)?,
        request_body: r.get(5)?,
        response_schema: r.get(6)?,
        response_examples: r.get(7)?,
        access: r.get(8)?,
    })
}

impl RawApi {
    fn into_api(self) -> Result<Api> {
        let id = &self.id;
        let parse = |what: &str, text: &str| -> Result<serde_json::Value> {
            serde_json::from_str(text).map_err(|e| Error::Corrupt(format!("API {id}: {what}: {e}")))
        };
        let opt =
            |what: &str, text: &Option<String>| text.as_deref().map(|t| parse(what, t)).transpose();
        Ok(Api {
            endpoint: serde_json::from_value(parse("endpoint", &self.endpoint)?)
                .map_err(|e| Error::Corrupt(format!("API {id}: endpoint: {e}")))?,
            params: serde_json::from_value(parse("params", &self.params)?)
                .map_err(|e| Error::Corrupt(format!("API {id}: params: {e}")))?,
            request_body: opt("request body", &self.request_body)?,
            response_schema: opt("response schema", &self.response_schema)?,
            response_examples: serde_json::from_value(parse("examples", &self.response_examples)?)
                .map_err(|e| Error::Corrupt(format!("API {id}: examples: {e}")))?,
            access: serde_json::from_str(&self.access)
                .map_err(|e| Error::Corrupt(format!("API {id}: access: {e}")))?,
            id: self.id.parse()?,
            name: self.name,
            source_name: self.source_name,
        })
    }
}

struct RawDoc {
    version: u32,
    label: String,
    source: String,
    created_at_ms: i64,
    description: String,
    examples: String,
    queries: String,
    active: bool,
}

fn doc_row(r: &Row<'_>) -> rusqlite::Result<RawDoc> {
    doc_row_at(r, 0)
}

fn doc_row_at(r: &Row<'_>, at: usize) -> rusqlite::Result<RawDoc> {
    Ok(RawDoc {
        version: r.get(at)?,
        label: r.get(at + 1)?,
        source: r.get(at + 2)?,
        created_at_ms: r.get(at + 3)?,
        description: r.get(at + 4)?,
        examples: r.get(at + 5)?,
        queries: r.get(at + 6)?,
        active: r.get::<_, Option<bool>>(at + 7)?.unwrap_or(false),
    })
}

impl RawDoc {
    fn into_doc(self) -> Result<DocVersion> {
        let examples = serde_json::from_str(&self.examples)
            .map_err(|e| Error::Corrupt(format!("doc examples: {e}")))?;
        let queries = serde_json::from_str(&self.queries)
            .map_err(|e| Error::Corrupt(format!("doc queries: {e}")))?;
        Ok(DocVersion {
            version: self.version,
            label: self.label.parse()?,
            source: self.source,
            created_at_ms: self.created_at_ms,
            active: self.active,
            doc: Doc {
                description: self.description,
                examples,
                queries,
            },
        })
    }
}
