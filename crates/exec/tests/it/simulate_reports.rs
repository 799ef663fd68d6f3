//! What stand-in models reported reading the simulator's answers (issue 27),
//! fixed: a write keeps a release number in a `version` field.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::ApiId;
use toolsmith_exec::{ApiBook, Executor, Fill, LlmOracle, Simulator, SimulatorSettings};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

/// The API book of an OpenAPI document given as JSON.
fn book_of(spec: &Value) -> Arc<ApiBook> {
    use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
    let bytes = serde_json::to_vec(spec).unwrap();
    let batch = read_bytes("spec.json".as_ref(), &bytes, &ImportOptions::default()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    Arc::new(ApiBook::from_catalog(&catalog))
}

/// The operation at `METHOD path`.
fn op(book: &ApiBook, method: &str, path: &str) -> ApiId {
    book.ids()
        .find(|id| {
            let api = &book.get(id).unwrap().api.api;
            api.endpoint.method().map(|m| m.to_string()) == Some(method.to_owned())
                && api.endpoint.path() == Some(path)
        })
        .cloned()
        .unwrap_or_else(|| panic!("no {method} {path}"))
}

/// A simulator whose values `llm` fills.
fn filling(book: &Arc<ApiBook>, llm: &Arc<ScriptedLlm>) -> Simulator {
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        ..SimulatorSettings::default()
    };
    Simulator::with_settings(Arc::clone(book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(llm.clone())))
}

/// A JSON response of `schema`.
fn ok(schema: Value) -> Value {
    json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}})
}

/// A required path parameter.
fn in_path(name: &str) -> Value {
    json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}})
}

/// A package registry whose gems hold the release they ship (`version`) beside the
/// gem's own revision token and etag, and a chart service whose chart names the
/// library version it draws with (documented `0.6`).
fn versions_spec() -> Value {
    let gem = json!({"type": "object", "properties": {"name": {"type": "string"},
        "version": {"type": "string"}, "revision": {"type": "string"},
        "etag": {"type": "string"}}});
    let chart = json!({"type": "object", "properties": {"id": {"type": "string"},
        "title": {"type": "string"}, "version": {"type": "string", "example": "0.6"}}});
    let body = json!({"content": {"application/json": {"schema": {"type": "object",
        "properties": {"version": {"type": "string"}}}}}});
    json!({"openapi": "3.0.0", "info": {"title": "Gems", "version": "1"}, "paths": {
        "/gems/{name}": {
            "get": {"parameters": [in_path("name")], "responses": ok(gem.clone())},
            "put": {"parameters": [in_path("name")], "requestBody": body,
                "responses": ok(gem)}},
        "/charts/{chart_id}": {
            "get": {"parameters": [in_path("chart_id")], "responses": ok(chart.clone())},
            "patch": {"parameters": [in_path("chart_id")], "responses": ok(chart)}}
    }})
}

/// A write answered with the gem's `version: 3.3.0` as the read showed it keeps it: the
/// release is no token of the gem's state. Its `revision` token and `etag` are renewed.
#[tokio::test]
async fn a_write_keeps_a_release_number_and_renews_the_tokens() {
    let book = book_of(&versions_spec());
    let read = op(&book, "GET", "/gems/{name}");
    let write = op(&book, "PUT", "/gems/{name}");
    let gem = json!({"name": "rails", "version": "3.3.0", "revision": "9f8e7d6c5b4a",
        "etag": "W/\"a41f\""});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(gem.to_string()),
        Reply::text(gem.to_string()),
    ]));
    let sim = filling(&book, &llm);
    sim.call(&read, &json!({"name": "rails"})).await.unwrap();
    let put = sim.call(&write, &json!({"name": "rails"})).await.unwrap();
    let body = put.body.json().unwrap();
    assert_eq!(body["version"], "3.3.0", "{body}");
    assert_ne!(body["revision"], gem["revision"], "{body}");
    assert_ne!(body["etag"], gem["etag"], "{body}");
}

/// A version the write's own arguments name is what the write set: kept, though it looks
/// like a token.
#[tokio::test]
async fn a_write_keeps_the_version_its_arguments_name() {
    let book = book_of(&versions_spec());
    let read = op(&book, "GET", "/gems/{name}");
    let write = op(&book, "PUT", "/gems/{name}");
    let gem = json!({"name": "rails", "version": "build42"});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(gem.to_string()),
        Reply::text(gem.to_string()),
    ]));
    let sim = filling(&book, &llm);
    sim.call(&read, &json!({"name": "rails"})).await.unwrap();
    let args = json!({"name": "rails", "version": "build42"});
    let put = sim.call(&write, &args).await.unwrap();
    assert_eq!(put.body.json().unwrap()["version"], "build42");
}

/// Without a model: the chart's documented library version `0.6` reads the same after a
/// write to the chart (it once came back as `8.5`).
#[tokio::test]
async fn a_documented_release_survives_a_write() {
    let book = book_of(&versions_spec());
    let read = op(&book, "GET", "/charts/{chart_id}");
    let write = op(&book, "PATCH", "/charts/{chart_id}");
    let sim = Simulator::new(Arc::clone(&book));
    let args = json!({"chart_id": "c1"});
    let before = sim.call(&read, &args).await.unwrap();
    assert_eq!(before.body.json().unwrap()["version"], "0.6");
    let after = sim.call(&write, &args).await.unwrap();
    assert_eq!(after.body.json().unwrap()["version"], "0.6");
}
