//! A page of a longer list is a full page (issue 27): a ranking or a search answered
//! with one to five items cannot say whether a film is in the top ten, so a page holds
//! the documented page size, else `[exec.simulate] page_items`, in the draft and in
//! what the fill prompt asks for; the complete lists the prompts name include a
//! person's credits and a show's seasons and episodes.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Fill, LlmOracle, Simulator, SimulatorSettings};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::{book_of, filling, op};

/// A ranked list of films paged as TMDB pages, written for these tests: no page size
/// documented, no count argument.
fn ranked_spec() -> Value {
    let movie = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "title": {"type": "string"}, "vote_average": {"type": "number"}}});
    let page = json!({"type": "object", "properties": {"page": {"type": "integer"},
        "results": {"type": "array", "items": movie}, "total_results": {"type": "integer"},
        "total_pages": {"type": "integer"}}});
    json!({"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
        "servers": [{"url": "https://films.example/3"}],
        "paths": {"/movie/top_rated": {"get": {"summary": "The top rated films.",
            "parameters": [{"name": "page", "in": "query", "schema": {"type": "integer", "default": 1}},
                {"name": "region", "in": "query", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": page}}}}}}}})
}

/// The text of the one prompt the model received.
fn prompt(llm: &ScriptedLlm) -> String {
    let requests = llm.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    requests[0].messages[0].text().to_owned()
}

/// `(total_results, total_pages, items shown)` of a page.
fn numbers(page: &Value) -> (u64, u64, u64) {
    (
        page["total_results"].as_u64().unwrap(),
        page["total_pages"].as_u64().unwrap(),
        page["results"].as_array().unwrap().len() as u64,
    )
}

/// With no page size documented, a page holds `page_items` (10 by default): the draft
/// shows that many, fewer only on the last page, and its paging numbers agree.
#[tokio::test]
async fn a_ranked_page_holds_a_full_page_of_page_items() {
    let book = book_of(&ranked_spec());
    let top = op(&book, "GET", "/movie/top_rated");
    let mut full = 0;
    for region in ["US", "FR", "DE", "JP", "BR", "IT"] {
        for (items, settings) in [
            (10, SimulatorSettings::default()),
            (
                4,
                SimulatorSettings {
                    page_items: 4,
                    ..SimulatorSettings::default()
                },
            ),
        ] {
            let sim = Simulator::with_settings(Arc::clone(&book), &settings);
            let got = sim.call(&top, &json!({"region": region})).await.unwrap();
            let (total, pages, shown) = numbers(got.body.json().unwrap());
            assert_eq!(shown, total.min(items), "{region}: {total} results");
            assert_eq!(pages, total.div_ceil(items), "{region}: pages of {items}");
            full += usize::from(shown == items);
        }
    }
    assert!(full > 0, "some ranking is longer than a page");
}

/// The fill prompt asks for the whole page the draft shows, not one to five items.
#[tokio::test]
async fn the_fill_prompt_asks_for_the_whole_page() {
    let book = book_of(&ranked_spec());
    let top = op(&book, "GET", "/movie/top_rated");
    for region in ["US", "FR", "DE"] {
        let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
        let sim = filling(&book, &llm);
        let got = sim.call(&top, &json!({"region": region})).await.unwrap();
        let (_, _, shown) = numbers(got.body.json().unwrap());
        let said = prompt(&llm);
        assert!(
            said.contains(&format!(
                "make this page hold {shown} items: write all {shown}"
            )),
            "{said}"
        );
        // A search for one exact title has its own rule (`simulate_matches`), not an
        // escape beside a ranking's full page.
        assert!(!said.contains("exact title"), "{said}");
    }
}

/// A draft too long for the prompt budget is shown cut, and the prompt still asks for
/// the full page it was cut from (TMDB's own top rated films).
#[tokio::test]
async fn a_shortened_page_still_asks_for_the_full_page() {
    let book = crate::tmdb();
    let top = op(&book, "GET", "/movie/top_rated");
    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        max_prompt_chars: 7_000,
        ..SimulatorSettings::default()
    };
    let sim = Simulator::with_settings(Arc::clone(&book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(llm.clone())));
    let got = sim.call(&top, &json!({})).await.unwrap();
    let (_, _, shown) = numbers(got.body.json().unwrap());
    let said = prompt(&llm);
    assert!(said.len() <= 7_000, "{}", said.len());
    assert!(
        said.contains(&format!("`/results` holds {shown} items; the first")),
        "{said}"
    );
    assert!(said.contains(&format!("write all {shown}")), "{said}");
}

/// A person's credits and a show's seasons are among the lists the facts make complete.
#[tokio::test]
async fn credits_seasons_and_episodes_are_complete_lists() {
    let book = crate::tmdb();
    let credits = op(&book, "GET", "/person/{person_id}/movie_credits");
    let llm = Arc::new(ScriptedLlm::new([Reply::text("{}")]));
    let sim = filling(&book, &llm);
    sim.call(&credits, &json!({"person_id": 59243}))
        .await
        .unwrap();
    let said = prompt(&llm);
    for example in [
        "a person's credits: every film or show they are known for",
        "the seasons of a show, the episodes of a season",
    ] {
        assert!(said.contains(example), "{example}: {said}");
    }
    assert!(!said.contains("write all"), "credits are no page: {said}");
}

/// An API with nothing to draw from is told a page of a longer list is a full page.
#[tokio::test]
async fn an_api_without_a_schema_is_told_the_page_size() {
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Charts", "version": "1"},
        "paths": {"/charts/top": {"get": {"summary": "The most played songs.",
            "responses": {"200": {"description": "the chart"}}}}}});
    let book = book_of(&spec);
    let chart = op(&book, "GET", "/charts/top");
    let llm = Arc::new(ScriptedLlm::new([Reply::text(r#"{"songs": []}"#)]));
    let settings = SimulatorSettings {
        page_items: 7,
        ..SimulatorSettings::default()
    };
    let sim = Simulator::with_settings(Arc::clone(&book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(llm.clone())));
    sim.call(&chart, &json!({})).await.unwrap();
    let said = prompt(&llm);
    assert!(said.contains("holds a full page of 7 items"), "{said}");
}

/// A person search (a required free-text `query`) and the popular people (no free text),
/// both paged as TMDB pages.
fn people_pages_spec() -> Value {
    let person = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "name": {"type": "string"}}});
    let page = json!({"type": "object", "properties": {"page": {"type": "integer"},
        "results": {"type": "array", "items": person}, "total_results": {"type": "integer"},
        "total_pages": {"type": "integer"}}});
    let ok = json!({"200": {"description": "ok",
        "content": {"application/json": {"schema": page}}}});
    let page_arg = json!({"name": "page", "in": "query", "schema": {"type": "integer"}});
    json!({"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
        "servers": [{"url": "https://films.example/3"}],
        "paths": {
            "/search/person": {"get": {"parameters": [page_arg.clone(), {"name": "query",
                "in": "query", "required": true, "schema": {"type": "string"}}],
                "responses": ok.clone()}},
            "/person/popular": {"get": {"parameters": [page_arg], "responses": ok}}}})
}

/// A page of `n` people (ids from `first`) claiming `total` results.
fn people_page(page: u64, first: u64, n: u64, total: u64) -> Value {
    let results: Vec<Value> = (first..first + n)
        .map(|i| json!({"id": i, "name": format!("Person {i}")}))
        .collect();
    json!({"page": page, "results": results, "total_results": total,
        "total_pages": total.div_ceil(10)})
}

/// A model that says a search for one exact name found 7,052 people is held to a few
/// pages: a full first page counts at most three pages' worth, a later full page ends
/// where it does, and a short page counts its items; the popular people keep the
/// thousands the model gave them.
#[tokio::test]
async fn a_search_counts_a_few_pages_and_a_popular_list_its_thousands() {
    let book = book_of(&people_pages_spec());
    let search = op(&book, "GET", "/search/person");
    let popular = op(&book, "GET", "/person/popular");
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(people_page(1, 1, 10, 7052).to_string()),
        Reply::text(people_page(5, 41, 10, 7052).to_string()),
        Reply::text(people_page(1, 1, 3, 7052).to_string()),
        Reply::text(people_page(1, 1, 10, 9000).to_string()),
    ]));
    let sim = filling(&book, &llm);
    let nolan = json!({"query": "Christopher Nolan"});
    let calls = [
        (&search, nolan.clone()),
        (&search, json!({"query": "Christopher Nolan", "page": 5})),
        (&search, json!({"query": "Zbigniew Rybczynski"})),
        (&popular, json!({})),
    ];
    let mut got = Vec::new();
    for (api, args) in calls {
        let body = sim.call(api, &args).await.unwrap().body.json().cloned();
        got.push(numbers(&body.unwrap()));
    }
    let (total, pages, shown) = got[0];
    assert_eq!(shown, 10, "{:?}", got[0]);
    assert!(
        (10..=30).contains(&total) && pages == total.div_ceil(10),
        "a full search page counts a few pages: {:?}",
        got[0]
    );
    assert_eq!(got[1], (50, 5, 10), "page 5 of the search is its last");
    assert_eq!(got[2], (3, 1, 3), "a short page counts its items");
    assert_eq!(got[3], (9000, 900, 10), "what is popular keeps its total");
}

/// Without a model the skeleton's totals follow the same rule: every full page of a
/// search counts at most three pages' worth, whatever it draws.
#[tokio::test]
async fn a_drafted_search_page_counts_a_few_pages() {
    let book = book_of(&people_pages_spec());
    let search = op(&book, "GET", "/search/person");
    let sim = Simulator::new(Arc::clone(&book));
    for name in [
        "Christopher Nolan",
        "Greta Gerwig",
        "Wong Kar-wai",
        "Agnes Varda",
    ] {
        let got = sim.call(&search, &json!({"query": name})).await.unwrap();
        let (total, pages, shown) = numbers(got.body.json().unwrap());
        assert!(total <= 30 && pages <= 3, "{name}: {total} results");
        assert_eq!(shown, total.min(10), "{name}");
    }
}
