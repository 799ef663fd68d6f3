//! What an importer produces: tools with their APIs and original docs, and
//! refined docs to attach to APIs already in the catalog.

use serde_json::Value;

use crate::error::Error;
use crate::id::{ApiName, DocLabel, ToolId};
use crate::import::Format;
use crate::model::{Access, Doc, Endpoint, Param, SecurityScheme};

/// Everything read from one source, ready to land in the store.
#[derive(Debug, Default)]
pub struct ImportBatch {
    /// The file, folder or archive read.
    pub source: String,
    /// The format it was read as.
    pub format: Option<Format>,
    /// sha256 of the source bytes (of the archive, for archives).
    pub sha256: String,
    /// Tools with their APIs.
    pub tools: Vec<ToolRecord>,
    /// Docs to attach to existing tools and APIs as new versions.
    pub ref_docs: Vec<RefDoc>,
    /// Files skipped because they failed (only with `keep_going`).
    pub failures: Vec<Error>,
}

impl ImportBatch {
    /// Number of APIs across all tools.
    pub fn api_count(&self) -> usize {
        self.tools.iter().map(|t| t.apis.len()).sum()
    }
}

/// One tool as a source describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolRecord {
    /// A key that names this tool across imports of any of its sources
    /// (`openapi:tmdb`, `rapidapi:data/theclique`), so re-imports update it.
    pub key: String,
    /// The id to give it when it is new and the id is free.
    pub preferred_id: ToolId,
    /// The source's name for it.
    pub name: String,
    /// Category.
    pub category: String,
    /// Base URL of its APIs.
    pub base_url: Option<String>,
    /// Security schemes.
    pub security: Vec<SecurityScheme>,
    /// The tool's description, when the source has one.
    pub description: Option<String>,
    /// Other names datasets use for this tool.
    pub aliases: Vec<String>,
    /// Its APIs, in source order, with distinct names.
    pub apis: Vec<ApiRecord>,
}

/// One API as a source describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiRecord {
    /// Its name within the tool (the second half of its id).
    pub name: ApiName,
    /// Human name.
    pub display_name: String,
    /// The source's identifier of the operation.
    pub source_name: String,
    /// How it is reached.
    pub endpoint: Endpoint,
    /// Parameters.
    pub params: Vec<Param>,
    /// Request body schema.
    pub request_body: Option<Value>,
    /// Response schema.
    pub response_schema: Option<Value>,
    /// Example responses.
    pub response_examples: Vec<Value>,
    /// Its credentials and effects, as far as the source says.
    pub access: Access,
    /// Other names datasets use for this API.
    pub aliases: Vec<String>,
    /// The source's documentation of it (`None` when the source has none).
    pub doc: Option<Doc>,
}

/// A doc from a refined-doc file, to attach to a tool or API by name.
#[derive(Clone, Debug, PartialEq)]
pub struct RefDoc {
    /// What it documents, by the names the file uses.
    pub target: RefTarget,
    /// Its label (`draft-ref`, `easytool-ref`).
    pub label: DocLabel,
    /// The doc.
    pub doc: Doc,
}

/// How a refined doc names what it documents.
#[derive(Clone, Debug, PartialEq)]
pub enum RefTarget {
    /// A tool, by any of its aliases.
    Tool(String),
    /// An API, by any of its aliases (tried in order).
    Api(Vec<String>),
}

/// Alias keys shared by importers and the store.
pub(crate) mod alias {
    use crate::names::standardize;

    /// ToolBench's key of an API: standardized tool and API names.
    pub(crate) fn toolbench_api(tool: &str, api: &str) -> String {
        format!("tb:{}/{}", standardize(tool), standardize(api))
    }

    /// ToolBench's key of a tool.
    pub(crate) fn toolbench_tool(tool: &str) -> String {
        format!("tb:{}", standardize(tool))
    }

    /// Normalizes an alias before storing or looking it up: trimmed, inner
    /// whitespace collapsed (RestBench's gold paths carry stray spaces).
    pub(crate) fn normalize(alias: &str) -> String {
        alias.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}
