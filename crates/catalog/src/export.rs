//! Exporters of a catalog view (usually the active docs): OpenAPI 3.1, OpenAI
//! tools JSON, an MCP tool list and Markdown.

use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::id::ApiId;
use crate::model::{Endpoint, ParamLocation, SecurityScheme};
use crate::names::{MAX_FUNCTION_NAME, change_name, slug};
use crate::render;
use crate::store::{ApiEntry, Catalog, ToolEntry};

/// The name an API goes by in tool calling: ToolBench's convention,
/// `<api>_for_<tool>` cut to its last 64 characters.
pub fn function_name(id: &ApiId) -> String {
    let full = format!("{}_for_{}", change_name(id.api().as_str()), id.tool());
    let cut = full.len().saturating_sub(MAX_FUNCTION_NAME);
    full.get(cut..).unwrap_or(&full).to_owned()
}

/// JSON Schema of an API's arguments: one property per parameter (path,
/// query, header, cookie and body alike), as tool calling expects.
pub fn input_schema(api: &ApiEntry) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in &api.api.params {
        let mut schema = p.schema.clone();
        if let (Value::Object(map), false) = (&mut schema, p.description.is_empty()) {
            map.entry("description")
                .or_insert_with(|| Value::String(p.description.clone()));
        }
        properties.insert(p.name.clone(), schema);
        if p.required {
            required.push(Value::String(p.name.clone()));
        }
    }
    let has_body_params = api
        .api
        .params
        .iter()
        .any(|p| p.location == ParamLocation::Body);
    if let (Some(body), false) = (&api.api.request_body, has_body_params) {
        properties.insert("body".to_owned(), body.clone());
        if body
            .get("x-body-required")
            .and_then(Value::as_bool)
            .unwrap_or(false)
        {
            required.push(Value::String("body".to_owned()));
        }
    }
    json!({ "type": "object", "properties": properties, "required": required })
}

/// OpenAI tools JSON: `[{type: function, function: {name, description, parameters}}]`.
pub fn openai_tools(catalog: &Catalog) -> Value {
    Value::Array(
        catalog
            .apis()
            .map(|(_, api)| {
                json!({"type": "function", "function": {
                    "name": function_name(&api.api.id),
                    "description": api.description(),
                    "parameters": input_schema(api),
                }})
            })
            .collect(),
    )
}

/// An MCP `tools/list` result: `{tools: [{name, description, inputSchema}]}`.
pub fn mcp_tools(catalog: &Catalog) -> Value {
    let tools: Vec<Value> = catalog
        .apis()
        .map(|(_, api)| json!({"name": function_name(&api.api.id), "description": api.description(), "inputSchema": input_schema(api)}))
        .collect();
    json!({ "tools": tools })
}

/// Markdown of the whole view.
pub fn markdown(catalog: &Catalog) -> String {
    let mut out = String::from("# Tool catalog\n\n");
    for tool in &catalog.tools {
        out.push_str(&render::tool_markdown(tool));
    }
    out
}

/// An OpenAPI 3.1 document of one tool with the chosen docs: the same paths
/// and parameters, descriptions replaced, usage examples added as parameter
/// examples and as `x-usage-examples`.
pub fn openapi(tool: &ToolEntry) -> Result<Value> {
    let t = &tool.tool;
    let mut info = json!({
        "title": t.name,
        "version": "1.0.0",
        "x-toolsmith-tool": t.id.as_str(),
        "x-toolsmith-category": t.category,
    });
    if let Some(doc) = &tool.doc {
        info["description"] = Value::String(doc.doc.description.clone());
    }
    let mut paths: Map<String, Value> = Map::new();
    for api in &tool.apis {
        let (method, path) = match &api.api.endpoint {
            Endpoint::Http { method, path } => (method.as_str().to_ascii_lowercase(), path.clone()),
            Endpoint::Unlocated { method } => (
                method.map_or("get", |m| m.as_str()).to_ascii_lowercase(),
                format!("/{}", api.api.id.api()),
            ),
            Endpoint::Function { .. } => ("post".to_owned(), format!("/{}", api.api.id.api())),
        };
        let item = paths.entry(path.clone()).or_insert_with(|| json!({}));
        if item.get(&method).is_some() {
            return Err(Error::Export(format!(
                "tool {}: two APIs map to {method} {path}",
                t.id
            )));
        }
        item[&method] = operation(api);
    }
    let mut doc = json!({ "openapi": "3.1.0", "info": info, "paths": paths });
    if let Some(base) = &t.base_url {
        doc["servers"] = json!([{ "url": base }]);
    }
    let schemes: Map<String, Value> = t.security.iter().filter_map(security_scheme).collect();
    if !schemes.is_empty() {
        doc["components"] = json!({ "securitySchemes": schemes });
    }
    Ok(doc)
}

fn operation(api: &ApiEntry) -> Value {
    let a = &api.api;
    let operation_id = if slug(&a.source_name) == a.id.api().as_str() {
        a.source_name.clone()
    } else {
        a.id.api().to_string()
    };
    let examples = api
        .doc
        .as_ref()
        .map(|d| d.doc.examples.as_slice())
        .unwrap_or_default();
    let mut op = json!({ "operationId": operation_id });
    if a.name != a.source_name {
        op["summary"] = Value::String(a.name.clone());
    }
    if !api.description().is_empty() {
        op["description"] = Value::String(api.description().to_owned());
    }
    match &a.endpoint {
        Endpoint::Function { name } => op["x-toolsmith-function"] = Value::String(name.clone()),
        Endpoint::Unlocated { .. } => op["x-toolsmith-unlocated"] = Value::Bool(true),
        Endpoint::Http { .. } => {}
    }
    let params: Vec<Value> = a
        .params
        .iter()
        .filter(|p| p.location != ParamLocation::Body)
        .map(|p| {
            let mut param = json!({ "name": p.name, "in": p.location.as_str(), "required": p.required, "schema": p.schema });
            if !p.description.is_empty() {
                param["description"] = Value::String(p.description.clone());
            }
            let values: Map<String, Value> = examples
                .iter()
                .enumerate()
                .filter_map(|(i, e)| e.arguments.get(&p.name).map(|v| (format!("example{}", i + 1), json!({"summary": e.query, "value": v}))))
                .collect();
            if !values.is_empty() {
                param["examples"] = Value::Object(values);
            }
            param
        })
        .collect();
    if !params.is_empty() {
        op["parameters"] = Value::Array(params);
    }
    if let Some(body) = &a.request_body {
        let mut body = body.clone();
        let required = body
            .as_object_mut()
            .and_then(|m| m.remove("x-body-required"))
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        op["requestBody"] =
            json!({ "required": required, "content": { "application/json": { "schema": body } } });
    }
    let mut media = json!({});
    if let Some(schema) = &a.response_schema {
        media["schema"] = schema.clone();
    }
    if !a.response_examples.is_empty() {
        let values: Map<String, Value> = a
            .response_examples
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("example{}", i + 1), json!({ "value": v })))
            .collect();
        media["examples"] = Value::Object(values);
    }
    op["responses"] =
        json!({ "200": { "description": "Success", "content": { "application/json": media } } });
    if !examples.is_empty() {
        op["x-usage-examples"] = serde_json::to_value(examples).unwrap_or(Value::Null);
    }
    op
}

fn security_scheme(scheme: &SecurityScheme) -> Option<(String, Value)> {
    match scheme {
        SecurityScheme::ApiKey {
            scheme,
            name,
            location,
        } => Some((
            scheme.clone(),
            json!({"type": "apiKey", "name": name, "in": location.as_str()}),
        )),
        SecurityScheme::Bearer { scheme } => {
            Some((scheme.clone(), json!({"type": "http", "scheme": "bearer"})))
        }
        SecurityScheme::Basic { scheme } => {
            Some((scheme.clone(), json!({"type": "http", "scheme": "basic"})))
        }
        SecurityScheme::RapidApi { host } => Some((
            "rapidapi".to_owned(),
            json!({"type": "apiKey", "name": "X-RapidAPI-Key", "in": "header", "x-rapidapi-host": host}),
        )),
    }
}
