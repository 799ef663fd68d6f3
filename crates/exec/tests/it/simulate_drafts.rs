//! The schema-only draft (what the simulator answers without a model, and what a filling
//! model starts from) has no placeholder defects a reader would trip on: no example ends
//! in a stray line break, an entity's fields that name its id name its own, a `uri` is
//! never plain words, and a value a description bounds stays within it.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{ApiBook, Executor, Simulator};

/// A saved-albums page in Spotify's shapes, written for this test; the examples are as
/// Spotify's OpenAPI description has them (a YAML block scalar's trailing line break).
fn spec() -> Value {
    let image = json!({"type": "object", "properties": {
        "url": {"type": "string", "example": "https://img.example/ab67616d00001e02ff\n"},
        "height": {"type": "integer"}, "width": {"type": "integer"}}});
    let artist = json!({"type": "object", "properties": {
        "id": {"type": "string"}, "name": {"type": "string"},
        "type": {"type": "string", "enum": ["artist"]}, "uri": {"type": "string"},
        "href": {"type": "string"}}});
    let album = json!({"type": "object", "properties": {
        "id": {"type": "string", "example": "2up3OPMp9Tb4dAKM2erWXQ"},
        "name": {"type": "string"},
        "type": {"type": "string", "enum": ["album"]},
        "uri": {"type": "string", "example": "spotify:album:2up3OPMp9Tb4dAKM2erWXQ"},
        "popularity": {"type": "integer", "description":
            "The popularity of the album. The value will be between 0 and 100, with 100 being the most popular."},
        "images": {"type": "array", "items": image},
        "artists": {"type": "array", "items": artist}}});
    let page = json!({"type": "object", "properties": {
        "href": {"type": "string",
            "example": "https://api.example/v1/me/shows?offset=0&limit=20\n"},
        "limit": {"type": "integer"}, "offset": {"type": "integer"},
        "total": {"type": "integer"},
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "added_at": {"type": "string", "format": "date-time"}, "album": album}}}}});
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"}, "paths": {
        "/me/albums": {"get": {"parameters": [
            {"name": "limit", "in": "query", "schema": {"type": "integer"}}],
            "responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": page}}}}}}}})
}

fn book() -> Arc<ApiBook> {
    crate::book_of(&spec())
}

/// Every string of `value`, at any depth, with the key it sits under.
fn strings<'a>(value: &'a Value, key: &'a str, out: &mut Vec<(&'a str, &'a str)>) {
    match value {
        Value::String(s) => out.push((key, s)),
        Value::Array(items) => items.iter().for_each(|v| strings(v, key, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| strings(v, k, out)),
        _ => {}
    }
}

#[tokio::test]
async fn a_schema_only_page_has_no_placeholder_defects() {
    let book = book();
    let api = book.ids().next().unwrap().clone();
    let sim = Simulator::new(Arc::clone(&book));
    let got = sim.call(&api, &json!({"limit": 5})).await.unwrap();
    let body = got.body.json().unwrap();
    let items = body["items"].as_array().unwrap();
    assert!(items.len() >= 2, "{body}");

    let mut all = Vec::new();
    strings(body, "", &mut all);
    for (key, text) in &all {
        assert_eq!(
            text.trim_end(),
            *text,
            "{key} ends in white space: {text:?}"
        );
    }
    let mut uris = std::collections::BTreeSet::new();
    for item in items {
        let album = &item["album"];
        let id = album["id"].as_str().unwrap();
        assert_eq!(album["uri"], format!("spotify:album:{id}"), "{album}");
        uris.insert(album["uri"].as_str().unwrap());
        let popularity = album["popularity"].as_i64().unwrap();
        assert!((0..=100).contains(&popularity), "{album}");
        for artist in album["artists"].as_array().unwrap() {
            let (id, uri) = (
                artist["id"].as_str().unwrap(),
                artist["uri"].as_str().unwrap(),
            );
            assert!(uri.contains(':') && uri.ends_with(id), "{artist}");
            assert!(
                artist["href"].as_str().unwrap().starts_with("https://"),
                "{artist}"
            );
        }
    }
    assert_eq!(uris.len(), items.len(), "every album its own uri: {body}");
}
