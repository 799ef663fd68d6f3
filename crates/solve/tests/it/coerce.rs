//! A list parameter documented as "comma-separated": the model's one string is sent as the
//! list when every piece is a valid item, and the observation says so; otherwise validation
//! refuses it as given.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::{ApiId, DocSelector, ImportOptions, Scope, Store, read_bytes};
use toolsmith_exec::ApiBook;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_solve::{
    CallOutcome, Finish, React, ReactSettings, RenderOptions, Solver, Toolset, TraceEvent,
};

use crate::support::{answer, args, runtime};

/// Spotify's search, its `type` a list documented as a comma-separated string.
const SPEC: &str = r#"{"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
  "servers": [{"url": "https://music.example"}],
  "paths": {"/search": {"get": {"operationId": "search",
    "description": "Search the catalog for albums, artists, playlists or tracks.",
    "parameters": [
      {"name": "q", "in": "query", "required": true, "schema": {"type": "string"}},
      {"name": "type", "in": "query", "required": true, "explode": false,
       "description": "A comma-separated list of item types to search across.",
       "schema": {"type": "array", "items": {"type": "string",
                  "enum": ["album", "artist", "playlist", "track"]}}}],
    "responses": {"200": {"description": "ok"}}}}}}"#;

const SEARCH: &str = "search_for_music";

fn search_id() -> ApiId {
    "music/search".parse().unwrap()
}

fn music() -> (Toolset, Arc<ApiBook>) {
    let batch = read_bytes(
        Path::new("music.json"),
        SPEC.as_bytes(),
        &ImportOptions::default(),
    )
    .unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let entries: Vec<_> = catalog.apis().map(|(_, a)| a.clone()).collect();
    let toolset = Toolset::new(&entries, &RenderOptions::default());
    (toolset, Arc::new(ApiBook::from_catalog(&catalog)))
}

/// ReAct calling the search once with `given`, then finishing: the executor's calls and the
/// trace's one search call (arguments, outcome, observation).
async fn search_with(given: Value) -> (Vec<(ApiId, Value)>, Value, CallOutcome, String) {
    let (toolset, book) = music();
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call(SEARCH, args(given)),
        Reply::tool_call("Finish", answer("done")),
    ]));
    let tools =
        Arc::new(ScriptedExecutor::new().respond(search_id(), json!({"albums": {"items": []}})));
    let run = React::new(runtime(llm, tools.clone(), book), ReactSettings::PAPER)
        .solve("Abba's albums and tracks", toolset)
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    let (arguments, outcome, observation) = run
        .trace
        .iter()
        .find_map(|e| match &e.event {
            TraceEvent::ToolCall {
                function,
                arguments,
                outcome,
                observation,
                ..
            } if function == SEARCH => Some((arguments.clone(), *outcome, observation.clone())),
            _ => None,
        })
        .unwrap();
    (tools.calls(), arguments, outcome, observation)
}

#[tokio::test]
async fn a_comma_separated_string_for_a_list_is_sent_as_the_list_and_noted() {
    let (calls, arguments, outcome, observation) =
        search_with(json!({"q": "Abba", "type": "album,track"})).await;
    let sent = json!({"q": "Abba", "type": ["album", "track"]});
    assert_eq!(calls, [(search_id(), sent.clone())]);
    assert_eq!(arguments, sent, "the trace records what was sent");
    assert_eq!(outcome, CallOutcome::Ok);
    let shown: Value = serde_json::from_str(&observation).unwrap();
    assert_eq!(
        shown["note"],
        r#"parameter `type`: the string "album,track" was sent as the list ["album","track"]"#,
        "{observation}"
    );
    assert_eq!(shown["response"], json!({"albums": {"items": []}}));
}

#[tokio::test]
async fn a_string_with_a_piece_that_is_no_valid_item_is_refused_as_given() {
    let (calls, arguments, outcome, observation) =
        search_with(json!({"q": "Abba", "type": "album,song"})).await;
    assert!(calls.is_empty(), "the backend saw a bad call");
    assert_eq!(arguments, json!({"q": "Abba", "type": "album,song"}));
    assert_eq!(
        outcome,
        CallOutcome::Failed(toolsmith_exec::FailureKind::BadParameters)
    );
    assert!(observation.contains("parameter `type`"), "{observation}");
    assert!(!observation.contains("\"note\""), "{observation}");
}
