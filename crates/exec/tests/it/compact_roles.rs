//! Compaction keeps what a question about credits and reviews needs on every shown item: a
//! review's author, a crew member's job beside their department, and an asked-for date in
//! every list of the response that has it, not only in the first. Fixtures are TMDB-shaped
//! with invented names.

use serde_json::{Value, json};
use toolsmith_exec::compact::{Hints, compact_with, emptied_objects};

/// The default budget of a view.
const BUDGET: usize = 1024;

/// The observation envelope the solvers send.
fn observation(response: Value) -> Value {
    json!({"error": "", "response": response})
}

/// `value` compacted at the default budget for `endpoint` and `task`, checked to fit and to
/// stay JSON, and parsed back.
fn view(value: &Value, endpoint: &str, task: &str) -> (String, Value) {
    let hints = Hints {
        endpoint: Some(endpoint),
        task: Some(task),
        ..Hints::default()
    };
    let text = compact_with(value, hints, BUDGET);
    assert!(text.chars().count() <= BUDGET, "{text}");
    assert!(text.contains("left out"), "not cut: {text}");
    let back: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(emptied_objects(value, &text), 0, "{text}");
    (text, back)
}

/// The objects shown in a list (its note left out).
fn shown(list: &Value) -> Vec<&Value> {
    list.as_array()
        .map(|items| items.iter().filter(|v| v.is_object()).collect())
        .unwrap_or_default()
}

/// A page of ten reviews of a show, each by a different author, with a long text.
fn reviews() -> Value {
    let authors = [
        "quietlantern",
        "Mira Okonkwo",
        "tidewatcher77",
        "Felix Arundel",
        "saltmarsh_critic",
        "Juno Vale",
        "paperboat",
        "Orrin Thistle",
        "nightferry",
        "Ada Brightwater",
    ];
    let results: Vec<Value> = authors
        .iter()
        .enumerate()
        .map(|(i, author)| {
            json!({"author": author,
                   "content": format!("Review {i}: the harbour town slowly gives up its secrets. ")
                       .repeat(8),
                   "id": format!("64a1b2c3d4e5f6a7b8c9d0{i:02}"),
                   "url": format!("https://reviews.example/review/64a1b2c3d4e5f6a7b8c9d0{i:02}")})
        })
        .collect();
    observation(json!({"id": 40_123, "page": 1, "results": results,
                       "total_pages": 2, "total_results": 14}))
}

#[test]
fn every_shown_review_keeps_its_author() {
    let value = reviews();
    let (text, back) = view(
        &value,
        "/tv/{tv_id}/reviews",
        "I need a review for Marble Harbor",
    );
    let whole = value["response"]["results"].as_array().unwrap();
    let results = shown(&back["response"]["results"]);
    assert!(results.len() >= 2, "{text}");
    for (review, full) in results.iter().zip(whole) {
        assert_eq!(review["id"], full["id"], "{text}");
        assert_eq!(review["author"], full["author"], "{text}");
        assert!(review["content"].is_string(), "{text}");
    }
}

/// A crew member of a show's credits: their department and their job in it.
fn crew_member(i: usize, name: &str, department: &str, job: &str) -> Value {
    json!({"adult": false, "credit_id": format!("5d1f0e2a3b4c5d6e7f80{i:04}"),
           "department": department, "gender": 1 + i % 2, "id": 810_000 + i,
           "job": job, "known_for_department": department,
           "name": name, "original_name": name,
           "popularity": 2.25, "profile_path": format!("/crewprofile{i:02}abcdefghijk.jpg")})
}

/// A show's credits: six cast members and three crew members, two of them in one department.
fn show_credits() -> Value {
    let characters = [
        "Warden Ilse",
        "The Cartographer",
        "Brother Amos",
        "Nell",
        "Kite",
        "Oro",
    ];
    let cast: Vec<Value> = characters
        .iter()
        .enumerate()
        .map(|(i, character)| {
            json!({"adult": false, "character": character,
                   "credit_id": format!("5d1f0e2a3b4c5d6e7f81{i:04}"), "gender": 2 - i % 2,
                   "id": 820_000 + i, "known_for_department": "Acting",
                   "name": format!("Player {i}"), "order": i, "original_name": format!("Player {i}"),
                   "popularity": 9.5, "profile_path": format!("/castprofile{i:02}abcdefgh.jpg")})
        })
        .collect();
    let crew = vec![
        crew_member(0, "Tamsin Greaves", "Production", "Executive Producer"),
        crew_member(1, "Ruairi Okafor", "Production", "Executive Producer"),
        crew_member(2, "Delphine Marsh", "Sound", "Original Music Composer"),
    ];
    observation(json!({"id": 40_123, "cast": cast, "crew": crew}))
}

#[test]
fn every_shown_crew_member_keeps_their_job() {
    let value = show_credits();
    let task = "When was the lead actor of Marble Harbor born?";
    let (text, back) = view(&value, "/tv/{tv_id}/credits", task);
    let whole = value["response"]["crew"].as_array().unwrap();
    let crew = shown(&back["response"]["crew"]);
    assert!(!crew.is_empty(), "{text}");
    for (member, full) in crew.iter().zip(whole) {
        assert_eq!(member["id"], full["id"], "{text}");
        assert_eq!(member["job"], full["job"], "{text}");
    }
    // The cast keep their characters as the crew their jobs.
    let cast = shown(&back["response"]["cast"]);
    assert!(cast.len() >= 2, "{text}");
    for actor in cast {
        assert!(actor["character"].is_string(), "{text}");
    }
}

/// The shows of [`person_tv_credits`]: the ones she produced have long titles.
const TITLES: [&str; 7] = [
    "Undertow",
    "Glass Orchard",
    "The Ferryman",
    "Low Tide",
    "Paper Lanterns",
    "Saltmarsh: The Long Winter of the Keepers",
    "The Cartographers of Nowhere in Particular",
];

/// A person's TV credits as an actor (`cast`) and behind the camera (`crew`), each with the
/// show's first air date and much else.
fn person_tv_credits() -> Value {
    let show = |i: usize, date: &str| {
        json!({"adult": false, "backdrop_path": format!("/backdrop{i:02}abcdefghijklmn.jpg"),
               "credit_id": format!("6e2f1a3b4c5d6e7f8091{i:04}"), "episode_count": 3 + i,
               "first_air_date": date, "genre_ids": [18, 9648], "id": 830_000 + i,
               "name": TITLES[i], "origin_country": ["NZ"],
               "original_language": "en", "original_name": TITLES[i],
               "overview": "A quiet coastal drama about people who keep secrets. ".repeat(3),
               "popularity": 11.5, "poster_path": format!("/poster{i:02}abcdefghijklmn.jpg"),
               "vote_average": 7.25, "vote_count": 120 + i})
    };
    let dates = [
        "2024-09-13",
        "2021-03-02",
        "2019-06-21",
        "2016-01-30",
        "2012-11-05",
    ];
    let cast: Vec<Value> = dates
        .iter()
        .enumerate()
        .map(|(i, date)| {
            let mut credit = show(i, date);
            credit["character"] = json!(format!("Character {i}"));
            credit
        })
        .collect();
    let crew: Vec<Value> = [(5, "2023-02-17"), (6, "2020-08-08"), (5, "2023-02-17")]
        .iter()
        .zip(
            [
                ("Production", "Executive Producer"),
                ("Production", "Producer"),
            ]
            .iter()
            .cycle(),
        )
        .map(|((i, date), (department, job))| {
            let mut credit = show(*i, date);
            credit["department"] = json!(department);
            credit["job"] = json!(job);
            credit
        })
        .collect();
    observation(json!({"id": 77_001, "cast": cast, "crew": crew}))
}

#[test]
fn an_asked_date_is_shown_on_every_shown_item_of_every_list() {
    let value = person_tv_credits();
    let task = "give me some reviews of Wren Talbot's latest TV show";
    let (text, back) = view(&value, "/person/{person_id}/tv_credits", task);
    for list in ["cast", "crew"] {
        let whole = value["response"][list].as_array().unwrap();
        let items = shown(&back["response"][list]);
        assert!(!items.is_empty(), "{list}: {text}");
        for (item, full) in items.iter().zip(whole) {
            assert_eq!(item["id"], full["id"], "{list}: {text}");
            assert_eq!(
                item["first_air_date"], full["first_air_date"],
                "{list}: {text}"
            );
        }
    }
}
