//! Recognizing a source's format from its path and content.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// The source formats toolsmith imports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// OpenAPI 3.0/3.1 or Swagger 2.0, JSON or YAML.
    OpenApi,
    /// RapidAPI/ToolBench tool JSON: one file, a `<Category>/<tool>.json`
    /// folder tree, or a `.tar.gz` of such a tree.
    RapidApi,
    /// ToolBench/StableToolBench query files (`api_list` entries per query).
    ToolBenchQueries,
    /// DRAFT's tool-set files (`Initial.json`: tools with `tool_guidelines`).
    ToolBenchToolset,
    /// OpenAI function-tool JSON.
    OpenAiFunctions,
    /// An MCP `tools/list` result (`{tools: [{name, inputSchema, ...}]}`), as
    /// a server answers it or as `toolsmith export --format mcp` writes it.
    McpTools,
    /// DRAFT's refined docs (`*_DRAFT.json`, `DRAFT.json`).
    DraftDocs,
    /// EasyTool's instructions (`tmdb_tool.json`, `EasyTool.json`).
    EasyToolDocs,
}

impl Format {
    /// Every format, for help texts.
    pub const ALL: [Self; 8] = [
        Self::OpenApi,
        Self::RapidApi,
        Self::ToolBenchQueries,
        Self::ToolBenchToolset,
        Self::OpenAiFunctions,
        Self::McpTools,
        Self::DraftDocs,
        Self::EasyToolDocs,
    ];

    /// The format's name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenApi => "openapi",
            Self::RapidApi => "rapidapi",
            Self::ToolBenchQueries => "toolbench-queries",
            Self::ToolBenchToolset => "toolbench-toolset",
            Self::OpenAiFunctions => "openai-functions",
            Self::McpTools => "mcp-tools",
            Self::DraftDocs => "draft-docs",
            Self::EasyToolDocs => "easytool-docs",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(raw: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|f| f.as_str() == raw)
            .ok_or_else(|| {
                let names: Vec<_> = Self::ALL.iter().map(|f| f.as_str()).collect();
                format!(
                    "unknown format `{raw}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// Whether a path is a folder or archive (always RapidAPI tool trees).
pub(crate) fn is_tree(path: &Path) -> bool {
    let name = path.to_string_lossy().to_ascii_lowercase();
    path.is_dir() || name.ends_with(".tar.gz") || name.ends_with(".tgz")
}

/// Recognizes the format of a parsed document.
pub(crate) fn detect_value(path: &Path, value: &Value) -> Result<Format> {
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let unknown = |reason: &str| Error::UnknownFormat {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    match value {
        Value::Object(map) if map.contains_key("openapi") || map.contains_key("swagger") => {
            Ok(Format::OpenApi)
        }
        Value::Object(map) if map.contains_key("api_list") && map.contains_key("tool_name") => {
            Ok(Format::RapidApi)
        }
        Value::Object(map) if is_mcp_tool_list(map) => Ok(Format::McpTools),
        Value::Object(map) => {
            let first = map
                .values()
                .next()
                .ok_or_else(|| unknown("an empty object"))?;
            if first.get("tool_guidelines").is_some() {
                return Ok(refined_by_name(&file).unwrap_or(Format::ToolBenchToolset));
            }
            if first.get("tool_name").is_some() && first.get("url").is_some() {
                return refined_by_name(&file).ok_or_else(|| {
                    unknown("endpoint docs keyed by number (DRAFT's RestBench layout) under a name that says neither DRAFT nor EasyTool; import the OpenAPI spec for the APIs, or name the docs' format and label with --format draft-docs --label LABEL")
                });
            }
            Err(unknown(
                "an object that is neither an OpenAPI spec, a RapidAPI tool nor a tool set",
            ))
        }
        Value::Array(items) => {
            let first = items.first().ok_or_else(|| unknown("an empty list"))?;
            if first.get("api_list").is_some() && first.get("query").is_some() {
                Ok(Format::ToolBenchQueries)
            } else if first.get("type").and_then(Value::as_str) == Some("function")
                || (first.get("name").is_some() && first.get("parameters").is_some())
            {
                Ok(Format::OpenAiFunctions)
            } else if first.get("tool_usage").is_some() || first.get("Example").is_some() {
                Ok(Format::EasyToolDocs)
            } else {
                Err(unknown(
                    "a list of neither queries, functions nor tool instructions",
                ))
            }
        }
        _ => Err(unknown("neither an object nor a list")),
    }
}

/// `{tools: [...]}` whose first tool has an `inputSchema` (or no tools at all).
fn is_mcp_tool_list(map: &serde_json::Map<String, Value>) -> bool {
    map.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| {
            tools
                .first()
                .is_none_or(|t| t.get("inputSchema").is_some() && t.get("name").is_some())
        })
}

fn refined_by_name(file: &str) -> Option<Format> {
    if file.contains("draft") {
        Some(Format::DraftDocs)
    } else if file.contains("easytool") {
        Some(Format::EasyToolDocs)
    } else {
        None
    }
}
