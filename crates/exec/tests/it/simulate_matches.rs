//! A search for one name finds the few things that carry it, not a full page of a long
//! list (search23): stand-ins were drafted ten films and thirty results for "The Dark
//! Knight" and told to write all ten. The draft of such a search is a short last page with
//! totals to match, its fill prompt leaves the count to the model (a most, no page size),
//! and an answer of two matches is kept with totals of two; a ranking and a broad search
//! keep their full page.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Fill, LlmOracle, Simulator, SimulatorSettings};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{filling, op, tmdb};

/// `(total_results, total_pages, items shown)` of a TMDB page.
pub(crate) fn numbers(page: &Value) -> (u64, u64, u64) {
    (
        page["total_results"].as_u64().unwrap(),
        page["total_pages"].as_u64().unwrap(),
        page["results"].as_array().unwrap().len() as u64,
    )
}

/// The text of the one prompt the model received.
pub(crate) fn only_prompt(llm: &ScriptedLlm) -> String {
    let requests = llm.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    requests[0].messages[0].text().to_owned()
}

/// Without a model, a search for a title or a person (several words, a capitalized
/// word, a quoted phrase) is drafted as one short page whose totals count its items.
#[tokio::test]
async fn an_exact_name_search_drafts_a_short_last_page() {
    let book = tmdb();
    let sim = Simulator::new(Arc::clone(&book));
    for (path, query) in [
        ("/search/movie", "The Dark Knight"),
        ("/search/movie", "Titanic"),
        ("/search/movie", "\"heat\""),
        ("/search/person", "Christopher Nolan"),
        ("/search/tv", "Breaking Bad"),
    ] {
        let got = sim
            .call(&op(&book, "GET", path), &json!({"query": query}))
            .await
            .unwrap();
        let (total, pages, shown) = numbers(got.body.json().unwrap());
        assert!((1..=3).contains(&shown), "{query}: {shown} items");
        assert_eq!((total, pages), (shown, 1), "{query}: the page is the last");
    }
}

/// The fill prompt of an exact-name search states no page size: how many things match
/// is the model's to decide, up to a most, and the totals follow what it writes.
#[tokio::test]
async fn an_exact_name_search_prompt_leaves_the_count_to_the_model() {
    let book = tmdb();
    let search = op(&book, "GET", "/search/movie");
    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
    let sim = filling(&book, &llm);
    let got = sim
        .call(&search, &json!({"query": "The Dark Knight"}))
        .await
        .unwrap();
    let (total, pages, shown) = numbers(got.body.json().unwrap());
    assert_eq!(
        (total, pages),
        (shown, 1),
        "the draft answers: {shown} items"
    );
    let said = only_prompt(&llm);
    for page_size in ["hold 10 items", "write all", "a full page"] {
        assert!(!said.contains(page_size), "{page_size}: {said}");
    }
    assert!(
        said.contains("how many things match it is yours to decide, up to 10"),
        "{said}"
    );
    assert!(said.contains("its totals count what you list"), "{said}");
}

/// A TMDB film as a search lists it.
fn film(id: u64, title: &str, date: &str) -> Value {
    json!({"adult": false, "id": id, "title": title, "original_title": title,
        "original_language": "en", "overview": format!("{title}, the film."),
        "release_date": date, "genre_ids": [28, 80], "popularity": 40.5,
        "vote_average": 8.2, "vote_count": 30000, "video": false,
        "poster_path": "/p.jpg", "backdrop_path": "/b.jpg"})
}

/// A model that finds two films for a title has them kept with totals of two and one
/// page, whether it counted them so or left larger totals (a longer list's, the draft's
/// three); a page the prompt showed cut is not completed from the draft's placeholders.
#[tokio::test]
async fn two_matches_of_a_name_search_are_kept_with_totals_of_two() {
    let book = tmdb();
    let search = op(&book, "GET", "/search/movie");
    // Budgets: 7,000 characters cut a page of ten (the draft before search23), 4,800 the
    // three films drafted for "Batman Begins".
    let cases = [
        ("The Dark Knight", 7_000, 2, 1),
        ("The Dark Knight", 7_000, 30, 3),
        ("Batman Begins", 4_800, 3, 1),
    ];
    for (query, budget, total, pages) in cases {
        let answer = json!({"page": 1, "results": [
                film(155, "The Dark Knight", "2008-07-16"),
                film(49026, "The Dark Knight Rises", "2012-07-17")],
            "total_results": total, "total_pages": pages});
        let llm = Arc::new(ScriptedLlm::new([Reply::text(answer.to_string())]));
        let settings = SimulatorSettings {
            fill: Fill::Llm,
            max_prompt_chars: budget,
            ..SimulatorSettings::default()
        };
        let sim = Simulator::with_settings(Arc::clone(&book), &settings)
            .with_oracle(Arc::new(LlmOracle::new(llm.clone())));
        let got = sim.call(&search, &json!({"query": query})).await.unwrap();
        let body = got.body.json().unwrap();
        let case = format!("{query} answered {total}/{pages}: {body}");
        assert_eq!(numbers(body), (2, 1, 2), "{case}");
        let ids: Vec<u64> = body["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_u64().unwrap())
            .collect();
        assert_eq!(ids, [155, 49026], "{case}");
        if query == "Batman Begins" {
            let said = only_prompt(&llm);
            assert!(said.contains("`/results` holds 3 items"), "{said}");
        }
    }
}

/// What is popular, and a broad search (one lowercase word), still draft a full page and
/// ask for all of it, with no escape for exact titles beside it.
#[tokio::test]
async fn a_ranking_and_a_broad_search_still_ask_for_a_full_page() {
    let book = tmdb();
    let calls = [
        (op(&book, "GET", "/movie/popular"), json!({})),
        (op(&book, "GET", "/movie/top_rated"), json!({})),
        (
            op(&book, "GET", "/search/movie"),
            json!({"query": "comedy"}),
        ),
    ];
    for (api, args) in calls {
        let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
        let sim = filling(&book, &llm);
        let got = sim.call(&api, &args).await.unwrap();
        let (total, pages, shown) = numbers(got.body.json().unwrap());
        assert_eq!(shown, total.min(10), "{api} {args}");
        assert_eq!(pages, total.div_ceil(10), "{api} {args}");
        let said = only_prompt(&llm);
        assert!(
            said.contains(&format!(
                "make this page hold {shown} items: write all {shown}"
            )),
            "{api} {args}: {said}"
        );
        assert!(!said.contains("exact title"), "{api} {args}: {said}");
        assert!(!said.contains("yours to decide"), "{api} {args}: {said}");
    }
}

/// An API with nothing to draft from is told the same: a search for one name lists the
/// few things that carry it, not a full page.
#[tokio::test]
async fn a_search_without_a_schema_is_told_the_count_is_its_own() {
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
        "paths": {"/search": {"get": {"summary": "Finds films by title.",
            "parameters": [{"name": "q", "in": "query", "required": true,
                "schema": {"type": "string"}}],
            "responses": {"200": {"description": "the films found"}}}}}});
    let book = crate::book_of(&spec);
    let search = op(&book, "GET", "/search");
    let llm = Arc::new(ScriptedLlm::new([Reply::text(r#"{"films": []}"#)]));
    let sim = filling(&book, &llm);
    sim.call(&search, &json!({"q": "Blade Runner"}))
        .await
        .unwrap();
    let said = only_prompt(&llm);
    assert!(
        said.contains("how many things match it is yours to decide, up to 10"),
        "{said}"
    );
    assert!(!said.contains("a full page"), "{said}");
}
