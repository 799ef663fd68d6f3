//! What stand-in models reported reading the simulator's answers (issue 27),
//! fixed: a write keeps a release number in a `version` field; only an argument
//! counting list items sizes a list, a cap at most; a session recalls a record
//! only by an id-like argument of its kind and tool; a paging object links the
//! called URL and its numbers agree with the call and its items; a sample or
//! placeholder default is not filled into a call.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_catalog::ApiId;
use toolsmith_exec::{Executor, Simulator};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, book_of_all, filling, op};

/// A JSON response of `schema`.
fn ok(schema: Value) -> Value {
    json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}})
}

/// A required path parameter.
fn in_path(name: &str) -> Value {
    json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}})
}

/// A package registry whose gems hold the release they ship (`version`) beside the
/// gem's own revision token and etag, and a chart service whose chart names the
/// library version it draws with (documented `0.6`).
fn versions_spec() -> Value {
    let gem = json!({"type": "object", "properties": {"name": {"type": "string"},
        "version": {"type": "string"}, "revision": {"type": "string"},
        "etag": {"type": "string"}}});
    let chart = json!({"type": "object", "properties": {"id": {"type": "string"},
        "title": {"type": "string"}, "version": {"type": "string", "example": "0.6"}}});
    let body = json!({"content": {"application/json": {"schema": {"type": "object",
        "properties": {"version": {"type": "string"}}}}}});
    json!({"openapi": "3.0.0", "info": {"title": "Gems", "version": "1"}, "paths": {
        "/gems/{name}": {
            "get": {"parameters": [in_path("name")], "responses": ok(gem.clone())},
            "put": {"parameters": [in_path("name")], "requestBody": body,
                "responses": ok(gem)}},
        "/charts/{chart_id}": {
            "get": {"parameters": [in_path("chart_id")], "responses": ok(chart.clone())},
            "patch": {"parameters": [in_path("chart_id")], "responses": ok(chart)}}
    }})
}

/// A write answered with the gem's `version: 3.3.0` as the read showed it keeps it: the
/// release is no token of the gem's state. Its `revision` token and `etag` are renewed.
#[tokio::test]
async fn a_write_keeps_a_release_number_and_renews_the_tokens() {
    let book = book_of(&versions_spec());
    let read = op(&book, "GET", "/gems/{name}");
    let write = op(&book, "PUT", "/gems/{name}");
    let gem = json!({"name": "rails", "version": "3.3.0", "revision": "9f8e7d6c5b4a",
        "etag": "W/\"a41f\""});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(gem.to_string()),
        Reply::text(gem.to_string()),
    ]));
    let sim = filling(&book, &llm);
    sim.call(&read, &json!({"name": "rails"})).await.unwrap();
    let put = sim.call(&write, &json!({"name": "rails"})).await.unwrap();
    let body = put.body.json().unwrap();
    assert_eq!(body["version"], "3.3.0", "{body}");
    assert_ne!(body["revision"], gem["revision"], "{body}");
    assert_ne!(body["etag"], gem["etag"], "{body}");
}

/// A version the write's own arguments name is what the write set: kept, though it looks
/// like a token.
#[tokio::test]
async fn a_write_keeps_the_version_its_arguments_name() {
    let book = book_of(&versions_spec());
    let read = op(&book, "GET", "/gems/{name}");
    let write = op(&book, "PUT", "/gems/{name}");
    let gem = json!({"name": "rails", "version": "build42"});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(gem.to_string()),
        Reply::text(gem.to_string()),
    ]));
    let sim = filling(&book, &llm);
    sim.call(&read, &json!({"name": "rails"})).await.unwrap();
    let args = json!({"name": "rails", "version": "build42"});
    let put = sim.call(&write, &args).await.unwrap();
    assert_eq!(put.body.json().unwrap()["version"], "build42");
}

/// Without a model: the chart's documented library version `0.6` reads the same after a
/// write to the chart (it once came back as `8.5`).
#[tokio::test]
async fn a_documented_release_survives_a_write() {
    let book = book_of(&versions_spec());
    let read = op(&book, "GET", "/charts/{chart_id}");
    let write = op(&book, "PATCH", "/charts/{chart_id}");
    let sim = Simulator::new(Arc::clone(&book));
    let args = json!({"chart_id": "c1"});
    let before = sim.call(&read, &args).await.unwrap();
    assert_eq!(before.body.json().unwrap()["version"], "0.6");
    let after = sim.call(&write, &args).await.unwrap();
    assert_eq!(after.body.json().unwrap()["version"], "0.6");
}

/// A JSON response of `schema` with one recorded `example`.
fn ok_with(schema: Value, example: Value) -> Value {
    json!({"200": {"description": "ok", "content": {"application/json": {
        "schema": schema, "example": example}}}})
}

/// An integer query parameter described as `description`.
fn number(name: &str, description: &str) -> Value {
    json!({"name": name, "in": "query", "description": description,
        "schema": {"type": "integer"}})
}

/// A QR-code API whose `size` is the image's width in pixels, a countdown whose
/// `count` is in seconds, an earthquake feed whose `limit` is only a cap (its example
/// shows three events), a paged list of the user's shows under a capping `limit`, and
/// a feed whose `cnt` asks for exactly that many.
fn counts_spec() -> Value {
    let quake = json!({"type": "object", "properties": {"id": {"type": "string"},
        "magnitude": {"type": "number"}}});
    let quakes = json!({"type": "object", "properties": {
        "items": {"type": "array", "items": quake}}});
    let three = json!({"items": [{"id": "q1", "magnitude": 4.1},
        {"id": "q2", "magnitude": 2.7}, {"id": "q3", "magnitude": 5.0}]});
    let show = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}}});
    let page = json!({"type": "object", "properties": {"href": {"type": "string"},
        "limit": {"type": "integer"}, "offset": {"type": "integer"},
        "total": {"type": "integer"}, "items": {"type": "array", "items": show}}});
    let two = json!({"href": "h", "limit": 20, "offset": 0, "total": 2,
        "items": [{"id": "s1", "name": "Daily"}, {"id": "s2", "name": "Weekly"}]});
    let cap = "The maximum number of items to return.";
    json!({"openapi": "3.0.0", "info": {"title": "Feeds", "version": "1"}, "paths": {
        "/qr": {"get": {"parameters": [
                {"name": "data", "in": "query", "schema": {"type": "string"}},
                number("size", "Width and height of the image, in pixels.")],
            "responses": ok(json!({"type": "object", "properties": {
                "image_url": {"type": "string"}, "formats": {"type": "array",
                    "items": {"type": "object", "properties": {
                        "type": {"type": "string"}}}}}}))}},
        "/countdown": {"get": {"parameters": [number("count", "How long to count down, in seconds.")],
            "responses": ok(json!({"type": "object", "properties": {"ticks": {"type": "array",
                "items": {"type": "object", "properties": {"at": {"type": "integer"}}}}}}))}},
        "/quakes": {"get": {"parameters": [number("limit", cap)],
            "responses": ok_with(quakes.clone(), three.clone())}},
        "/quakes/latest": {"get": {"parameters": [number("cnt", "Number of events.")],
            "responses": ok_with(quakes, three)}},
        "/me/shows": {"get": {"parameters": [number("limit", cap),
                number("offset", "The index of the first item to return.")],
            "responses": ok_with(page, two)}}
    }})
}

/// The length of the list under `key` of a simulated answer.
async fn list_len(sim: &Simulator, api: &ApiId, args: Value, key: &str) -> usize {
    let got = sim.call(api, &args).await.unwrap();
    let body = got.body.json().unwrap();
    body[key]
        .as_array()
        .unwrap_or_else(|| panic!("no list `{key}`: {body}"))
        .len()
}

/// A measure is no count: a QR code of 300 pixels and a countdown of 30 seconds answer
/// lists of the usual length (1 to 5), not of 300 or 30 items.
#[tokio::test]
async fn a_measure_does_not_size_the_list() {
    let book = book_of(&counts_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let qr = op(&book, "GET", "/qr");
    let formats = list_len(&sim, &qr, json!({"data": "hi", "size": 300}), "formats").await;
    assert!((1..=5).contains(&formats), "{formats} formats");
    let countdown = op(&book, "GET", "/countdown");
    let ticks = list_len(&sim, &countdown, json!({"count": 30}), "ticks").await;
    assert!((1..=5).contains(&ticks), "{ticks} ticks");
}

/// A `limit` that is only a cap, over a list the examples show three of, answers about
/// that many (never more than the cap, the same on every run); a `cnt` asking for 40
/// gets 40 whatever the examples show.
#[tokio::test]
async fn a_cap_answers_at_most_it_and_a_count_exactly_it() {
    let book = book_of(&counts_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let quakes = op(&book, "GET", "/quakes");
    let capped = list_len(&sim, &quakes, json!({"limit": 100}), "items").await;
    assert!((3..=5).contains(&capped), "{capped} events");
    let again = Simulator::new(Arc::clone(&book));
    assert_eq!(
        list_len(&again, &quakes, json!({"limit": 100}), "items").await,
        capped
    );
    let small = list_len(&sim, &quakes, json!({"limit": 2}), "items").await;
    assert_eq!(small, 2, "a cap below the examples' count is met");
    let latest = op(&book, "GET", "/quakes/latest");
    assert_eq!(
        list_len(&sim, &latest, json!({"cnt": 40}), "items").await,
        40
    );
}

/// A paged list under a capping `limit` that holds fewer items is the last page: its
/// `total` is the offset plus the items shown, its `limit` the one asked.
#[tokio::test]
async fn a_page_short_of_its_cap_is_the_last() {
    let book = book_of(&counts_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let shows = op(&book, "GET", "/me/shows");
    let got = sim
        .call(&shows, &json!({"limit": 50, "offset": 10}))
        .await
        .unwrap();
    let body = got.body.json().unwrap();
    let items = body["items"].as_array().unwrap().len();
    assert!((2..=5).contains(&items), "{body}");
    assert_eq!(body["limit"], 50, "{body}");
    assert_eq!(body["offset"], 10, "{body}");
    assert_eq!(body["total"], 10 + items, "{body}");
}

/// A film API whose people and films have small numeric ids, and a library API whose
/// books do too: person 2, film 2 and book 2 are three things.
fn films_and_books() -> (Value, Value) {
    let person = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "name": {"type": "string"}}});
    let movie = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "title": {"type": "string"}}});
    let results = |item: Value| {
        json!({"type": "object", "properties": {"page": {"type": "integer"},
        "results": {"type": "array", "items": item}}})
    };
    let query = |name: &str, kind: &str| {
        json!({"name": name, "in": "query",
        "schema": {"type": kind}})
    };
    let films = json!({"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
        "paths": {
            "/search/person": {"get": {"parameters": [query("query", "string")],
                "responses": ok(results(person.clone()))}},
            "/person/{person_id}": {"get": {"parameters": [in_path("person_id")],
                "responses": ok(person.clone())}},
            "/people": {"get": {"parameters": [query("ids", "string")],
                "responses": ok(json!({"type": "array", "items": person}))}},
            "/movie/{movie_id}": {"get": {"parameters": [in_path("movie_id")],
                "responses": ok(movie.clone())}},
            "/discover/movie": {"get": {"parameters": [query("page", "integer"),
                    query("year", "integer")],
                "responses": ok(results(movie))}}}});
    let books = json!({"openapi": "3.0.0", "info": {"title": "Library", "version": "1"},
        "paths": {"/books/{id}": {"get": {"parameters": [in_path("id")],
            "responses": ok(json!({"type": "object", "properties": {
                "id": {"type": "integer"}, "title": {"type": "string"}}}))}}}});
    (films, books)
}

/// The lines of a fill prompt that list the entities the session showed.
fn shown_lines(prompt: &str) -> Vec<&str> {
    prompt
        .split("\\n")
        .filter(|l| l.starts_with("- {"))
        .collect()
}

/// After a search showed person 2 (Ada Lovelace), film 2, a page 2 of films from 1999
/// and book 2 of another API are asked without her; person 2, and people `2,9`, with her.
#[tokio::test]
async fn a_session_recalls_a_record_by_its_id_and_kind_only() {
    let (films, books) = films_and_books();
    let book = book_of_all(&[films, books]);
    let search = op(&book, "GET", "/search/person");
    let movie = op(&book, "GET", "/movie/{movie_id}");
    let discover = op(&book, "GET", "/discover/movie");
    let a_book = op(&book, "GET", "/books/{id}");
    let person = op(&book, "GET", "/person/{person_id}");
    let replies = [
        json!({"page": 1, "results": [{"id": 2, "name": "Ada Lovelace"}]}),
        json!({"id": 2, "title": "Metropolis"}),
        json!({"page": 2, "results": [{"id": 7, "title": "The Matrix"}]}),
        json!({"id": 2, "title": "Middlemarch"}),
        json!({"id": 2, "name": "Ada Lovelace"}),
        json!([{"id": 2, "name": "Ada Lovelace"}, {"id": 9, "name": "Alan Turing"}]),
    ];
    let llm = Arc::new(ScriptedLlm::new(
        replies.iter().map(|r| Reply::text(r.to_string())),
    ));
    let sim = filling(&book, &llm);
    sim.call(&search, &json!({"query": "ada"})).await.unwrap();
    sim.call(&movie, &json!({"movie_id": 2})).await.unwrap();
    sim.call(&discover, &json!({"page": 2, "year": 1999}))
        .await
        .unwrap();
    sim.call(&a_book, &json!({"id": 2})).await.unwrap();
    sim.call(&person, &json!({"person_id": "2"})).await.unwrap();
    let people = op(&book, "GET", "/people");
    sim.call(&people, &json!({"ids": "2,9"})).await.unwrap();
    let asked: Vec<String> = llm.requests().iter().map(|r| format!("{r:?}")).collect();
    assert_eq!(asked.len(), 6);
    for (call, prompt) in ["film 2", "page 2 of 1999", "book 2"]
        .iter()
        .zip(&asked[1..4])
    {
        assert!(
            !prompt.contains("Ada Lovelace"),
            "{call} recalled person 2: {:?}",
            shown_lines(prompt)
        );
    }
    for prompt in &asked[4..] {
        let recalled = shown_lines(prompt);
        assert!(
            recalled.iter().any(|l| l.contains("Ada Lovelace")),
            "person 2 is not recalled: {prompt}"
        );
    }
}

/// A music API in Spotify's shapes: one paging schema shared by the saved albums and
/// the saved shows, its example links naming `/me/shows` (as Spotify's do), and an
/// album whose `tracks` is a page of its own (documented size 50) inside search results.
fn paging_spec() -> Value {
    let link = |offset: u32| {
        json!({"type": "string", "nullable": true,
        "example": format!("https://api.music.example/v1/me/shows?offset={offset}&limit=20")})
    };
    let track = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}}});
    let tracks = json!({"type": "object", "properties": {"href": link(0), "next": link(20),
        "previous": link(0), "limit": {"type": "integer", "default": 50},
        "offset": {"type": "integer"}, "total": {"type": "integer"},
        "items": {"type": "array", "items": track}}});
    let album = json!({"type": "object", "properties": {"id": {"type": "string"},
        "name": {"type": "string"}, "href": {"type": "string", "format": "uri"},
        "tracks": tracks}});
    let paging = json!({"type": "object", "properties": {"href": link(0), "next": link(20),
        "previous": link(0), "limit": {"type": "integer"}, "offset": {"type": "integer"},
        "total": {"type": "integer"},
        "items": {"type": "array", "items": {"$ref": "#/components/schemas/Album"}}}});
    let query = |name: &str, kind: &str| {
        json!({"name": name, "in": "query",
        "schema": {"type": kind}})
    };
    let paged = || vec![query("limit", "integer"), query("offset", "integer")];
    let page_ref = json!({"$ref": "#/components/schemas/Paging"});
    let mut search = paged();
    search.extend([query("q", "string"), query("type", "string")]);
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "servers": [{"url": "https://api.music.example/v1"}],
        "components": {"schemas": {"Album": album, "Paging": paging}},
        "paths": {
            "/me/albums": {"get": {"parameters": paged(), "responses": ok(page_ref.clone())}},
            "/me/shows": {"get": {"parameters": paged(), "responses": ok(page_ref.clone())}},
            "/search": {"get": {"parameters": search, "responses": ok(json!({"type": "object",
                "properties": {"albums": page_ref}}))}}}})
}

/// The links a page must have for a call at `url` from `offset` in pages of `limit`.
fn assert_links(page: &Value, url: &str, offset: u64, limit: u64) {
    let shown = page["items"].as_array().unwrap().len() as u64;
    let total = page["total"].as_u64().unwrap();
    let at = |o: u64| format!("{url}offset={o}&limit={limit}");
    assert_eq!(page["href"], at(offset), "{page}");
    assert_eq!(
        (page["limit"].as_u64(), page["offset"].as_u64()),
        (Some(limit), Some(offset))
    );
    assert!(total >= offset + shown, "{page}");
    match offset + shown < total {
        true => assert_eq!(page["next"], at(offset + limit), "{page}"),
        false => assert!(page["next"].is_null(), "{page}"),
    }
    match offset {
        0 => assert!(page["previous"].is_null(), "{page}"),
        _ => assert_eq!(page["previous"], at(offset.saturating_sub(limit)), "{page}"),
    }
}

/// A page of the saved albums links to the saved albums (not to the shows its shared
/// schema's example names), a page on and a page back, with the call's limit and offset.
#[tokio::test]
async fn a_page_links_the_called_url() {
    let book = book_of(&paging_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let albums = op(&book, "GET", "/me/albums");
    let mine = "https://api.music.example/v1/me/albums?";
    for (args, offset, limit) in [
        (json!({"limit": 5, "offset": 10}), 10, 5),
        (json!({}), 0, 10),
    ] {
        let got = sim.call(&albums, &args).await.unwrap();
        let body = got.body.json().unwrap();
        assert_links(body, mine, offset, limit);
        // An album's own tracks start at its first, whatever page of albums shows it.
        for album in body["items"].as_array().unwrap() {
            let owner = album["href"].as_str().unwrap();
            assert_links(&album["tracks"], &format!("{owner}/tracks?"), 0, 50);
        }
    }
    let search = op(&book, "GET", "/search");
    let args = json!({"q": "abba", "type": "album", "limit": 3});
    let got = sim.call(&search, &args).await.unwrap();
    let body = got.body.json().unwrap();
    let url = "https://api.music.example/v1/search?q=abba&type=album&";
    assert_links(&body["albums"], url, 0, 3);
    assert!(!body.to_string().contains("/me/shows"), "{body}");
}

/// An album's `tracks` page inside search results has its documented size, starts at
/// its first track, counts at least the tracks shown, and links under the album's URL.
#[tokio::test]
async fn a_nested_page_agrees_with_its_items_and_its_owner() {
    let book = book_of(&paging_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let search = op(&book, "GET", "/search");
    let got = sim
        .call(&search, &json!({"q": "abba", "type": "album", "limit": 4}))
        .await
        .unwrap();
    let body = got.body.json().unwrap();
    let albums = body["albums"]["items"].as_array().unwrap();
    assert_eq!(albums.len(), 4, "{body}");
    for album in albums {
        let tracks = &album["tracks"];
        let owner = album["href"].as_str().unwrap();
        assert_links(tracks, &format!("{owner}/tracks?"), 0, 50);
        let shown = tracks["items"].as_array().unwrap().len() as u64;
        assert_eq!(
            tracks["total"], shown,
            "fewer than the limit: all of them: {tracks}"
        );
    }
}

/// A model that copies the shared example's link into its answer is corrected too.
#[tokio::test]
async fn a_filled_page_links_the_called_url() {
    let book = book_of(&paging_spec());
    let albums = op(&book, "GET", "/me/albums");
    let shows = "https://api.music.example/v1/me/shows?offset=0&limit=20";
    let reply = json!({"href": shows, "next": null, "previous": null, "limit": 20,
        "offset": 0, "total": 1, "items": [{"id": "a1", "name": "Arrival"}]});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(reply.to_string())]));
    let got = filling(&book, &llm)
        .call(&albums, &json!({"limit": 10}))
        .await
        .unwrap();
    let body = got.body.json().unwrap();
    assert_links(body, "https://api.music.example/v1/me/albums?", 0, 10);
    assert_eq!(body["total"], 1, "{body}");
}

/// A ToolBench-shaped messaging API whose "defaults" are the hub's samples: a short
/// sentence for the message to delete, a sample profile key to invite, a placeholder
/// note; and a real default (`channel`).
fn samples_spec() -> Value {
    let text = |name: &str, default: &str| {
        json!({"name": name, "in": "query",
        "schema": {"type": "string", "default": default}})
    };
    let echo = |fields: &[&str]| {
        let props: serde_json::Map<String, Value> = fields
            .iter()
            .map(|f| ((*f).to_owned(), json!({"type": "string"})))
            .collect();
        ok(json!({"type": "object", "properties": props}))
    };
    json!({"openapi": "3.0.0", "info": {"title": "Chat", "version": "1"}, "paths": {
        "/messages": {"delete": {"parameters": [text("message_id", "Message to delete")],
            "responses": echo(&["message_id", "status"])}},
        "/invites": {"post": {"parameters": [text("profile_key", "ACoAAB2Fz9kB"),
                text("note", "Enter your note"), text("channel", "email")],
            "responses": echo(&["profile_key", "note", "channel"])}}}})
}

/// A call that leaves out a parameter gets no sample or placeholder "default" in its
/// place (the draft does not echo it, the model is not told it); a real default applies.
#[tokio::test]
async fn a_sample_or_placeholder_default_is_not_filled_into_a_call() {
    let book = book_of(&samples_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let delete = op(&book, "DELETE", "/messages");
    let got = sim.call(&delete, &json!({})).await.unwrap();
    let body = got.body.json().unwrap();
    assert_ne!(body["message_id"], "Message to delete", "{body}");
    let invite = op(&book, "POST", "/invites");
    let got = sim.call(&invite, &json!({})).await.unwrap();
    let body = got.body.json().unwrap();
    assert_ne!(body["profile_key"], "ACoAAB2Fz9kB", "{body}");
    assert_ne!(body["note"], "Enter your note", "{body}");
    assert_eq!(body["channel"], "email", "{body}");
    let llm = Arc::new(ScriptedLlm::new([Reply::text(body.to_string())]));
    filling(&book, &llm)
        .call(&invite, &json!({"note": "hi"}))
        .await
        .unwrap();
    let asked = format!("{:?}", llm.requests());
    let args = asked
        .split("\\n")
        .find(|l| l.starts_with("Call arguments"))
        .unwrap_or_else(|| panic!("no arguments line: {asked}"));
    assert!(
        args.contains("email") && !args.contains("ACoAAB2Fz9kB"),
        "{args}"
    );
}
