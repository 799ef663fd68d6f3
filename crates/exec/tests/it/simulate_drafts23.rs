//! What stand-in models filling the simulator's drafts reported (round 23), fixed: an
//! argument fills no field that merely shares a word with it, a cursor page that pages
//! back in time keeps its direction, and long example texts are not shown to the filling
//! model in full.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Simulator};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::simulate_writes::drafted;
use crate::{book_of, filling, op, prompt};

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

/// Spotify's recently played, written for these tests: a cursor page of plays (no ids of
/// their own) taking `after` and `before`.
fn recently_played_spec() -> Value {
    let play = json!({"type": "object", "properties": {"played_at": {"type": "string"},
        "track": {"type": "object", "properties": {"id": {"type": "string"},
            "name": {"type": "string"}}}}});
    let page = json!({"type": "object", "properties": {
        "cursors": {"type": "object", "properties": {"after": {"type": "string"},
            "before": {"type": "string"}}},
        "href": {"type": "string"}, "limit": {"type": "integer"},
        "next": {"type": "string", "nullable": true}, "total": {"type": "integer"},
        "items": {"type": "array", "items": play}}});
    let params = vec![
        query("limit", "integer", "Most items to return."),
        query(
            "after",
            "integer",
            "Plays after this Unix time in milliseconds.",
        ),
        query(
            "before",
            "integer",
            "Plays before this Unix time in milliseconds.",
        ),
    ];
    json!({"openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
        "servers": [{"url": "https://api.spotify.com/v1"}],
        "paths": {"/me/player/recently-played": {"get": {"parameters": params,
            "responses": ok(page, None)}}}})
}

/// The model wrote recently played's `next` by `before` (it pages back in time), and the
/// agent was shown a `next` by `after` of the newest play: the direction the answer
/// pages in, and its cursor, are kept, with `cursors.before` agreeing.
#[tokio::test]
async fn a_page_that_goes_back_in_time_keeps_its_before_cursor() {
    let book = book_of(&recently_played_spec());
    let recent = op(&book, "GET", "/me/player/recently-played");
    let url = "https://api.spotify.com/v1/me/player/recently-played";
    let plays: Vec<Value> = (0..5)
        .map(|i| {
            json!({"played_at": format!("2026-11-30T08:4{i}:00Z"),
                "track": {"id": format!("t{i}"), "name": format!("Song {i}")}})
        })
        .collect();
    let answer = json!({"cursors": {"after": "1796028072345", "before": "1796025730980"},
        "href": format!("{url}?limit=5"), "limit": 5, "total": 50, "items": plays,
        "next": format!("{url}?before=1796025730980&limit=5")});
    let llm = Arc::new(ScriptedLlm::new([Reply::text(answer.to_string())]));
    let sim = filling(&book, &llm);
    let got = sim.call(&recent, &json!({"limit": 5})).await.unwrap();
    let page = got.body.json().unwrap();
    assert_eq!(
        page["next"],
        format!("{url}?limit=5&before=1796025730980"),
        "{page:#}"
    );
    assert_eq!(page["cursors"]["before"], "1796025730980", "{page:#}");
    assert_eq!(page["href"], format!("{url}?limit=5"), "{page:#}");
}

/// A review text of about five thousand characters, in sentences.
fn long_review() -> String {
    let sentence = "The film takes its time with a quiet story of a family by the sea, and \
                    the ending earns every minute of it. ";
    sentence.repeat(5_000 / sentence.len() + 1)
}

/// A film's reviews in TMDB's shape, written for these tests: a page of reviews whose
/// example holds one long review.
fn reviews_spec() -> Value {
    let review = json!({"type": "object", "properties": {"id": {"type": "string"},
        "author": {"type": "string"}, "content": {"type": "string"},
        "url": {"type": "string"}}});
    let page = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "page": {"type": "integer"}, "results": {"type": "array", "items": review},
        "total_pages": {"type": "integer"}, "total_results": {"type": "integer"}}});
    let example = json!({"id": 550, "page": 1, "total_pages": 4, "total_results": 40,
        "results": [{"id": "5b1c13b9c3a36848f2026384", "author": "Goddard",
            "content": long_review(), "url": "https://films.example/review/5b1c"}]});
    json!({"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
        "servers": [{"url": "https://films.example/3"}],
        "paths": {"/movie/{movie_id}/reviews": {"get": {"parameters": [
            {"name": "movie_id", "in": "path", "required": true,
                "schema": {"type": "integer"}},
            query("page", "integer", "The page of results.")],
            "responses": ok(page, Some(example))}}}})
}

/// Drafts carried the spec's example texts in full: a five-thousand-character review in
/// each of ten items took a reviews prompt to nearly the whole budget. The draft the model
/// is shown holds each as a short placeholder (it rewrites every value anyway), and the
/// answer is still whole: a review the model left out is completed from the whole draft.
#[tokio::test]
async fn long_example_texts_are_not_shown_in_full() {
    let book = book_of(&reviews_spec());
    let reviews = op(&book, "GET", "/movie/{movie_id}/reviews");
    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
    let sim = filling(&book, &llm);
    let got = sim.call(&reviews, &json!({"movie_id": 550})).await.unwrap();

    let sent = prompt(&llm, 0);
    let draft = drafted(&sent);
    let shown = draft["results"].as_array().expect("a list of reviews");
    let whole = got.body.json().unwrap();
    let answered = whole["results"].as_array().expect("a list of reviews");
    eprintln!(
        "10-review fill: prompt {} characters, draft shown {} of {} reviews, answer {} \
         characters",
        sent.len(),
        shown.len(),
        answered.len(),
        whole.to_string().len()
    );
    assert!(!shown.is_empty(), "{draft:#}");
    // An example text is shown as a placeholder naming its place (see `neutral`).
    for (i, review) in shown.iter().enumerate() {
        let content = review["content"].as_str().expect("a content");
        assert_eq!(content, format!("<content of results {}>", i + 1));
    }
    assert!(sent.len() < 8_000, "prompt of {} characters", sent.len());
    // The model declined: the response is the whole draft, its texts in full.
    assert_eq!(answered.len(), 10, "{whole:#}");
    for review in answered {
        assert!(review["content"].as_str().expect("a content").len() > 4_000);
    }
}
