//! Synthetic-query views (Re-Invoke): a doc's synthetic user requests are indexed, so a query
//! that matches only a request finds its API; an API without requests scores as before.

use std::sync::Arc;

use toolsmith_catalog::testing::tmdb_store;
use toolsmith_catalog::{Doc, DocLabel, DocSelector, DocTarget, NewDoc, Scope, Store};
use toolsmith_llm::testing::ScriptedEmbedder;
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Corpus, DenseBackend, DenseIndex, DenseRetriever, DenseSettings,
    Explanation, Field, FieldWeights, Filter, Hit, HybridRetriever, HybridSettings, Retriever,
    VectorFormat, ViewScore,
};

use crate::data::{tiny, with_views};

/// The tiny corpus with two requests on `weather/current` whose words are in no doc.
fn tiny_with_views() -> Arc<Corpus> {
    let plain = tiny();
    let docs = plain.docs().iter().cloned().map(|d| {
        if d.api.to_string() == "weather/current" {
            with_views(
                d,
                &[
                    "should I bring an umbrella to Lisbon right now",
                    "is it freezing outside in Oslo at the moment",
                ],
            )
        } else {
            d
        }
    });
    Arc::new(Corpus::from_docs(docs))
}

async fn bm25_apis(corpus: Arc<Corpus>, weights: FieldWeights, query: &str) -> Vec<String> {
    let settings = Bm25Settings {
        weights,
        ..Bm25Settings::default()
    };
    Bm25Index::build(corpus, settings)
        .search(query, 5, &Filter::default())
        .await
        .unwrap()
        .into_iter()
        .map(|h| h.api.to_string())
        .collect()
}

#[tokio::test]
async fn bm25_finds_an_api_by_a_query_matching_only_one_of_its_views() {
    let query = "umbrella needed in Lisbon?";
    let found = bm25_apis(tiny_with_views(), Bm25Settings::DEFAULT_WEIGHTS, query).await;
    assert_eq!(found, ["weather/current"]);
    // The field's weight 0 leaves the views out: nothing matches.
    let off = FieldWeights {
        queries: 0.0,
        ..Bm25Settings::DEFAULT_WEIGHTS
    };
    assert!(bm25_apis(tiny_with_views(), off, query).await.is_empty());
    // Without views, nothing matches either.
    assert!(
        bm25_apis(tiny(), Bm25Settings::DEFAULT_WEIGHTS, query)
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn bm25_explain_names_the_queries_field() {
    let bm25 = Bm25Index::build(tiny_with_views(), Bm25Settings::default());
    let api = "weather/current".parse().unwrap();
    let why = bm25
        .explain("umbrella in Lisbon", &[api], 5, &Filter::default())
        .await
        .unwrap();
    let Some(Some(toolsmith_retrieve::Explanation::Bm25(e))) = why.first() else {
        panic!("{why:?}")
    };
    let mut fields: Vec<(&str, Field)> = e
        .terms
        .iter()
        .flat_map(|t| t.fields.iter().map(|f| (t.term.as_str(), f.field)))
        .collect();
    fields.sort_by_key(|f| f.0);
    assert_eq!(
        fields,
        [("lisbon", Field::Queries), ("umbrella", Field::Queries)]
    );
    let text = toolsmith_retrieve::Explanation::Bm25(e.clone()).to_string();
    assert!(text.contains("queries 1 x w1"), "{text}");
}

/// Adds `queries` as the `queries` views of TMDB's details API (active), keeping its doc.
pub(crate) fn add_views(store: &mut Store, queries: &[&str]) -> toolsmith_catalog::ApiId {
    add_active_doc(store, "GET /movie/{movie_id}", "queries", |doc| {
        doc.queries = queries.iter().map(|q| (*q).to_owned()).collect();
    })
}

/// Adds and activates a doc version `label` of the API at `path`: its active doc as `edit`
/// changes it.
pub(crate) fn add_active_doc(
    store: &mut Store,
    path: &str,
    label: &str,
    edit: impl FnOnce(&mut Doc),
) -> toolsmith_catalog::ApiId {
    let api = store.resolve_api(path).unwrap().remove(0);
    let mut doc = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap()
        .apis()
        .find(|(_, a)| a.api.id == api)
        .and_then(|(_, a)| a.doc.clone())
        .map(|d| d.doc)
        .unwrap_or_default();
    edit(&mut doc);
    let doc = NewDoc {
        label: label.parse::<DocLabel>().unwrap(),
        source: "test".into(),
        doc,
    };
    store
        .add_doc(
            &DocTarget::Api(api.clone()),
            doc,
            toolsmith_catalog::Activate::Always,
        )
        .unwrap();
    api
}

pub(crate) fn corpus(store: &Store) -> Arc<Corpus> {
    Arc::new(Corpus::from_catalog(
        &store
            .catalog(&DocSelector::Active, &Scope::default())
            .unwrap(),
    ))
}

#[tokio::test]
async fn a_doc_versions_queries_reach_the_corpus_one_a_line() {
    let mut store = tmdb_store();
    let api = add_views(
        &mut store,
        &["which year did Heat come out", "runtime of\nthe film Alien"],
    );
    let corpus = corpus(&store);
    let doc = corpus.docs().iter().find(|d| d.api == api).unwrap();
    let views: Vec<&str> = doc.views().collect();
    assert_eq!(
        views,
        ["which year did Heat come out", "runtime of the film Alien"]
    );
    let others = corpus.docs().iter().filter(|d| d.api != api);
    assert!(others.clone().all(|d| d.views().next().is_none()));
    let found = bm25_apis(corpus.clone(), Bm25Settings::DEFAULT_WEIGHTS, "Heat").await;
    assert_eq!(
        found.first().map(String::as_str),
        Some(api.to_string().as_str())
    );
}

/// Every search setting a dense index answers with: exact f32, int8 (rescored) and HNSW.
pub(crate) fn backends() -> [(&'static str, DenseSettings); 3] {
    let exact = DenseSettings {
        backend: DenseBackend::Exact,
        vectors: VectorFormat::F32,
        ..DenseSettings::default()
    };
    let int8 = DenseSettings {
        vectors: VectorFormat::Int8,
        ..exact
    };
    let hnsw = DenseSettings {
        backend: DenseBackend::Hnsw,
        ..exact
    };
    [("exact", exact), ("int8", int8), ("hnsw", hnsw)]
}

const VIEWS: [&str; 3] = [
    "which year did Heat come out",
    "how long does the film Alien run",
    "box office takings of Titanic",
];

/// The top 5 for `query`, embedded by a scripted embedder of its own (the same vectors; the
/// build's embedder counts only what the index embedded).
async fn dense_apis(index: DenseIndex, query: &str) -> Vec<Hit> {
    let embedder = ScriptedEmbedder::new(index.dimensions());
    DenseRetriever::new(Arc::new(index), Arc::new(embedder))
        .search(query, 5, &Filter::default())
        .await
        .unwrap()
}

#[tokio::test]
async fn dense_finds_an_api_by_a_query_matching_only_one_of_its_views_on_every_backend() {
    let mut store = tmdb_store();
    let plain = corpus(&store);
    let api = add_views(&mut store, &VIEWS);
    let embedder = ScriptedEmbedder::new(256);
    let query = "box office takings Titanic";
    for (name, settings) in backends() {
        let index = DenseIndex::build(corpus(&store), &embedder, settings)
            .await
            .unwrap();
        assert_eq!(index.views(), 3, "{name}");
        let hits = dense_apis(index, query).await;
        assert_eq!(hits[0].api, api, "{name}: {hits:?}");
        // The best view's cosine: the query's words are all in it.
        let view = embedder.vector(VIEWS[2]);
        let cosine = toolsmith_retrieve::dot(&embedder.vector(query), &view);
        assert!((hits[0].score - cosine).abs() < 1e-5, "{name}: {hits:?}");
        // Every API once, though three of `api`'s rows were scanned.
        let mut apis: Vec<_> = hits.iter().map(|h| h.api.clone()).collect();
        apis.dedup();
        assert_eq!(apis.len(), hits.len(), "{name}: {hits:?}");
        // Without views the API is not found first.
        let index = DenseIndex::build(plain.clone(), &embedder, settings)
            .await
            .unwrap();
        let hits = dense_apis(index, query).await;
        assert_ne!(hits[0].api, api, "{name}");
    }
}

#[tokio::test]
async fn doc_only_neither_embeds_nor_scores_the_views() {
    let mut store = tmdb_store();
    let plain = corpus(&store);
    add_views(&mut store, &VIEWS);
    let embedder = ScriptedEmbedder::new(256);
    let query = "box office takings Titanic";
    for (name, settings) in backends() {
        let doc_only = DenseSettings {
            views: ViewScore::DocOnly,
            ..settings
        };
        let before = embedder.texts_embedded();
        let index = DenseIndex::build(corpus(&store), &embedder, doc_only)
            .await
            .unwrap();
        assert_eq!(embedder.texts_embedded() - before, 54, "{name}");
        assert_eq!(index.views(), 0);
        let ignored = dense_apis(index, query).await;
        // An index with views searched with `doc_only` ignores them as well.
        let with = DenseIndex::build(corpus(&store), &embedder, settings)
            .await
            .unwrap()
            .with_search_settings(doc_only);
        let searched = dense_apis(with, query).await;
        let index = DenseIndex::build(plain.clone(), &embedder, settings)
            .await
            .unwrap();
        let without = dense_apis(index, query).await;
        if name == "hnsw" {
            // Two graphs of the same vectors differ in their 0-score tail (the insertion
            // is parallel): the same APIs and scores where the query matches.
            same_matches(&ignored, &without, name);
        } else {
            assert_eq!(ignored, without, "{name}");
        }
        // An index with views searched with `doc_only`: HNSW over views rescores exactly,
        // so its scores may differ from the graph's in the last bit.
        same_matches(&searched, &without, name);
    }
}

/// The same APIs in the same order with the same scores (to rounding), among those that
/// score above 0.
fn same_matches(got: &[Hit], want: &[Hit], name: &str) {
    let scored = |hits: &[Hit]| -> Vec<(String, f32)> {
        hits.iter()
            .filter(|h| h.score > 1e-6)
            .map(|h| (h.api.to_string(), h.score))
            .collect()
    };
    let (a, b) = (scored(got), scored(want));
    assert_eq!(a.len(), b.len(), "{name}: {a:?} {b:?}");
    for (x, y) in a.iter().zip(&b) {
        assert!(
            x.0 == y.0 && (x.1 - y.1).abs() < 1e-6,
            "{name}: {a:?} {b:?}"
        );
    }
}

/// A corpus without views ranks and scores alike under every aggregation, on every backend
/// and in hybrid search, and its exact scores are the plain cosines of the doc vectors.
#[tokio::test]
async fn without_views_every_aggregation_gives_the_same_rankings_and_scores() {
    let plain = corpus(&tmdb_store());
    let embedder = ScriptedEmbedder::new(256);
    let queries = [
        "details of a movie",
        "popular people",
        "tv show season episodes",
    ];
    for (name, settings) in backends() {
        let mut lists = Vec::new();
        // One build (one HNSW graph) searched under each aggregation.
        let built = DenseIndex::build(plain.clone(), &embedder, settings)
            .await
            .unwrap();
        built.warm().unwrap();
        for views in [ViewScore::DocOnly, ViewScore::Max, ViewScore::MeanTop2] {
            let settings = DenseSettings { views, ..settings };
            let index = Arc::new(built.clone().with_search_settings(settings));
            let dense = DenseRetriever::new(index.clone(), Arc::new(embedder.clone()));
            let bm25 = Bm25Index::build(plain.clone(), Bm25Settings::default());
            let hybrid = HybridRetriever::new(bm25, dense.clone(), HybridSettings::default());
            let mut got = Vec::new();
            for q in queries {
                let hits = dense.search(q, 10, &Filter::default()).await.unwrap();
                if name == "exact" {
                    for h in &hits {
                        let doc = plain.position(&h.api).unwrap() as usize;
                        let cosine = toolsmith_retrieve::dot(
                            index.vector(doc).unwrap(),
                            &embedder.vector(q),
                        );
                        assert!((h.score - cosine).abs() < 1e-6, "{q}: {h:?} vs {cosine}");
                    }
                }
                got.push(hits);
                got.push(hybrid.search(q, 10, &Filter::default()).await.unwrap());
            }
            lists.push(got);
        }
        assert_eq!(lists[0], lists[1], "{name}: max");
        assert_eq!(lists[0], lists[2], "{name}: mean_top2");
    }
    // BM25: the empty field changes nothing.
    let off = FieldWeights {
        queries: 0.0,
        ..Bm25Settings::DEFAULT_WEIGHTS
    };
    for q in queries {
        let on = bm25_hits(plain.clone(), Bm25Settings::DEFAULT_WEIGHTS, q).await;
        assert_eq!(on, bm25_hits(plain.clone(), off, q).await, "{q}");
    }
}

async fn bm25_hits(corpus: Arc<Corpus>, weights: FieldWeights, query: &str) -> Vec<Hit> {
    let settings = Bm25Settings {
        weights,
        ..Bm25Settings::default()
    };
    Bm25Index::build(corpus, settings)
        .search(query, 10, &Filter::default())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_refresh_embeds_only_the_views_an_api_gained_and_drops_those_it_lost() {
    let mut store = tmdb_store();
    let embedder = ScriptedEmbedder::new(256);
    let first = DenseIndex::build(corpus(&store), &embedder, DenseSettings::default())
        .await
        .unwrap();
    assert_eq!(embedder.texts_embedded(), 54);
    let api = add_views(&mut store, &VIEWS);
    let second = first.refresh(corpus(&store), &embedder).await.unwrap();
    assert_eq!(
        embedder.texts_embedded(),
        57,
        "the three new views only: the doc's text is unchanged"
    );
    assert_eq!(second.views(), 3);
    // One view replaced, two kept: one embedded.
    add_views(&mut store, &[VIEWS[0], VIEWS[1], "poster image of Jaws"]);
    let third = second.refresh(corpus(&store), &embedder).await.unwrap();
    assert_eq!(embedder.texts_embedded(), 58);
    let hits = dense_apis(third.clone(), "poster image Jaws").await;
    assert_eq!(hits[0].api, api);
    let hits = dense_apis(third.clone(), "box office takings Titanic").await;
    assert_ne!(hits[0].api, api, "the removed view no longer matches");
    // Views removed: nothing embedded, the rows are gone.
    add_views(&mut store, &[]);
    let fourth = third.refresh(corpus(&store), &embedder).await.unwrap();
    assert_eq!(embedder.texts_embedded(), 58);
    assert_eq!(fourth.views(), 0);
    assert_eq!(fourth.matrix().len(), 54 * 256);
}

#[tokio::test]
async fn dense_explain_names_the_best_view_and_the_aggregation() {
    let mut store = tmdb_store();
    let api = add_views(&mut store, &VIEWS);
    let embedder = ScriptedEmbedder::new(256);
    let index = DenseIndex::build(corpus(&store), &embedder, DenseSettings::default())
        .await
        .unwrap();
    let dense = DenseRetriever::new(Arc::new(index), Arc::new(embedder.clone()));
    let query = "how long does Alien run";
    let hits = dense.search(query, 1, &Filter::default()).await.unwrap();
    assert_eq!(hits[0].api, api);
    let why = dense
        .explain(query, &[api], 1, &Filter::default())
        .await
        .unwrap();
    let Some(Some(Explanation::Dense(e))) = why.first() else {
        panic!("{why:?}")
    };
    assert_eq!(e.similarity, hits[0].score);
    assert_eq!(e.views, 3);
    assert_eq!(e.aggregation, ViewScore::Max);
    let best = e.best_view.as_ref().unwrap();
    assert_eq!(best.text, VIEWS[1]);
    assert_eq!(best.similarity, e.similarity);
    assert!(e.doc_similarity < e.similarity, "{e:?}");
    let text = Explanation::Dense(e.clone()).to_string();
    assert!(text.contains("max of doc"), "{text}");
    assert!(text.contains(VIEWS[1]), "{text}");
}

/// The embedding cache keeps view vectors as it keeps doc vectors: a replay build (what
/// `search` does on a large catalog after `toolsmith index`) reads them all and embeds
/// nothing; a view not indexed yet is a replay miss (search then falls back to BM25).
#[tokio::test]
async fn the_embedding_cache_holds_view_vectors_and_replay_misses_a_new_view() {
    use toolsmith_llm::{CacheDb, CacheMode, CachedEmbedder};
    let mut store = tmdb_store();
    add_views(&mut store, &VIEWS);
    let inner = ScriptedEmbedder::new(64);
    let db = CacheDb::in_memory().unwrap();
    let cached = CachedEmbedder::new(inner.clone(), db.clone(), CacheMode::ReadWrite);
    let built = DenseIndex::build(corpus(&store), &cached, DenseSettings::default())
        .await
        .unwrap();
    assert_eq!(inner.texts_embedded(), 54 + 3);
    let replay = CachedEmbedder::new(inner.clone(), db, CacheMode::Replay);
    let read = DenseIndex::build(corpus(&store), &replay, DenseSettings::default())
        .await
        .unwrap();
    assert_eq!(inner.texts_embedded(), 57, "replay embeds nothing");
    assert_eq!(read.views(), 3);
    assert_eq!(read.matrix(), built.matrix());
    add_views(&mut store, &[VIEWS[0], "cast of the film Heat"]);
    let missed = DenseIndex::build(corpus(&store), &replay, DenseSettings::default()).await;
    assert!(
        matches!(
            missed,
            Err(toolsmith_retrieve::Error::Embed {
                source: toolsmith_llm::Error::ReplayMiss { .. },
                ..
            })
        ),
        "{missed:?}"
    );
}

#[tokio::test]
async fn hybrid_finds_an_api_by_its_view_through_both_lists() {
    let mut store = tmdb_store();
    let api = add_views(&mut store, &VIEWS);
    let corpus = corpus(&store);
    let embedder = ScriptedEmbedder::new(256);
    let index = DenseIndex::build(corpus.clone(), &embedder, DenseSettings::default())
        .await
        .unwrap();
    let dense = DenseRetriever::new(Arc::new(index), Arc::new(embedder));
    let bm25 = Bm25Index::build(corpus, Bm25Settings::default());
    let hybrid = HybridRetriever::new(bm25, dense, HybridSettings::default());
    let query = "box office takings Titanic";
    let hits = hybrid.search(query, 5, &Filter::default()).await.unwrap();
    assert_eq!(hits[0].api, api, "{hits:?}");
    let why = hybrid
        .explain(query, &[api], 5, &Filter::default())
        .await
        .unwrap();
    let Some(Some(Explanation::Hybrid(e))) = why.first() else {
        panic!("{why:?}")
    };
    // Both lists rank it first: BM25 by the queries field, dense by the view.
    assert_eq!((e.bm25.rank, e.dense.rank), (Some(1), Some(1)), "{e:?}");
}
