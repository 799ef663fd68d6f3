//! What a session showed inside an entity is recalled with it (stand-in f6): a search
//! showed a person `known_for` GoodFellas (film 11), and the fill of that person's movie
//! credits is told film 11 by its id and title, as a film the person is known for, so it
//! does not draft GoodFellas again under another id.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::Executor;
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op, prompts};

/// A JSON response of `schema`.
fn ok(schema: Value) -> Value {
    json!({"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}})
}

/// A film API in TMDB's shapes: a person search whose people show the films they are
/// known for, a person's detail, and a person's movie credits.
fn people_spec() -> Value {
    let film = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "title": {"type": "string"}, "release_date": {"type": "string"},
        "media_type": {"type": "string"}}});
    let person = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "name": {"type": "string"}, "known_for": {"type": "array", "items": film}}});
    let search = json!({"type": "object", "properties": {"page": {"type": "integer"},
        "results": {"type": "array", "items": person}}});
    let credit = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "title": {"type": "string"}, "character": {"type": "string"}}});
    let credits = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "cast": {"type": "array", "items": credit}}});
    let detail = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "name": {"type": "string"}, "birthday": {"type": "string"}}});
    let person_id = json!({"name": "person_id", "in": "path", "required": true,
        "schema": {"type": "integer"}});
    json!({"openapi": "3.0.0", "info": {"title": "Films", "version": "1"}, "paths": {
        "/search/person": {"get": {"parameters": [{"name": "query", "in": "query",
            "required": true, "schema": {"type": "string"}}], "responses": ok(search)}},
        "/person/{person_id}": {"get": {"parameters": [person_id.clone()],
            "responses": ok(detail)}},
        "/person/{person_id}/movie_credits": {"get": {"parameters": [person_id],
            "responses": ok(credits)}}}})
}

/// The lines of a fill prompt that list what the session showed.
fn shown_lines(prompt: &str) -> Vec<&str> {
    prompt.lines().filter(|l| l.starts_with("- {")).collect()
}

#[tokio::test]
async fn the_films_a_person_was_shown_known_for_reach_their_credits_fill() {
    let book = book_of(&people_spec());
    let search = op(&book, "GET", "/search/person");
    let detail = op(&book, "GET", "/person/{person_id}");
    let credits = op(&book, "GET", "/person/{person_id}/movie_credits");
    let scorsese = json!({"id": 1032, "name": "Martin Scorsese", "known_for": [
        {"id": 11, "title": "GoodFellas", "release_date": "1990-09-12", "media_type": "movie"},
        {"id": 1396, "title": "Boardwalk Empire", "release_date": "2010-09-19",
            "media_type": "tv"}]});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(json!({"page": 1, "results": [scorsese]}).to_string()),
        Reply::text(
            json!({"id": 1032, "name": "Martin Scorsese",
            "birthday": "1942-11-17"})
            .to_string(),
        ),
        Reply::text(
            json!({"id": 1032, "cast": [{"id": 11, "title": "GoodFellas",
            "character": "Narrator"}]})
            .to_string(),
        ),
    ]));
    let sim = filling(&book, &llm).fork_for(None).unwrap();
    for (api, args) in [
        (&search, json!({"query": "Martin Scorsese"})),
        (&detail, json!({"person_id": 1032})),
        (&credits, json!({"person_id": 1032})),
    ] {
        let got = sim.call(api, &args).await.unwrap();
        assert!(got.body.json().is_some(), "{api}: {got:?}");
    }
    let asked = prompts(&llm);
    assert_eq!(asked.len(), 3);
    let goodfellas = r#"{"id":11,"release_date":"1990-09-12","title":"GoodFellas"}"#;
    // The person, recalled by the detail and by the credits, carries the films shown.
    for prompt in &asked[1..] {
        let person = shown_lines(prompt)
            .into_iter()
            .find(|l| l.contains(r#""id":1032"#) && l.contains("known_for"));
        assert!(
            person.is_some_and(|l| l.contains(goodfellas)),
            "the person is recalled without film 11: {:?}",
            shown_lines(prompt)
        );
    }
    // The detail lists no films, so it is told no known films; the credits are, and the
    // show among them is no film.
    assert!(!asked[1].contains(r#""known":"#), "{}", asked[1]);
    let known: Vec<&str> = shown_lines(&asked[2])
        .into_iter()
        .filter(|l| l.contains(r#""known":"movie""#))
        .collect();
    let [line] = known.as_slice() else {
        panic!("no one entry of known films: {:?}", shown_lines(&asked[2]))
    };
    assert!(line.contains(goodfellas), "{line}");
    assert!(
        line.contains(r#""of":{"id":1032,"name":"Martin Scorsese"}"#),
        "{line}"
    );
    assert!(!line.contains("Boardwalk Empire"), "{line}");
}

/// The same session history gives the same prompt: two sessions that make the same calls
/// ask the model the same credits prompt (the LLM cache keys on it).
#[tokio::test]
async fn the_same_history_gives_the_same_credits_prompt() {
    let book = book_of(&people_spec());
    let search = op(&book, "GET", "/search/person");
    let credits = op(&book, "GET", "/person/{person_id}/movie_credits");
    let films: Vec<Value> = (0..8)
        .map(|i| json!({"id": 100 + i, "title": format!("Film {i}"), "media_type": "movie"}))
        .collect();
    let person = json!({"page": 1, "results": [{"id": 7, "name": "Ann", "known_for": films}]});
    let mut prompts = Vec::new();
    for _ in 0..2 {
        let llm = Arc::new(ScriptedLlm::new([
            Reply::text(person.to_string()),
            Reply::text(json!({"id": 7, "cast": []}).to_string()),
        ]));
        let sim = filling(&book, &llm).fork_for(None).unwrap();
        sim.call(&search, &json!({"query": "Ann"})).await.unwrap();
        sim.call(&credits, &json!({"person_id": 7})).await.unwrap();
        prompts.push(llm.requests()[1].messages[0].text().to_owned());
    }
    assert_eq!(prompts[0], prompts[1]);
    let person_line = shown_lines(&prompts[0])
        .into_iter()
        .find(|l| l.contains("known_for"))
        .unwrap_or_default()
        .to_owned();
    assert!(
        person_line.contains("Film 4") && !person_line.contains("Film 5"),
        "a few films per list, the first: {person_line}"
    );
}
