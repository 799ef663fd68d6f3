//! Intent extraction at query time: per-intent search and fusion, with a scripted model.

use std::sync::Arc;

use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_llm::{CacheDb, CacheMode, CachedChat, Role};
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Explanation, Filter, Hit, IntentFusion, IntentRetriever,
    IntentSettings, LlmIntents, Retriever,
};

use crate::data::tiny;

/// Asks for the cast, the title search and the current wind in one breath: the movie words
/// outnumber the weather ones.
const REQUEST: &str = "Search the movie Dune by its title, then get the cast and crew of \
                       that movie, and tell me the current wind";

fn ids(hits: &[Hit]) -> Vec<String> {
    hits.iter().map(|h| h.api.to_string()).collect()
}

fn bm25() -> Arc<dyn Retriever> {
    Arc::new(Bm25Index::build(tiny(), Bm25Settings::default()))
}

fn on(fusion: IntentFusion) -> IntentSettings {
    IntentSettings {
        enabled: true,
        fusion,
        ..IntentSettings::default()
    }
}

fn with_model(model: ScriptedLlm, settings: IntentSettings) -> IntentRetriever {
    IntentRetriever::new(bm25(), Arc::new(LlmIntents::new(model)), settings)
}

#[tokio::test]
async fn two_intents_offer_the_best_api_of_each_where_the_blob_misses_one() {
    let none = Filter::default();
    let blob = bm25().search(REQUEST, 2, &none).await.unwrap();
    assert!(
        !ids(&blob).contains(&"weather/current".to_owned()),
        "the blob search must miss the weather API for this test to mean anything: {blob:?}"
    );
    for fusion in [IntentFusion::RoundRobin, IntentFusion::Rrf] {
        let model = ScriptedLlm::new([Reply::text(
            r#"{"intents": ["cast and crew of a movie", "current wind in a city"]}"#,
        )]);
        let retriever = with_model(model.clone(), on(fusion));
        let hits = retriever.search(REQUEST, 2, &none).await.unwrap();
        let mut got = ids(&hits);
        got.sort();
        assert_eq!(
            got,
            ["movies/movie_credits", "weather/current"],
            "{fusion:?}"
        );
        let asked = model.requests();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].role, Role::new(Role::INTENTS));
        assert!(asked[0].last_message().contains(REQUEST));
    }
}

#[tokio::test]
async fn one_intent_gives_exactly_the_plain_ranking() {
    let none = Filter::default();
    let query = "weather forecasts for Paris";
    let model = ScriptedLlm::new([Reply::text(r#"{"intents": ["search movie title"]}"#)]);
    let retriever = with_model(model.clone(), on(IntentFusion::RoundRobin));
    let plain = bm25().search(query, 3, &none).await.unwrap();
    // The request as written, not the (here deliberately off-topic) single intent.
    assert_eq!(retriever.search(query, 3, &none).await.unwrap(), plain);
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn malformed_output_falls_back_to_the_request_as_one_query() {
    let none = Filter::default();
    let model = ScriptedLlm::new([
        Reply::text("Sure! The user wants movies and weather."),
        Reply::text("intents: movies, weather"),
    ]);
    let retriever = with_model(model.clone(), on(IntentFusion::RoundRobin));
    let plain = bm25().search(REQUEST, 2, &none).await.unwrap();
    assert_eq!(retriever.search(REQUEST, 2, &none).await.unwrap(), plain);
    // One repair was asked for, then the search went on without intents.
    assert_eq!(model.requests().len(), 2);
    assert_eq!(retriever.intents(REQUEST).await.as_slice(), [REQUEST]);
    // A model that fails outright loses no search either.
    let down = ScriptedLlm::new([Reply::status(500, "down"), Reply::status(500, "down")]);
    let retriever = with_model(down, on(IntentFusion::RoundRobin));
    assert_eq!(retriever.search(REQUEST, 2, &none).await.unwrap(), plain);
}

#[tokio::test]
async fn a_second_identical_search_through_the_cache_asks_no_model() {
    let none = Filter::default();
    let model = ScriptedLlm::new([Reply::text(
        r#"["cast and crew of a movie", "current wind in a city"]"#,
    )]);
    let db = CacheDb::in_memory().unwrap();
    let fresh = || {
        let cached = CachedChat::new(model.clone(), db.clone(), CacheMode::ReadWrite);
        IntentRetriever::new(
            bm25(),
            Arc::new(LlmIntents::new(cached)),
            on(IntentFusion::RoundRobin),
        )
    };
    let first = fresh().search(REQUEST, 2, &none).await.unwrap();
    // A new retriever (nothing remembered in memory): the answer comes from the cache.
    let second = fresh().search(REQUEST, 2, &none).await.unwrap();
    assert_eq!(first, second);
    assert_eq!(model.requests().len(), 1);
    assert!(ids(&second).contains(&"weather/current".to_owned()));
}

#[tokio::test]
async fn explain_names_the_intent_that_brought_each_hit() {
    let none = Filter::default();
    let model = ScriptedLlm::new([Reply::text(
        r#"{"intents": ["cast and crew of a movie", "current wind in a city"]}"#,
    )]);
    let retriever = with_model(model, on(IntentFusion::RoundRobin));
    let hits = retriever.search(REQUEST, 2, &none).await.unwrap();
    let apis: Vec<_> = hits.iter().map(|h| h.api.clone()).collect();
    let why = retriever.explain(REQUEST, &apis, 2, &none).await.unwrap();
    for (hit, why) in hits.iter().zip(&why) {
        let Some(Explanation::Intent(e)) = why else {
            panic!("no intent explanation for {}: {why:?}", hit.api);
        };
        let (expected, index) = if hit.api.tool().as_str() == "weather" {
            ("current wind in a city", 2)
        } else {
            ("cast and crew of a movie", 1)
        };
        assert_eq!((e.intent.as_str(), e.index), (expected, index));
        assert_eq!((e.rank, e.intents), (1, 2));
        assert!(matches!(e.ranking.as_deref(), Some(Explanation::Bm25(_))));
        assert!(why.as_ref().unwrap().to_string().contains(expected));
    }
}
