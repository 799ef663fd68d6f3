//! ToolBench's dataset files: query files whose `api_list` entries describe the
//! APIs a query may use, and DRAFT's tool sets (`Initial.json`).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::import::ImportBatch;
use crate::import::rapidapi::{UniqueNames, parse_method, rapid_params, tool_id, tool_key};
use crate::import::records::{ApiRecord, ToolRecord, alias};
use crate::import::text::str_at;
use crate::model::{Doc, Endpoint};
use crate::names::toolbench_function_name;

/// Tools and APIs named by the `api_list` entries of a query file.
pub(crate) fn read_queries(path: &Path, value: &Value) -> Result<ImportBatch> {
    let queries = value
        .as_array()
        .ok_or_else(|| Error::bad(path, "#", "expected a list of queries"))?;
    let mut tools: BTreeMap<String, (ToolRecord, UniqueNames)> = BTreeMap::new();
    for (q, query) in queries.iter().enumerate() {
        let list = query
            .get("api_list")
            .and_then(Value::as_array)
            .ok_or_else(|| Error::bad(path, format!("#/{q}/api_list"), "no `api_list` list"))?;
        for (i, entry) in list.iter().enumerate() {
            let at = format!("#/{q}/api_list/{i}");
            let tool_name = str_at(entry, "tool_name").trim();
            let category = str_at(entry, "category_name").trim();
            let api_name = str_at(entry, "api_name").trim();
            if tool_name.is_empty() || api_name.is_empty() {
                return Err(Error::bad(
                    path,
                    at,
                    "entry without `tool_name` or `api_name`",
                ));
            }
            let key = tool_key(category, tool_name);
            if !tools.contains_key(&key) {
                let record = new_tool(path, &key, category, tool_name, None)?;
                tools.insert(key.clone(), (record, UniqueNames::default()));
            }
            let Some((tool, names)) = tools.get_mut(&key) else {
                continue;
            };
            let tb_alias = alias::toolbench_api(tool_name, api_name);
            if tool.apis.iter().any(|a| a.aliases.contains(&tb_alias)) {
                continue;
            }
            let method = parse_method(path, &at, str_at(entry, "method"))?;
            let mut api = api_record(
                path,
                entry,
                &at,
                tool_name,
                api_name,
                str_at(entry, "api_description"),
                names,
                tool.apis.len(),
            )?;
            api.endpoint = Endpoint::Unlocated {
                method: Some(method),
            };
            api.response_schema = entry.get("template_response").and_then(template_schema);
            tool.apis.push(api);
        }
    }
    Ok(ImportBatch {
        tools: tools.into_values().map(|(t, _)| t).collect(),
        ..ImportBatch::default()
    })
}

/// DRAFT's tool-set format: `{"1": {category, tool_name, tool_description, tool_guidelines: {api: {...}}}}`.
pub(crate) fn read_toolset(path: &Path, value: &Value) -> Result<ImportBatch> {
    let map = value
        .as_object()
        .ok_or_else(|| Error::bad(path, "#", "expected an object of tools"))?;
    let mut tools = Vec::with_capacity(map.len());
    for (k, raw) in map {
        let at = format!("#/{k}");
        let tool_name = str_at(raw, "tool_name").trim();
        if tool_name.is_empty() {
            return Err(Error::bad(path, at, "tool without `tool_name`"));
        }
        let category = str_at(raw, "category").trim();
        let key = tool_key(category, tool_name);
        let mut tool = new_tool(
            path,
            &key,
            category,
            tool_name,
            Some(str_at(raw, "tool_description").trim().to_owned()),
        )?;
        let guidelines = raw
            .get("tool_guidelines")
            .and_then(Value::as_object)
            .ok_or_else(|| Error::bad(path, format!("{at}/tool_guidelines"), "not an object"))?;
        let mut names = UniqueNames::default();
        for (api_key, api) in guidelines {
            let api_at = format!("{at}/tool_guidelines/{api_key}");
            let api_name = Some(str_at(api, "name").trim())
                .filter(|n| !n.is_empty())
                .unwrap_or(api_key.as_str());
            let record = api_record(
                path,
                api,
                &api_at,
                tool_name,
                api_name,
                str_at(api, "description"),
                &mut names,
                tool.apis.len(),
            )?;
            tool.apis.push(record);
        }
        tools.push(tool);
    }
    Ok(ImportBatch {
        tools,
        ..ImportBatch::default()
    })
}

fn new_tool(
    path: &Path,
    key: &str,
    category: &str,
    tool_name: &str,
    description: Option<String>,
) -> Result<ToolRecord> {
    Ok(ToolRecord {
        key: key.to_owned(),
        preferred_id: tool_id(path, tool_name)?,
        name: tool_name.to_owned(),
        category: if category.is_empty() {
            "General".to_owned()
        } else {
            category.to_owned()
        },
        base_url: None,
        security: Vec::new(),
        description,
        aliases: vec![alias::toolbench_tool(tool_name)],
        apis: Vec::new(),
    })
}

#[allow(clippy::too_many_arguments)]
fn api_record(
    path: &Path,
    raw: &Value,
    at: &str,
    tool_name: &str,
    api_name: &str,
    description: &str,
    names: &mut UniqueNames,
    index: usize,
) -> Result<ApiRecord> {
    let method = parse_method(path, at, str_at(raw, "method"))?;
    Ok(ApiRecord {
        name: names.unique(api_name, index)?,
        display_name: api_name.to_owned(),
        source_name: toolbench_function_name(tool_name, api_name),
        endpoint: Endpoint::Unlocated { method: None },
        params: rapid_params(path, raw, at, "", method)?,
        request_body: None,
        response_schema: None,
        response_examples: Vec::new(),
        access: Default::default(),
        aliases: vec![
            alias::toolbench_api(tool_name, api_name),
            toolbench_function_name(tool_name, api_name),
        ],
        doc: Some(Doc::text(description.trim())),
    })
}

/// ToolBench's `template_response` is a type sketch (`{"date": "str", "items":
/// [{"id": "int", "_list_length": 2}]}`); this turns it into a JSON Schema.
pub(crate) fn template_schema(template: &Value) -> Option<Value> {
    fn convert(v: &Value) -> Value {
        match v {
            Value::String(t) => match t.as_str() {
                "int" => json!({"type": "integer"}),
                "float" => json!({"type": "number"}),
                "bool" => json!({"type": "boolean"}),
                "NoneType" | "null" => json!({"type": "null"}),
                "list" => json!({"type": "array"}),
                "dict" => json!({"type": "object"}),
                _ => json!({"type": "string"}),
            },
            Value::Array(items) => match items.first() {
                Some(first) => json!({"type": "array", "items": convert(first)}),
                None => json!({"type": "array"}),
            },
            Value::Object(map) => {
                let properties: Map<String, Value> = map
                    .iter()
                    .filter(|(k, _)| k.as_str() != "_list_length")
                    .map(|(k, v)| (k.clone(), convert(v)))
                    .collect();
                json!({"type": "object", "properties": properties})
            }
            Value::Number(_) => json!({"type": "number"}),
            Value::Bool(_) => json!({"type": "boolean"}),
            Value::Null => json!({}),
        }
    }
    match template {
        Value::Object(map) if map.is_empty() => None,
        Value::Null => None,
        other => Some(convert(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_become_schemas() {
        let schema = template_schema(
            &json!({"date": "str", "line_up": [{"link": "str", "n": "int", "_list_length": 2}]}),
        )
        .unwrap();
        assert_eq!(schema["properties"]["date"], json!({"type": "string"}));
        assert_eq!(
            schema["properties"]["line_up"]["items"]["properties"]["n"],
            json!({"type": "integer"})
        );
        assert!(
            schema["properties"]["line_up"]["items"]["properties"]
                .get("_list_length")
                .is_none()
        );
    }
}
