//! The OpenAPI 3.1 description of the HTTP API itself (`GET /openapi.json`), written by hand
//! next to the routes and fitted to the server it describes (its token, its MCP endpoint, its
//! limits); tests check it against every route of [`ROUTES`](crate::ROUTES) and against the
//! answers the server really gives.

use serde_json::{Value, json};

fn error_response(description: &str) -> Value {
    json!({"description": description,
           "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}})
}

fn ok(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": schema}}})
}

fn body(schema: Value) -> Value {
    json!({"required": true, "content": {"application/json": {"schema": schema}}})
}

/// What the document depends on: the server it describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Described {
    /// The server has a bearer token: every route declares it and may answer 401.
    pub token: bool,
    /// `/mcp` is served.
    pub mcp: bool,
    /// The most results one search may ask for ([`ServeSettings::max_k`](crate::ServeSettings::max_k)).
    pub max_k: usize,
    /// A served API's id, given as the example of `/v1/tools/{id}` (it shows the `tool/api`
    /// shape, slash included, and names an API that exists).
    pub example_id: Option<String>,
}

/// The errors every route may answer, by status.
fn common_errors(described: &Described) -> serde_json::Map<String, Value> {
    let mut errors = serde_json::Map::new();
    if described.token {
        errors.insert(
            "401".into(),
            error_response("Missing or wrong bearer token (`unauthorized`)."),
        );
    }
    errors.insert(
        "403".into(),
        error_response("A `Host` (or, on /mcp, an `Origin`) this server does not answer (`forbidden_host`, `forbidden_origin`)."),
    );
    errors.insert("500".into(), error_response("Server failure (`internal`)."));
    errors
}

/// The errors of a route that reads a JSON body.
fn body_errors() -> Value {
    json!({
        "400": error_response("The body is not JSON (`invalid_json`)."),
        "413": error_response("Body over the size limit (`payload_too_large`)."),
        "415": error_response("The body is not sent as `application/json` (`unsupported_media_type`)."),
        "422": error_response("Bad input (`bad_request`, `invalid_json` for JSON of the wrong shape, `jq_failed`).")
    })
}

/// `responses` with the common errors added (a route's own answer for a status wins).
fn responses(described: &Described, own: Value) -> Value {
    let mut map = match own {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    for (status, response) in common_errors(described) {
        map.entry(status).or_insert(response);
    }
    Value::Object(map)
}

/// Adds `extra`'s entries to the object `base`.
fn merged(base: Value, extra: Value) -> Value {
    match (base, extra) {
        (Value::Object(mut a), Value::Object(b)) => {
            a.extend(b);
            Value::Object(a)
        }
        (a, _) => a,
    }
}

/// The document.
pub fn document(described: &Described) -> Value {
    let mut doc = json!({
        "openapi": "3.1.0",
        "info": {
            "title": "toolsmith",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Search, documentation and calls over a toolsmith catalog, solver \
                runs, and an MCP endpoint. Errors are `{\"error\": {\"code\", \"message\"}}` \
                with stable codes. Tool results over the size limit are cut and come with a \
                handle for `/v1/results/read`. Without a token the server answers loopback \
                `Host`s only."
        },
        "components": {"schemas": schemas()},
        "paths": paths(described),
    });
    if described.token
        && let Some(map) = doc.as_object_mut()
    {
        map.insert("security".into(), json!([{"bearer": []}]));
        if let Some(components) = map.get_mut("components").and_then(Value::as_object_mut) {
            components.insert(
                "securitySchemes".into(),
                json!({"bearer": {"type": "http", "scheme": "bearer"}}),
            );
        }
    }
    doc
}

fn schemas() -> Value {
    json!({
        "Error": {"type": "object", "required": ["error"], "properties": {"error": {
            "type": "object", "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                           "closest": {"type": "array", "items": {"type": "string"}}}}}},
        "ToolCard": {"type": "object", "required": ["id", "name", "tool", "description", "input_schema"],
            "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                "tool": {"type": "string"}, "description": {"type": "string"},
                "input_schema": {"type": "object"}, "score": {"type": "number"}}},
        "Clipped": {"description": "The result whole, or `{truncated: true, handle, total_chars, text, next_offset, hint}`."},
        "CallReply": {"type": "object", "required": ["id", "ok", "provenance", "latency_ms", "result"],
            "properties": {"id": {"type": "string"}, "ok": {"type": "boolean"},
                "failure": {"type": "string"}, "message": {"type": "string"},
                "status": {"type": "integer"}, "provenance": {"type": "string"},
                "latency_ms": {"type": "integer"},
                "result": {"$ref": "#/components/schemas/Clipped"}}},
        "JsonRpcError": {"type": "object", "required": ["jsonrpc", "error"],
            "properties": {"jsonrpc": {"const": "2.0"}, "id": {},
                "error": {"type": "object", "required": ["code", "message"],
                    "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}}}}
    })
}

/// Text with something in it besides white space (what the server takes as a query).
fn words() -> Value {
    json!({"type": "string", "minLength": 1, "pattern": "\\S"})
}

/// An optional whole number of a body, within bounds; `null` is the same as leaving it out
/// (what the server reads, see `wire::optional_count`; `28.0` is an integer here too).
fn count(minimum: usize, maximum: Option<usize>, description: &str) -> Value {
    let mut schema = json!({"type": ["integer", "null"], "minimum": minimum,
                            "description": description});
    if let (Some(max), Some(map)) = (maximum, schema.as_object_mut()) {
        map.insert("maximum".into(), max.into());
    }
    schema
}

/// A paging parameter of a query string (see `wire::MAX_PAGING`).
fn paging(name: &str) -> Value {
    json!({"name": name, "in": "query",
           "schema": {"type": "integer", "minimum": 0, "maximum": crate::wire::MAX_PAGING}})
}

fn paths(d: &Described) -> Value {
    let id_param = json!({"name": "id", "in": "path", "required": true,
        "description": "The API id, `tool/api` (the slash may be written as is or as %2F).",
        "schema": {"type": "string"}});
    let id_param = match (&d.example_id, id_param) {
        (Some(example), Value::Object(mut map)) => {
            map.insert("example".into(), example.as_str().into());
            Value::Object(map)
        }
        (_, param) => param,
    };
    // `offset` and `jq_filter` exclude each other when both are given (not null).
    let read_body = json!({"type": "object", "required": ["handle"],
        "not": {"required": ["offset", "jq_filter"],
                "properties": {"offset": {"type": "number"}, "jq_filter": {"type": "string"}}},
        "properties": {"handle": {"type": "string", "minLength": 1},
            "offset": count(0, None, "The character the page starts at (default 0)."),
            "jq_filter": {"type": ["string", "null"], "minLength": 1}}});
    let mut paths = json!({
        "/healthz": {"get": {"summary": "Liveness, the number of APIs served and of open MCP sessions.",
            "responses": responses(d, json!({"200": ok("Serving.", json!({"type": "object",
                "required": ["status", "apis"],
                "properties": {"status": {"const": "ok"}, "apis": {"type": "integer"},
                    "mcp_sessions": {"type": "integer"}, "max_sessions": {"type": "integer"}}}))}))}},
        "/openapi.json": {"get": {"summary": "This document.",
            "responses": responses(d, json!({"200": ok("OpenAPI 3.1.", json!({"type": "object"}))}))}},
        "/v1/tools": {"get": {"summary": "The served APIs, paged and filtered.",
            "parameters": [
                paging("offset"),
                paging("limit"),
                {"name": "tool", "in": "query", "schema": {"type": "string", "pattern": "^[a-z0-9_]+$"}},
                {"name": "category", "in": "query", "schema": {"type": "string"}},
                {"name": "q", "in": "query", "description": "Substring of id, name or description.",
                 "schema": {"type": "string"}}],
            "responses": responses(d, json!({"200": ok("A page.", json!({"type": "object",
                "properties": {"total": {"type": "integer"}, "offset": {"type": "integer"},
                    "tools": {"type": "array", "items": {"$ref": "#/components/schemas/ToolCard"}}}})),
                "400": error_response("A query parameter of the wrong type (`bad_query`).")}))}},
        "/v1/tools/{id}": {"get": {"summary": "One API's full active doc.",
            "parameters": [id_param],
            "responses": responses(d, json!({"200": ok("The doc.", json!({"type": "object"})),
                "404": error_response("No such API (`unknown_tool`, with `closest`).")}))}},
        "/v1/search": {"post": {"summary": "Search the catalog (hybrid by default).",
            "requestBody": body(json!({"type": "object", "required": ["query"],
                "properties": {"query": words(), "k": count(1, Some(d.max_k), "Results wanted (default from the settings).")}})),
            "responses": responses(d, merged(body_errors(), json!({"200": ok("Best first.", json!({"type": "object",
                "properties": {"results": {"type": "array", "items": {"$ref": "#/components/schemas/ToolCard"}}}}))})))}},
        "/v1/call": {"post": {"summary": "Call one API through the executor (its mode and validation).",
            "requestBody": body(json!({"type": "object", "required": ["id"],
                "properties": {"id": {"type": "string"}, "arguments": {"type": "object"}}})),
            "responses": responses(d, merged(body_errors(), json!({"200": ok("The observation; a tool failure has ok=false.",
                json!({"$ref": "#/components/schemas/CallReply"})),
                "404": error_response("No such API (`unknown_tool`, with `closest`).")})))}},
        "/v1/results/read": {"post": {"summary": "A page of a cut result, or a jq filter over it.",
            "requestBody": body(read_body),
            "responses": responses(d, merged(body_errors(), json!({"200": ok("The page or the filter's values.", json!({"type": "object"})),
                "404": error_response("No such handle (`unknown_handle`)."),
                "503": error_response("jq filters are off on this server (`jq_unavailable`).")})))}},
        "/v1/solve": {"post": {"summary": "Run the configured solver on a task; returns the trace.",
            "requestBody": body(json!({"type": "object", "required": ["query"],
                "properties": {"query": words(), "tools": count(1, Some(d.max_k), "Tools offered to the agent (default from the settings).")}})),
            "responses": responses(d, merged(body_errors(), json!({"200": ok("The run.", json!({"type": "object",
                "properties": {"run_id": {"type": ["integer", "null"]}, "finish": {"type": "string"},
                    "answer": {"type": ["string", "null"]}, "trace": {"type": "array"}}})),
                "503": error_response("This server has no LLM configured (`solve_unavailable`): a server \
                    setting, not something the request can change.")})))}},
        "/v1/runs/{id}": {"get": {"summary": "A stored run's trace.",
            "parameters": [{"name": "id", "in": "path", "required": true,
                "schema": {"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX}}],
            "responses": responses(d, json!({"200": ok("The trace.", json!({"type": "object"})),
                "400": error_response("Not a run id (`bad_request`)."),
                "404": error_response("No such run (`run_not_found`).")}))}}
    });
    if d.mcp
        && let Some(map) = paths.as_object_mut()
    {
        map.insert("/mcp".into(), mcp_path(d));
    }
    paths
}

/// `/mcp`: streamable HTTP (JSON-RPC 2.0), as the MCP specification defines it.
fn mcp_path(d: &Described) -> Value {
    let session = |required: bool| {
        json!({"name": "Mcp-Session-Id", "in": "header", "required": required,
               "description": "The session `initialize` opened (absent on `initialize` itself).",
               "schema": {"type": "string", "minLength": 1}})
    };
    let rpc_or_error = json!({"description": "Not JSON (-32700) or not a JSON-RPC message \
        (-32600), as a JSON-RPC error; or a bad header (`bad_request`).",
        "content": {"application/json": {"schema": {"oneOf": [
            {"$ref": "#/components/schemas/JsonRpcError"},
            {"$ref": "#/components/schemas/Error"}]}}}});
    let unknown = error_response("No such session (`unknown_session`): initialize again.");
    let unknown_session_gone =
        error_response("No such session (`unknown_session`): closed, idled out or never opened.");
    let not_acceptable = error_response(
        "The `Accept` header lists media types without `application/json` or \
         `text/event-stream` (`not_acceptable`); no `Accept`, or `*/*`, takes both.",
    );
    let stream = json!({"description": "Server messages as an event stream.",
        "content": {"text/event-stream": {}}});
    let busy = json!({"description": "The session cap is reached (`too_many_sessions`).",
        "headers": {"Retry-After": {"description": "Seconds until an idle session closes.",
                                     "schema": {"type": "integer"}}},
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    json!({
        "get": {"summary": "The session's stream of server messages.",
            "parameters": [session(true)],
            "responses": responses(d, json!({"200": stream, "400": rpc_or_error.clone(),
                "404": unknown.clone(), "406": not_acceptable.clone()}))},
        "post": {"summary": "One JSON-RPC message from the client (`initialize` opens a session).",
            "parameters": [session(false)],
            "requestBody": body(json!({"type": "object", "required": ["jsonrpc", "method"],
                "properties": {"jsonrpc": {"const": "2.0"}, "method": {"type": "string"},
                    "id": {"type": ["integer", "string"]}, "params": {"type": "object"}}})),
            "responses": responses(d, json!({
                "200": {"description": "The JSON-RPC answer, as JSON or an event stream.",
                    "content": {"application/json": {"schema": {"type": "object"}},
                                "text/event-stream": {}}},
                "202": {"description": "A notification or response, accepted."},
                "400": rpc_or_error,
                "404": unknown,
                "406": not_acceptable,
                "413": error_response("Body over the size limit (`payload_too_large`)."),
                "415": error_response("The body is not sent as `application/json` (`unsupported_media_type`)."),
                "503": busy}))},
        "delete": {"summary": "End the session.",
            "parameters": [session(true)],
            "responses": responses(d, json!({"204": {"description": "The session is closed."},
                "400": error_response("No `Mcp-Session-Id` header (`bad_request`)."),
                "404": unknown_session_gone}))}
    })
}
