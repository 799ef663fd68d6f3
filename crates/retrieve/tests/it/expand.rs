//! Dependency-aware expansion on RestBench's TMDB catalog, with its tool graph's dependency
//! edges: a details API retrieved without the search that produces its id gets that search.

use std::sync::Arc;

use toolsmith_catalog::ApiId;
use toolsmith_catalog::testing::tmdb_catalog;
use toolsmith_graph::{GraphSettings, build_graph};
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Corpus, ExpandSettings, ExpandingRetriever, Filter, Retriever,
};

fn api(catalog: &toolsmith_catalog::Catalog, path: &str) -> ApiId {
    catalog
        .apis()
        .find(|(_, a)| a.api.endpoint.path() == Some(path))
        .map(|(_, a)| a.api.id.clone())
        .unwrap_or_else(|| panic!("{path} not in TMDB"))
}

fn retriever(settings: ExpandSettings) -> (ExpandingRetriever, toolsmith_catalog::Catalog) {
    let catalog = tmdb_catalog();
    let corpus = Arc::new(Corpus::from_catalog(&catalog));
    let bm25: Arc<dyn Retriever> =
        Arc::new(Bm25Index::build(corpus.clone(), Bm25Settings::default()));
    let needs = build_graph(&catalog, None, &GraphSettings::PAPER).needs();
    (
        ExpandingRetriever::new(bm25, &corpus, needs, settings),
        catalog,
    )
}

#[tokio::test]
async fn a_retrieved_consumer_brings_the_search_that_produces_its_id() {
    let (expanding, catalog) = retriever(ExpandSettings::DEFAULT);
    let query = "Get the cast and crew for a movie";
    let (hits, added) = expanding
        .search_expanded(query, 1, &Filter::default())
        .await
        .unwrap();
    let credits = api(&catalog, "/movie/{movie_id}/credits");
    let search = api(&catalog, "/search/movie");
    assert_eq!(hits[0].api, credits, "BM25 ranks the credits first");
    assert!(
        added
            .iter()
            .any(|a| a.api == search && a.feeds == credits && a.param == "movie_id"),
        "the movie search is added for movie_id: {added:?}"
    );
    assert_eq!(hits.len(), 1 + added.len(), "every added producer is a hit");
    assert!(hits.iter().skip(1).any(|h| h.api == search));
    // Through the trait too (what solve and search_tools see).
    let plain: Vec<ApiId> = expanding
        .search(query, 1, &Filter::default())
        .await
        .unwrap()
        .into_iter()
        .map(|h| h.api)
        .collect();
    assert!(plain.contains(&search));
}

#[tokio::test]
async fn expansion_respects_the_budget_and_can_be_off() {
    let query = "images of the lead actor of a TV show episode";
    for budget in [0, 1, 2] {
        let (expanding, _) = retriever(ExpandSettings {
            budget,
            ..ExpandSettings::DEFAULT
        });
        let (hits, added) = expanding
            .search_expanded(query, 5, &Filter::default())
            .await
            .unwrap();
        assert!(added.len() <= budget, "budget {budget}: {added:?}");
        assert_eq!(hits.len(), 5 + added.len());
    }
    let (wide, _) = retriever(ExpandSettings {
        budget: 10,
        ..ExpandSettings::DEFAULT
    });
    let (_, added) = wide
        .search_expanded(query, 5, &Filter::default())
        .await
        .unwrap();
    assert!(added.len() >= 2, "several ids are needed here: {added:?}");
    let (off, _) = retriever(ExpandSettings::OFF);
    let (hits, added) = off
        .search_expanded(query, 5, &Filter::default())
        .await
        .unwrap();
    assert!(added.is_empty());
    assert_eq!(hits.len(), 5);
}

/// The response's field names are a corpus field: "genres" finds the details APIs whose
/// response lists genres, when that field counts, though their descriptions never say so.
#[tokio::test]
async fn response_field_names_are_searchable_when_weighted() {
    use toolsmith_retrieve::{CorpusDoc, FieldWeights};
    let catalog = tmdb_catalog();
    let corpus = Arc::new(Corpus::from_catalog(&catalog));
    let tv = api(&catalog, "/tv/{tv_id}");
    let doc: &CorpusDoc = corpus.docs().iter().find(|d| d.api == tv).unwrap();
    let returns = doc.field(toolsmith_retrieve::Field::Returns);
    assert!(returns.contains("genres"), "{returns}");
    assert!(returns.contains("first air date"), "{returns}");
    let search = |returns: f32| {
        let corpus = corpus.clone();
        async move {
            let settings = Bm25Settings {
                weights: FieldWeights {
                    returns,
                    ..Bm25Settings::DEFAULT_WEIGHTS
                },
                ..Bm25Settings::default()
            };
            Bm25Index::build(corpus, settings)
                .search("genres and homepage of a tv show", 20, &Filter::default())
                .await
                .unwrap()
                .into_iter()
                .map(|h| h.api)
                .collect::<Vec<_>>()
        }
    };
    let rank = |hits: Vec<ApiId>| hits.iter().position(|a| a == &tv).unwrap_or(usize::MAX);
    let (with, without) = (rank(search(1.0).await), rank(search(0.0).await));
    assert!(
        with < 3 && with < without,
        "rank {with} with the field, {without} without"
    );
    // Off by default: the field is not indexed.
    assert_eq!(Bm25Settings::DEFAULT_WEIGHTS.returns, 0.0);
}
