//! OpenAI function-tool JSON: a list of `{type: function, function: {name,
//! description, parameters}}` (or of bare `{name, description, parameters}`),
//! imported as one tool whose APIs are functions.

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::id::ToolId;
use crate::import::ImportOptions;
use crate::import::rapidapi::UniqueNames;
use crate::import::records::{ApiRecord, ImportBatch, ToolRecord};
use crate::import::text::str_at;
use crate::model::{Doc, Endpoint, ListFormat, Param, ParamLocation};

pub(crate) fn read(path: &Path, value: &Value, options: &ImportOptions) -> Result<ImportBatch> {
    let list = value
        .as_array()
        .ok_or_else(|| Error::bad(path, "#", "expected a list of functions"))?;
    let mut names = UniqueNames::default();
    let mut seen = std::collections::HashSet::new();
    let mut apis = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let at = format!("#/{i}");
        let function = item.get("function").unwrap_or(item);
        let name = str_at(function, "name").trim();
        if name.is_empty() {
            return Err(Error::bad(path, at, "function without a `name`"));
        }
        let parameters = function
            .get("parameters")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
        if !parameters.is_object() {
            return Err(Error::bad(
                path,
                format!("{at}/function/parameters"),
                "`parameters` is not a JSON Schema object",
            ));
        }
        if !seen.insert(name.to_owned()) {
            return Err(Error::bad(path, at, format!("duplicate function `{name}`")));
        }
        let api_name = names.unique(name, i)?;
        apis.push(ApiRecord {
            name: api_name,
            display_name: name.to_owned(),
            source_name: name.to_owned(),
            endpoint: Endpoint::Function {
                name: name.to_owned(),
            },
            params: function_params(&parameters),
            request_body: Some(parameters),
            response_schema: None,
            response_examples: Vec::new(),
            access: Default::default(),
            aliases: vec![name.to_owned()],
            doc: Some(Doc::text(str_at(function, "description").trim())),
        });
    }
    function_tool(path, options, "functions", None, apis)
}

/// The batch of a source that is one tool of functions (an OpenAI function list, an MCP
/// server's tools): named by `--tool`, else the file name, else `kind`; filed under
/// `--category`, else `General`.
pub(crate) fn function_tool(
    path: &Path,
    options: &ImportOptions,
    kind: &str,
    base_url: Option<String>,
    apis: Vec<ApiRecord>,
) -> Result<ImportBatch> {
    let tool_name = options.tool.clone().unwrap_or_else(|| {
        path.file_stem()
            .map_or_else(|| kind.to_owned(), |s| s.to_string_lossy().into_owned())
    });
    let id = ToolId::from_name(&tool_name)?;
    Ok(ImportBatch {
        tools: vec![ToolRecord {
            key: format!("{kind}:{id}"),
            preferred_id: id,
            name: tool_name.clone(),
            category: options
                .category
                .clone()
                .unwrap_or_else(|| "General".to_owned()),
            base_url,
            security: Vec::new(),
            description: None,
            aliases: vec![tool_name],
            apis,
        }],
        ..ImportBatch::default()
    })
}

/// The arguments of a function, one per top-level property of its parameter schema.
pub(crate) fn function_params(parameters: &Value) -> Vec<Param> {
    let Some(props) = parameters.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: Vec<&str> = parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    props
        .iter()
        .map(|(name, schema)| Param {
            name: name.clone(),
            location: ParamLocation::Body,
            required: required.contains(&name.as_str()),
            description: str_at(schema, "description").trim().to_owned(),
            schema: schema.clone(),
            list_format: ListFormat::Repeat,
        })
        .collect()
}
