//! Known answers on a tiny corpus.

use std::sync::Arc;

use toolsmith_llm::testing::ScriptedEmbedder;
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, DenseIndex, DenseRetriever, DenseSettings, Filter, Fusion,
    HybridRetriever, HybridSettings, Method, RRF_K, RetrieveSettings, Retriever, build_retriever,
};

use crate::data::tiny;

fn ids(hits: &[toolsmith_retrieve::Hit]) -> Vec<String> {
    hits.iter().map(|h| h.api.to_string()).collect()
}

#[tokio::test]
async fn bm25_ranks_the_matching_api_first() {
    let bm25 = Bm25Index::build(tiny(), Bm25Settings::default());
    let none = Filter::default();
    let hits = bm25
        .search("Who played in the movie Dune? cast list", 3, &none)
        .await
        .unwrap();
    assert_eq!(ids(&hits)[0], "movies/movie_credits");
    // camelCase split and plural stemming: "forecasts" finds `forecast`.
    let hits = bm25
        .search("weather forecasts for Paris", 2, &none)
        .await
        .unwrap();
    assert_eq!(ids(&hits)[0], "weather/forecast");
    assert!(hits[0].score > hits[1].score);
    assert!(hits[0].text.contains("forecast"), "{}", hits[0].text);
    // Nothing shares a term: no hits, not an error.
    assert!(bm25.search("zzz qqq", 5, &none).await.unwrap().is_empty());
}

#[tokio::test]
async fn filters_restrict_by_category_and_tool() {
    let bm25 = Bm25Index::build(tiny(), Bm25Settings::default());
    let weather = Filter {
        category: Some("weather".into()),
        tool: None,
    };
    let hits = bm25.search("search movie city", 5, &weather).await.unwrap();
    assert!(
        !hits.is_empty() && hits.iter().all(|h| h.tool.as_str() == "weather"),
        "{hits:?}"
    );
    let tool = Filter {
        category: None,
        tool: Some("movies".parse().unwrap()),
    };
    let hits = bm25.search("city weather search", 5, &tool).await.unwrap();
    assert!(hits.iter().all(|h| h.tool.as_str() == "movies"), "{hits:?}");
    let unknown = Filter {
        category: Some("Finance".into()),
        tool: None,
    };
    assert!(bm25.search("search", 5, &unknown).await.unwrap().is_empty());
}

#[tokio::test]
async fn dense_ranks_by_embedding_similarity() {
    let embedder = Arc::new(ScriptedEmbedder::new(256));
    let index = DenseIndex::build(tiny(), embedder.as_ref(), DenseSettings::default())
        .await
        .unwrap();
    assert_eq!(embedder.texts_embedded(), 5);
    let dense = DenseRetriever::new(Arc::new(index), embedder.clone());
    let hits = dense
        .search("current temperature wind city", 2, &Filter::default())
        .await
        .unwrap();
    assert_eq!(ids(&hits)[0], "weather/current");
    assert!(hits[0].score <= 1.0 + 1e-5 && hits[0].score > hits[1].score);
    // Each search embeds only the query.
    assert_eq!(embedder.texts_embedded(), 6);
}

#[tokio::test]
async fn hybrid_fuses_both_lists() {
    let embedder = Arc::new(ScriptedEmbedder::new(256));
    let corpus = tiny();
    let index = DenseIndex::build(corpus.clone(), embedder.as_ref(), DenseSettings::default())
        .await
        .unwrap();
    let bm25 = Bm25Index::build(corpus, Bm25Settings::default());
    for fusion in [
        Fusion::Rrf {
            k: RRF_K,
            dense_weight: 1.0,
        },
        Fusion::Weighted { bm25: 0.5 },
        Fusion::ZScore { bm25: 0.5 },
    ] {
        let hybrid = HybridRetriever::new(
            bm25.clone(),
            DenseRetriever::new(Arc::new(index.clone()), embedder.clone()),
            HybridSettings { fusion, depth: 10 },
        );
        let hits = hybrid
            .search("search for a person by name", 5, &Filter::default())
            .await
            .unwrap();
        assert_eq!(ids(&hits)[0], "movies/search_person", "{fusion:?}");
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    }
}

#[tokio::test]
async fn tool_level_results_aggregate_by_max() {
    let bm25 = Bm25Index::build(tiny(), Bm25Settings::default());
    let tools = bm25
        .search_tools("search movie person", 5, &Filter::default())
        .await
        .unwrap();
    assert_eq!(tools[0].tool.as_str(), "movies");
    assert_eq!(tools[0].apis.len(), 3, "{tools:?}");
    let api_hits = bm25
        .search("search movie person", 1, &Filter::default())
        .await
        .unwrap();
    assert_eq!(tools[0].score, api_hits[0].score);
}

#[tokio::test]
async fn build_retriever_gives_every_method_behind_one_trait() {
    let embedder: Arc<dyn toolsmith_llm::Embedder> = Arc::new(ScriptedEmbedder::new(128));
    for method in Method::ALL {
        let r = build_retriever(
            method,
            tiny(),
            Some(embedder.clone()),
            &RetrieveSettings::default(),
        )
        .await
        .unwrap();
        let hits = r
            .search("weather forecast days", 1, &Filter::default())
            .await
            .unwrap();
        assert_eq!(ids(&hits), ["weather/forecast"], "{method}");
    }
    let Err(err) = build_retriever(
        Method::Dense,
        tiny(),
        None::<toolsmith_retrieve::DenseInput>,
        &RetrieveSettings::default(),
    )
    .await
    else {
        panic!("dense without an embedder must fail");
    };
    assert!(err.to_string().contains("needs an embedder"));
    assert_eq!("HYBRID".parse::<Method>().unwrap(), Method::Hybrid);
    assert!("sparse".parse::<Method>().is_err());
}
