//! What stand-in models filling the simulator on Spotify reported (round 22), fixed: a
//! change documenting no body answered with the agent's own arguments, a saved-albums page
//! whose fill prompt went over its budget was refused, and a created playlist was owned by
//! a stranger and ignored the visibility it was made with.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{
    ApiBook, Body, Executor, Fill, LlmOracle, Outcome, Simulator, SimulatorSettings,
};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op};

/// A small API in Spotify's shapes: the profile, a playlist (read, changed with no body
/// documented, created under its user), and the saved albums, deep ones, written for these
/// tests.
fn spotify() -> Value {
    let user = json!({"type": "object", "properties": {"id": {"type": "string"},
        "display_name": {"type": "string"}, "type": {"type": "string", "enum": ["user"]}}});
    let image = json!({"type": "object", "required": ["url", "height", "width"], "properties": {
        "url": {"type": "string"}, "height": {"type": "integer"}, "width": {"type": "integer"}}});
    let artist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "type": {"type": "string", "enum": ["artist"]},
        "uri": {"type": "string"}, "href": {"type": "string"},
        "external_urls": {"type": "object", "properties": {"spotify": {"type": "string"}}}}});
    let track = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "duration_ms": {"type": "integer"},
        "track_number": {"type": "integer"}, "explicit": {"type": "boolean"},
        "artists": {"type": "array", "items": artist.clone()},
        "available_markets": {"type": "array", "items": {"type": "string"}},
        "uri": {"type": "string"}, "href": {"type": "string"}}});
    let album = json!({"type": "object", "required": ["id", "name", "artists", "images"],
        "properties": {
        "album_type": {"type": "string", "enum": ["album", "single", "compilation"]},
        "artists": {"type": "array", "items": artist},
        "available_markets": {"type": "array", "items": {"type": "string"}},
        "copyrights": {"type": "array", "items": {"type": "object", "properties": {
            "text": {"type": "string"}, "type": {"type": "string"}}}},
        "external_urls": {"type": "object", "properties": {"spotify": {"type": "string"}}},
        "genres": {"type": "array", "items": {"type": "string"}},
        "href": {"type": "string"}, "id": {"type": "string"},
        "images": {"type": "array", "items": image}, "label": {"type": "string"},
        "name": {"type": "string"}, "popularity": {"type": "integer"},
        "release_date": {"type": "string"}, "total_tracks": {"type": "integer"},
        "type": {"type": "string", "enum": ["album"]}, "uri": {"type": "string"},
        "tracks": {"type": "object", "properties": {"href": {"type": "string"},
            "items": {"type": "array", "items": track}, "limit": {"type": "integer"},
            "next": {"type": "string", "nullable": true}, "offset": {"type": "integer"},
            "previous": {"type": "string", "nullable": true}, "total": {"type": "integer"}}}}});
    let playlist = json!({"type": "object", "properties": {
        "collaborative": {"type": "boolean"}, "description": {"type": "string"},
        "id": {"type": "string"}, "name": {"type": "string"}, "owner": user.clone(),
        "public": {"type": "boolean"}, "snapshot_id": {"type": "string"},
        "tracks": {"type": "object", "properties": {"href": {"type": "string"},
            "total": {"type": "integer"}}},
        "type": {"type": "string", "enum": ["playlist"]}, "uri": {"type": "string"}}});
    let details = json!({"type": "object", "properties": {
        "name": {"type": "string", "description": "The new name for the playlist."},
        "description": {"type": "string"},
        "public": {"type": "boolean", "description": "If `true` the playlist will be public, \
            if `false` it will be private."}}});
    let created = json!({"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "description": "The name for the new playlist."},
        "description": {"type": "string"},
        "public": {"type": "boolean", "description": "Defaults to `true`. If `true` the \
            playlist will be public, if `false` it will be private."},
        "collaborative": {"type": "boolean", "description": "Defaults to `false`. If `true` \
            the playlist will be collaborative."}}});
    let json_body = |schema: Value| json!({"content": {"application/json": {"schema": schema}}});
    let ok = |status: &str, schema: Value| {
        json!({status: {"description": "ok",
            "content": {"application/json": {"schema": schema}}}})
    };
    let path_id = |name: &str| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}});
    json!({"openapi": "3.0.0", "info": {"title": "Spotify", "version": "1"},
        "servers": [{"url": "https://api.spotify.example/v1"}],
        "paths": {
        "/me": {"get": {"operationId": "get_current_users_profile",
            "responses": ok("200", user)}},
        "/playlists/{playlist_id}": {
            "get": {"operationId": "get_playlist", "parameters": [path_id("playlist_id")],
                "responses": ok("200", playlist.clone())},
            "put": {"operationId": "change_playlist_details",
                "parameters": [path_id("playlist_id")], "requestBody": json_body(details),
                "responses": {"200": {"description": "Playlist updated"}}}},
        "/users/{user_id}/playlists": {"post": {"operationId": "create_playlist",
            "parameters": [path_id("user_id")], "requestBody": json_body(created),
            "responses": ok("201", playlist)}},
        "/me/player/queue": {"post": {"operationId": "add_to_queue",
            "requestBody": json_body(json!({"type": "object", "properties": {
                "uri": {"type": "string"}}})),
            "responses": {"200": {"description": "Command sent"}}}},
        "/me/albums": {"get": {"operationId": "get_users_saved_albums", "parameters": [
            {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 20,
                "minimum": 1, "maximum": 50}},
            {"name": "offset", "in": "query", "schema": {"type": "integer", "default": 0}}],
            "responses": ok("200", json!({"type": "object", "required": ["href", "items",
                "limit", "next", "offset", "previous", "total"], "properties": {
                "href": {"type": "string"}, "limit": {"type": "integer"},
                "next": {"type": "string", "nullable": true}, "offset": {"type": "integer"},
                "previous": {"type": "string", "nullable": true}, "total": {"type": "integer"},
                "items": {"type": "array", "items": {"type": "object", "properties": {
                    "added_at": {"type": "string"}, "album": album}}}}}))}}
    }})
}

fn book() -> Arc<ApiBook> {
    book_of(&spotify())
}

/// Renaming a playlist (`PUT`, "200 Playlist updated", no body documented) answers an
/// empty success, as the live API does, without asking the model to invent a body; never
/// the agent's own arguments (`{"name": "Test"}`, as five stand-ins were shown). A later
/// read shows the new name. Without a model at all it is an empty success too, where it
/// was refused as having nothing to simulate from.
#[tokio::test]
async fn a_change_documenting_no_body_answers_an_empty_success_not_its_arguments() {
    let book = book();
    let (read, rename) = (
        op(&book, "GET", "/playlists/{playlist_id}"),
        op(&book, "PUT", "/playlists/{playlist_id}"),
    );
    let playlist = json!({"id": "p1", "name": "Road trip", "description": "Songs",
        "public": true, "collaborative": false, "snapshot_id": "MTAsZDVm",
        "owner": {"id": "alex", "display_name": "Alex", "type": "user"},
        "tracks": {"href": "", "total": 3}, "type": "playlist", "uri": "spotify:playlist:p1"});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(playlist.to_string()),
        Reply::text(playlist.to_string()),
    ]));
    let sim = filling(&book, &llm);
    let p1 = json!({"playlist_id": "p1"});
    sim.call(&read, &p1).await.unwrap();
    let args = json!({"playlist_id": "p1", "name": "Test"});
    let renamed = sim.call(&rename, &args).await.unwrap();
    assert_eq!(renamed.outcome, Outcome::Ok, "{renamed:?}");
    assert_eq!(
        renamed.body,
        Body::Empty,
        "no arguments shown back: {renamed:?}"
    );
    assert_eq!(
        llm.requests().len(),
        1,
        "no model invents the body of a change"
    );
    let again = sim.call(&read, &p1).await.unwrap();
    assert_eq!(again.body.json().unwrap()["name"], "Test", "{again:?}");

    let plain = Simulator::new(Arc::clone(&book));
    let renamed = plain.call(&rename, &args).await.unwrap();
    assert_eq!(renamed.outcome, Outcome::Ok, "{renamed:?}");
    assert_eq!(renamed.body, Body::Empty);
}

/// A `POST` documenting no body is still asked of the model (a catalog's `POST` is often
/// a read), but a model writing nothing (`{}`) gives an empty success, as a live call of
/// it would, not an empty object.
#[tokio::test]
async fn a_post_the_model_answers_with_nothing_is_an_empty_success() {
    let book = book();
    let queue = op(&book, "POST", "/me/player/queue");
    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
    let sim = filling(&book, &llm);
    let queued = sim
        .call(&queue, &json!({"uri": "spotify:track:t1"}))
        .await
        .unwrap();
    assert_eq!(llm.requests().len(), 1, "the model was asked");
    assert_eq!(queued.outcome, Outcome::Ok, "{queued:?}");
    assert_eq!(queued.body, Body::Empty, "{queued:?}");
}

/// An API documenting a 204 with no body (Spotify's follow, pause and skip) answers an empty
/// success whatever its method, with or without a model: stand-ins were sent its `null`
/// draft to fill, one wasted call per follow, pause or skip (round 24).
#[tokio::test]
async fn an_api_documenting_no_content_answers_empty_without_asking_the_model() {
    let no_content = json!({"204": {"description": "Done"}});
    let book = book_of(
        &json!({"openapi": "3.0.0", "info": {"title": "Player", "version": "1"},
        "servers": [{"url": "https://api.player.example/v1"}],
        "paths": {
            "/me/following": {"put": {"operationId": "follow", "parameters": [
                {"name": "ids", "in": "query", "required": true, "schema": {"type": "string"}}],
                "responses": no_content.clone()}},
            "/me/player/next": {"post": {"operationId": "skip", "responses": no_content}}}}),
    );
    let llm = Arc::new(ScriptedLlm::new(Vec::<Reply>::new()));
    let sim = filling(&book, &llm);
    let plain = Simulator::new(Arc::clone(&book));
    for (method, path, args) in [
        ("PUT", "/me/following", json!({"ids": "a1"})),
        ("POST", "/me/player/next", json!({})),
    ] {
        let api = op(&book, method, path);
        for simulator in [&sim, &plain] {
            let done = simulator.call(&api, &args).await.unwrap();
            assert_eq!(done.outcome, Outcome::Ok, "{method} {path}: {done:?}");
            assert_eq!(done.body, Body::Empty, "{method} {path}: {done:?}");
        }
    }
    assert!(llm.requests().is_empty(), "no model was asked");
}

/// A simulator whose values `llm` fills, with fill prompts of at most `chars` characters.
fn filling_within(book: &Arc<ApiBook>, llm: &Arc<ScriptedLlm>, chars: usize) -> Simulator {
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        max_prompt_chars: chars,
        ..SimulatorSettings::default()
    };
    Simulator::with_settings(Arc::clone(book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(llm.clone())))
}

/// A saved album as a model writes it.
fn saved(id: &str, name: &str) -> Value {
    json!({"added_at": "2025-03-01T10:00:00Z", "album": {"id": id, "name": name,
        "album_type": "album", "artists": [{"id": "ar1", "name": "John Coltrane",
        "type": "artist"}], "images": [{"url": "https://i.example/1", "height": 640,
        "width": 640}], "release_date": "1958-01-01", "total_tracks": 5, "type": "album"}})
}

/// `GET /me/albums?limit=50` drafts fifty deep albums; its fill prompt went over the
/// budget (25,763 characters of 24,000) and the agent got an error. The draft shown is
/// shortened until the prompt the model receives fits, and the page still holds every
/// item it counts: the two the model wrote out (counting fifty), then the draft's own,
/// each id once.
#[tokio::test]
async fn an_over_budget_page_is_shown_shorter_and_still_answers_the_whole_page() {
    let book = book();
    let albums = op(&book, "GET", "/me/albums");
    // Three albums shown make 14,526 characters of prompt, which the guess took to fit.
    let budget = 14_000;
    let written = json!({"href": "", "items": [saved("m1", "Blue Train"),
        saved("m2", "Giant Steps")], "limit": 50, "next": null, "offset": 0,
        "previous": null, "total": 50});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(written.to_string())]));
    let sim = filling_within(&book, &llm, budget);
    let page = sim.call(&albums, &json!({"limit": 50})).await.unwrap();
    assert_eq!(page.outcome, Outcome::Ok, "{page:?}");
    let prompt = llm.requests()[0].last_message().to_owned();
    assert!(prompt.len() <= budget, "{} > {budget}", prompt.len());
    assert!(
        prompt.contains("holds"),
        "the prompt says what was cut: {prompt}"
    );
    let body = page.body.json().unwrap();
    let items = body["items"].as_array().unwrap();
    let total = body["total"].as_u64().unwrap();
    assert!(
        items.len() > 2,
        "completed past the model's two: {}",
        items.len()
    );
    assert_eq!(u64::try_from(items.len()).unwrap(), total.min(50), "{body}");
    assert_eq!(items[0]["album"]["name"], "Blue Train");
    assert_eq!(items[1]["album"]["name"], "Giant Steps");
    let mut ids: Vec<&str> = items
        .iter()
        .map(|i| i["album"]["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), items.len(), "each album once: {ids:?}");

    // A budget smaller than the prompt's own text: refused, nothing sent.
    let llm = Arc::new(ScriptedLlm::new([Reply::text(written.to_string())]));
    let sim = filling_within(&book, &llm, 3_000);
    let refused = sim.call(&albums, &json!({"limit": 50})).await.unwrap();
    assert!(refused.outcome.failure().is_some(), "{refused:?}");
    assert!(llm.requests().is_empty());
}

/// The draft a fill prompt shows (the line after `Draft response:`).
pub(crate) fn drafted(prompt: &str) -> Value {
    let line = prompt
        .split("Draft response:\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .expect("a draft in the prompt");
    serde_json::from_str(line).expect("the draft is JSON")
}

/// A playlist created under `/users/{user_id}/playlists` is that user's (the model made it
/// a stranger's), public as the request says, else as the doc defaults it ("Defaults to
/// `true`"), in the draft the model is shown and in the answer; the name the request gave
/// stays (the response documented is the playlist itself). The user the session knows
/// lends their name too.
#[tokio::test]
async fn a_created_playlist_is_its_users_and_as_public_as_asked_or_documented() {
    let book = book();
    let (me, create) = (
        op(&book, "GET", "/me"),
        op(&book, "POST", "/users/{user_id}/playlists"),
    );
    let stranger = |id: &str, name: &str, public: bool| {
        json!({"id": id, "name": name, "description": "", "public": public,
            "collaborative": true, "snapshot_id": "MTAsZDVm",
            "owner": {"id": "u9", "display_name": "Sam", "type": "user"},
            "tracks": {"href": "", "total": 0}, "type": "playlist"})
    };
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(
            json!({"id": "alex", "display_name": "Alex Rivera", "type": "user"}).to_string(),
        ),
        Reply::text(stranger("n1", "Road", true).to_string()),
        Reply::text(stranger("n2", "Jazz", false).to_string()),
    ]));
    let sim = filling(&book, &llm);
    sim.call(&me, &json!({})).await.unwrap();
    let private = sim
        .call(
            &create,
            &json!({"user_id": "alex", "name": "Road", "public": false}),
        )
        .await
        .unwrap();
    let public = sim
        .call(&create, &json!({"user_id": "alex", "name": "Jazz"}))
        .await
        .unwrap();
    let prompts: Vec<String> = llm
        .requests()
        .iter()
        .map(|r| r.last_message().to_owned())
        .collect();
    for (prompt, public) in [(&prompts[1], false), (&prompts[2], true)] {
        let draft = drafted(prompt);
        assert_eq!(draft["owner"]["id"], "alex", "{draft}");
        assert_eq!(draft["owner"]["display_name"], "Alex Rivera", "{draft}");
        assert_eq!(draft["public"], public, "{draft}");
        assert_eq!(draft["collaborative"], false, "documented default: {draft}");
    }
    for (answer, name, public) in [(&private, "Road", false), (&public, "Jazz", true)] {
        let body = answer.body.json().unwrap();
        assert_eq!(body["name"], name, "{body}");
        assert_eq!(body["owner"]["id"], "alex", "{body}");
        assert_eq!(body["owner"]["display_name"], "Alex Rivera", "{body}");
        assert_eq!(body["public"], public, "{body}");
    }
}
