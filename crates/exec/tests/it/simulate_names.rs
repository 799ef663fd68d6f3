//! Calls of one step see each other's entities, and a search is told what the session
//! showed under the name it searches (brief recall24, stand-ins w3 and w5: two searches
//! of one turn gave one film two ids). Calls of a session made together are answered one
//! at a time; the one answered second is told the entity the first showed under that
//! name, and its answer keeps that id. A search for another name is told none of them.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolsmith_exec::Executor;
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{filling, op, prompts};

/// The lines of a fill prompt that list what the session showed.
fn shown_lines(prompt: &str) -> Vec<&str> {
    prompt.lines().filter(|l| l.starts_with("- {")).collect()
}

/// A page of search results holding `films`.
fn page(films: &[Value]) -> Value {
    json!({"page": 1, "total_results": films.len(), "total_pages": 1, "results": films})
}

/// The ids of the results titled `title` in a search's body.
fn ids_titled(body: &Value, title: &str) -> Vec<Value> {
    body["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["title"] == title)
        .map(|f| f["id"].clone())
        .collect()
}

#[tokio::test]
async fn two_searches_of_one_step_give_one_film_one_id() {
    let book = crate::tmdb();
    let search = op(&book, "GET", "/search/movie");
    let first = page(&[json!({"id": 603, "title": "The Matrix", "release_date": "1999-03-30"})]);
    // The second fill writes the same film under another id, as stand-in w5's did.
    let second = page(&[
        json!({"id": 9_999, "title": "The Matrix", "release_date": "1999-03-31"}),
        json!({"id": 604, "title": "The Matrix Reloaded", "release_date": "2003-05-15"}),
    ]);
    let llm = Arc::new(
        ScriptedLlm::new([
            Reply::text(first.to_string()),
            Reply::text(second.to_string()),
        ])
        .with_delay(Duration::from_millis(5)),
    );
    let sim = filling(&book, &llm).fork_for(None).unwrap();
    let (one, other) = (
        json!({"query": "The Matrix"}),
        json!({"query": "the matrix"}),
    );
    let (a, b) = tokio::join!(sim.call(&search, &one), sim.call(&search, &other));
    let bodies = [a.unwrap(), b.unwrap()].map(|o| o.body.json().cloned().unwrap());
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    let asked = requests[1].messages[0].text();
    assert!(
        shown_lines(asked)
            .iter()
            .any(|l| l.contains(r#""id":603"#) && l.contains(r#""title":"The Matrix""#)),
        "the second search is not told the film the first showed: {:?}",
        shown_lines(asked)
    );
    for body in &bodies {
        assert_eq!(ids_titled(body, "The Matrix"), [json!(603)], "{body}");
    }
    let answered_second = bodies
        .iter()
        .find(|b| !ids_titled(b, "The Matrix Reloaded").is_empty())
        .expect("one answer is the second fill's");
    assert_eq!(
        ids_titled(answered_second, "The Matrix Reloaded"),
        [json!(604)]
    );
}

#[tokio::test]
async fn a_search_is_told_only_what_its_name_names_and_a_few() {
    let book = crate::tmdb();
    let search = op(&book, "GET", "/search/movie");
    let details = op(&book, "GET", "/movie/{movie_id}");
    let titles = [
        "The Matrix",
        "The Matrix Reloaded",
        "The Matrix Revolutions",
        "The Matrix Resurrections",
        "The Animatrix",
        "Matrix of Leadership",
        "Return to the Matrix",
    ];
    let films: Vec<Value> = titles
        .iter()
        .zip(600..)
        .map(|(title, id)| json!({"id": id, "title": title, "genre_ids": [28, 878]}))
        .collect();
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(page(&films).to_string()),
        Reply::text("{}"),
        Reply::text(page(&[json!({"id": 27_205, "title": "Inception"})]).to_string()),
        Reply::text("{}"),
    ]));
    let sim = filling(&book, &llm).fork_for(None).unwrap();
    for (api, args) in [
        (&search, json!({"query": "The Matrix"})),
        // The agent now holds film 600.
        (&details, json!({"movie_id": 600})),
        (&search, json!({"query": "Inception"})),
        (&search, json!({"query": "matrix"})),
    ] {
        let got = sim.call(api, &args).await.unwrap();
        assert!(got.body.json().is_some(), "{api}: {got:?}");
    }
    let asked = prompts(&llm);
    assert_eq!(asked.len(), 4);
    let inception = shown_lines(&asked[2]);
    assert!(inception.is_empty(), "{inception:?}");
    let matrix = shown_lines(&asked[3]);
    assert!(
        !matrix.is_empty() && matrix.len() <= 4,
        "a few films named by the text, no more: {matrix:?}"
    );
    assert!(
        matrix
            .iter()
            .all(|l| l.contains("Matrix") && !l.contains("Animatrix")),
        "{matrix:?}"
    );
}
