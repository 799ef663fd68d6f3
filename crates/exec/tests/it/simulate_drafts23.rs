//! What stand-in models filling the simulator's drafts reported (round 23), fixed: an
//! argument fills no field that merely shares a word with it, a cursor page that pages
//! back in time keeps its direction, and long example texts are shown to the filling
//! model by their openings.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Simulator};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op};

/// A `200` response of `schema`, with `example` where given.
fn ok(schema: Value, example: Option<Value>) -> Value {
    let mut content = json!({"schema": schema});
    if let Some(example) = example {
        content["example"] = example;
    }
    json!({"200": {"description": "ok", "content": {"application/json": content}}})
}

/// A query parameter of type `kind`, described by `description`.
fn query(name: &str, kind: &str, description: &str) -> Value {
    json!({"name": name, "in": "query", "description": description,
        "schema": {"type": kind}})
}

/// The text of the `i`-th request `llm` was sent.
fn prompt(llm: &ScriptedLlm, i: usize) -> String {
    llm.requests()[i].messages[0].text().to_owned()
}

/// The draft a fill prompt shows (the line after `Draft response:`).
fn drafted(prompt: &str) -> Value {
    let line = prompt
        .split("Draft response:\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .expect("a draft in the prompt");
    serde_json::from_str(line).expect("the draft is JSON")
}

/// A film discovery endpoint in TMDB's shape, written for these tests: a page of films
/// with a release date, filtered by a release type (a number whose description mentions
/// the release date) and a latest primary release date.
fn discover_spec() -> Value {
    let film = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "title": {"type": "string"},
        "release_date": {"type": "string", "example": "2016-08-10"}}});
    let page = json!({"type": "object", "properties": {"page": {"type": "integer"},
        "results": {"type": "array", "items": film},
        "total_pages": {"type": "integer"}, "total_results": {"type": "integer"}}});
    let params = vec![
        query("page", "integer", "The page of results."),
        query("sort_by", "string", "How the results are ordered."),
        query(
            "primary_release_date.lte",
            "string",
            "Only films first released on or before this date.",
        ),
        query(
            "with_release_type",
            "integer",
            "Release types to filter by, comma or pipe separated; they are the types \
             the release date method of a film lists.",
        ),
    ];
    json!({"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
        "servers": [{"url": "https://films.example/3"}],
        "paths": {"/discover/movie": {"get": {"parameters": params,
            "responses": ok(page, None)}}}})
}

/// TMDB's discover with `with_release_type=3` drafted every film's `release_date` as
/// `"3"`: the release type was read as a filter on the release date its description
/// mentions. A release type is another attribute than a release date, and a date field
/// never takes a non-date; the date filter still holds.
#[tokio::test]
async fn a_release_type_is_not_written_into_the_release_date() {
    let book = book_of(&discover_spec());
    let sim = Simulator::new(Arc::clone(&book));
    let discover = op(&book, "GET", "/discover/movie");
    let args = json!({"page": 1, "sort_by": "primary_release_date.desc",
        "primary_release_date.lte": "2026-11-30", "with_release_type": 3});
    let got = sim.call(&discover, &args).await.unwrap();
    let body = got.body.json().unwrap();
    let films = body["results"].as_array().expect("a list of films");
    assert!(!films.is_empty(), "{body:#}");
    for film in films {
        let date = film["release_date"].as_str().expect("a release date");
        assert_ne!(date, "3", "{body:#}");
        assert!(
            date.len() == 10 && date.as_bytes()[4] == b'-' && date <= "2026-11-30",
            "a date on or before the filter's: {date}"
        );
    }
}
