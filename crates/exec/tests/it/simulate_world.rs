//! The LLM-filled simulator keeps the user's world: it is told the task a
//! session serves and keys its answers on it, mints ids for what a call
//! creates, asks for the count a call requests, keeps its prompt within
//! budget, and asks the model once for concurrent identical calls.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::op;
use toolsmith_exec::{
    ApiBook, Executor, Fill, LlmOracle, Provenance, Simulator, SimulatorSettings,
};
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};
use toolsmith_llm::{CacheDb, CacheMode, CachedChat, ChatModel};

/// A small music API in Spotify's shapes, written for these tests.
fn music_spec() -> Value {
    let image = json!({"type": "object", "properties": {"url": {"type": "string"},
        "width": {"type": "integer"}, "height": {"type": "integer"}}});
    let artist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}}});
    let album = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "images": {"type": "array", "items": image},
        "artists": {"type": "array", "items": artist.clone()},
        "available_markets": {"type": "array", "minItems": 30, "items": {"type": "string"}}}});
    let track = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "album": album, "popularity": {"type": "integer"},
        "artists": {"type": "array", "items": artist}, "duration_ms": {"type": "integer"}}});
    let playlist = json!({"type": "object", "required": ["id", "name"], "properties": {
        "id": {"type": "string"}, "name": {"type": "string"}, "public": {"type": "boolean"},
        "owner": {"type": "object", "properties": {"id": {"type": "string"},
            "display_name": {"type": "string"}}}}});
    let ok = |schema: Value| json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}});
    let query =
        |name: &str, kind: &str| json!({"name": name, "in": "query", "schema": {"type": kind}});
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"}, "paths": {
        "/me/playlists": {"get": {"parameters": [query("limit", "integer")],
            "responses": ok(json!({"type": "object", "properties": {
                "limit": {"type": "integer"}, "total": {"type": "integer"},
                "items": {"type": "array", "items": playlist.clone()}}}))}},
        "/me/top": {"get": {"parameters": [query("limit", "integer")],
            "responses": ok(json!({"type": "object", "properties": {
                "items": {"type": "array", "maxItems": 10, "items": playlist.clone()}}}))}},
        "/users/{user_id}/playlists": {"post": {
            "parameters": [{"name": "user_id", "in": "path", "required": true,
                "schema": {"type": "string"}}],
            "requestBody": {"content": {"application/json": {"schema": {"type": "object",
                "properties": {"name": {"type": "string"}}}}}},
            "responses": {"201": {"description": "created",
                "content": {"application/json": {"schema": playlist.clone()}}}}}},
        "/playlists/{playlist_id}": {"get": {
            "parameters": [{"name": "playlist_id", "in": "path", "required": true,
                "schema": {"type": "string"}}],
            "responses": ok(playlist)}},
        "/search": {"get": {"parameters": [query("q", "string"), query("limit", "integer")],
            "responses": ok(json!({"type": "object", "properties": {"tracks": {
                "type": "object", "properties": {"total": {"type": "integer"},
                "limit": {"type": "integer"}, "offset": {"type": "integer"},
                "items": {"type": "array", "items": track}}}}}))}}
    }})
}

fn music() -> Arc<ApiBook> {
    crate::book_of(&music_spec())
}

/// A simulator filling values with `model` under `settings` (fill forced to `llm`).
fn filling(
    book: &Arc<ApiBook>,
    model: Arc<dyn ChatModel>,
    settings: SimulatorSettings,
) -> Simulator {
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        ..settings
    };
    Simulator::with_settings(Arc::clone(book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(model)))
}

/// The text of every request the model received.
fn prompts(llm: &ScriptedLlm) -> Vec<String> {
    llm.requests().iter().map(|r| format!("{r:?}")).collect()
}

const RNB: &str = "Add Hey Jude to my playlist 'My R&B'";
const ROAD: &str = "Which songs are on my playlist 'Road trip'?";

fn playlists(names: &[&str]) -> Value {
    let items: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, n)| json!({"id": format!("p{i}"), "name": n, "public": false}))
        .collect();
    json!({"limit": 20, "total": items.len(), "items": items})
}

#[tokio::test]
async fn the_fill_is_told_the_users_request_and_each_task_keys_its_own_answers() {
    let book = music();
    let mine = op(&book, "GET", "/me/playlists");
    let rnb = playlists(&["My R&B", "Gym"]);
    let road = playlists(&["Road trip"]);
    let llm = Arc::new(
        ScriptedLlm::new(Vec::<Reply>::new())
            .with_rule(
                When::last_message_contains("My R&B"),
                Reply::text(rnb.to_string()),
            )
            .with_rule(
                When::last_message_contains("Road trip"),
                Reply::text(road.to_string()),
            ),
    );
    let db = CacheDb::in_memory().unwrap();
    let cached = |llm: Arc<ScriptedLlm>| -> Arc<dyn ChatModel> {
        Arc::new(CachedChat::new(llm, db.clone(), CacheMode::ReadWrite))
    };
    let sim = filling(
        &book,
        cached(Arc::clone(&llm)),
        SimulatorSettings::default(),
    );
    let first = sim.fork_for(Some(RNB)).unwrap();
    let second = sim.fork_for(Some(ROAD)).unwrap();
    let a = first.call(&mine, &json!({})).await.unwrap();
    let again = first.call(&mine, &json!({})).await.unwrap();
    let b = second.call(&mine, &json!({})).await.unwrap();
    assert_eq!(a.provenance, Provenance::SimulatedLlm, "{a:?}");
    assert_eq!(a.body.json().unwrap()["items"][0]["name"], "My R&B");
    assert_eq!(b.body.json().unwrap()["items"][0]["name"], "Road trip");
    assert_eq!(
        again.body, a.body,
        "the same call in one session: the same answer"
    );
    // Each task reached its prompt as the user's own account, and only its own.
    let asked = prompts(&llm);
    assert_eq!(asked.len(), 2, "{asked:#?}");
    assert!(asked[0].contains("The user of this account asked") && asked[0].contains("My R&B"));
    assert!(
        asked[0].contains("exist there under those names"),
        "{}",
        asked[0]
    );
    assert!(
        asked[0].contains("a search that could find them by that name lists the user's own"),
        "a search for a thing the request presupposes finds the user's own: {}",
        asked[0]
    );
    assert!(
        asked[0].contains("what it creates starts empty"),
        "a created thing holds only what the call gave it: {}",
        asked[0]
    );
    assert!(
        asked[0].contains("What the request asks about is on record"),
        "a field the user asks about is not left empty: {}",
        asked[0]
    );
    assert!(
        asked[1].contains("Road trip") && !asked[1].contains("My R&B"),
        "{}",
        asked[1]
    );
    // Two cache keys: a rerun of each task replays its own answer without the model.
    let silent = Arc::new(ScriptedLlm::new(Vec::<Reply>::new()));
    let rerun = filling(
        &book,
        cached(Arc::clone(&silent)),
        SimulatorSettings::default(),
    );
    let a2 = rerun
        .fork_for(Some(RNB))
        .unwrap()
        .call(&mine, &json!({}))
        .await
        .unwrap();
    let b2 = rerun
        .fork_for(Some(ROAD))
        .unwrap()
        .call(&mine, &json!({}))
        .await
        .unwrap();
    assert_eq!((a2.body, b2.body), (a.body, b.body));
    assert!(silent.requests().is_empty(), "{:?}", silent.requests());
}

#[tokio::test]
async fn a_created_object_gets_an_id_of_its_own_and_a_read_keeps_the_one_asked_for() {
    let book = music();
    let create = op(&book, "POST", "/users/{user_id}/playlists");
    let read = op(&book, "GET", "/playlists/{playlist_id}");
    let args = json!({"user_id": "smedjan", "name": "My R&B"});
    // The schema simulator alone.
    let sim = Simulator::new(Arc::clone(&book));
    let made = sim.call(&create, &args).await.unwrap();
    let made = made.body.json().unwrap();
    assert_ne!(made["id"], "smedjan", "{made}");
    let got = sim
        .call(&read, &json!({"playlist_id": "37i9"}))
        .await
        .unwrap();
    assert_eq!(got.body.json().unwrap()["id"], "37i9");
    // A model that gives the owner's id to the new playlist is overruled; the owner keeps it.
    let reply = json!({"id": "smedjan", "name": "My R&B", "public": false,
        "owner": {"id": "smedjan", "display_name": "Smedjan"}});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(reply.to_string()),
        Reply::text(json!({"id": "other", "name": "Chill"}).to_string()),
    ]));
    let sim = filling(&book, llm.clone(), SimulatorSettings::default());
    let made = sim.call(&create, &args).await.unwrap();
    let made = made.body.json().unwrap().clone();
    assert_ne!(made["id"], "smedjan", "{made}");
    assert!(
        made["id"].as_str().is_some_and(|id| !id.is_empty()),
        "{made}"
    );
    assert_eq!(made["owner"]["id"], "smedjan");
    assert_eq!(made["name"], "My R&B");
    // A read by id keeps the id asked for, whatever the model wrote.
    let got = sim
        .call(&read, &json!({"playlist_id": "37i9"}))
        .await
        .unwrap();
    assert_eq!(got.body.json().unwrap()["id"], "37i9");
    assert_eq!(got.body.json().unwrap()["name"], "Chill");
}

#[tokio::test]
async fn a_requested_count_reaches_the_prompt_capped_by_the_setting() {
    let book = music();
    let mine = op(&book, "GET", "/me/playlists");
    for (cap, want) in [(100, 20), (15, 15)] {
        let llm = Arc::new(ScriptedLlm::new([Reply::text(
            playlists(&["A"]).to_string(),
        )]));
        let settings = SimulatorSettings {
            max_requested_items: cap,
            ..SimulatorSettings::default()
        };
        let sim = filling(&book, llm.clone(), settings);
        sim.call(&mine, &json!({"limit": 20})).await.unwrap();
        let asked = prompts(&llm).join("\n");
        assert!(
            asked.contains(&format!("asks for {want}, which is a most, not a quota")),
            "{asked}"
        );
        // A count is a cap: fewer where the world (the user's account) has fewer.
        assert!(asked.contains("fewer where it has fewer"), "{asked}");
        assert!(!asked.contains("exactly"), "{asked}");
        assert!(!asked.contains("1 to 5"), "{asked}");
    }
    // The schema's maxItems bounds the count too.
    let top = op(&book, "GET", "/me/top");
    let llm = Arc::new(ScriptedLlm::new([Reply::text(
        json!({"items": []}).to_string(),
    )]));
    let sim = filling(&book, llm.clone(), SimulatorSettings::default());
    sim.call(&top, &json!({"limit": 20})).await.unwrap();
    let asked = prompts(&llm).join("\n");
    assert!(asked.contains("asks for 10, which is a most"), "{asked}");
    assert!(
        asked.contains("more than the 10 items the schema allows"),
        "{asked}"
    );
}

#[tokio::test]
async fn an_oversize_fill_prompt_is_shortened_or_refused_never_sent() {
    let book = music();
    let search = op(&book, "GET", "/search");
    let args = json!({"q": "Hey Jude", "limit": 50});
    let reply = json!({"tracks": {"total": 1, "items": [{"id": "t1", "name": "Hey Jude"}]}});
    // Unbounded, the draft of fifty deep tracks makes a large prompt.
    let llm = Arc::new(ScriptedLlm::new([Reply::text(reply.to_string())]));
    let roomy = SimulatorSettings {
        max_prompt_chars: 10_000_000,
        ..SimulatorSettings::default()
    };
    filling(&book, llm.clone(), roomy)
        .call(&search, &args)
        .await
        .unwrap();
    let whole = prompts(&llm)[0].len();
    assert!(whole > 20_000, "{whole}");
    // Within a budget: shortened, and the cut is said.
    let llm = Arc::new(ScriptedLlm::new([Reply::text(reply.to_string())]));
    let tight = SimulatorSettings {
        max_prompt_chars: 8_000,
        ..SimulatorSettings::default()
    };
    let obs = filling(&book, llm.clone(), tight)
        .call(&search, &args)
        .await
        .unwrap();
    assert!(obs.is_ok(), "{obs:?}");
    assert_eq!(
        obs.body.json().unwrap()["tracks"]["items"][0]["name"],
        "Hey Jude"
    );
    let sent = llm.requests();
    assert_eq!(sent.len(), 1);
    let text = sent[0].messages[0].text();
    assert!(text.len() <= 8_000, "{}", text.len());
    assert!(text.contains("`/tracks/items` holds 50 items"), "{text}");
    assert!(
        !text.contains("write all"),
        "the cut note leaves the size to the list rules (a new playlist, a short album): {text}"
    );
    // A budget nothing fits: refused with the API's name, and nothing sent.
    let llm = Arc::new(ScriptedLlm::new([Reply::text(reply.to_string())]));
    let tiny = SimulatorSettings {
        max_prompt_chars: 1_000,
        ..SimulatorSettings::default()
    };
    let obs = filling(&book, llm.clone(), tiny)
        .call(&search, &args)
        .await
        .unwrap();
    assert!(!obs.is_ok(), "{obs:?}");
    let said = serde_json::to_string(&obs).unwrap();
    assert!(
        said.contains(&search.to_string()) && said.contains("max_prompt_chars"),
        "{said}"
    );
    assert!(llm.requests().is_empty(), "{:?}", llm.requests());
}

#[tokio::test]
async fn concurrent_identical_calls_ask_the_model_once() {
    let book = music();
    let mine = op(&book, "GET", "/me/playlists");
    // The model takes a while, so every call arrives while the first is being answered.
    let llm = Arc::new(
        ScriptedLlm::new(Vec::<Reply>::new())
            .with_rule(
                When::role("simulator"),
                Reply::text(playlists(&["My R&B"]).to_string()),
            )
            .with_delay(Duration::from_millis(50)),
    );
    let sim = filling(&book, llm.clone(), SimulatorSettings::default());
    let one = sim.fork_for(Some(RNB)).unwrap();
    let other = sim.fork_for(Some(RNB)).unwrap();
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..6 {
        let session = Arc::clone(if i % 2 == 0 { &one } else { &other });
        let api = mine.clone();
        calls.spawn(async move { session.call(&api, &json!({"limit": 1})).await });
    }
    let observations = calls.join_all().await;
    assert_eq!(llm.requests().len(), 1, "{:#?}", prompts(&llm));
    for obs in &observations {
        let obs = obs.as_ref().unwrap();
        assert_eq!(
            obs.body.json().unwrap()["items"][0]["name"],
            "My R&B",
            "{obs:?}"
        );
    }
}

/// A read after a write is asked anew, and the model is told the write: a playlist listed
/// again after one was created (or its tracks removed) must not be the list from before.
#[tokio::test]
async fn a_read_after_a_write_is_asked_again_and_told_the_write() {
    let book = music();
    let mine = op(&book, "GET", "/me/playlists");
    let create = op(&book, "POST", "/users/{user_id}/playlists");
    let llm = Arc::new(ScriptedLlm::new(Vec::<Reply>::new()).with_rule(
        When::role("simulator"),
        Reply::text(playlists(&["My R&B"]).to_string()),
    ));
    let sim = filling(&book, llm.clone(), SimulatorSettings::default());
    let session = sim.fork_for(Some(RNB)).unwrap();
    session.call(&mine, &json!({"limit": 5})).await.unwrap();
    session.call(&mine, &json!({"limit": 5})).await.unwrap();
    assert_eq!(
        llm.requests().len(),
        1,
        "a repeated read is the same answer"
    );
    let created = session
        .call(&create, &json!({"user_id": "u1", "name": "Gym mix"}))
        .await
        .unwrap();
    assert!(created.is_ok(), "{created:?}");
    let asked = llm.requests().len();
    session.call(&mine, &json!({"limit": 5})).await.unwrap();
    let prompts = prompts(&llm);
    assert_eq!(
        prompts.len(),
        asked + 1,
        "the read after the write is asked again"
    );
    let last = prompts.last().unwrap();
    assert!(
        last.contains("POST /users/{user_id}/playlists") && last.contains("Gym mix"),
        "the prompt tells the write: {last}"
    );
}

/// An empty `{}` reply is the model declining to fill: the call answers with the
/// draft (as the schema simulator alone would), never with an echo of its arguments.
#[tokio::test]
async fn an_empty_reply_is_a_refusal_and_the_draft_answers() {
    let book = music();
    let mine = op(&book, "GET", "/me/playlists");
    let create = op(&book, "POST", "/users/{user_id}/playlists");
    let calls = [
        (mine, json!({"limit": 3})),
        (create, json!({"user_id": "u1", "name": "Gym mix"})),
    ];
    for (api, args) in calls {
        let llm = Arc::new(
            ScriptedLlm::new(Vec::<Reply>::new())
                .with_rule(When::role("simulator"), Reply::text("{}".to_owned())),
        );
        let sim = filling(&book, llm.clone(), SimulatorSettings::default());
        let filled = sim.call(&api, &args).await.unwrap();
        assert_eq!(llm.requests().len(), 1, "the model was asked");
        let plain = Simulator::new(Arc::clone(&book))
            .call(&api, &args)
            .await
            .unwrap();
        let body = filled.body.json().unwrap();
        assert_eq!(Some(body), plain.body.json(), "{api}");
        assert_ne!(body, &args, "{api}: an echo of the arguments");
        assert!(body.as_object().is_some_and(|o| !o.is_empty()), "{body}");
    }
}
