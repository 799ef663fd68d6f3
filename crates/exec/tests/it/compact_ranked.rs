//! A cut list shows the items the question ranks first: "the latest movie directed by X" shows
//! a person's newest credits, though the API lists them oldest first, and the list's note says
//! which items are shown; without a ranking word the list keeps the API's first items. A
//! request naming a part ("directed by") ranks the credits of that part first. The fixtures
//! are TMDB-shaped with invented titles and numbers.

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
    crew_view_of(&movie_credits(), task)
}

/// [`crew_view`] of the credits `value`.
fn crew_view_of(value: &Value, task: &str) -> (Vec<Value>, String) {
    let hints = Hints {
        endpoint: Some("/person/{person_id}/movie_credits"),
        task: Some(task),
        ..Hints::default()
    };
    let text = compact_with(value, hints, BUDGET);
    assert!(text.chars().count() <= BUDGET, "{text}");
    assert_eq!(emptied_objects(value, &text), 0, "{text}");
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

/// The jobs and ratings of [`mixed_credits`], by credit: a producer credit (7103) rates
/// highest, then a writer's (7106), above every film directed.
const MIXED: [(&str, &str, f64); CREDITS] = [
    ("Director", "Directing", 7.2),
    ("Producer", "Production", 6.1),
    ("Director", "Directing", 8.1),
    ("Producer", "Production", 9.6),
    ("Executive Producer", "Production", 5.5),
    ("Director", "Directing", 6.4),
    ("Writer", "Writing", 9.2),
    ("Director", "Directing", 8.7),
    ("Executive Producer", "Production", 7.9),
    ("Director", "Directing", 7.7),
    ("Screenplay", "Writing", 6.8),
    ("Director", "Directing", 5.9),
    ("Producer", "Production", 8.9),
    ("Director", "Directing", 8.4),
    ("Executive Producer", "Production", 6.6),
];

/// `GET /person/{person_id}/movie_credits` of a filmmaker: fifteen crew credits of several
/// jobs (credit `i` is `MIXED[i]`), oldest first.
fn mixed_credits() -> Value {
    let crew: Vec<Value> = MIXED
        .iter()
        .enumerate()
        .map(|(i, (job, department, rating))| {
            json!({
                "adult": false, "backdrop_path": format!("/bd{i}qwertyuiopasdf.jpg"),
                "credit_id": format!("5f0c{i:02}a1b2c3d4e5f6a7b8c9"), "department": department,
                "genre_ids": [18, 53], "id": 7100 + i, "job": job,
                "original_language": "en", "original_title": format!("Invented Film {i}"),
                "overview": "A made-up story about people and places. ".repeat(4),
                "popularity": 10.5 + i as f64, "poster_path": format!("/ps{i}zxcvbnmlkjhg.jpg"),
                "release_date": format!("{}-06-1{}", 1990 + 2 * i, i % 10),
                "title": format!("Invented Film {i}"), "video": false,
                "vote_average": rating, "vote_count": 1000 + i
            })
        })
        .collect();
    json!({"error": "", "response": {"cast": [], "crew": crew, "id": 525}})
}

/// The ids of the credits of `MIXED` whose job is one of `jobs` (all if none), highest
/// rated first.
fn best_rated(jobs: &[&str]) -> Vec<i64> {
    let mut credits: Vec<(i64, f64)> = MIXED
        .iter()
        .enumerate()
        .filter(|(_, (job, _, _))| jobs.is_empty() || jobs.contains(job))
        .map(|(i, (_, _, rating))| (7100 + i as i64, *rating))
        .collect();
    credits.sort_by(|a, b| b.1.total_cmp(&a.1));
    credits.into_iter().map(|(id, _)| id).collect()
}

#[test]
fn the_best_rated_films_directed_are_shown_when_the_question_asks_for_one_directed() {
    let (items, note) = crew_view_of(
        &mixed_credits(),
        "What is the highest rated film directed by Ada Quill?",
    );
    let directed = best_rated(&["Director"]);
    let shown = ids(&items);
    // The directed films first, best rated first, though a produced and a written one rate
    // higher.
    assert!(shown.len() <= directed.len(), "{items:?}");
    assert_eq!(shown, directed[..shown.len()], "{items:?}");
    assert!(
        note.contains(&format!(
            "{} of {CREDITS} items, those with job Director and the highest vote_average, \
             highest first",
            shown.len()
        )),
        "{note}"
    );
}

#[test]
fn a_question_naming_no_part_ranks_every_credit() {
    let (items, note) = crew_view_of(
        &mixed_credits(),
        "What is the highest rated film of Ada Quill?",
    );
    let shown = ids(&items);
    assert_eq!(shown, best_rated(&[])[..shown.len()], "{items:?}");
    assert_eq!(shown[0], 7103, "the produced film rates highest");
    assert!(
        note.contains(&format!(
            "{} of {CREDITS} items, those with the highest vote_average, highest first",
            shown.len()
        )),
        "{note}"
    );
}

#[test]
fn a_part_no_credit_plays_ranks_every_credit() {
    let (items, note) = crew_view_of(
        &mixed_credits(),
        "What is the highest rated film edited by Ada Quill?",
    );
    let shown = ids(&items);
    assert_eq!(shown, best_rated(&[])[..shown.len()], "{items:?}");
    assert!(!note.contains("job"), "{note}");
    assert!(
        note.contains("those with the highest vote_average"),
        "{note}"
    );
}
