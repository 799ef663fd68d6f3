//! The simulator's drafts take the shapes the spec shows: a search answers only
//! the result types it was asked for, and ids are minted in the form the spec's
//! examples give them.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::ApiId;
use toolsmith_exec::{ApiBook, Executor, Fill, LlmOracle, Simulator, SimulatorSettings};
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};

/// An API book of one OpenAPI document written for these tests.
fn book_of(spec: &Value) -> Arc<ApiBook> {
    use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
    let bytes = serde_json::to_vec(spec).unwrap();
    let batch = read_bytes("shapes.json".as_ref(), &bytes, &ImportOptions::default()).unwrap();
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

fn ok(schema: Value) -> Value {
    json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}})
}

/// A catalog search in the shape of a music service's: one paged list per result type.
fn search_spec() -> Value {
    let page = |kind: &str| {
        json!({"type": "object", "properties": {"total": {"type": "integer"},
            "limit": {"type": "integer"}, "offset": {"type": "integer"},
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "string"}, "name": {"type": "string"},
                "type": {"type": "string", "enum": [kind]}}}}}})
    };
    json!({"openapi": "3.0.0", "info": {"title": "Records", "version": "1"}, "paths": {
        "/search": {"get": {"parameters": [
            {"name": "q", "in": "query", "required": true, "schema": {"type": "string"}},
            {"name": "type", "in": "query", "required": true, "explode": false,
                "schema": {"type": "array", "items": {"type": "string",
                    "enum": ["album", "artist", "track", "show", "category"]}}},
            {"name": "include", "in": "query", "schema": {"type": "string"}},
            {"name": "limit", "in": "query", "schema": {"type": "integer"}}],
            "responses": ok(json!({"type": "object", "properties": {
                "href": {"type": "string"}, "albums": page("album"),
                "artists": page("artist"), "tracks": page("track"), "shows": page("show"),
                "categories": page("category")}}))}}
    }})
}

fn keys(body: &Value) -> BTreeSet<String> {
    body.as_object().unwrap().keys().cloned().collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

#[tokio::test]
async fn a_search_drafts_only_the_result_types_it_names() {
    let book = book_of(&search_spec());
    let search = op(&book, "GET", "/search");
    let sim = Simulator::new(Arc::clone(&book));
    let all = set(&["href", "albums", "artists", "tracks", "shows", "categories"]);
    let cases = [
        (
            json!({"q": "Doxy", "type": "track"}),
            set(&["href", "tracks"]),
        ),
        (
            json!({"q": "Doxy", "type": "album, Artist"}),
            set(&["href", "albums", "artists"]),
        ),
        (
            json!({"q": "Doxy", "type": ["show"]}),
            set(&["href", "shows"]),
        ),
        (
            json!({"q": "Doxy", "type": "category"}),
            set(&["href", "categories"]),
        ),
        // A free comma-separated list names parts too, when each value names one.
        (
            json!({"q": "Doxy", "type": "nothing", "include": "tracks,albums"}),
            set(&["href", "tracks", "albums"]),
        ),
        // Values that name no part, and a lone free value (a search term), change nothing.
        (json!({"q": "Doxy", "type": "podcast"}), all.clone()),
        (json!({"q": "tracks", "type": "nothing"}), all.clone()),
        (
            json!({"q": "Doxy", "type": "nothing", "include": "tracks,lyrics"}),
            all.clone(),
        ),
    ];
    for (args, want) in cases {
        let body = sim.synthesize(book.get(&search).unwrap(), &args).unwrap();
        assert_eq!(keys(&body), want, "{args}: {body}");
        let obs = sim.call(&search, &args).await.unwrap();
        assert_eq!(keys(obs.body.json().unwrap()), want, "{args}");
    }
    // The model filling a `type=track` search is shown only the tracks.
    let llm = Arc::new(
        ScriptedLlm::new(Vec::<Reply>::new()).with_rule(
            When::role("simulator"),
            Reply::text(
                json!({"href": "h", "tracks": {"total": 1, "limit": 20, "offset": 0,
            "items": [{"id": "t1", "name": "Doxy", "type": "track"}]}})
                .to_string(),
            ),
        ),
    );
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        ..SimulatorSettings::default()
    };
    let filled = Simulator::with_settings(Arc::clone(&book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(llm.clone())));
    let obs = filled
        .call(&search, &json!({"q": "Doxy", "type": "track"}))
        .await
        .unwrap();
    assert_eq!(keys(obs.body.json().unwrap()), set(&["href", "tracks"]));
    let prompt = format!("{:?}", llm.requests()[0]);
    assert!(prompt.contains("tracks"), "{prompt}");
    assert!(
        !prompt.contains("albums") && !prompt.contains("artists"),
        "{prompt}"
    );
}
