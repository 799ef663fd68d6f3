//! A cut list shows the items the question ranks first: "the latest movie directed by X" shows
//! a person's newest credits, though the API lists them oldest first, and the list's note says
//! which items are shown; without a ranking word the list keeps the API's first items. The
//! fixtures are TMDB-shaped with invented titles and numbers.

use serde_json::{Value, json};
use toolsmith_exec::compact::{Hints, compact_with, emptied_objects};

/// The default budget of a view.
const BUDGET: usize = 1024;

/// Credits in the fixture.
const CREDITS: usize = 15;

/// `GET /person/{person_id}/movie_credits` of a director: fifteen crew credits, oldest first
/// (credit `i` came out in year 1990 + 2i), and two cast credits.
fn movie_credits() -> Value {
    let crew: Vec<Value> = (0..CREDITS)
        .map(|i| {
            json!({
                "adult": false, "backdrop_path": format!("/bd{i}qwertyuiopasdf.jpg"),
                "credit_id": format!("5f0c{i:02}a1b2c3d4e5f6a7b8c9"), "department": "Directing",
                "genre_ids": [18, 53], "id": 7100 + i, "job": "Director",
                "original_language": "en", "original_title": format!("Invented Film {i}"),
                "overview": "A made-up story about people and places. ".repeat(4),
                "popularity": 10.5 + i as f64, "poster_path": format!("/ps{i}zxcvbnmlkjhg.jpg"),
                "release_date": format!("{}-06-1{}", 1990 + 2 * i, i % 10),
                "title": format!("Invented Film {i}"), "video": false,
                "vote_average": 7.1, "vote_count": 1000 + i
            })
        })
        .collect();
    let cast: Vec<Value> = (0..2)
        .map(|i| {
            json!({"adult": false, "character": "Himself", "credit_id": format!("6a1b{i}c2d3e4"),
                   "id": 8800 + i, "order": i, "release_date": format!("200{i}-02-02"),
                   "title": format!("A Documentary {i}"), "popularity": 2.5})
        })
        .collect();
    json!({"error": "", "response": {"cast": cast, "crew": crew, "id": 525}})
}

/// The view of the credits for `task`: it fits, stays JSON, empties no object; with the crew
/// list's shown items and its note.
fn crew_view(task: &str) -> (Vec<Value>, String) {
    let value = movie_credits();
    let hints = Hints {
        endpoint: Some("/person/{person_id}/movie_credits"),
        task: Some(task),
        ..Hints::default()
    };
    let text = compact_with(&value, hints, BUDGET);
    assert!(text.chars().count() <= BUDGET, "{text}");
    assert_eq!(emptied_objects(&value, &text), 0, "{text}");
    let back: Value = serde_json::from_str(&text).unwrap();
    let crew = back["response"]["crew"].as_array().unwrap().clone();
    let note = crew
        .iter()
        .filter_map(Value::as_str)
        .next_back()
        .unwrap_or_else(|| panic!("not cut: {text}"))
        .to_owned();
    let items: Vec<Value> = crew.into_iter().filter(Value::is_object).collect();
    assert!(items.len() >= 2 && items.len() < CREDITS, "{text}");
    (items, note)
}

/// The ids of shown items.
fn ids(items: &[Value]) -> Vec<i64> {
    items.iter().map(|i| i["id"].as_i64().unwrap()).collect()
}

#[test]
fn the_latest_credits_are_shown_when_the_question_asks_for_the_latest() {
    let (items, note) = crew_view("What is the latest movie directed by Ada Quill?");
    let shown = items.len();
    // The newest credits, newest first: the answer is the first shown.
    let newest: Vec<i64> = (0..shown)
        .map(|k| 7100 + (CREDITS - 1 - k) as i64)
        .collect();
    assert_eq!(ids(&items), newest, "{items:?}");
    assert!(
        items.iter().all(|i| i["release_date"].is_string()),
        "{items:?}"
    );
    let left = CREDITS - shown;
    assert!(note.contains("latest release_date"), "{note}");
    // "3 of 15 items, those with the latest release_date": never "the 3 with the latest
    // release_date of 15", which reads as a value of 15.
    assert!(
        note.contains(&format!(
            "{shown} of {CREDITS} items, those with the latest release_date"
        )),
        "{note}"
    );
    assert!(
        note.ends_with(&format!("{left} more items left out")),
        "{note}"
    );
}

#[test]
fn the_oldest_credits_are_shown_when_the_question_asks_for_the_first_one_directed() {
    let (items, note) = crew_view("What was the first movie Ada Quill directed?");
    let oldest: Vec<i64> = (0..items.len()).map(|k| 7100 + k as i64).collect();
    assert_eq!(ids(&items), oldest, "{items:?}");
    assert!(note.contains("earliest release_date"), "{note}");
}

#[test]
fn a_question_ranking_nothing_keeps_the_apis_first_items() {
    let (items, note) = crew_view("Which movies did Ada Quill direct?");
    let first: Vec<i64> = (0..items.len()).map(|k| 7100 + k as i64).collect();
    assert_eq!(ids(&items), first, "{items:?}");
    assert_eq!(
        note,
        format!("… {} more items left out", CREDITS - items.len())
    );
}
