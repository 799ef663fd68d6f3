//! Explanations: the parts each retriever reports add up to the score its search gave, and an
//! API added by dependency expansion names the offered API it serves.

use std::sync::Arc;

use toolsmith_catalog::ApiId;
use toolsmith_catalog::testing::tmdb_catalog;
use toolsmith_graph::{GraphSettings, build_graph};
use toolsmith_llm::testing::ScriptedEmbedder;
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Corpus, DenseIndex, DenseRetriever, DenseSettings, ExpandSettings,
    ExpandingRetriever, Explanation, Field, Filter, Fusion, HybridRetriever, HybridSettings, Link,
    Normalization, RRF_K, Retriever,
};

use crate::data::tiny;

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1.0)
}

async fn explained(
    retriever: &dyn Retriever,
    query: &str,
    k: usize,
) -> Vec<(toolsmith_retrieve::Hit, Explanation)> {
    let none = Filter::default();
    let hits = retriever.search(query, k, &none).await.unwrap();
    let apis: Vec<ApiId> = hits.iter().map(|h| h.api.clone()).collect();
    let explanations = retriever.explain(query, &apis, k, &none).await.unwrap();
    assert_eq!(explanations.len(), hits.len());
    hits.into_iter()
        .zip(explanations.into_iter().map(Option::unwrap))
        .collect()
}

#[tokio::test]
async fn bm25_terms_and_their_fields_add_up_to_the_score() {
    let bm25 = Bm25Index::build(tiny(), Bm25Settings::default());
    let query = "Who played in the movie Dune? cast list";
    let hits = explained(&bm25, query, 5).await;
    assert!(hits.len() >= 2, "{hits:?}");
    for (hit, why) in &hits {
        let Explanation::Bm25(e) = why else {
            panic!("not a BM25 explanation: {why:?}")
        };
        assert!(close(e.score, hit.score), "{} vs {}", e.score, hit.score);
        let terms: f32 = e.terms.iter().map(|t| t.score).sum();
        assert!(close(terms, hit.score), "{terms} vs {}", hit.score);
        for t in &e.terms {
            let fields: f32 = t.fields.iter().map(|f| f.score).sum();
            assert!(close(fields, t.score), "{t:?}");
            let tf: f32 = t.fields.iter().map(|f| f.count as f32 * f.weight).sum();
            assert!(close(tf, t.tf), "{t:?}");
        }
    }
    // The credits API: "movie" (stemmed as the index stems it) three times in its name
    // (`movie_credits`, `/movie/{movie_id}/credits`), once in its description and its
    // parameter; "cast" in its description; "dune" in no doc.
    let (_, Explanation::Bm25(credits)) = &hits[0] else {
        panic!("{hits:?}")
    };
    assert_eq!(hits[0].0.api.to_string(), "movies/movie_credits");
    let stemmed = toolsmith_retrieve::stem("movie");
    let movie = credits.terms.iter().find(|t| t.term == stemmed);
    let movie = movie.unwrap_or_else(|| panic!("{credits:#?}"));
    let fields: Vec<(Field, u32, f32)> = movie
        .fields
        .iter()
        .map(|f| (f.field, f.count, f.weight))
        .collect();
    assert_eq!(
        fields,
        [
            (Field::ApiName, 3, 2.0),
            (Field::ApiDescription, 1, 1.0),
            (Field::Params, 1, 0.5)
        ]
    );
    assert!(close(movie.tf, 7.5), "{movie:?}");
    let cast = credits.terms.iter().find(|t| t.term == "cast").unwrap();
    assert_eq!(cast.fields.len(), 1);
    assert_eq!(cast.fields[0].field, Field::ApiDescription);
    assert!(credits.unmatched.iter().any(|t| t == "dune"), "{credits:?}");
    // An API not in the corpus has no explanation.
    let unknown: ApiId = "nowhere/nothing".parse().unwrap();
    let none = bm25
        .explain(query, &[unknown], 5, &Filter::default())
        .await
        .unwrap();
    assert_eq!(none, vec![None]);
}

#[tokio::test]
async fn dense_explains_the_cosine_and_what_was_embedded() {
    let embedder = Arc::new(ScriptedEmbedder::new(256));
    let index = DenseIndex::build(tiny(), embedder.as_ref(), DenseSettings::default())
        .await
        .unwrap();
    let dense = DenseRetriever::new(Arc::new(index), embedder.clone());
    for (hit, why) in explained(&dense, "current temperature wind city", 5).await {
        let Explanation::Dense(e) = why else {
            panic!("{why:?}")
        };
        assert!(close(e.similarity, hit.score), "{e:?} vs {hit:?}");
        assert_eq!(e.view.passages, 1);
        // The tiny docs have a name, a description and parameters; the dense view reads
        // names, API description and examples.
        assert_eq!(e.view.fields, [Field::ApiName, Field::ApiDescription]);
    }
}

#[tokio::test]
async fn hybrid_parts_add_up_to_the_fused_score_for_every_fusion() {
    let corpus = tiny();
    let embedder = Arc::new(ScriptedEmbedder::new(256));
    let index = DenseIndex::build(corpus.clone(), embedder.as_ref(), DenseSettings::default())
        .await
        .unwrap();
    let bm25 = Bm25Index::build(corpus, Bm25Settings::default());
    let query = "search movie cast by title";
    for fusion in [
        Fusion::Rrf {
            k: RRF_K,
            dense_weight: 0.35,
        },
        Fusion::Weighted { bm25: 0.6 },
        Fusion::ZScore { bm25: 0.5 },
    ] {
        // Depth 3 of 5: some APIs are missing from one list and are scored as the fusion
        // scores a missing one.
        for depth in [3, 10] {
            let hybrid = HybridRetriever::new(
                bm25.clone(),
                DenseRetriever::new(Arc::new(index.clone()), embedder.clone()),
                HybridSettings { fusion, depth },
            );
            let hits = explained(&hybrid, query, 5).await;
            assert!(!hits.is_empty());
            let mut missing = 0;
            for (hit, why) in &hits {
                let Explanation::Hybrid(e) = why else {
                    panic!("{why:?}")
                };
                let sum = e.bm25.contribution + e.dense.contribution;
                assert!(close(sum, hit.score), "{fusion:?}: {e:?} vs {hit:?}");
                assert!(close(e.score, hit.score));
                for part in [&e.bm25, &e.dense] {
                    assert!(close(part.weight * part.normalized, part.contribution));
                    missing += usize::from(part.rank.is_none());
                    // The list's own explanation gives its raw score.
                    if let (Some(raw), Some(detail)) = (part.raw, &part.detail) {
                        assert!(close(raw, detail.score()), "{part:?}");
                    }
                }
                match fusion {
                    Fusion::ZScore { .. } => assert_eq!(e.normalization, Normalization::ZScore),
                    Fusion::Weighted { .. } => {
                        assert_eq!(e.normalization, Normalization::MinMax);
                        assert!(close(e.bm25.weight, 0.6) && close(e.dense.weight, 0.4));
                    }
                    Fusion::Rrf { .. } => {
                        assert_eq!(e.normalization, Normalization::ReciprocalRank { k: RRF_K });
                        assert!(close(e.dense.weight, 0.35));
                    }
                }
            }
            if depth == 3 {
                assert!(missing > 0, "{fusion:?}: every API in both lists");
            }
        }
    }
}

#[tokio::test]
async fn an_api_added_by_expansion_names_the_api_it_serves() {
    let catalog = tmdb_catalog();
    let corpus = Arc::new(Corpus::from_catalog(&catalog));
    let bm25: Arc<dyn Retriever> =
        Arc::new(Bm25Index::build(corpus.clone(), Bm25Settings::default()));
    let needs = build_graph(&catalog, None, &GraphSettings::PAPER).needs();
    let expanding = ExpandingRetriever::new(bm25, &corpus, needs, ExpandSettings::DEFAULT);
    let hits = explained(&expanding, "Get the cast and crew for a movie", 1).await;
    let (first, why) = &hits[0];
    let Explanation::Bm25(e) = why else {
        panic!("the kept hit is explained by its ranking: {why:?}")
    };
    assert!(close(e.score, first.score));
    let added: Vec<_> = hits
        .iter()
        .filter_map(|(hit, why)| match why {
            Explanation::Expanded(e) => Some((hit, e)),
            _ => None,
        })
        .collect();
    assert_eq!(added.len(), hits.len() - 1, "{hits:?}");
    let (search_hit, search) = added
        .iter()
        .find(|(hit, _)| hit.api.to_string().contains("search"))
        .unwrap_or_else(|| panic!("no search added: {added:?}"));
    assert_eq!(search.added.feeds, first.api);
    assert_eq!(search.added.param, "movie_id");
    assert_eq!(search.added.link, Link::Producer);
    // Its own ranking score comes along, and is the score its hit reports.
    let ranking = search.ranking.as_ref().unwrap();
    assert!(matches!(**ranking, Explanation::Bm25(_)));
    assert!(close(ranking.score(), search_hit.score));
    let text = Explanation::Expanded((*search).clone()).to_string();
    assert!(
        text.starts_with(&format!(
            "added by expansion: produces `movie_id` that {} needs",
            first.api
        )),
        "{text}"
    );
}
