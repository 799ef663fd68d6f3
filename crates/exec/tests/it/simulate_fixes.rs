//! What stand-ins filling the simulator's drafts reported, fixed: keys an API
//! sends only sometimes may be left out, a parameter's prose default is no
//! value, details agree with the facts a session showed, a write answers
//! with a fresh version token, and the prompt has the session's date.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{ApiBook, Executor, Fill, LlmOracle, Simulator, SimulatorSettings};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op};

/// A small music API in Spotify's shapes, written for these tests.
fn spec() -> Value {
    let artist = json!({"type": "object", "required": ["id", "name"], "properties": {
        "id": {"type": "string"}, "name": {"type": "string"},
        "followers": {"type": "object", "properties": {"total": {"type": "integer"}}},
        "popularity": {"type": "integer"}, "genres": {"type": "array",
            "items": {"type": "string"}}}});
    let track = json!({"type": "object", "required": ["id", "name", "is_playable"],
        "properties": {"id": {"type": "string"}, "name": {"type": "string"},
        "is_playable": {"type": "boolean"},
        "restrictions": {"type": "object", "properties": {"reason": {"type": "string"}}},
        "linked_from": {"type": "object", "properties": {"id": {"type": "string"}}}}});
    let ok = |schema: Value| json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}});
    let path_id = |name: &str| {
        json!({"name": name, "in": "path", "required": true,
        "schema": {"type": "string"}})
    };
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"}, "paths": {
        "/tracks/{id}": {"get": {"parameters": [path_id("id")], "responses": ok(track)}},
        "/search": {"get": {"parameters": [
                {"name": "q", "in": "query", "schema": {"type": "string"}},
                {"name": "per_page", "in": "query", "schema": {"type": "integer",
                    "default": "Number of items to return in one page of results"}},
                {"name": "sort", "in": "query", "schema": {"type": "string",
                    "default": "The order of the results, by relevance or by date."}},
                {"name": "market", "in": "query", "schema": {"type": "string",
                    "default": "US"}}],
            "responses": ok(json!({"type": "object", "properties": {
                "per_page": {"type": "integer"}, "sort": {"type": "string"},
                "market": {"type": "string"}, "language": {"type": "string",
                    "example": "The language code of the country the artist is from."},
                "country": {"type": "string", "example": "GB"},
                "artists": {"type": "array", "items": artist.clone()}}}))}},
        "/artists/{id}": {"get": {"parameters": [path_id("id")], "responses": ok(artist)}},
        "/playlists/{playlist_id}": {"get": {"parameters": [path_id("playlist_id")],
            "responses": ok(json!({"type": "object", "properties": {
                "id": {"type": "string"}, "name": {"type": "string"},
                "snapshot_id": {"type": "string"}}}))}},
        "/playlists/{playlist_id}/tracks": {"post": {"parameters": [path_id("playlist_id")],
            "responses": {"201": {"description": "added", "content": {"application/json": {
                "schema": {"type": "object", "properties": {
                    "snapshot_id": {"type": "string"}}}}}}}}}
    }})
}

fn book() -> Arc<ApiBook> {
    book_of(&spec())
}

/// The text of every request the model received.
fn prompts(llm: &ScriptedLlm) -> Vec<String> {
    llm.requests().iter().map(|r| format!("{r:?}")).collect()
}

/// Spotify sends `restrictions` and `linked_from` only for some tracks: the prompt
/// says those keys may go, and an answer without them keeps them out; a required
/// key left out still comes back from the draft.
#[tokio::test]
async fn a_key_the_schema_does_not_require_may_be_left_out() {
    let book = book();
    let track = op(&book, "GET", "/tracks/{id}");
    let reply = json!({"id": "t1", "name": "Hey Jude"});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(reply.to_string())]));
    let sim = filling(&book, &llm);
    let got = sim.call(&track, &json!({"id": "t1"})).await.unwrap();
    let body = got.body.json().unwrap();
    assert_eq!(body["name"], "Hey Jude", "{body}");
    assert!(body.get("restrictions").is_none(), "{body}");
    assert!(body.get("linked_from").is_none(), "{body}");
    assert!(
        body["is_playable"].is_boolean(),
        "required, so kept: {body}"
    );
    let asked = prompts(&llm);
    let line = asked[0]
        .split("\\n")
        .find(|l| l.starts_with("Keys the API sends only for some things"))
        .unwrap_or_else(|| panic!("no optional keys line: {}", asked[0]));
    assert!(
        line.contains("linked_from, ") && line.contains("restrictions."),
        "{line}"
    );
    assert!(
        !line.contains("is_playable") && !line.contains("name,"),
        "{line}"
    );
}

/// A model that keeps an optional key but leaves it empty (`restrictions: {"reason": ""}` on
/// a playable track) gets it left out, not filled with a placeholder.
#[tokio::test]
async fn an_optional_key_left_empty_is_left_out() {
    let book = book();
    let track = op(&book, "GET", "/tracks/{id}");
    let reply = json!({"id": "t1", "name": "Hey Jude", "is_playable": true,
        "restrictions": {"reason": ""}});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(reply.to_string())]));
    let sim = filling(&book, &llm);
    let got = sim.call(&track, &json!({"id": "t1"})).await.unwrap();
    let body = got.body.json().unwrap();
    assert_eq!(body["name"], "Hey Jude", "{body}");
    assert!(body.get("restrictions").is_none(), "{body}");
}

/// A spec that puts a parameter's description in its `default` (or a sentence in a
/// field's `example`) gets no prose for a value: not as an argument the draft echoes,
/// not in the model's prompt; a real default and a real example still apply.
#[tokio::test]
async fn a_default_or_example_that_is_prose_is_no_value() {
    let book = book();
    let search = op(&book, "GET", "/search");
    let sim = Simulator::new(Arc::clone(&book));
    let got = sim.call(&search, &json!({"q": "beatles"})).await.unwrap();
    let body = got.body.json().unwrap();
    assert_eq!(body["market"], "US", "a real default applies: {body}");
    assert_eq!(body["country"], "GB", "a real example applies: {body}");
    assert!(body["per_page"].is_i64(), "{body}");
    for field in ["sort", "language"] {
        let text = body[field].as_str().unwrap_or_default();
        assert!(
            text.split_whitespace().count() < 4,
            "`{field}` holds prose: {body}"
        );
    }
    let llm = Arc::new(ScriptedLlm::new([Reply::text(body.to_string())]));
    filling(&book, &llm)
        .call(&search, &json!({"q": "beatles"}))
        .await
        .unwrap();
    let asked = prompts(&llm);
    let args = asked[0]
        .split("\\n")
        .find(|l| l.starts_with("Call arguments"))
        .unwrap_or_else(|| panic!("no arguments line: {}", asked[0]));
    assert!(
        args.contains("US") && !args.contains("Number of items"),
        "{args}"
    );
    assert!(!args.contains("order of the results"), "{args}");
}

/// A detail after a search is told what the search showed of the same artist
/// (its follower count, its popularity), not only its id and name.
#[tokio::test]
async fn a_detail_is_told_the_facts_a_search_showed() {
    let book = book();
    let search = op(&book, "GET", "/search");
    let artist = op(&book, "GET", "/artists/{id}");
    let found = json!({"per_page": 20, "market": "US", "artists": [{"id": "3WrFJ7",
        "name": "The Beatles", "followers": {"total": 31208461}, "popularity": 83,
        "genres": ["rock"]}]});
    let detail = json!({"id": "3WrFJ7", "name": "The Beatles"});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(found.to_string()),
        Reply::text(detail.to_string()),
    ]));
    let sim = filling(&book, &llm);
    sim.call(&search, &json!({"q": "beatles"})).await.unwrap();
    sim.call(&artist, &json!({"id": "3WrFJ7"})).await.unwrap();
    let asked = prompts(&llm);
    let later = &asked[1];
    let shown = later
        .split("\\n")
        .find(|l| l.contains("3WrFJ7") && l.starts_with("- "))
        .unwrap_or_else(|| panic!("the artist is not among the things shown: {later}"));
    assert!(
        shown.contains("followers.total") && shown.contains("31208461"),
        "{shown}"
    );
    assert!(
        shown.contains("popularity") && shown.contains("83"),
        "{shown}"
    );
}

/// A model that answers an add-tracks with the `snapshot_id` the playlist was read
/// with is overruled: the write's response carries a new one.
#[tokio::test]
async fn a_write_answers_a_new_snapshot_not_the_one_read_before() {
    let book = book();
    let read = op(&book, "GET", "/playlists/{playlist_id}");
    let add = op(&book, "POST", "/playlists/{playlist_id}/tracks");
    let snapshot = "MTAsZDVmZDQ2OWE5ZTA5";
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(json!({"id": "p1", "name": "Road trip", "snapshot_id": snapshot}).to_string()),
        Reply::text(json!({"snapshot_id": snapshot}).to_string()),
    ]));
    let sim = filling(&book, &llm);
    let before = sim
        .call(&read, &json!({"playlist_id": "p1"}))
        .await
        .unwrap();
    assert_eq!(before.body.json().unwrap()["snapshot_id"], snapshot);
    let added = sim.call(&add, &json!({"playlist_id": "p1"})).await.unwrap();
    let token = added.body.json().unwrap()["snapshot_id"].clone();
    assert_ne!(token, snapshot, "{added:?}");
    assert_eq!(
        token.as_str().map(str::len),
        Some(snapshot.len()),
        "{token}"
    );
    // The same write in a new session answers the same token (replays stay exact), and a
    // second write in one session answers a newer one again.
    let (mut a, mut a2, mut b) = (None, None, None);
    for (first, second) in [(&mut a, Some(&mut a2)), (&mut b, None)] {
        let sim = Simulator::new(Arc::clone(&book));
        let args = json!({"playlist_id": "p1"});
        *first = Some(sim.call(&add, &args).await.unwrap().body);
        if let Some(second) = second {
            *second = Some(sim.call(&add, &args).await.unwrap().body);
        }
    }
    assert_eq!(a, b);
    assert_ne!(a, a2);
}

/// A write whose model reply already holds a new version token keeps it: only a token the
/// session has shown before is stale.
#[tokio::test]
async fn a_write_keeps_a_new_snapshot_the_model_wrote() {
    let book = book();
    let read = op(&book, "GET", "/playlists/{playlist_id}");
    let add = op(&book, "POST", "/playlists/{playlist_id}/tracks");
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(
            json!({"id": "p1", "name": "Road trip", "snapshot_id": "MTAsZDVm"}).to_string(),
        ),
        Reply::text(json!({"snapshot_id": "MTEsYWJj"}).to_string()),
    ]));
    let sim = filling(&book, &llm);
    sim.call(&read, &json!({"playlist_id": "p1"}))
        .await
        .unwrap();
    let added = sim.call(&add, &json!({"playlist_id": "p1"})).await.unwrap();
    assert_eq!(added.body.json().unwrap()["snapshot_id"], "MTEsYWJj");
}

/// The fill prompt states the session's date: the pinned one when the setting
/// gives it (so a rerun behind the LLM cache replays exactly), else today's.
#[tokio::test]
async fn the_fill_prompt_states_the_sessions_date() {
    use toolsmith_llm::{CacheDb, CacheMode, CachedChat, ChatModel};
    let book = book();
    let track = op(&book, "GET", "/tracks/{id}");
    let reply = json!({"id": "t1", "name": "Hey Jude", "is_playable": true});
    let db = CacheDb::in_memory().unwrap();
    let dated = |llm: &Arc<ScriptedLlm>, today: Option<&str>| {
        let model: Arc<dyn ChatModel> = Arc::new(CachedChat::new(
            llm.clone(),
            db.clone(),
            CacheMode::ReadWrite,
        ));
        let settings = SimulatorSettings {
            fill: Fill::Llm,
            today: today.map(|t| t.parse().unwrap()),
            ..SimulatorSettings::default()
        };
        Simulator::with_settings(Arc::clone(&book), &settings)
            .with_oracle(Arc::new(LlmOracle::new(model)))
    };
    let llm = Arc::new(ScriptedLlm::new([Reply::text(reply.to_string())]));
    let first = dated(&llm, Some("2026-01-15"))
        .call(&track, &json!({"id": "t1"}))
        .await
        .unwrap();
    let asked = prompts(&llm);
    assert!(
        asked[0].contains("Today's date: 2026-01-15."),
        "{}",
        asked[0]
    );
    // Pinned, a rerun asks no model: the same prompt, the cached answer.
    let silent = Arc::new(ScriptedLlm::new(Vec::<Reply>::new()));
    let rerun = dated(&silent, Some("2026-01-15"))
        .call(&track, &json!({"id": "t1"}))
        .await
        .unwrap();
    assert_eq!(rerun.body, first.body);
    assert!(silent.requests().is_empty());
    // Unset, the date is the real one (UTC), the one before or after the call.
    let utc = || {
        jiff::Timestamp::now()
            .to_zoned(jiff::tz::TimeZone::UTC)
            .date()
    };
    let before = utc();
    let llm = Arc::new(ScriptedLlm::new([Reply::text(reply.to_string())]));
    dated(&llm, None)
        .fork_for(None)
        .unwrap()
        .call(&track, &json!({"id": "t1"}))
        .await
        .unwrap();
    let after = utc();
    let asked = prompts(&llm);
    assert!(
        [before, after]
            .iter()
            .any(|d| asked[0].contains(&format!("Today's date: {d}."))),
        "{}",
        asked[0]
    );
}

/// Many ToolBench tools document RapidAPI's envelope `{"get", "parameters", "errors",
/// "results", "response": [{}]}` as their success: the draft's results are empty
/// objects, which the "add no keys" rule left empty, so the answer read like an
/// error. The prompt now says an empty object is open, and the keys the model
/// writes into it stay.
#[tokio::test]
async fn an_open_object_of_an_envelope_is_filled_not_left_empty() {
    use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
    let envelope = json!({"type": "object", "properties": {"get": {"type": "string"},
        "parameters": {"type": "array"}, "errors": {"type": "array"},
        "results": {"type": "integer"},
        "response": {"type": "array", "items": {"type": "object"}}}});
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
        "paths": {"/titles/search/title/{title}": {"get": {"parameters": [{"name": "title",
            "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": envelope}}}}}}}});
    let bytes = serde_json::to_vec(&spec).unwrap();
    let batch = read_bytes("films.json".as_ref(), &bytes, &ImportOptions::default()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let book = Arc::new(ApiBook::from_catalog(&catalog));
    let search = op(&book, "GET", "/titles/search/title/{title}");
    let reply = json!({"get": "titles/search/title", "parameters": [], "errors": [],
        "results": 1, "response": [{"id": "tt0113277", "titleText": "Heat",
            "releaseYear": 1995}]});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(reply.to_string())]));
    let got = filling(&book, &llm)
        .call(&search, &json!({"title": "Heat"}))
        .await
        .unwrap();
    let body = got.body.json().unwrap();
    assert_eq!(body["response"][0]["titleText"], "Heat", "{body}");
    assert_eq!(body["errors"], json!([]), "{body}");
    let asked = prompts(&llm);
    assert!(
        asked[0].contains("An empty object `{}` in the draft is one the schema leaves open"),
        "{}",
        asked[0]
    );
}
