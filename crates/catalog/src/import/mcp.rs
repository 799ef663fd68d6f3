//! An MCP `tools/list` result, `{tools: [{name, title?, description?,
//! inputSchema, outputSchema?, annotations?}]}`, imported as one tool whose
//! APIs are the server's tools, each called by name.
//!
//! The result comes from a live server (the binary connects, lists and hands
//! the JSON over) or from a file, such as our own [`crate::export::mcp_tools`].
//! The source cannot say where the server is, so the caller passes its address
//! as [`ImportOptions::base_url`].

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::id::ApiName;
use crate::import::ImportOptions;
use crate::import::openai::{function_params, function_tool};
use crate::import::rapidapi::UniqueNames;
use crate::import::records::{ApiRecord, ImportBatch};
use crate::model::{Access, Doc, Effects, Endpoint};

/// Reads a `tools/list` result.
pub(crate) fn read(path: &Path, value: &Value, options: &ImportOptions) -> Result<ImportBatch> {
    let root = value.as_object().ok_or_else(|| {
        Error::bad(
            path,
            "#",
            "expected an MCP tools/list result `{\"tools\": [...]}`",
        )
    })?;
    let list = root
        .get("tools")
        .ok_or_else(|| Error::bad(path, "#", "no `tools` list"))?
        .as_array()
        .ok_or_else(|| Error::bad(path, "#/tools", "`tools` is not a list"))?;
    let mut names = UniqueNames::default();
    let mut seen = HashSet::new();
    let mut apis = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let at = format!("#/tools/{i}");
        let name = tool_name_at(path, &at, item)?;
        if !seen.insert(name.clone()) {
            return Err(Error::bad(path, at, format!("duplicate tool `{name}`")));
        }
        let api_name = names.unique(&name, i)?;
        apis.push(read_tool(path, &at, item, name, api_name)?);
    }
    function_tool(path, options, "mcp", options.base_url.clone(), apis)
}

/// The `name` of one entry of `tools`: the name the server calls it by.
fn tool_name_at(path: &Path, at: &str, item: &Value) -> Result<String> {
    let tool = item
        .as_object()
        .ok_or_else(|| Error::bad(path, at, "a tool is not an object"))?;
    match tool.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => Ok(name.trim().to_owned()),
        Some(Value::String(_)) | None => Err(Error::bad(
            path,
            format!("{at}/name"),
            "tool without a `name`",
        )),
        Some(_) => Err(Error::bad(
            path,
            format!("{at}/name"),
            "`name` is not a string",
        )),
    }
}

/// One entry of `tools` (already known to be an object with a `name`) as an API.
fn read_tool(
    path: &Path,
    at: &str,
    item: &Value,
    name: String,
    api_name: ApiName,
) -> Result<ApiRecord> {
    let empty = Map::new();
    let tool = item.as_object().unwrap_or(&empty);
    let description = optional_str(path, at, tool, "description")?.unwrap_or_default();
    let annotations = optional_object(path, at, tool, "annotations")?;
    let title = optional_str(path, at, tool, "title")?.or_else(|| {
        annotations
            .and_then(|a| a.get("title"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let input = tool
        .get("inputSchema")
        .ok_or_else(|| Error::bad(path, at, format!("tool `{name}` has no `inputSchema`")))?;
    check_input_schema(path, &format!("{at}/inputSchema"), input)?;
    let output = optional_object(path, at, tool, "outputSchema")?;
    let params = function_params(input);
    // The whole schema is kept (combinators, `additionalProperties`) when
    // there are parameters to keep it beside; a schema without properties
    // would otherwise turn into a `body` argument nobody declared.
    let request_body = (!params.is_empty()).then(|| input.clone());
    Ok(ApiRecord {
        name: api_name,
        display_name: title.unwrap_or_else(|| name.clone()),
        source_name: name.clone(),
        endpoint: Endpoint::Function { name: name.clone() },
        params,
        request_body,
        response_schema: output.map(|o| Value::Object(o.clone())),
        response_examples: Vec::new(),
        access: Access {
            security: None,
            effects: effects(annotations),
        },
        aliases: vec![name],
        doc: Some(Doc::text(description.trim())),
    })
}

/// What a tool's annotations say about its effects: `readOnlyHint` is a
/// hint, so only a boolean counts; anything else leaves them unknown.
fn effects(annotations: Option<&Map<String, Value>>) -> Effects {
    match annotations.and_then(|a| a.get("readOnlyHint")) {
        Some(Value::Bool(true)) => Effects::ReadOnly,
        Some(Value::Bool(false)) => Effects::Writes,
        _ => Effects::Unknown,
    }
}

/// An `inputSchema` must be an object schema whose `properties` (if any) is
/// an object and whose `required` (if any) is a list of names.
fn check_input_schema(path: &Path, at: &str, schema: &Value) -> Result<()> {
    let Some(map) = schema.as_object() else {
        return Err(Error::bad(
            path,
            at,
            "`inputSchema` is not a JSON Schema object",
        ));
    };
    if let Some(kind) = map.get("type")
        && kind != "object"
    {
        return Err(Error::bad(
            path,
            format!("{at}/type"),
            format!("`inputSchema` must describe an object, not {kind}"),
        ));
    }
    if let Some(props) = map.get("properties")
        && !props.is_object()
    {
        return Err(Error::bad(
            path,
            format!("{at}/properties"),
            "`properties` is not an object",
        ));
    }
    if let Some(required) = map.get("required") {
        let names = required
            .as_array()
            .filter(|r| r.iter().all(Value::is_string));
        if names.is_none() {
            return Err(Error::bad(
                path,
                format!("{at}/required"),
                "`required` is not a list of parameter names",
            ));
        }
    }
    Ok(())
}

fn optional_str(
    path: &Path,
    at: &str,
    tool: &Map<String, Value>,
    key: &str,
) -> Result<Option<String>> {
    match tool.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(Error::bad(
            path,
            format!("{at}/{key}"),
            format!("`{key}` is not a string"),
        )),
    }
}

fn optional_object<'v>(
    path: &Path,
    at: &str,
    tool: &'v Map<String, Value>,
    key: &str,
) -> Result<Option<&'v Map<String, Value>>> {
    match tool.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(_) => Err(Error::bad(
            path,
            format!("{at}/{key}"),
            format!("`{key}` is not an object"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::ParamLocation;

    fn options() -> ImportOptions {
        ImportOptions {
            tool: Some("calc".to_owned()),
            base_url: Some("mcp+stdio:calc-server".to_owned()),
            ..ImportOptions::default()
        }
    }

    fn error_of(value: Value) -> String {
        read(Path::new("tools.json"), &value, &options())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn reads_tools_with_params_and_schemas() {
        let list = json!({"tools": [
            {"name": "add", "title": "Add numbers", "description": "Adds a and b.",
             "inputSchema": {"type": "object", "properties": {
                 "a": {"type": "number", "description": "first"}, "b": {"type": "number"}},
                 "required": ["a", "b"]},
             "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}},
             "annotations": {"readOnlyHint": true}},
            {"name": "ping", "inputSchema": {"type": "object"}}
        ]});
        let batch = read(Path::new("tools.json"), &list, &options()).unwrap();
        let tool = &batch.tools[0];
        assert_eq!(tool.preferred_id.as_str(), "calc");
        assert_eq!(tool.base_url.as_deref(), Some("mcp+stdio:calc-server"));
        let add = &tool.apis[0];
        assert_eq!(add.name.as_str(), "add");
        assert_eq!(add.display_name, "Add numbers");
        assert_eq!(add.endpoint, Endpoint::Function { name: "add".into() });
        assert_eq!(add.params.len(), 2);
        assert!(
            add.params
                .iter()
                .all(|p| p.required && p.location == ParamLocation::Body)
        );
        assert_eq!(add.params[0].description, "first");
        assert_eq!(add.params[0].schema["type"], "number");
        assert_eq!(
            add.response_schema.as_ref().unwrap()["properties"]["sum"]["type"],
            "number"
        );
        assert_eq!(add.doc.as_ref().unwrap().description, "Adds a and b.");
        assert_eq!(add.access.effects, Effects::ReadOnly);
        let ping = &tool.apis[1];
        assert_eq!(ping.access.effects, Effects::Unknown);
        assert!(ping.params.is_empty());
        assert_eq!(
            ping.request_body, None,
            "no `body` argument for a tool without parameters"
        );
    }

    #[test]
    fn malformed_lists_name_the_place() {
        assert!(error_of(json!([])).contains("at #: expected an MCP tools/list result"));
        assert!(error_of(json!({"tools": 3})).contains("at #/tools: `tools` is not a list"));
        assert!(error_of(json!({"tools": [7]})).contains("at #/tools/0: a tool is not an object"));
        let e = error_of(json!({"tools": [{"inputSchema": {"type": "object"}}]}));
        assert!(
            e.contains("#/tools/0/name") && e.contains("without a `name`"),
            "{e}"
        );
        let e = error_of(json!({"tools": [{"name": 5, "inputSchema": {}}]}));
        assert!(e.contains("#/tools/0/name"), "{e}");
        let e = error_of(json!({"tools": [{"name": "a", "inputSchema": {}}, {"name": "b"}]}));
        assert!(
            e.contains("#/tools/1") && e.contains("tool `b` has no `inputSchema`"),
            "{e}"
        );
        let e = error_of(json!({"tools": [{"name": "a", "inputSchema": "x"}]}));
        assert!(e.contains("#/tools/0/inputSchema"), "{e}");
        let e = error_of(json!({"tools": [{"name": "a", "inputSchema": {"type": "string"}}]}));
        assert!(e.contains("#/tools/0/inputSchema/type"), "{e}");
        let e = error_of(json!({"tools": [{"name": "a", "inputSchema": {"properties": []}}]}));
        assert!(e.contains("#/tools/0/inputSchema/properties"), "{e}");
        let e = error_of(json!({"tools": [{"name": "a", "inputSchema": {"required": "a"}}]}));
        assert!(e.contains("#/tools/0/inputSchema/required"), "{e}");
        let e =
            error_of(json!({"tools": [{"name": "a", "inputSchema": {}, "outputSchema": true}]}));
        assert!(e.contains("#/tools/0/outputSchema"), "{e}");
        let e = error_of(json!({"tools": [{"name": "a", "inputSchema": {}, "description": 1}]}));
        assert!(e.contains("#/tools/0/description"), "{e}");
        let e = error_of(
            json!({"tools": [{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}]}),
        );
        assert!(
            e.contains("#/tools/1") && e.contains("duplicate tool `a`"),
            "{e}"
        );
    }
}
