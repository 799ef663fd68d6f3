//! Retrieval quality on RestBench TMDB: 100 queries, 54 APIs.

use std::sync::Arc;

use toolsmith_catalog::testing::data_dir;
use toolsmith_catalog::{DocSelector, Scope};
use toolsmith_eval::{Benchmark, RetrievalScores};
use toolsmith_retrieve::{Bm25Index, Bm25Settings, Corpus, Filter, Retriever};

use crate::data::benchmark_store;

async fn bm25_scores(selector: DocSelector) -> RetrievalScores {
    let store = benchmark_store(&Benchmark::RestbenchTmdb);
    let resolved = Benchmark::RestbenchTmdb
        .load(&data_dir())
        .unwrap()
        .resolve(&store)
        .unwrap();
    assert_eq!(resolved.queries.len(), 100);
    let catalog = store.catalog(&selector, &Scope::default()).unwrap();
    let bm25 = Bm25Index::build(
        Arc::new(Corpus::from_catalog(&catalog)),
        Bm25Settings::default(),
    );
    let mut runs = Vec::new();
    for q in &resolved.queries {
        let hits = bm25.search(&q.text, 10, &Filter::default()).await.unwrap();
        runs.push((
            hits.into_iter().map(|h| h.api).collect::<Vec<_>>(),
            q.gold.clone(),
        ));
    }
    RetrievalScores::mean(runs.iter().map(|(r, g)| (r.as_slice(), g.as_slice()))).percent()
}

#[tokio::test]
async fn bm25_on_original_docs_is_in_a_sane_band() {
    let s = bm25_scores(DocSelector::Active).await;
    // DRAFT's Table 3 reports 24.0 / 35.0 for BM25 on the raw TMDB docs.
    assert!(
        s.ndcg_10 >= 40.0 && s.ndcg_10 <= 90.0,
        "NDCG@10 = {:.1}",
        s.ndcg_10
    );
    assert!(s.ndcg_1 >= 30.0, "NDCG@1 = {:.1}", s.ndcg_1);
}

#[tokio::test]
async fn bm25_on_draft_docs_is_in_a_sane_band() {
    let s = bm25_scores(DocSelector::Label("draft-ref".parse().unwrap())).await;
    assert!(
        s.ndcg_10 >= 40.0 && s.ndcg_10 <= 90.0,
        "NDCG@10 = {:.1}",
        s.ndcg_10
    );
}
