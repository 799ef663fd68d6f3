//! The refined docs the papers published: DRAFT's (`TMDB_DRAFT.json`,
//! `DRAFT.json`) and EasyTool's (`tmdb_tool.json`, `EasyTool.json`). They
//! become new doc versions of tools and APIs already in the catalog, matched
//! by the names the files use.

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::id::DocLabel;
use crate::import::records::{ImportBatch, RefDoc, RefTarget, alias};
use crate::import::text::str_at;
use crate::import::{Format, ImportOptions};
use crate::model::{Doc, UsageExample};

pub(crate) fn read(
    path: &Path,
    value: &Value,
    format: Format,
    options: &ImportOptions,
) -> Result<ImportBatch> {
    let default_label = if format == Format::DraftDocs {
        DocLabel::DRAFT_REF
    } else {
        DocLabel::EASYTOOL_REF
    };
    let label = match &options.label {
        Some(label) => label.clone(),
        None => default_label.parse()?,
    };
    let mut docs = Vec::new();
    match value {
        // Tool sets keyed "1".."N" with `tool_guidelines` (DRAFT.json, EasyTool.json).
        Value::Object(map) if map.values().any(|t| t.get("tool_guidelines").is_some()) => {
            for (k, tool) in map {
                toolset_docs(path, &format!("#/{k}"), tool, &label, &mut docs)?;
            }
        }
        // RestBench endpoint docs keyed "0".."N" (TMDB_DRAFT.json).
        Value::Object(map) => {
            for (k, api) in map {
                let name = str_at(api, "tool_name").trim();
                if name.is_empty() {
                    return Err(Error::bad(
                        path,
                        format!("#/{k}"),
                        "entry without `tool_name`",
                    ));
                }
                let doc = Doc {
                    description: str_at(api, "description").trim().to_owned(),
                    examples: examples(api),
                    queries: Vec::new(),
                };
                docs.push(RefDoc {
                    target: RefTarget::Api(vec![name.to_owned()]),
                    label: label.clone(),
                    doc,
                });
            }
        }
        // EasyTool's RestBench list: `tool_usage` is `GET /path`, `tool_name` the path.
        Value::Array(items) => {
            for (i, api) in items.iter().enumerate() {
                let usage = str_at(api, "tool_usage").trim();
                let name = str_at(api, "tool_name").trim();
                if usage.is_empty() && name.is_empty() {
                    return Err(Error::bad(
                        path,
                        format!("#/{i}"),
                        "entry without `tool_usage` or `tool_name`",
                    ));
                }
                let names = [usage, name]
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                let doc = Doc {
                    description: str_at(api, "tool_description").trim().to_owned(),
                    examples: examples(api),
                    queries: Vec::new(),
                };
                docs.push(RefDoc {
                    target: RefTarget::Api(names),
                    label: label.clone(),
                    doc,
                });
            }
        }
        _ => return Err(Error::bad(path, "#", "expected an object or list of docs")),
    }
    Ok(ImportBatch {
        ref_docs: docs,
        ..ImportBatch::default()
    })
}

fn toolset_docs(
    path: &Path,
    at: &str,
    tool: &Value,
    label: &DocLabel,
    out: &mut Vec<RefDoc>,
) -> Result<()> {
    let tool_name = str_at(tool, "tool_name").trim();
    if tool_name.is_empty() {
        return Err(Error::bad(path, at, "tool without `tool_name`"));
    }
    let description = str_at(tool, "tool_description").trim();
    if !description.is_empty() {
        out.push(RefDoc {
            target: RefTarget::Tool(alias::toolbench_tool(tool_name)),
            label: label.clone(),
            doc: Doc::text(description),
        });
    }
    let Some(guidelines) = tool.get("tool_guidelines").and_then(Value::as_object) else {
        return Err(Error::bad(
            path,
            format!("{at}/tool_guidelines"),
            "not an object",
        ));
    };
    for (key, api) in guidelines {
        let api_name = Some(str_at(api, "name").trim())
            .filter(|n| !n.is_empty())
            .unwrap_or(key.as_str());
        let doc = Doc {
            description: str_at(api, "description").trim().to_owned(),
            examples: examples(api),
            queries: Vec::new(),
        };
        out.push(RefDoc {
            target: RefTarget::Api(vec![alias::toolbench_api(tool_name, api_name)]),
            label: label.clone(),
            doc,
        });
    }
    Ok(())
}

/// DRAFT writes `example: {User Query, url?, Parameters}`; EasyTool writes
/// `Example: {Scenario, Parameters}`; either may be a list.
fn examples(api: &Value) -> Vec<UsageExample> {
    let raw = api
        .get("example")
        .or_else(|| api.get("Example"))
        .or_else(|| api.get("examples"));
    let items: Vec<&Value> = match raw {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(item @ Value::Object(_)) => vec![item],
        _ => Vec::new(),
    };
    items
        .into_iter()
        .map(|item| {
            let query = ["User Query", "Scenario", "query", "scenario"]
                .iter()
                .map(|k| str_at(item, k).trim())
                .find(|s| !s.is_empty())
                .unwrap_or("");
            let arguments = item
                .get("Parameters")
                .or_else(|| item.get("parameters"))
                .cloned()
                .unwrap_or(Value::Object(Default::default()));
            let call = item.get("url").and_then(Value::as_str).map(str::to_owned);
            UsageExample {
                query: query.to_owned(),
                arguments,
                call,
            }
        })
        .collect()
}
