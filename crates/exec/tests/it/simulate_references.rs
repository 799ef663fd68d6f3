//! Ids a response showed only as references reach the fills that list or detail those
//! things (brief recall24, stand-ins v5 and w4): a movie search showed `genre_ids`, and the
//! genre list's fill is told those ids with the film that referred to them, so it names
//! them; a film's details are told that film's own `genre_ids` with it, not other films'.

use std::sync::Arc;

use serde_json::json;
use toolsmith_exec::Executor;
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{filling, op, prompts};

/// The lines of a fill prompt that list what the session showed.
fn shown_lines(prompt: &str) -> Vec<&str> {
    prompt.lines().filter(|l| l.starts_with("- {")).collect()
}

#[tokio::test]
async fn the_genre_ids_a_search_showed_reach_the_genre_list_and_the_details() {
    let book = crate::tmdb();
    let search = op(&book, "GET", "/search/movie");
    let genres = op(&book, "GET", "/genre/movie/list");
    let details = op(&book, "GET", "/movie/{movie_id}");
    let found = json!({"page": 1, "total_results": 2, "total_pages": 1, "results": [
        {"id": 671, "title": "Harry Potter and the Philosopher's Stone",
            "release_date": "2001-11-16", "genre_ids": [12, 14, 28]},
        {"id": 672, "title": "Harry Potter and the Chamber of Secrets",
            "release_date": "2002-11-13", "genre_ids": [12, 14, 10751]}]});
    let listed = json!({"genres": [{"id": 12, "name": "Adventure"},
        {"id": 14, "name": "Fantasy"}, {"id": 28, "name": "Action"},
        {"id": 10751, "name": "Family"}]});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(found.to_string()),
        Reply::text(listed.to_string()),
        Reply::text("{}"),
    ]));
    let sim = filling(&book, &llm).fork_for(None).unwrap();
    for (api, args) in [
        (&search, json!({"query": "Harry Potter"})),
        (&genres, json!({})),
        (&details, json!({"movie_id": 671})),
    ] {
        let got = sim.call(api, &args).await.unwrap();
        assert!(got.body.json().is_some(), "{api}: {got:?}");
    }
    let asked = prompts(&llm);
    assert_eq!(asked.len(), 3);
    // The genre list is told each film's genre ids, the field and the film.
    let refs: Vec<&str> = shown_lines(&asked[1])
        .into_iter()
        .filter(|l| l.contains(r#""refers_to":"genre""#))
        .collect();
    assert!(
        refs.iter().any(|l| l.contains(r#""ids":[12,14,28]"#)
            && l.contains(r#""as":"genre_ids""#)
            && l.contains(r#""id":671"#)),
        "{:?}",
        shown_lines(&asked[1])
    );
    assert!(
        refs.iter().any(|l| l.contains("10751")),
        "the second film's new genre: {refs:?}"
    );
    // The details of film 671 are told the film with its own genre ids, and no other
    // film's references.
    let lines = shown_lines(&asked[2]);
    assert!(
        lines
            .iter()
            .any(|l| l.contains(r#""id":671"#) && l.contains(r#""genre_ids":[12,14,28]"#)),
        "{lines:?}"
    );
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("refers_to") || l.contains("10751")),
        "{lines:?}"
    );
}
