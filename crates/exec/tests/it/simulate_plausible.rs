//! What stand-in models filling the simulator's drafts on Spotify reported, fixed: drafted
//! numbers, times and counts a world could have. A track's length keeps the magnitude its
//! examples show and its place on an album is small, the user's own saves are recent, and
//! a playlist just made has no followers and no tracks, and each film has an IMDb id of its
//! own. The specs are written for these tests; their values are made up.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Simulator, SimulatorSettings};

use crate::{book_of, op};

/// An OpenAPI document of `paths`.
fn spec(paths: Value) -> Value {
    json!({"openapi": "3.0.0", "info": {"title": "Tunes", "version": "1"},
        "servers": [{"url": "https://tunes.example/v1"}], "paths": paths})
}

/// A `GET` answering `schema` (with `example`, when given), its path parameters strings.
fn get(params: &[&str], schema: &Value, example: Option<Value>) -> Value {
    let parameters: Vec<Value> = params
        .iter()
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    let mut content = json!({"schema": schema});
    if let Some(example) = example {
        content["example"] = example;
    }
    json!({"get": {"parameters": parameters,
        "responses": {"200": {"description": "ok", "content": {"application/json": content}}}}})
}

/// A page of `item`s.
fn page_of(item: &Value) -> Value {
    json!({"type": "object", "properties": {"href": {"type": "string"},
        "items": {"type": "array", "items": item}, "limit": {"type": "integer"},
        "offset": {"type": "integer"}, "total": {"type": "integer"},
        "next": {"type": "string", "nullable": true}}})
}

/// A track as an album lists it: no examples of its own.
fn simplified_track() -> Value {
    json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "duration_ms": {"type": "integer"},
        "track_number": {"type": "integer"}, "disc_number": {"type": "integer"}}})
}

/// The example track's length, as the track endpoint's schema gives it.
const EXAMPLE_DURATION: i64 = 207_959;

/// A track in full, its schema's properties with examples (as Spotify's spec gives them).
fn detail_track() -> Value {
    json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string", "example": "Lanterns on the Water"},
        "duration_ms": {"type": "integer", "example": EXAMPLE_DURATION},
        "track_number": {"type": "integer", "example": 3},
        "disc_number": {"type": "integer", "example": 1}}})
}

/// A track's detail (with examples) and an album's tracks (with none of their own).
fn tracks_spec() -> Value {
    spec(json!({
        "/tracks/{id}": get(&["id"], &detail_track(), None),
        "/albums/{id}/tracks": get(&["id"], &page_of(&simplified_track()), None),
    }))
}

/// Drafted tracks had `duration_ms` 1-848 (milliseconds), `track_number` 60-994 and
/// `disc_number` 10-958 (stand-ins a1-a5). A number drawn for a field the tool's examples
/// give keeps their magnitude, and a place in an order with no example is small.
#[tokio::test]
async fn a_tracks_length_keeps_its_examples_magnitude_and_its_place_is_small() {
    let book = book_of(&tracks_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let tracks = op(&book, "GET", "/albums/{id}/tracks");
    let mut durations = Vec::new();
    for album in 0..12 {
        let args = json!({"id": format!("4aawyAB9vmqN3uQ7FjRGT{album}"), "limit": 5});
        let got = sim.call(&tracks, &args).await.unwrap();
        let body = got.body.json().unwrap();
        for track in body["items"].as_array().expect("items") {
            let duration = track["duration_ms"].as_i64().expect("duration");
            assert!(
                (EXAMPLE_DURATION / 3..=EXAMPLE_DURATION * 3).contains(&duration),
                "{track}"
            );
            durations.push(duration);
            for key in ["track_number", "disc_number"] {
                let place = track[key].as_i64().expect(key);
                assert!((1..=20).contains(&place), "{key}: {track}");
            }
        }
    }
    assert!(durations.len() >= 12, "{durations:?}");
}

/// A saved track, as the user's library lists it.
fn saved_spec() -> Value {
    let saved = json!({"type": "object", "properties": {
        "added_at": {"type": "string", "format": "date-time"},
        "track": simplified_track()}});
    spec(json!({"/me/tracks": get(&[], &page_of(&saved), None)}))
}

/// Saved tracks were `added_at` 1979-1993: the time of something the user did falls in the
/// two years before the simulated world's today.
#[tokio::test]
async fn the_users_saves_are_recent() {
    let book = book_of(&saved_spec());
    let today = jiff::civil::date(2026, 11, 30);
    let settings = SimulatorSettings {
        today: Some(today),
        ..SimulatorSettings::default()
    };
    let sim = Simulator::with_settings(Arc::clone(&book), &settings);
    let saved = op(&book, "GET", "/me/tracks");
    let earliest = jiff::civil::date(2024, 11, 30);
    let mut seen = 0;
    for offset in [0, 20, 40] {
        let args = json!({"limit": 20, "offset": offset});
        let got = sim.call(&saved, &args).await.unwrap();
        let body = got.body.json().unwrap();
        for item in body["items"].as_array().expect("items") {
            let at = item["added_at"].as_str().expect("added_at");
            let day: jiff::civil::Date = at.get(..10).unwrap().parse().unwrap();
            assert!(earliest <= day && day <= today, "{at}");
            assert!(at.contains('T'), "{at}");
            seen += 1;
        }
    }
    assert!(seen > 0);
}

/// A playlist, with its followers and its tracks counted but not listed.
fn playlist() -> Value {
    let count = json!({"type": "object", "properties": {"href": {"type": "string"},
        "total": {"type": "integer"}}});
    json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "public": {"type": "boolean"},
        "followers": count, "tracks": count}})
}

/// Playlists made by `POST /users/{user_id}/playlists` and read by id.
fn playlists_spec() -> Value {
    let create = json!({"post": {
        "parameters": [{"name": "user_id", "in": "path", "required": true,
            "schema": {"type": "string"}}],
        "requestBody": {"content": {"application/json": {"schema": {"type": "object",
            "properties": {"name": {"type": "string"}}}}}},
        "responses": {"201": {"description": "created",
            "content": {"application/json": {"schema": playlist()}}}}}});
    spec(json!({
        "/users/{user_id}/playlists": create,
        "/playlists/{playlist_id}": get(&["playlist_id"], &playlist(), None),
    }))
}

/// A playlist just made had 255-4,708 followers and tracks: a created thing counts nothing
/// the request did not give it.
#[tokio::test]
async fn a_playlist_just_made_has_no_followers_and_no_tracks() {
    let book = book_of(&playlists_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let create = op(&book, "POST", "/users/{user_id}/playlists");
    for name in ["Road trip", "Rainy Sunday", "Focus"] {
        let args = json!({"user_id": "smedjan", "name": name});
        let got = sim.call(&create, &args).await.unwrap();
        let body = got.body.json().unwrap();
        assert_eq!(body["name"], name, "{body}");
        assert_eq!(body["followers"]["total"], 0, "{body}");
        assert_eq!(body["tracks"]["total"], 0, "{body}");
    }
}

/// A film whose `imdb_id` has a pattern (as TMDB's spec gives it), one of whose examples
/// is the film 550.
fn films_spec() -> Value {
    let film = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "title": {"type": "string"}, "imdb_id": {"type": "string", "nullable": true,
            "minLength": 9, "maxLength": 9, "pattern": "^tt[0-9]{7}"}}});
    let example = json!({"id": 550, "title": "The Night Orchard", "imdb_id": "tt0137523"});
    let parameters = json!([{"name": "movie_id", "in": "path", "required": true,
        "schema": {"type": "integer"}}]);
    let ok = json!({"200": {"description": "ok", "content": {"application/json":
        {"schema": film, "example": example}}}});
    spec(json!({"/movie/{movie_id}": {"get": {"parameters": parameters, "responses": ok}}}))
}

/// Every film drafted had the example's `imdb_id` `tt0137523` (stand-in a2): an id of
/// another registry is each film's own, in the example's shape, and the same film keeps it.
#[tokio::test]
async fn each_film_has_an_imdb_id_of_its_own() {
    let book = book_of(&films_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let film = op(&book, "GET", "/movie/{movie_id}");
    let mut seen = std::collections::HashSet::new();
    for movie_id in 1..=8 {
        let args = json!({"movie_id": movie_id});
        let got = sim.call(&film, &args).await.unwrap();
        let imdb = got.body.json().unwrap()["imdb_id"].clone();
        let text = imdb.as_str().expect("imdb id");
        let digits = text.strip_prefix("tt").unwrap_or_default();
        assert!(
            digits.len() == 7 && digits.bytes().all(|b| b.is_ascii_digit()),
            "{text}"
        );
        assert_ne!(text, "tt0137523");
        seen.insert(text.to_owned());
        let again = sim.call(&film, &args).await.unwrap();
        assert_eq!(
            again.body.json().unwrap()["imdb_id"],
            imdb,
            "one film, one id"
        );
    }
    assert_eq!(seen.len(), 8, "{seen:?}");
}
