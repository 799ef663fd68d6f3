//! Exporters of a catalog view (usually the active docs): OpenAPI 3.1, OpenAI
//! tools JSON, an MCP tool list and Markdown.

use std::borrow::Cow;
use std::collections::HashSet;

use serde::Serialize;
use serde_json::{Map, Value, json};

mod components;

use components::Components;

use crate::error::Result;
use crate::id::{ApiId, ToolId};
use crate::lint;
use crate::model::{Endpoint, ListFormat, ParamLocation, SecurityScheme};
use crate::names::{self, slug};
use crate::render;
use crate::repair;
use crate::store::{ApiEntry, Catalog, ToolEntry};

/// The name an API goes by in tool calling: ToolBench's `<api>_for_<tool>`,
/// shortened readably when longer than 64 characters ([`names::function_name`]).
pub fn function_name(id: &ApiId) -> String {
    names::function_name(id.tool().as_str(), id.api().as_str())
}

/// A change an export made to keep its output valid (a renamed operation, a
/// de-duplicated `required` entry, an enum's type), named by tool and API, so
/// a catalog-wide export reports what it changed instead of stopping.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The tool changed.
    pub tool: ToolId,
    /// The API changed, when the change is one API's.
    pub api: Option<ApiId>,
    /// What was changed and why.
    pub what: String,
}

/// An exported document and the [`Change`]s made to it.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The document.
    pub value: Value,
    /// What was changed to make it valid, in catalog order.
    pub changes: Vec<Change>,
}

/// JSON Schema of an API's arguments: one property per parameter (path,
/// query, header, cookie and body alike), as tool calling expects.
pub fn input_schema(api: &ApiEntry) -> Value {
    input_schema_noting(api, &mut Vec::new())
}

/// [`input_schema`], noting each change made to the source's parameters: an
/// enum's type set to its values' ([`lint::effective_schema`]), a name listed
/// twice (the last declaration wins, `required` names it once).
fn input_schema_noting(api: &ApiEntry, notes: &mut Vec<String>) -> Value {
    let mut properties = Map::new();
    let mut required: Vec<Value> = Vec::new();
    for p in &api.api.params {
        let fixed = lint::effective_schema(&p.schema);
        if let Cow::Owned(schema) = &fixed {
            notes.push(format!(
                "parameter `{}`: type set to {} to match its enum values",
                p.name, schema["type"]
            ));
        }
        let mut schema = fixed.into_owned();
        repair::strip_notes(&mut schema);
        if let (Value::Object(map), false) = (&mut schema, p.description.is_empty()) {
            map.entry("description")
                .or_insert_with(|| Value::String(p.description.clone()));
        }
        if properties.insert(p.name.clone(), schema).is_some() {
            notes.push(format!(
                "parameter `{}` is declared twice; the last declaration is kept",
                p.name
            ));
        }
        let name = Value::String(p.name.clone());
        if p.required && !required.contains(&name) {
            required.push(name);
        }
    }
    let has_body_params = api
        .api
        .params
        .iter()
        .any(|p| p.location == ParamLocation::Body);
    if let (Some(body), false) = (&api.api.request_body, has_body_params) {
        let body_required = body
            .get(repair::BODY_REQUIRED)
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let mut schema = body.clone();
        repair::strip_notes(&mut schema);
        if properties.insert("body".to_owned(), schema).is_some() {
            notes.push("a parameter named `body` is replaced by the request body".to_owned());
        }
        let name = Value::String("body".to_owned());
        if body_required && !required.contains(&name) {
            required.push(name);
        }
    }
    json!({ "type": "object", "properties": properties, "required": required })
}

/// Function entries of a catalog with unique names: [`function_name`], and
/// should two APIs ever share one, the later gets `_2`, `_3`... (noted).
fn functions(catalog: &Catalog, entry: impl Fn(String, &ApiEntry, Value) -> Value) -> Exported {
    let mut taken: HashSet<String> = HashSet::new();
    let mut changes = Vec::new();
    let mut out = Vec::new();
    for (tool, api) in catalog.apis() {
        let mut notes = Vec::new();
        let base = function_name(&api.api.id);
        let mut name = base.clone();
        let mut n = 1;
        while taken.contains(&name) {
            n += 1;
            let suffix = format!("_{n}");
            let keep = base.len().min(names::MAX_FUNCTION_NAME - suffix.len());
            name = format!("{}{suffix}", base.get(..keep).unwrap_or(&base));
        }
        if n > 1 {
            notes.push(format!("function name `{base}` is taken; named `{name}`"));
        }
        taken.insert(name.clone());
        let parameters = input_schema_noting(api, &mut notes);
        out.push(entry(name, api, parameters));
        changes.extend(notes.into_iter().map(|what| Change {
            tool: tool.tool.id.clone(),
            api: Some(api.api.id.clone()),
            what,
        }));
    }
    Exported {
        value: Value::Array(out),
        changes,
    }
}

/// OpenAI tools JSON: `[{type: function, function: {name, description, parameters}}]`.
pub fn openai_tools(catalog: &Catalog) -> Value {
    openai_tools_exported(catalog).value
}

/// [`openai_tools`] with the changes made to keep every function valid.
pub fn openai_tools_exported(catalog: &Catalog) -> Exported {
    functions(catalog, |name, api, parameters| {
        json!({"type": "function", "function": {
            "name": name,
            "description": api.description(),
            "parameters": parameters,
        }})
    })
}

/// An MCP `tools/list` result: `{tools: [{name, description, inputSchema}]}`.
pub fn mcp_tools(catalog: &Catalog) -> Value {
    mcp_tools_exported(catalog).value
}

/// [`mcp_tools`] with the changes made to keep every tool valid.
pub fn mcp_tools_exported(catalog: &Catalog) -> Exported {
    let mut exported = functions(
        catalog,
        |name, api, parameters| json!({"name": name, "description": api.description(), "inputSchema": parameters}),
    );
    exported.value = json!({ "tools": exported.value });
    exported
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
    Ok(openapi_exported(tool).value)
}

/// [`openapi`] with the changes made to keep the document valid.
///
/// Two APIs on one method and path (RapidAPI tools expose named APIs that way)
/// cannot share a path item: the later ones are keyed `{path}#{api}` (a URL
/// fragment, which no server sees), carry the real path in `x-toolsmith-path`,
/// and `info.x-toolsmith-disambiguation` says so. A path parameter the source
/// marks optional is made required, one the path names but the source does not
/// declare is added as a required string, and a parameter declared twice for
/// one location is kept once, as OpenAPI demands. Schemas are repaired where
/// the fix is mechanical (type names such as `interger`, wrong-typed defaults,
/// Swagger 2.0 tuple `items`); recursive and repeated schemas are written once
/// under `components/schemas` and referred to; C1 control characters, which
/// YAML-based validators refuse, are replaced by what they stand for.
pub fn openapi_exported(tool: &ToolEntry) -> Exported {
    let t = &tool.tool;
    let mut changes = Vec::new();
    let mut components = Components::default();
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
        let mut notes = Vec::new();
        let mut op = operation(api, &path, &mut components, &mut notes);
        let taken = |paths: &Map<String, Value>, key: &str| {
            paths
                .get(key)
                .is_some_and(|item| item.get(&method).is_some())
        };
        let mut key = path.clone();
        if taken(&paths, &key) {
            key = format!("{path}#{}", api.api.id.api());
            let mut n = 1;
            while taken(&paths, &key) {
                n += 1;
                key = format!("{path}#{}_{n}", api.api.id.api());
            }
            op["x-toolsmith-path"] = Value::String(path.clone());
            notes.push(format!(
                "another API is also {} {path}: keyed `{key}` (real path in x-toolsmith-path)",
                method.to_ascii_uppercase()
            ));
        }
        let item = paths.entry(key).or_insert_with(|| json!({}));
        item[&method] = op;
        changes.extend(notes.into_iter().map(|what| Change {
            tool: t.id.clone(),
            api: Some(api.api.id.clone()),
            what,
        }));
    }
    if paths.keys().any(|k| k.contains('#')) {
        info["x-toolsmith-disambiguation"] = Value::String(
            "Several APIs of this tool share one method and path; each after the first is keyed \
             `{path}#{api}` (the fragment is never sent) and carries its real path in x-toolsmith-path."
                .to_owned(),
        );
    }
    let mut schemas: Vec<&mut Value> = paths.values_mut().flat_map(operation_schemas).collect();
    let shared = components.share_repeats(&mut schemas);
    if shared > 0 {
        changes.push(Change {
            tool: t.id.clone(),
            api: None,
            what: format!(
                "{shared} schema(s) used more than once written once under components/schemas"
            ),
        });
    }
    let mut doc = json!({ "openapi": "3.1.0", "info": info, "paths": paths });
    if let Some(base) = &t.base_url {
        doc["servers"] = json!([{ "url": base }]);
    }
    let schemes: Map<String, Value> = t.security.iter().filter_map(security_scheme).collect();
    if !schemes.is_empty() {
        doc["components"] = json!({ "securitySchemes": schemes });
    }
    if let Some(schemas) = components.into_value() {
        doc["components"]["schemas"] = schemas;
    }
    let dangling = components::drop_dangling(&mut doc);
    if !dangling.is_empty() {
        changes.push(Change {
            tool: t.id.clone(),
            api: None,
            what: format!(
                "$ref(s) the source left dangling written as open schemas: {}",
                dangling.join(", ")
            ),
        });
    }
    let c1 = repair::strip_c1(&mut doc);
    if c1 > 0 {
        changes.push(Change {
            tool: t.id.clone(),
            api: None,
            what: format!(
                "{c1} string(s) held C1 control characters (U+0080..U+009F); replaced by their Windows-1252 meaning"
            ),
        });
    }
    Exported {
        value: doc,
        changes,
    }
}

/// Every schema of an exported operation (parameters, request and response bodies).
fn operation_schemas(item: &mut Value) -> Vec<&mut Value> {
    let mut out = Vec::new();
    let Value::Object(ops) = item else {
        return out;
    };
    for op in ops.values_mut() {
        let Value::Object(op) = op else { continue };
        for (key, value) in op.iter_mut() {
            match (key.as_str(), value) {
                ("parameters", Value::Array(params)) => {
                    out.extend(params.iter_mut().filter_map(|p| p.get_mut("schema")));
                }
                ("requestBody", body) => out.extend(media_schemas(body)),
                ("responses", Value::Object(responses)) => {
                    out.extend(responses.values_mut().flat_map(media_schemas));
                }
                _ => {}
            }
        }
    }
    out
}

/// The schemas of a request body's or response's `content`.
fn media_schemas(holder: &mut Value) -> Vec<&mut Value> {
    match holder.get_mut("content") {
        Some(Value::Object(content)) => content
            .values_mut()
            .filter_map(|m| m.get_mut("schema"))
            .collect(),
        _ => Vec::new(),
    }
}

/// A stored schema ready for the document: its `$defs` moved to the components and
/// its mechanical problems repaired (noted under `at`).
fn place_schema(
    schema: &Value,
    at: &str,
    components: &mut Components,
    notes: &mut Vec<String>,
) -> Value {
    let mut schema = schema.clone();
    components.take_defs(&mut schema);
    repair::for_export(&mut schema, at, notes);
    schema
}

/// The names a path template holds (`/merchant/{mId}/items/{id}` -> `mId`, `id`).
fn path_names(path: &str) -> Vec<&str> {
    path.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
        .filter(|name| !name.is_empty())
        .collect()
}

fn operation(
    api: &ApiEntry,
    path: &str,
    components: &mut Components,
    notes: &mut Vec<String>,
) -> Value {
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
    let mut seen: HashSet<(&str, &str)> = HashSet::new();
    let mut params: Vec<Value> = Vec::new();
    for p in a
        .params
        .iter()
        .filter(|p| p.location != ParamLocation::Body)
    {
        let location = p.location.as_str();
        if !seen.insert((p.name.as_str(), location)) {
            notes.push(format!(
                "{location} parameter `{}` is declared twice; the first is kept",
                p.name
            ));
            continue;
        }
        let schema = lint::effective_schema(&p.schema);
        if let Cow::Owned(fixed) = &schema {
            notes.push(format!(
                "parameter `{}`: type set to {} to match its enum values",
                p.name, fixed["type"]
            ));
        }
        let required = p.required || p.location == ParamLocation::Path;
        if required != p.required {
            notes.push(format!("path parameter `{}` made required", p.name));
        }
        let schema = place_schema(
            &schema,
            &format!("parameter `{}`", p.name),
            components,
            notes,
        );
        let mut param =
            json!({ "name": p.name, "in": location, "required": required, "schema": schema });
        if !p.description.is_empty() {
            param["description"] = Value::String(p.description.clone());
        }
        write_list_format(&mut param, p.list_format);
        let values: Map<String, Value> = examples
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                e.arguments.get(&p.name).map(|v| {
                    (
                        format!("example{}", i + 1),
                        json!({"summary": e.query, "value": v}),
                    )
                })
            })
            .collect();
        if !values.is_empty() {
            param["examples"] = Value::Object(values);
        }
        params.push(param);
    }
    if matches!(a.endpoint, Endpoint::Http { .. }) {
        for name in path_names(path) {
            if !seen.contains(&(name, "path")) {
                seen.insert((name, "path"));
                notes.push(format!(
                    "the path names `{{{name}}}` but declares no such parameter: added as a required string"
                ));
                params.push(json!({ "name": name, "in": "path", "required": true, "schema": {"type": "string"} }));
            }
        }
    }
    if !params.is_empty() {
        op["parameters"] = Value::Array(params);
    }
    if let Some(body) = &a.request_body {
        let mut body = place_schema(body, "request body", components, notes);
        let required = body
            .as_object_mut()
            .and_then(|m| m.remove(repair::BODY_REQUIRED))
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        op["requestBody"] =
            json!({ "required": required, "content": { "application/json": { "schema": body } } });
    }
    if let Some(status) = a.response_schema.as_ref().and_then(lint::no_content_status) {
        op["responses"] = json!({ status.to_string(): { "description": "No content" } });
        if !examples.is_empty() {
            op["x-usage-examples"] = serde_json::to_value(examples).unwrap_or(Value::Null);
        }
        return op;
    }
    let mut media = json!({});
    let status = a
        .response_schema
        .as_ref()
        .and_then(lint::success_status)
        .unwrap_or(200);
    if let Some(schema) = &a.response_schema {
        let mut schema = schema.clone();
        if let Some(map) = schema.as_object_mut() {
            map.remove(lint::SUCCESS_STATUS);
        }
        media["schema"] = place_schema(&schema, "response", components, notes);
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
    op["responses"] = json!({ status.to_string(): { "description": "Success", "content": { "application/json": media } } });
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

/// Writes a query parameter's list format as OpenAPI 3's `style`/`explode` (nothing for the
/// default, one key per item).
fn write_list_format(param: &mut Value, format: ListFormat) {
    let (style, explode) = match format {
        ListFormat::Repeat => return,
        ListFormat::Comma => ("form", false),
        ListFormat::Space => ("spaceDelimited", false),
        ListFormat::Pipe => ("pipeDelimited", false),
    };
    param["style"] = Value::String(style.to_owned());
    param["explode"] = Value::Bool(explode);
}
