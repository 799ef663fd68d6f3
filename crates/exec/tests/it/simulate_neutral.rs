//! The draft a fill model is shown holds the spec's example content as visible
//! placeholders (`neutral`): stand-in models filling TMDB credits kept David Fincher as the
//! director of a 2025 film and Brad Pitt's biography for another person, because the
//! draft showed them as values. The response with `fill = "schema"` is unchanged.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{ApiBook, Executor, Simulator, canonical_json};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::simulate_writes::drafted;
use crate::{filling, op, prompt, tmdb};

/// Every string of `value`, at any depth.
fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// FNV-1a of `text`: a fingerprint stable across Rust versions.
fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The TMDB examples' strings under `keys`, of every API of the spec.
fn tmdb_example_values(book: &ApiBook, keys: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for id in book.ids() {
        for example in &book.get(id).unwrap().api.api.response_examples {
            walk(example, keys, &mut out);
        }
    }
    out
}

fn walk(value: &Value, keys: &[&str], out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                match v.as_str() {
                    Some(s) if keys.contains(&k.as_str()) && !s.is_empty() => {
                        out.push(s.to_owned());
                    }
                    _ => walk(v, keys, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| walk(v, keys, out)),
        _ => {}
    }
}

/// The example texts among `value`'s strings.
fn examples_in<'v>(value: &'v Value, examples: &[String]) -> Vec<&'v str> {
    strings(value)
        .into_iter()
        .filter(|s| examples.iter().any(|e| e == s))
        .collect()
}

/// The credits of *One Battle After Another* (310036) were drafted from another film's
/// records: David Fincher as its director, real actors in its cast, their profile paths
/// (stand-in w3, request 15), and several fills kept them. The draft the model is shown
/// holds none of the examples' names, characters, jobs or image paths: each is a tag naming
/// its field and item, each path one of its own. The film's id, the keys and the ids stay.
#[tokio::test]
async fn a_credits_draft_shows_no_example_names_or_image_paths() {
    let book = tmdb();
    let credits = op(&book, "GET", "/movie/{movie_id}/credits");
    let args = json!({"movie_id": 310036});
    let named = tmdb_example_values(&book, &["name", "character", "job", "profile_path"]);
    // Drawn for the user as before (`fill = "schema"`), the credits show the examples'.
    let schema_fill = Simulator::new(Arc::clone(&book))
        .call(&credits, &args)
        .await
        .unwrap();
    let whole = schema_fill.body.json().unwrap();
    assert!(
        !examples_in(whole, &named).is_empty(),
        "the draft holds example names: {whole:#}"
    );

    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
    let sim = filling(&book, &llm);
    sim.call(&credits, &args).await.unwrap();
    let sent = prompt(&llm, 0);
    let draft = drafted(&sent);
    assert_eq!(examples_in(&draft, &named), Vec::<&str>::new(), "{draft:#}");
    assert_eq!(draft["id"], 310036, "{draft:#}");
    assert!(
        sent.contains(r#""movie_id":310036"#),
        "the call's arguments"
    );
    let crew = draft["crew"].as_array().expect("a crew");
    let first = crew.first().expect("a crew member").as_object().unwrap();
    for key in ["credit_id", "department", "job", "name", "profile_path"] {
        assert!(first.contains_key(key), "{key} kept: {draft:#}");
    }
    assert_eq!(first["name"], "<name of crew 1>");
    assert!(
        first["credit_id"].as_str().is_some_and(|id| id.len() == 24),
        "an id stays"
    );
    let paths: Vec<&str> = crew
        .iter()
        .chain(draft["cast"].as_array().into_iter().flatten())
        .filter_map(|m| m["profile_path"].as_str())
        .collect();
    let distinct: std::collections::HashSet<&str> = paths.iter().copied().collect();
    assert_eq!(distinct.len(), paths.len(), "one path each: {paths:?}");
    assert!(
        paths
            .iter()
            .all(|p| p.starts_with("/placeholder-") && p.ends_with(".jpg"))
    );
    assert!(
        sent.contains("carries no fact"),
        "the prompt says what a placeholder is"
    );
}

/// A person's draft carried Brad Pitt's biography for another person (stand-in w2,
/// requests 83 and 92; w3, request 117). It carries no example biography: a tag says
/// where the person's own goes.
#[tokio::test]
async fn a_person_draft_carries_no_example_biography() {
    let book = tmdb();
    let person = op(&book, "GET", "/person/{person_id}");
    let args = json!({"person_id": 1_892_000});
    let biographies = tmdb_example_values(&book, &["biography"]);
    assert!(
        !biographies.is_empty(),
        "the spec's examples hold biographies"
    );
    let schema_fill = Simulator::new(Arc::clone(&book))
        .call(&person, &args)
        .await
        .unwrap();
    let whole = schema_fill.body.json().unwrap();
    assert!(
        biographies.iter().any(|b| whole["biography"] == b.as_str()),
        "{whole:#}"
    );

    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
    filling(&book, &llm).call(&person, &args).await.unwrap();
    let draft = drafted(&prompt(&llm, 0));
    let shown = draft["biography"].as_str().expect("a biography");
    assert_eq!(shown, "<biography>", "{draft:#}");
    for biography in &biographies {
        let opening: String = biography.chars().take(40).collect();
        assert!(!prompt(&llm, 0).contains(&opening), "{opening}");
    }
    assert_eq!(draft["id"], 1_892_000);
}

/// With `fill = "schema"` the user sees the draft itself: it keeps the examples' values,
/// byte for byte what it was before drafts shown to a fill model were made neutral (the
/// fingerprints were taken then), but for its dates: the person's birthday (the example's
/// `1963-12-18`) and the release dates of the films a searched person is known for (their
/// example records') are drawn per entity since round 25.
#[tokio::test]
async fn a_schema_fill_is_unchanged() {
    let book = tmdb();
    let sim = Simulator::new(Arc::clone(&book));
    let calls = [
        (
            "/movie/{movie_id}/credits",
            json!({"movie_id": 310036}),
            17_235_384_819_062_755_319_u64,
        ),
        (
            "/person/{person_id}",
            json!({"person_id": 1_892_000}),
            9_309_476_265_134_976_356,
        ),
        (
            "/search/person",
            json!({"query": "Leonardo DiCaprio"}),
            9_761_302_031_532_751_156,
        ),
    ];
    for (path, args, expected) in calls {
        let got = sim.call(&op(&book, "GET", path), &args).await.unwrap();
        let body = canonical_json(got.body.json().unwrap());
        assert_eq!(fingerprint(&body), expected, "{path}: {body}");
    }
}

/// A search's draft pads its results with namesakes the simulator makes up from its filler
/// words ("Star Wars Garden", "Breaking Bad River"), which five stand-ins of round 24 took
/// for real titles: the fill model is shown them as placeholders, while the schema response
/// still has them.
#[tokio::test]
async fn a_search_draft_shows_no_made_up_namesakes() {
    let book = tmdb();
    let search = op(&book, "GET", "/search/movie");
    let plain = Simulator::new(Arc::clone(&book));
    let queries = [
        "Star Wars",
        "Breaking Bad",
        "The Matrix",
        "Titanic",
        "Inception",
        "Oppenheimer",
        "Twin Peaks",
        "Barbie",
        "Avatar",
        "Harry Potter",
    ];
    let llm = Arc::new(ScriptedLlm::new(queries.map(|_| Reply::text("{}"))));
    let sim = filling(&book, &llm);
    let mut padded_in_all = 0;
    for (i, query) in queries.iter().enumerate() {
        let args = json!({"query": query});
        let answered = plain.call(&search, &args).await.unwrap();
        let body = answered.body.json().unwrap();
        let padded: Vec<String> = body["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["title"].as_str())
            .filter(|t| t.len() > query.len() && t.starts_with(query))
            .map(str::to_owned)
            .collect();
        padded_in_all += padded.len();
        sim.call(&search, &args).await.unwrap();
        let shown = drafted(&prompt(&llm, i));
        let texts = strings(&shown);
        for title in &padded {
            assert!(!texts.contains(&title.as_str()), "{title} shown in {shown}");
        }
    }
    assert!(padded_in_all > 0, "some schema response pads a search");
}
