//! What stand-in models reported of the simulator's answers (issue 27), fixed:
//! a cursor-paged list is linked by its cursor, an API without a response schema
//! keeps one shape, a list as long as the facts make it, a record deleted (or an
//! id no record has) is not found, and a resource just created is empty.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Body, Executor, Simulator};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op, prompt};

/// A `200` response of `schema`.
fn ok(schema: Value) -> Value {
    json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}})
}

/// A query parameter of type `kind`.
fn query(name: &str, kind: &str) -> Value {
    json!({"name": name, "in": "query", "schema": {"type": kind}})
}

/// Spotify's followed artists, written for these tests: a cursor page under `artists`,
/// paged by `after` and `limit` (no offset).
fn following_spec() -> Value {
    let artist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}}});
    let page = json!({"type": "object", "properties": {
        "cursors": {"type": "object", "properties": {"after": {"type": "string"},
            "before": {"type": "string"}}},
        "href": {"type": "string"}, "limit": {"type": "integer"},
        "next": {"type": "string", "nullable": true}, "total": {"type": "integer"},
        "items": {"type": "array", "items": artist}}});
    let params = vec![
        query("type", "string"),
        query("after", "string"),
        query("limit", "integer"),
    ];
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "servers": [{"url": "https://api.spotify.com/v1"}],
        "paths": {"/me/following": {"get": {"parameters": params,
            "responses": ok(json!({"type": "object", "properties": {"artists": page}}))}}}})
}

/// A cursor page links the call as made and the page after its cursor, never an offset.
#[tokio::test]
async fn a_cursor_page_links_by_its_cursor_not_by_offset() {
    let book = book_of(&following_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let following = op(&book, "GET", "/me/following");
    let url = "https://api.spotify.com/v1/me/following?type=artist";
    for (args, query) in [
        (json!({"type": "artist", "limit": 1}), "&limit=1"),
        (
            json!({"type": "artist", "limit": 2, "after": "0I2X"}),
            "&after=0I2X&limit=2",
        ),
    ] {
        let got = sim.call(&following, &args).await.unwrap();
        let page = &got.body.json().unwrap()["artists"];
        assert_eq!(page["href"], format!("{url}{query}"), "{page:#}");
        assert!(!page.to_string().contains("offset"), "{page:#}");
        let shown = page["items"].as_array().unwrap().len() as u64;
        assert_eq!(page["limit"], args["limit"]);
        let total = page["total"].as_u64().unwrap();
        if shown < total {
            let after = page["cursors"]["after"].as_str().unwrap();
            assert_eq!(
                after,
                page["items"][shown as usize - 1]["id"],
                "Spotify's `after` is the last id"
            );
            let limit = &args["limit"];
            assert_eq!(
                page["next"],
                format!("{url}&limit={limit}&after={after}"),
                "{page:#}"
            );
        } else {
            assert!(page["next"].is_null(), "{page:#}");
        }
    }
}

/// An API that takes a cursor and no offset pages by cursor even where its page has
/// no cursor fields.
#[tokio::test]
async fn an_api_paged_only_by_cursor_gets_no_offset_links() {
    let item = json!({"type": "object", "properties": {"id": {"type": "integer"}}});
    let page = json!({"type": "object", "properties": {"href": {"type": "string"},
        "next": {"type": "string", "nullable": true}, "limit": {"type": "integer"},
        "total": {"type": "integer"}, "items": {"type": "array", "items": item}}});
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Feed", "version": "1"},
        "servers": [{"url": "https://feed.example/v2"}],
        "paths": {"/events": {"get": {"parameters": [query("cursor", "string"),
            query("limit", "integer")], "responses": ok(page)}}}});
    let book = book_of(&spec);
    let sim = Simulator::new(Arc::clone(&book));
    let events = op(&book, "GET", "/events");
    let got = sim.call(&events, &json!({"limit": 3})).await.unwrap();
    let page = got.body.json().unwrap();
    assert_eq!(
        page["href"], "https://feed.example/v2/events?limit=3",
        "{page:#}"
    );
    let shown = page["items"].as_array().unwrap().len() as u64;
    if shown < page["total"].as_u64().unwrap() {
        let last = &page["items"][shown as usize - 1]["id"];
        assert_eq!(
            page["next"],
            format!("https://feed.example/v2/events?limit=3&cursor={last}"),
            "{page:#}"
        );
    } else {
        assert!(page["next"].is_null(), "{page:#}");
    }
}

/// A QR-code API that documents no response (ToolBench's way), written for these tests.
fn schemaless_spec() -> Value {
    json!({"openapi": "3.0.0", "info": {"title": "QR", "version": "1"},
        "servers": [{"url": "https://qr.example"}],
        "paths": {"/generate": {"get": {"description": "Makes a QR code of a text.",
            "parameters": [query("text", "string")],
            "responses": {"200": {"description": "ok"}}}}}})
}

/// An API with no response schema keeps the layout of its first answer: later calls
/// are told its skeleton (keys and types, not values), in every session of the run.
#[tokio::test]
async fn an_api_without_a_schema_keeps_the_layout_of_its_first_answer() {
    let book = book_of(&schemaless_spec());
    let first = json!({"qr": {"url": "https://qr.example/abc.png", "size": 300}, "ok": true});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(first.to_string()),
        Reply::text(r#"{"qr": {"url": "https://qr.example/def.png", "size": 300}, "ok": true}"#),
        Reply::text(r#"{"qr": {"url": "https://qr.example/ghi.png", "size": 300}, "ok": true}"#),
    ]));
    let sim = filling(&book, &llm);
    let generate = op(&book, "GET", "/generate");
    let got = sim
        .call(&generate, &json!({"text": "hello"}))
        .await
        .unwrap();
    assert_eq!(got.body.json(), Some(&first));
    assert!(
        !prompt(&llm, 0).contains("answered before"),
        "{}",
        prompt(&llm, 0)
    );
    sim.call(&generate, &json!({"text": "world"}))
        .await
        .unwrap();
    let other_session = sim.fork_for(Some("make me a QR code")).unwrap();
    other_session
        .call(&generate, &json!({"text": "again"}))
        .await
        .unwrap();
    let skeleton = r#"{"ok":"boolean","qr":{"size":"integer","url":"string"}}"#;
    for i in [1, 2] {
        let text = prompt(&llm, i);
        assert!(
            text.contains(skeleton),
            "call {i} is not told the layout: {text}"
        );
        assert!(
            !text.contains("abc.png"),
            "a skeleton holds no values: {text}"
        );
    }
}

/// A model's `null` or `""` for an API that documents no response is an empty success,
/// as a documented no-content answer is: one form for the agent, whoever answered.
#[tokio::test]
async fn a_models_null_for_an_api_without_a_schema_is_no_body() {
    let book = book_of(&schemaless_spec());
    let generate = op(&book, "GET", "/generate");
    for reply in ["null", "\"\""] {
        let llm = Arc::new(ScriptedLlm::new([Reply::text(reply)]));
        let got = filling(&book, &llm)
            .call(&generate, &json!({"text": "hello"}))
            .await
            .unwrap();
        assert_eq!(got.body, Body::Empty, "{reply}: {got:?}");
        assert_eq!(got.status, Some(204), "{reply}");
    }
}

/// Without a model, an API with examples of two layouts answers every call in its
/// main one (never the error example beside the records).
#[tokio::test]
async fn a_draft_of_an_api_without_a_schema_keeps_one_layout() {
    let mut spec = schemaless_spec();
    spec["paths"]["/generate"]["get"]["responses"]["200"]["content"] = json!({"application/json":
        {"examples": {"ok": {"value": {"image": "https://qr.example/a.png", "format": "png"}},
            "bad": {"value": {"message": "text missing"}}}}});
    let book = book_of(&spec);
    let entry = book.get(&op(&book, "GET", "/generate")).unwrap();
    assert_eq!(
        entry.api.api.response_examples.len(),
        2,
        "both examples are imported"
    );
    let sim = Simulator::new(Arc::clone(&book));
    for i in 0..20 {
        let body = sim
            .synthesize(entry, &json!({"text": format!("t{i}")}))
            .unwrap();
        assert!(body.get("image").is_some(), "call {i}: {body}");
    }
}

/// A wallpaper API documenting ten wallpapers a page, whose one example shows three.
fn wallpapers_spec() -> Value {
    let wallpaper = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "url": {"type": "string"}}});
    let example: Vec<Value> = (1..=3)
        .map(|i| json!({"id": i, "url": format!("https://w.example/{i}.jpg")}))
        .collect();
    let list = json!({"200": {"description": "ok", "content": {"application/json": {
        "schema": {"type": "array", "items": wallpaper}, "example": example}}}});
    json!({"openapi": "3.0.0", "info": {"title": "Walls", "version": "1"},
        "paths": {"/wallpapers": {"get": {
            "description": "Lists the wallpapers of a category, 10 per page.",
            "parameters": [query("category", "string"), query("page", "integer"),
                query("limit", "integer")],
            "responses": list}}}})
}

/// A page of an API documenting its page size holds what a `limit` within it asks, not
/// the fewer its example happens to show; without a count, the documented size.
#[tokio::test]
async fn a_documented_page_holds_what_the_call_asks() {
    let book = book_of(&wallpapers_spec());
    let entry = book.get(&op(&book, "GET", "/wallpapers")).unwrap();
    let sim = Simulator::new(Arc::clone(&book));
    for category in ["cars", "sea", "space", "city", "snow", "woods"] {
        for args in [
            json!({"category": category, "limit": 10}),
            json!({"category": category, "page": 2}),
        ] {
            let body = sim.synthesize(entry, &args).unwrap();
            assert_eq!(body.as_array().unwrap().len(), 10, "{args}: {body}");
        }
    }
}

/// The fill prompt says that a complete list holds all of it, that a documented page size
/// is kept, and that a count asked for is a most, never "exactly".
#[tokio::test]
async fn the_fill_prompt_keeps_complete_lists_and_documented_pages() {
    let book = book_of(&wallpapers_spec());
    let walls = op(&book, "GET", "/wallpapers");
    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}"), Reply::text("{}")]));
    let sim = filling(&book, &llm);
    sim.call(&walls, &json!({"category": "sea", "page": 1}))
        .await
        .unwrap();
    let text = prompt(&llm, 0);
    assert!(text.contains("holds every member, up to 100"), "{text}");
    assert!(
        text.contains("make this page hold 10 items: write all 10"),
        "{text}"
    );
    sim.call(&walls, &json!({"category": "sea", "limit": 50}))
        .await
        .unwrap();
    let text = prompt(&llm, 1);
    assert!(
        text.contains("asks for 50, which is a most, not a quota"),
        "{text}"
    );
    assert!(text.contains("fewer where it has fewer"), "{text}");
    assert!(!text.contains("exactly"), "{text}");
}

/// A count the call asks for bounds a complete list too when it is the list the call pages:
/// stand-in x2 was told that an album's tracks hold every member up to 100 for a call asking
/// `limit=1`, and y6 that an album's nested tracks held "up to 1" when the call's `limit=1`
/// paged the albums. With nothing shown earlier in the session, the id rule points at no
/// list above (x2 again).
#[tokio::test]
async fn a_count_asked_for_bounds_a_complete_list_and_no_list_is_cited_before_one_is_shown() {
    let book = book_of(&wallpapers_spec());
    let walls = op(&book, "GET", "/wallpapers");
    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
    let sim = filling(&book, &llm);
    sim.call(&walls, &json!({"category": "sea", "limit": 3}))
        .await
        .unwrap();
    let text = prompt(&llm, 0);
    assert!(
        text.contains("up to the 3 the call asks for when it is the list the call pages, not a list inside its items"),
        "{text}"
    );
    assert!(!text.contains("as in the list above"), "{text}");
    assert!(text.contains("keeps one id everywhere."), "{text}");
}

/// A pet shop written for these tests: pets by a positive integer id, their photos.
fn shop_spec() -> Value {
    let pet = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "name": {"type": "string"}}});
    let pet_id = json!({"name": "pet_id", "in": "path", "required": true,
        "schema": {"type": "integer", "minimum": 1}});
    let photos = json!({"type": "array", "items": {"type": "object", "properties": {
        "url": {"type": "string"}}}});
    json!({"openapi": "3.0.0", "info": {"title": "Shop", "version": "1"}, "paths": {
        "/pets": {"post": {"requestBody": {"content": {"application/json": {"schema": pet}}},
            "responses": ok(pet.clone())}},
        "/pets/{pet_id}": {
            "get": {"parameters": [pet_id.clone()], "responses": ok(pet.clone())},
            "put": {"parameters": [pet_id.clone()], "responses": ok(pet.clone())},
            "patch": {"parameters": [pet_id.clone()], "responses": ok(pet)},
            "delete": {"parameters": [pet_id.clone()], "responses": {"204": {"description": "gone"}}}},
        "/pets/{pet_id}/photos": {"get": {"parameters": [pet_id], "responses": ok(photos)}}}})
}

/// The observation is a failed `not_found` call with a `404` and a body saying so.
fn assert_not_found(obs: &toolsmith_exec::Observation, what: &str) {
    assert_eq!(
        obs.failure(),
        Some(toolsmith_exec::FailureKind::NotFound),
        "{what}: {obs:?}"
    );
    assert!(!obs.is_ok(), "{what}");
    assert_eq!(obs.status, Some(404), "{what}: {obs:?}");
    let body = obs
        .body
        .json()
        .unwrap_or_else(|| panic!("{what}: no body: {obs:?}"));
    assert_eq!(body["status"], 404, "{what}: {body}");
    assert!(
        body["error"].as_str().unwrap().contains("not found"),
        "{what}: {body}"
    );
}

/// After a pet is deleted, reading, changing, deleting it again or reading its photos
/// are not found; another pet, and another session, still answer.
#[tokio::test]
async fn a_record_deleted_in_the_session_is_not_found() {
    let book = book_of(&shop_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let at = |method: &str, path: &str| op(&book, method, path);
    let item = "/pets/{pet_id}";
    let delete = sim
        .call(&at("DELETE", item), &json!({"pet_id": 7}))
        .await
        .unwrap();
    assert!(delete.is_ok(), "{delete:?}");
    let calls = [
        (at("GET", item), json!({"pet_id": 7})),
        (at("GET", item), json!({"pet_id": "7"})),
        (at("PUT", item), json!({"pet_id": 7, "name": "Rex"})),
        (at("PATCH", item), json!({"pet_id": 7, "name": "Rex"})),
        (at("DELETE", item), json!({"pet_id": 7})),
        (at("GET", "/pets/{pet_id}/photos"), json!({"pet_id": 7})),
    ];
    for (api, args) in &calls {
        let obs = sim.call(api, args).await.unwrap();
        assert_not_found(&obs, &format!("{api} {args}"));
    }
    let other = sim
        .call(&at("GET", item), &json!({"pet_id": 8}))
        .await
        .unwrap();
    assert!(other.is_ok(), "{other:?}");
    let fresh = Simulator::new(Arc::clone(&book));
    let elsewhere = fresh
        .call(&at("GET", item), &json!({"pet_id": 7}))
        .await
        .unwrap();
    assert!(elsewhere.is_ok(), "{elsewhere:?}");
}

/// A negative id, or zero where ids start at one, names no record.
#[tokio::test]
async fn an_id_no_record_can_have_is_not_found() {
    let book = book_of(&shop_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let read = op(&book, "GET", "/pets/{pet_id}");
    for id in [json!(-1), json!("-1"), json!(0)] {
        let obs = sim.call(&read, &json!({"pet_id": id})).await.unwrap();
        assert_not_found(&obs, &format!("pet {id}"));
    }
    let one = sim.call(&read, &json!({"pet_id": 1})).await.unwrap();
    assert!(one.is_ok(), "{one:?}");
    // No model is asked to fill a record that cannot exist.
    let llm = Arc::new(ScriptedLlm::new([]));
    let obs = filling(&book, &llm)
        .call(&read, &json!({"pet_id": -1}))
        .await
        .unwrap();
    assert_not_found(&obs, "a filled pet -1");
    assert!(llm.requests().is_empty());
}

/// Spotify's playlist creation, written for these tests: `POST /users/{user_id}/playlists`
/// answers a playlist with its images, followers and a page of tracks.
fn playlists_spec() -> Value {
    let track = json!({"type": "object", "properties": {"added_at": {"type": "string"},
        "track": {"type": "object", "properties": {"id": {"type": "string"},
            "name": {"type": "string"}}}}});
    let tracks = json!({"type": "object", "properties": {"href": {"type": "string"},
        "items": {"type": "array", "items": track}, "limit": {"type": "integer"},
        "next": {"type": "string", "nullable": true}, "offset": {"type": "integer"},
        "previous": {"type": "string", "nullable": true}, "total": {"type": "integer"}}});
    let playlist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "description": {"type": "string"},
        "public": {"type": "boolean"}, "href": {"type": "string"},
        "images": {"type": "array", "items": {"type": "object",
            "properties": {"url": {"type": "string"}}}},
        "owner": {"type": "object", "properties": {"id": {"type": "string"}}},
        "tracks": tracks}});
    let body = json!({"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"}, "public": {"type": "boolean"},
        "description": {"type": "string"}}});
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "servers": [{"url": "https://api.spotify.com/v1"}],
        "paths": {"/users/{user_id}/playlists": {"post": {
            "parameters": [{"name": "user_id", "in": "path", "required": true,
                "schema": {"type": "string"}}],
            "requestBody": {"content": {"application/json": {"schema": body}}},
            "responses": {"201": {"description": "created",
                "content": {"application/json": {"schema": playlist}}}}}}}})
}

/// The playlist is new: no tracks (an empty page counting none), no images.
fn assert_empty(playlist: &Value) {
    assert_eq!(playlist["name"], "Road trip", "{playlist:#}");
    assert_eq!(playlist["tracks"]["items"], json!([]), "{playlist:#}");
    assert_eq!(playlist["tracks"]["total"], 0, "{playlist:#}");
    assert!(playlist["tracks"]["next"].is_null(), "{playlist:#}");
    assert_eq!(playlist["images"], json!([]), "{playlist:#}");
}

/// A playlist just created holds no tracks, whether the draft or the model answers.
#[tokio::test]
async fn a_created_playlist_starts_empty() {
    let book = book_of(&playlists_spec());
    let create = op(&book, "POST", "/users/{user_id}/playlists");
    let args = json!({"user_id": "smedjan", "name": "Road trip", "public": false});
    for user in ["smedjan", "ada", "bo", "cy"] {
        let mut args = args.clone();
        args["user_id"] = json!(user);
        let sim = Simulator::new(Arc::clone(&book));
        let made = sim.call(&create, &args).await.unwrap();
        assert_eq!(made.status, Some(201));
        assert_empty(made.body.json().unwrap());
    }
    let full = json!({"id": "37i9", "name": "Road trip", "description": "", "public": false,
        "href": "https://api.spotify.com/v1/playlists/37i9",
        "images": [{"url": "https://i.example/cover.jpg"}], "owner": {"id": "smedjan"},
        "tracks": {"href": "https://api.spotify.com/v1/playlists/37i9/tracks",
            "items": [{"added_at": "2026-01-01T00:00:00Z", "track": {"id": "t1", "name": "Go"}}],
            "limit": 100, "next": null, "offset": 0, "previous": null, "total": 1}});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(full.to_string())]));
    let made = filling(&book, &llm).call(&create, &args).await.unwrap();
    assert_empty(made.body.json().unwrap());
    let text = prompt(&llm, 0);
    assert!(
        text.contains("This call creates the thing it answers with"),
        "{text}"
    );
    assert!(
        text.contains(r#""items":[]"#),
        "the draft shown is empty too: {text}"
    );
}

/// Adding tracks answers `201` with a receipt, not a new thing: no "creates" rule (the
/// stand-ins saw Spotify's add-tracks prompt say the call creates what it answers with).
#[tokio::test]
async fn a_201_that_answers_with_a_receipt_creates_nothing() {
    let receipt = json!({"type": "object", "properties": {"snapshot_id": {"type": "string"}}});
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "paths": {"/playlists/{playlist_id}/tracks": {"post": {
            "parameters": [{"name": "playlist_id", "in": "path", "required": true,
                "schema": {"type": "string"}}],
            "requestBody": {"content": {"application/json": {"schema": {"type": "object",
                "properties": {"uris": {"type": "array", "items": {"type": "string"}}}}}}},
            "responses": {"201": {"description": "added",
                "content": {"application/json": {"schema": receipt}}}}}}}});
    let book = book_of(&spec);
    let add = op(&book, "POST", "/playlists/{playlist_id}/tracks");
    let answer = json!({"snapshot_id": "MTAsZDVmZjMy"});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(answer.to_string())]));
    let args = json!({"playlist_id": "37i9", "uris": ["spotify:track:t1"]});
    let got = filling(&book, &llm).call(&add, &args).await.unwrap();
    assert_eq!(got.body.json().unwrap()["snapshot_id"], "MTAsZDVmZjMy");
    let text = prompt(&llm, 0);
    assert!(!text.contains("This call creates the thing"), "{text}");
}

/// A `POST` that computes an answer (no `201`, no item paths) keeps its lists.
#[tokio::test]
async fn a_post_that_creates_nothing_keeps_its_lists() {
    let choice = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let answer = json!({"type": "object", "properties": {"id": {"type": "string"},
        "choices": {"type": "array", "minItems": 1, "items": choice}}});
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Chat", "version": "1"},
        "paths": {"/chat/completions": {"post": {"requestBody": {"content":
            {"application/json": {"schema": {"type": "object",
                "properties": {"prompt": {"type": "string"}}}}}},
            "responses": ok(answer)}}}});
    let book = book_of(&spec);
    let sim = Simulator::new(Arc::clone(&book));
    let chat = op(&book, "POST", "/chat/completions");
    let got = sim.call(&chat, &json!({"prompt": "hi"})).await.unwrap();
    let body = got.body.json().unwrap();
    assert!(!body["choices"].as_array().unwrap().is_empty(), "{body}");
}
