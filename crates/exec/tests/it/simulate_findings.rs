//! What stand-in models filling the simulator on TMDB and Spotify reported (round 21),
//! fixed.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{ApiBook, Executor};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op};

/// A small music API in Spotify's shapes (paging objects composed with `allOf`, a search
/// answering a page per asked type, the user's own lists under `/me`), written for these
/// tests.
fn music() -> Value {
    let paging = json!({"type": "object", "required": ["href", "items", "limit", "next",
        "offset", "previous", "total"], "properties": {
        "href": {"type": "string"}, "limit": {"type": "integer"},
        "next": {"type": "string", "nullable": true}, "offset": {"type": "integer"},
        "previous": {"type": "string", "nullable": true}, "total": {"type": "integer"}}});
    let page_of = |item: Value| {
        json!({"allOf": [{"$ref": "#/components/schemas/Paging"},
        {"type": "object", "properties": {"items": {"type": "array", "items": item}}}]})
    };
    let album = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "release_date": {"type": "string"},
        "total_tracks": {"type": "integer"}}});
    let artist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}}});
    let track = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "duration_ms": {"type": "integer"}}});
    let ok = |schema: Value| {
        json!({"200": {"description": "ok",
        "content": {"application/json": {"schema": schema}}}})
    };
    let limit = json!({"name": "limit", "in": "query", "schema": {"type": "integer",
        "default": 20, "minimum": 0, "maximum": 50}});
    let offset = json!({"name": "offset", "in": "query", "schema": {"type": "integer",
        "default": 0}});
    let path_id = |name: &str| {
        json!({"name": name, "in": "path", "required": true,
        "schema": {"type": "string"}})
    };
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "servers": [{"url": "https://music.example/v1"}],
        "components": {"schemas": {"Paging": paging}},
        "paths": {
        "/search": {"get": {"parameters": [
            {"name": "q", "in": "query", "required": "true", "schema": {"type": "string"}},
            {"name": "type", "in": "query", "required": "true", "explode": "false",
                "schema": {"type": "array", "items": {"type": "string",
                "enum": ["album", "artist", "track"]}}},
            limit.clone(), offset.clone()],
            "responses": ok(json!({"type": "object", "properties": {
                "albums": page_of(album.clone()), "artists": page_of(artist.clone()),
                "tracks": page_of(track.clone())}}))}},
        "/me/albums": {"get": {"parameters": [limit.clone(), offset.clone()],
            "responses": ok(page_of(json!({"type": "object", "properties": {
                "added_at": {"type": "string"}, "album": album.clone()}})))}},
        "/playlists/{playlist_id}/tracks": {"get": {
            "parameters": [path_id("playlist_id"), limit.clone(), offset.clone()],
            "responses": ok(page_of(json!({"type": "object", "properties": {
                "added_at": {"type": "string"}, "track": track.clone()}})))}},
        "/browse/new-releases": {"get": {"parameters": [limit, offset],
            "responses": ok(json!({"type": "object", "properties": {
                "albums": page_of(album)}}))}}
    }})
}

fn book() -> Arc<ApiBook> {
    book_of(&music())
}

/// The text of every request the model received.
fn prompts(llm: &ScriptedLlm) -> Vec<String> {
    llm.requests().iter().map(|r| format!("{r:?}")).collect()
}

/// The paging numbers of the pages (`albums`, `tracks`) in the draft a fill prompt shows.
fn drafted_totals(prompt: &str) -> Vec<u64> {
    let draft = prompt
        .split("Draft response:\\n")
        .nth(1)
        .and_then(|rest| rest.split("\\n").next())
        .expect("a draft in the prompt")
        .replace("\\\"", "\"");
    let draft: Value = serde_json::from_str(&draft).expect("the draft is JSON");
    let pages = draft.as_object().expect("an object");
    pages.values().filter_map(|p| p["total"].as_u64()).collect()
}

/// A search by name drafts a few pages' worth of results, not thousands: the model filling
/// it saw 9,168 albums for "Mojito". Spotify writes its search's `q` as `"required": "true"`,
/// which the importer read as optional, so the search was taken for a catalog-wide list.
#[tokio::test]
async fn a_search_by_name_is_drafted_with_a_few_pages_of_results() {
    let book = book();
    let search = op(&book, "GET", "/search");
    let llm = Arc::new(ScriptedLlm::new(
        (0..6).map(|_| Reply::text("{}")).collect::<Vec<_>>(),
    ));
    let sim = filling(&book, &llm);
    for q in [
        "Mojito",
        "Maroon 5",
        "Miles Davis",
        "Bohemian Rhapsody",
        "Abbey Road",
        "Doxy",
    ] {
        let args = json!({"q": q, "type": ["album", "artist"]});
        sim.call(&search, &args).await.unwrap();
    }
    let prompts = prompts(&llm);
    assert_eq!(prompts.len(), 6);
    for prompt in &prompts {
        let totals = drafted_totals(prompt);
        assert_eq!(totals.len(), 2, "{prompt}");
        assert!(totals.iter().all(|t| *t <= 60), "{totals:?}");
    }
}
