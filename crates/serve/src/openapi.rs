//! The OpenAPI 3.1 description of the HTTP API itself (`GET /openapi.json`), written by hand
//! next to the routes; a test checks that it lists every route of [`ROUTES`](crate::ROUTES).

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

/// The document.
pub fn document() -> Value {
    let errors = json!({
        "401": error_response("Missing or wrong bearer token (`unauthorized`)."),
        "413": error_response("Body over the size limit (`payload_too_large`)."),
        "422": error_response("Bad input (`bad_request`, `invalid_json`, `jq_failed`)."),
        "500": error_response("Server failure (`internal`).")
    });
    let with = |mut extra: Value| {
        if let (Some(map), Some(errors)) = (extra.as_object_mut(), errors.as_object()) {
            for (k, v) in errors {
                map.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        extra
    };
    let id_param = json!({"name": "id", "in": "path", "required": true,
        "description": "The API id, `tool/api` (the slash may be written as is or as %2F).",
        "schema": {"type": "string"}});
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "toolsmith",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Search, documentation and calls over a toolsmith catalog, solver \
                runs, and an MCP endpoint. When the server has a token, every route needs \
                `Authorization: Bearer <token>`. Errors are `{\"error\": {\"code\", \"message\"}}` \
                with stable codes. Tool results over the size limit are cut and come with a \
                handle for `/v1/results/read`."
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": {
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
                        "result": {"$ref": "#/components/schemas/Clipped"}}}
            }
        },
        "security": [{"bearer": []}],
        "paths": {
            "/healthz": {"get": {"summary": "Liveness, and the number of APIs served.",
                "responses": with(json!({"200": ok("Serving.", json!({"type": "object"}))}))}},
            "/openapi.json": {"get": {"summary": "This document.",
                "responses": with(json!({"200": ok("OpenAPI 3.1.", json!({"type": "object"}))}))}},
            "/v1/tools": {"get": {"summary": "The served APIs, paged and filtered.",
                "parameters": [
                    {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0}},
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 0}},
                    {"name": "tool", "in": "query", "schema": {"type": "string"}},
                    {"name": "category", "in": "query", "schema": {"type": "string"}},
                    {"name": "q", "in": "query", "description": "Substring of id, name or description.",
                     "schema": {"type": "string"}}],
                "responses": with(json!({"200": ok("A page.", json!({"type": "object",
                    "properties": {"total": {"type": "integer"}, "offset": {"type": "integer"},
                        "tools": {"type": "array", "items": {"$ref": "#/components/schemas/ToolCard"}}}}))}))}},
            "/v1/tools/{id}": {"get": {"summary": "One API's full active doc.",
                "parameters": [id_param],
                "responses": with(json!({"200": ok("The doc.", json!({"type": "object"})),
                    "404": error_response("No such API (`unknown_tool`, with `closest`).")}))}},
            "/v1/search": {"post": {"summary": "Search the catalog (hybrid by default).",
                "requestBody": body(json!({"type": "object", "required": ["query"],
                    "properties": {"query": {"type": "string"}, "k": {"type": "integer", "minimum": 1}}})),
                "responses": with(json!({"200": ok("Best first.", json!({"type": "object",
                    "properties": {"results": {"type": "array", "items": {"$ref": "#/components/schemas/ToolCard"}}}}))}))}},
            "/v1/call": {"post": {"summary": "Call one API through the executor (its mode and validation).",
                "requestBody": body(json!({"type": "object", "required": ["id"],
                    "properties": {"id": {"type": "string"}, "arguments": {"type": "object"}}})),
                "responses": with(json!({"200": ok("The observation; a tool failure has ok=false.",
                    json!({"$ref": "#/components/schemas/CallReply"})),
                    "404": error_response("No such API (`unknown_tool`, with `closest`).")}))}},
            "/v1/results/read": {"post": {"summary": "A page of a cut result, or a jq filter over it.",
                "requestBody": body(json!({"type": "object", "required": ["handle"],
                    "properties": {"handle": {"type": "string"}, "offset": {"type": "integer", "minimum": 0},
                        "jq_filter": {"type": "string"}}})),
                "responses": with(json!({"200": ok("The page or the filter's values.", json!({"type": "object"})),
                    "404": error_response("No such handle (`unknown_handle`).")}))}},
            "/v1/solve": {"post": {"summary": "Run the configured solver on a task; returns the trace.",
                "requestBody": body(json!({"type": "object", "required": ["query"],
                    "properties": {"query": {"type": "string"}, "tools": {"type": "integer", "minimum": 1}}})),
                "responses": with(json!({"200": ok("The run.", json!({"type": "object",
                    "properties": {"run_id": {"type": ["integer", "null"]}, "finish": {"type": "string"},
                        "answer": {"type": ["string", "null"]}, "trace": {"type": "array"}}})),
                    "503": error_response("No LLM configured (`solve_unavailable`).")}))}},
            "/v1/runs/{id}": {"get": {"summary": "A stored run's trace.",
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
                "responses": with(json!({"200": ok("The trace.", json!({"type": "object"})),
                    "404": error_response("No such run (`run_not_found`).")}))}},
            "/mcp": {"post": {"summary": "The MCP endpoint (streamable HTTP, JSON-RPC), when served.",
                "requestBody": body(json!({"type": "object"})),
                "responses": with(json!({"200": {"description": "JSON-RPC response or event stream."}}))}}
        }
    })
}
