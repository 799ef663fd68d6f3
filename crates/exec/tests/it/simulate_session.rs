//! One session, one world (issue 27): the account's owner is one user, whichever of
//! their profile and their own things the session shows first.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Simulator};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op};

/// A `200` response of `schema`.
fn ok(schema: Value) -> Value {
    json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}})
}

/// A Spotify-shaped music API written for these tests: the current user's profile, their
/// playlists (each with an `owner`), and any user's profile.
fn music_spec() -> Value {
    let user = json!({"type": "object", "properties": {"id": {"type": "string"},
        "display_name": {"type": "string"}, "uri": {"type": "string"},
        "href": {"type": "string"}, "type": {"type": "string"}}});
    let playlist = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "owner": user}});
    let page = json!({"type": "object", "properties": {"href": {"type": "string"},
        "items": {"type": "array", "items": playlist}, "limit": {"type": "integer"},
        "next": {"type": "string", "nullable": true}, "offset": {"type": "integer"},
        "total": {"type": "integer"}}});
    let query = |name: &str| json!({"name": name, "in": "query", "schema": {"type": "integer"}});
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "servers": [{"url": "https://api.music.example/v1"}],
        "paths": {
            "/me": {"get": {"summary": "Get Current User's Profile", "responses": ok(user.clone())}},
            "/me/playlists": {"get": {"summary": "Get Current User's Playlists",
                "parameters": [query("limit"), query("offset")], "responses": ok(page)}},
            "/users/{user_id}": {"get": {"summary": "Get User's Profile",
                "parameters": [{"name": "user_id", "in": "path", "required": true,
                    "schema": {"type": "string"}}],
                "responses": ok(user)}}}})
}

/// The owners of the playlists of a `/me/playlists` page.
fn owners(page: &Value) -> Vec<Value> {
    let items = page["items"].as_array().unwrap();
    assert!(!items.is_empty(), "{page:#}");
    items.iter().map(|p| p["owner"].clone()).collect()
}

/// Asserts that every owner is the user `me` (id, name and links).
fn all_owned_by(owners: &[Value], me: &Value) {
    let id = me["id"].as_str().unwrap();
    for owner in owners {
        assert_eq!(owner["id"], me["id"], "{owner:#} is not {me:#}");
        assert_eq!(owner["display_name"], me["display_name"], "{owner:#}");
        assert!(owner["uri"].as_str().unwrap().contains(id), "{owner:#}");
    }
}

/// The user's playlists shown first fix who the user is: the profile read next is
/// their owner.
#[tokio::test]
async fn the_profile_is_the_owner_of_the_playlists_shown_before() {
    let book = book_of(&music_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let playlists = sim
        .call(&op(&book, "GET", "/me/playlists"), &json!({"limit": 5}))
        .await
        .unwrap();
    let owners = owners(playlists.body.json().unwrap());
    let me = sim
        .call(&op(&book, "GET", "/me"), &json!({}))
        .await
        .unwrap();
    let me = me.body.json().unwrap();
    all_owned_by(&owners, me);
}

/// The profile shown first fixes who the user is: their playlists read next are theirs;
/// another user's profile is that user's.
#[tokio::test]
async fn the_playlists_read_after_the_profile_are_owned_by_it() {
    let book = book_of(&music_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let me = sim
        .call(&op(&book, "GET", "/me"), &json!({}))
        .await
        .unwrap();
    let me = me.body.json().unwrap().clone();
    let playlists = sim
        .call(&op(&book, "GET", "/me/playlists"), &json!({"limit": 5}))
        .await
        .unwrap();
    all_owned_by(&owners(playlists.body.json().unwrap()), &me);
    let other = sim
        .call(
            &op(&book, "GET", "/users/{user_id}"),
            &json!({"user_id": "zed"}),
        )
        .await
        .unwrap();
    assert_eq!(other.body.json().unwrap()["id"], "zed");
}

/// With a model filling the values: the owner it gave the playlists is told to the
/// profile's fill, and the profile keeps that user whatever the model writes.
#[tokio::test]
async fn a_filled_profile_agrees_with_the_owner_the_model_gave_the_playlists() {
    let book = book_of(&music_spec());
    let owner = json!({"id": "jdoe", "display_name": "Jo Doe",
        "uri": "spotify:user:jdoe", "href": "https://api.music.example/v1/users/jdoe",
        "type": "user"});
    let page = json!({"href": "x", "limit": 2, "offset": 0, "next": null, "total": 2,
        "items": [{"id": "p1", "name": "Road trip", "owner": owner},
                  {"id": "p2", "name": "Focus", "owner": owner}]});
    let stranger = json!({"id": "u999", "display_name": "Someone Else",
        "uri": "spotify:user:u999", "href": "https://api.music.example/v1/users/u999",
        "type": "user"});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(page.to_string()),
        Reply::text(stranger.to_string()),
    ]));
    let sim = filling(&book, &llm);
    sim.call(&op(&book, "GET", "/me/playlists"), &json!({"limit": 2}))
        .await
        .unwrap();
    let me = sim
        .call(&op(&book, "GET", "/me"), &json!({}))
        .await
        .unwrap();
    let me = me.body.json().unwrap();
    assert_eq!(
        (&me["id"], &me["display_name"]),
        (&json!("jdoe"), &json!("Jo Doe")),
        "{me:#}"
    );
    assert_eq!(me["uri"], "spotify:user:jdoe", "{me:#}");
    let asked = llm.requests()[1].messages[0].text().to_owned();
    assert!(
        asked.contains(r#"{"current_user":{"display_name":"Jo Doe","id":"jdoe"}}"#),
        "{asked}"
    );
    assert!(
        asked.contains(r#""id":"jdoe""#),
        "the draft carries the user: {asked}"
    );
}
