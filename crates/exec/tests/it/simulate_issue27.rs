//! What stand-in models reported of the simulator's answers (issue 27), fixed:
//! a cursor-paged list is linked by its cursor, an API without a response schema
//! keeps one shape, a list as long as the facts make it, a record deleted (or an
//! id no record has) is not found, and a resource just created is empty.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Simulator};

use crate::{book_of, op};

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
            let after = page["cursors"]["after"].as_str().unwrap().replace(' ', "+");
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
