//! What stand-in models filling the simulator's drafts on Spotify reported (round 22),
//! fixed: a fields filter cuts the draft the model fills, and a count sizes the list it
//! names.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{ApiBook, Executor, Simulator};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::simulate_findings::{drafted, prompts};
use crate::{book_of, filling, op};

/// A small music API in Spotify's shapes, written for these tests: a playlist's tracks as
/// a paging object (every paging field required) whose items hold a full track (album and
/// all) and take a `fields` filter; recommendations holding their seeds beside the tracks
/// a `limit` counts.
fn music() -> Value {
    let album = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "release_date": {"type": "string"},
        "images": {"type": "array", "items": {"type": "object", "properties": {
            "url": {"type": "string"}, "height": {"type": "integer"}}}}}});
    let track = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "uri": {"type": "string"},
        "duration_ms": {"type": "integer"}, "album": album}});
    let seed = json!({"type": "object", "properties": {"id": {"type": "string"},
        "type": {"type": "string"}, "initialPoolSize": {"type": "integer"}}});
    let ok = |schema: Value| {
        json!({"200": {"description": "ok",
        "content": {"application/json": {"schema": schema}}}})
    };
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "servers": [{"url": "https://music.example/v1"}],
        "paths": {
        "/playlists/{playlist_id}/tracks": {"get": {"parameters": [
            {"name": "playlist_id", "in": "path", "required": true,
                "schema": {"type": "string"}},
            {"name": "fields", "in": "query", "schema": {"type": "string"}, "description":
                "Filters for the query: a comma-separated list of the fields to return."},
            {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 20}},
            {"name": "offset", "in": "query", "schema": {"type": "integer", "default": 0}}],
            "responses": ok(json!({"type": "object", "required": ["href", "items", "limit",
                "next", "offset", "previous", "total"], "properties": {
                "href": {"type": "string"}, "limit": {"type": "integer"},
                "next": {"type": "string", "nullable": true},
                "offset": {"type": "integer"},
                "previous": {"type": "string", "nullable": true},
                "total": {"type": "integer"},
                "items": {"type": "array", "items": {"type": "object", "properties": {
                    "added_at": {"type": "string"}, "track": track.clone()}}}}}))}},
        "/recommendations": {"get": {"parameters": [
            {"name": "seed_artists", "in": "query", "schema": {"type": "string"}},
            {"name": "limit", "in": "query", "schema": {"type": "integer", "default": 20},
                "description": "The target size of the list of recommended tracks. For \
                seeds with small pools it may be impossible to reach it."}],
            "responses": ok(json!({"type": "object", "required": ["seeds", "tracks"],
                "properties": {
                "seeds": {"type": "array", "items": seed},
                "tracks": {"type": "array", "items": track}}}))}}
    }})
}

fn book() -> Arc<ApiBook> {
    book_of(&music())
}

/// Spotify's playlist tracks read with `fields=total,next,items(track(name,uri))` drafted
/// whole tracks with their albums, which the filter then cut from the answer: the model
/// filled detail for nothing in a long prompt. The draft it is shown now holds only the
/// selected fields, and the answer, the model's values completed where the schema
/// requires, still obeys the filter.
#[tokio::test]
async fn a_fields_filter_cuts_the_draft_the_model_fills() {
    let book = book();
    let tracks = op(&book, "GET", "/playlists/{playlist_id}/tracks");
    let filled = json!({"total": 2, "next": null, "items": [
        {"track": {"name": "Mojito", "uri": "spotify:track:a1"}},
        {"track": {"name": "Nanana", "uri": "spotify:track:a2"}}]});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(filled.to_string())]));
    let sim = filling(&book, &llm);
    let args = json!({"playlist_id": "p1", "limit": 2,
        "fields": "total,next,items(track(name,uri))"});
    let got = sim.call(&tracks, &args).await.unwrap();

    let prompts = prompts(&llm);
    let [prompt] = prompts.as_slice() else {
        panic!("one fill: {prompts:?}")
    };
    let draft = drafted(prompt);
    let mut keys: Vec<&String> = draft.as_object().expect("an object").keys().collect();
    keys.sort();
    assert_eq!(keys, ["items", "next", "total"], "{draft}");
    let items = draft["items"].as_array().expect("a list of items");
    assert!(!items.is_empty(), "{draft}");
    for item in items {
        let track = item["track"].as_object().expect("a track");
        let mut keys: Vec<&String> = track.keys().collect();
        keys.sort();
        assert_eq!(keys, ["name", "uri"], "{draft}");
    }
    assert!(!draft.to_string().contains("album"), "{draft}");

    let body = got.body.json().expect("a JSON answer");
    assert_eq!(
        body,
        &json!({"total": 2, "next": null, "items": [
            {"track": {"name": "Mojito", "uri": "spotify:track:a1"}},
            {"track": {"name": "Nanana", "uri": "spotify:track:a2"}}]}),
        "the model's values, cut to the filter"
    );
}

/// Spotify's recommendations (`{seeds, tracks}`, `limit` "the target size of the list of
/// recommended tracks") were drafted with 10 seeds and 4 tracks: the count sized the
/// first list. It sizes the list its description names.
#[test]
fn a_count_sizes_the_list_its_description_names() {
    let book = book();
    let recommendations = op(&book, "GET", "/recommendations");
    let sim = Simulator::new(Arc::clone(&book));
    let entry = book.get(&recommendations).unwrap();
    for artist in [
        "4NHQUGzhtTLFvgF5SZesLK",
        "0TnOYISbd1XYRBk9myaseg",
        "3TVXtAsR1Inumwj472S9r4",
    ] {
        let args = json!({"seed_artists": artist, "limit": 10});
        let draft = sim.synthesize(entry, &args).expect("a draft");
        let tracks = draft["tracks"].as_array().expect("tracks");
        let seeds = draft["seeds"].as_array().expect("seeds");
        assert_eq!(tracks.len(), 10, "{draft}");
        assert!(
            seeds.len() <= 5,
            "seeds sized by the count: {}",
            seeds.len()
        );
    }
}
