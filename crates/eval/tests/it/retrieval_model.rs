//! Dense and hybrid retrieval with the real all-MiniLM-L6-v2 on RestBench TMDB. Fails when the
//! model is not installed (`scripts/install-model.sh`), unless `TOOLSMITH_SKIP_MODEL_TESTS=1`.

use std::sync::Arc;

use toolsmith_catalog::testing::data_dir;
use toolsmith_catalog::{DocSelector, Scope};
use toolsmith_eval::{Benchmark, RetrievalScores};
use toolsmith_llm::{Embedder, LocalEmbedder};
use toolsmith_retrieve::{Corpus, Filter, Method, RetrieveSettings, build_retriever};

use crate::data::benchmark_store;

fn minilm() -> Option<Arc<dyn Embedder>> {
    if std::env::var(toolsmith_llm::env::TOOLSMITH_SKIP_MODEL_TESTS).is_ok_and(|v| v == "1") {
        eprintln!("skipped: TOOLSMITH_SKIP_MODEL_TESTS=1 skips the dense retrieval tests");
        return None;
    }
    match LocalEmbedder::load_default() {
        Ok(model) => Some(Arc::new(model)),
        Err(e) => panic!(
            "{e}\nthe dense retrieval tests need all-MiniLM-L6-v2: run scripts/install-model.sh, \
             or set TOOLSMITH_SKIP_MODEL_TESTS=1 to skip them"
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dense_and_hybrid_on_restbench_tmdb() {
    let Some(embedder) = minilm() else {
        return;
    };
    let store = benchmark_store(&Benchmark::RestbenchTmdb);
    let resolved = Benchmark::RestbenchTmdb
        .load(&data_dir())
        .unwrap()
        .resolve(&store)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let corpus = Arc::new(Corpus::from_catalog(&catalog));
    let mut ndcg10 = Vec::new();
    for method in [Method::Dense, Method::Hybrid] {
        let r = build_retriever(
            method,
            corpus.clone(),
            Some(embedder.clone()),
            &RetrieveSettings::default(),
        )
        .await
        .unwrap();
        let mut runs = Vec::new();
        for q in &resolved.queries {
            let hits = r.search(&q.text, 10, &Filter::default()).await.unwrap();
            runs.push((
                hits.into_iter().map(|h| h.api).collect::<Vec<_>>(),
                q.gold.clone(),
            ));
        }
        let s =
            RetrievalScores::mean(runs.iter().map(|(r, g)| (r.as_slice(), g.as_slice()))).percent();
        ndcg10.push(s.ndcg_10);
    }
    let (dense, hybrid) = (ndcg10[0], ndcg10[1]);
    assert!(dense >= 40.0, "dense NDCG@10 = {dense:.1}");
    assert!(hybrid >= 50.0, "hybrid NDCG@10 = {hybrid:.1}");
}
