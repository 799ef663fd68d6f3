//! What a fill is told of the session (brief facts23): the entities whose ids the agent
//! holds (passed in its calls) reach a later fill, with the ids they were shown under; and
//! the session's facts never make a fill fail for the prompt budget.

use std::sync::Arc;

use serde_json::{Value, json};
use toolsmith_exec::{Executor, Fill, LlmOracle, Simulator, SimulatorSettings};
use toolsmith_llm::testing::{Reply, ScriptedLlm};

use crate::op;

/// The lines of a fill prompt that list what the session showed.
fn shown_lines(prompt: &str) -> Vec<&str> {
    prompt.lines().filter(|l| l.starts_with("- {")).collect()
}

/// A simulator filling with `llm` under a prompt budget of `chars`, on a pinned date.
fn filling_within(
    book: &Arc<toolsmith_exec::ApiBook>,
    llm: &Arc<ScriptedLlm>,
    chars: usize,
) -> Simulator {
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        max_prompt_chars: chars,
        today: Some(jiff::civil::date(2026, 11, 30)),
        ..SimulatorSettings::default()
    };
    Simulator::with_settings(Arc::clone(book), &settings)
        .with_oracle(Arc::new(LlmOracle::new(llm.clone())))
}

/// A collection of ten films, each with a long overview, as a stand-in filled it in the
/// RestBench TMDB run (query 38).
fn collection() -> Value {
    let parts: Vec<Value> = (0..10)
        .map(|i| {
            let id = if i == 0 { 70033 } else { 759_930 + i };
            json!({"adult": false, "backdrop_path": null, "genre_ids": [28, 80, 53],
                "id": id, "original_language": "en", "original_title": format!("Road Film {i}"),
                "overview": format!("Part {i} of the saga. {}", "A crew of drivers takes \
                    on one more job across another city, and the family it made holds \
                    together against a new enemy. ".repeat(3)),
                "popularity": 30.5 + f64::from(i), "poster_path": "/p.jpg",
                "release_date": format!("{}-06-22", 2001 + 2 * i), "title": format!("Road Film {i}"),
                "video": false, "vote_average": 6.9, "vote_count": 11042})
        })
        .collect();
    json!({"backdrop_path": "/b.jpg", "id": 235_718, "name": "The Road Film Collection",
        "overview": "Street racers who become a family.", "parts": parts, "poster_path": "/c.jpg"})
}

/// Query 38's shape: a session showed a collection of ten parts with long overviews, then
/// the reviews of its first part are filled. Whatever the budget near the default, the
/// prompt fits (never "does not fit the prompt budget") and is told the film's own fact.
#[tokio::test]
async fn the_reviews_of_a_collections_first_part_fit_the_budget() {
    let book = crate::tmdb();
    let search = op(&book, "GET", "/search/collection");
    let detail = op(&book, "GET", "/collection/{collection_id}");
    let reviews = op(&book, "GET", "/movie/{movie_id}/reviews");
    let task = "Give me a review of a movie from the collection The Road Film Collection.";
    let found = json!({"page": 1, "results": [{"backdrop_path": "/b.jpg", "id": 235_718,
        "name": "The Road Film Collection", "poster_path": "/c.jpg"}],
        "total_pages": 1, "total_results": 1});
    let mut refused = Vec::new();
    for chars in (23_000..25_000).step_by(10) {
        let llm = Arc::new(ScriptedLlm::new([
            Reply::text(found.to_string()),
            Reply::text(collection().to_string()),
            Reply::text("{}"),
        ]));
        let sim = filling_within(&book, &llm, chars)
            .fork_for(Some(task))
            .unwrap();
        sim.call(&search, &json!({"query": "The Road Film Collection"}))
            .await
            .unwrap();
        sim.call(&detail, &json!({"collection_id": 235_718}))
            .await
            .unwrap();
        let got = sim
            .call(&reviews, &json!({"movie_id": 70033}))
            .await
            .unwrap();
        if got.body.json().is_none() {
            refused.push((chars, format!("{got:?}")));
            continue;
        }
        let requests = llm.requests();
        let said = requests[2].messages[0].text();
        assert!(said.len() <= chars, "{chars}: {}", said.len());
        assert!(
            shown_lines(said)
                .iter()
                .any(|l| l.contains(r#""id":70033"#) && l.contains("Road Film 0")),
            "{chars}: the film's own fact is missing: {:?}",
            shown_lines(said)
        );
    }
    let budgets: Vec<usize> = refused.iter().map(|(c, _)| *c).collect();
    assert!(
        refused.is_empty(),
        "refused at {budgets:?}: {:?}",
        refused.first()
    );
}

/// Stand-in u2 (RestBench TMDB, "the latest movie directed by Christopher Nolan"): a
/// person search showed Nolan as 66185 and the agent passed that id to a discover as
/// `with_crew`; the credits fill of the film found is told Nolan by that id and name, so
/// it does not make him up under another. A person the search showed but the agent never
/// passed is not told.
#[tokio::test]
async fn a_person_the_agent_passed_reaches_a_films_credits_fill() {
    let book = crate::tmdb();
    let search = op(&book, "GET", "/search/person");
    let discover = op(&book, "GET", "/discover/movie");
    let credits = op(&book, "GET", "/movie/{movie_id}/credits");
    let people = json!({"page": 1, "results": [
        {"id": 66185, "name": "Christopher Nolan", "known_for_department": "Directing",
            "popularity": 12.5},
        {"id": 72001, "name": "Christopher Nolan Smith", "known_for_department": "Acting",
            "popularity": 0.6}],
        "total_pages": 1, "total_results": 2});
    let films = json!({"page": 1, "results": [{"id": 512_775, "title": "The Odyssey",
        "release_date": "2026-07-16", "vote_average": 7.9}],
        "total_pages": 1, "total_results": 1});
    let llm = Arc::new(ScriptedLlm::new([
        Reply::text(people.to_string()),
        Reply::text(films.to_string()),
        Reply::text("{}"),
    ]));
    let task = "What is the latest movie directed by Christopher Nolan?";
    let sim = filling_within(&book, &llm, 24_000)
        .fork_for(Some(task))
        .unwrap();
    for (api, args) in [
        (&search, json!({"query": "Christopher Nolan"})),
        (
            &discover,
            json!({"with_crew": "66185", "sort_by": "primary_release_date.desc"}),
        ),
        (&credits, json!({"movie_id": 512_775})),
    ] {
        let got = sim.call(api, &args).await.unwrap();
        assert!(got.body.json().is_some(), "{api}: {got:?}");
    }
    let requests = llm.requests();
    let told = |at: usize| -> Vec<String> {
        shown_lines(requests[at].messages[0].text())
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    let nolan = |lines: &[String]| {
        lines
            .iter()
            .any(|l| l.contains(r#""id":66185"#) && l.contains(r#""name":"Christopher Nolan""#))
    };
    // The discover passes Nolan's id itself; the credits after it list people.
    for at in [1, 2] {
        assert!(
            nolan(&told(at)),
            "call {at} is not told Nolan: {:?}",
            told(at)
        );
        assert!(
            told(at).iter().all(|l| !l.contains("72001")),
            "a person never passed is told: {:?}",
            told(at)
        );
    }
    assert!(
        told(2).iter().any(|l| l.contains(r#""id":512775"#)),
        "{:?}",
        told(2)
    );
}

/// The session's facts have a bound of their own: eight writes whose long descriptions
/// alone are over the whole prompt budget leave a later read answered, told the writes
/// with their texts shortened and marked so, instead of refused for its prompt.
#[tokio::test]
async fn long_facts_are_shortened_within_their_share_of_the_budget() {
    let list = json!({"type": "object", "properties": {"id": {"type": "integer"},
        "name": {"type": "string"}, "description": {"type": "string"}}});
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Lists", "version": "1"},
        "paths": {
            "/lists": {"post": {"requestBody": {"content": {"application/json":
                {"schema": list.clone()}}}, "responses": {"201": {"description": "made",
                "content": {"application/json": {"schema": list.clone()}}}}}},
            "/lists/{list_id}": {"get": {"parameters": [{"name": "list_id", "in": "path",
                "required": true, "schema": {"type": "integer"}}], "responses": {"200": {
                "description": "the list", "content": {"application/json":
                {"schema": list}}}}}}}});
    let book = crate::book_of(&spec);
    let create = op(&book, "POST", "/lists");
    let read = op(&book, "GET", "/lists/{list_id}");
    let long = "A list of films to watch on long winter evenings. ".repeat(40);
    let mut replies: Vec<Reply> = (0..8)
        .map(|i| Reply::text(json!({"id": i + 1, "name": format!("List {i}")}).to_string()))
        .collect();
    replies.push(Reply::text("{}"));
    let llm = Arc::new(ScriptedLlm::new(replies));
    let sim = filling_within(&book, &llm, 12_000).fork_for(None).unwrap();
    for i in 0..8 {
        let args = json!({"name": format!("List {i}"), "description": long});
        let got = sim.call(&create, &args).await.unwrap();
        assert!(got.is_ok(), "{got:?}");
    }
    let got = sim.call(&read, &json!({"list_id": 1})).await.unwrap();
    assert!(got.body.json().is_some(), "{got:?}");
    let requests = llm.requests();
    let said = requests[8].messages[0].text();
    assert!(said.len() <= 12_000, "{}", said.len());
    let writes: Vec<&str> = shown_lines(said)
        .into_iter()
        .filter(|l| l.contains(r#""done":"POST /lists""#))
        .collect();
    assert!(!writes.is_empty(), "no write told: {said}");
    assert!(
        writes
            .iter()
            .all(|l| l.contains("[cut short here]") && l.len() < 600),
        "{writes:?}"
    );
}
