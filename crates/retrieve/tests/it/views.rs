//! Synthetic-query views (Re-Invoke): a doc's synthetic user requests are indexed, so a query
//! that matches only a request finds its API; an API without requests scores as before.

use std::sync::Arc;

use toolsmith_catalog::testing::tmdb_store;
use toolsmith_catalog::{Doc, DocLabel, DocSelector, DocTarget, NewDoc, Scope, Store};
use toolsmith_retrieve::{Bm25Index, Bm25Settings, Corpus, Field, FieldWeights, Filter, Retriever};

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

/// Adds a doc version with `queries` to the API at `GET /movie/{movie_id}`.
pub(crate) fn add_views(store: &mut Store, queries: &[&str]) -> toolsmith_catalog::ApiId {
    let api = store
        .resolve_api("GET /movie/{movie_id}")
        .unwrap()
        .remove(0);
    let current = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap()
        .apis()
        .find(|(_, a)| a.api.id == api)
        .and_then(|(_, a)| a.doc.clone())
        .map(|d| d.doc)
        .unwrap_or_default();
    let doc = NewDoc {
        label: "queries".parse::<DocLabel>().unwrap(),
        source: "test".into(),
        doc: Doc {
            queries: queries.iter().map(|q| (*q).to_owned()).collect(),
            ..current
        },
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
