//! Listwise reranking at query time: the model's order applied over the first stage, with a
//! scripted model; and dependency expansion running on the reranked list.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use toolsmith_catalog::testing::tmdb_catalog;
use toolsmith_graph::{GraphSettings, build_graph};
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_llm::{CacheDb, CacheMode, CachedChat, Role};
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Candidate, Corpus, ExpandSettings, ExpandingRetriever, Explanation,
    Filter, Hit, LlmReranker, RerankCounts, RerankSettings, Reranker, RerankingRetriever, Result,
    Retriever,
};

use crate::data::tiny;

/// Matches all five APIs of the tiny corpus a little: movies first, weather last.
const QUERY: &str = "search movie cast and the current weather forecast in a city";

fn ids(hits: &[Hit]) -> Vec<String> {
    hits.iter().map(|h| h.api.to_string()).collect()
}

fn bm25() -> Arc<dyn Retriever> {
    Arc::new(Bm25Index::build(tiny(), Bm25Settings::default()))
}

fn on(depth: usize) -> RerankSettings {
    RerankSettings {
        enabled: true,
        depth,
        ..RerankSettings::default()
    }
}

fn with_model(model: ScriptedLlm, depth: usize) -> RerankingRetriever {
    RerankingRetriever::new(bm25(), Arc::new(LlmReranker::new(model)), on(depth))
}

async fn first_stage(k: usize) -> Vec<Hit> {
    bm25().search(QUERY, k, &Filter::default()).await.unwrap()
}

#[tokio::test]
async fn the_models_picks_go_first_in_its_order_and_the_rest_keep_theirs() {
    let plain = first_stage(5).await;
    assert_eq!(plain.len(), 5, "the query must reach every API: {plain:?}");
    let model = ScriptedLlm::new([Reply::text(r#"{"ranking": [4, 2]}"#)]);
    let retriever = with_model(model.clone(), 5);
    let hits = retriever
        .search(QUERY, 5, &Filter::default())
        .await
        .unwrap();
    let p = ids(&plain);
    assert_eq!(
        ids(&hits),
        [
            p[3].clone(),
            p[1].clone(),
            p[0].clone(),
            p[2].clone(),
            p[4].clone()
        ],
        "first stage was {p:?}"
    );
    // The window's scores are handed out again, so they still fall down the list.
    let scores: Vec<f32> = hits.iter().map(|h| h.score).collect();
    let old: Vec<f32> = plain.iter().map(|h| h.score).collect();
    assert_eq!(scores, old);
    let asked = model.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].role, Role::new(Role::RERANK));
    let prompt = asked[0].last_message();
    assert!(prompt.contains(QUERY));
    assert!(prompt.contains("[1] ") && prompt.contains("[5] ") && !prompt.contains("[6] "));
    assert!(prompt.contains("Current temperature and wind"), "{prompt}");
    assert_eq!(
        retriever.counts(),
        RerankCounts {
            reranked: 1,
            unusable: 0,
            shown: 5
        }
    );
}

#[tokio::test]
async fn a_cut_below_the_window_takes_the_reranked_top_and_past_it_the_tail_follows() {
    let plain = first_stage(5).await;
    let model = ScriptedLlm::new([Reply::text("[3, 3, 9, \"junk\", 1]")]);
    let retriever = with_model(model.clone(), 3);
    let top2 = retriever
        .search(QUERY, 2, &Filter::default())
        .await
        .unwrap();
    let p = ids(&plain);
    assert_eq!(ids(&top2), [p[2].clone(), p[0].clone()]);
    // Deeper than the window: the window reranked, then the first stage's tail as it was.
    let all = retriever
        .search(QUERY, 5, &Filter::default())
        .await
        .unwrap();
    assert_eq!(
        ids(&all),
        [
            p[2].clone(),
            p[0].clone(),
            p[1].clone(),
            p[3].clone(),
            p[4].clone()
        ]
    );
    // The same window again is remembered: one question in all.
    assert_eq!(model.requests().len(), 1);
}

#[tokio::test]
async fn an_unusable_reply_keeps_the_first_stage_order_and_is_counted() {
    let plain = first_stage(5).await;
    for replies in [
        vec![
            Reply::text("The weather API looks best."),
            Reply::text("weather, then movies"),
        ],
        vec![Reply::text(r#"{"ranking": [0, 17, "none"]}"#)],
        vec![Reply::status(500, "down"), Reply::status(500, "down")],
    ] {
        let model = ScriptedLlm::new(replies.clone());
        let retriever = with_model(model, 5);
        let hits = retriever
            .search(QUERY, 5, &Filter::default())
            .await
            .unwrap();
        assert_eq!(hits, plain, "{replies:?}");
        assert_eq!(
            retriever.counts(),
            RerankCounts {
                reranked: 0,
                unusable: 1,
                shown: 5
            }
        );
    }
}

#[tokio::test]
async fn a_window_of_zero_is_exactly_the_first_stage_and_asks_no_model() {
    let model = ScriptedLlm::new([Reply::text(r#"{"ranking": [4, 2]}"#)]);
    let retriever = with_model(model.clone(), 0);
    for k in [1, 3, 5] {
        let hits = retriever
            .search(QUERY, k, &Filter::default())
            .await
            .unwrap();
        assert_eq!(hits, first_stage(k).await);
    }
    assert!(model.requests().is_empty());
}

#[tokio::test]
async fn a_replay_from_the_cache_asks_no_model() {
    let db = CacheDb::in_memory().unwrap();
    let recorded = ScriptedLlm::new([Reply::text(r#"{"ranking": [5, 1]}"#)]);
    let live = RerankingRetriever::new(
        bm25(),
        Arc::new(LlmReranker::new(CachedChat::new(
            recorded.clone(),
            db.clone(),
            CacheMode::ReadWrite,
        ))),
        on(5),
    );
    let first = live.search(QUERY, 5, &Filter::default()).await.unwrap();
    assert_eq!(recorded.requests().len(), 1);
    // A new retriever over a model with nothing to say, replaying the cache.
    let silent = ScriptedLlm::new([]);
    let replay = RerankingRetriever::new(
        bm25(),
        Arc::new(LlmReranker::new(CachedChat::new(
            silent.clone(),
            db,
            CacheMode::Replay,
        ))),
        on(5),
    );
    let again = replay.search(QUERY, 5, &Filter::default()).await.unwrap();
    assert_eq!(again, first);
    assert_eq!(silent.requests().len(), 0);
    assert_eq!(replay.counts().reranked, 1);
    assert_ne!(ids(&first), ids(&first_stage(5).await));
}

#[tokio::test]
async fn explain_says_where_the_reranker_moved_each_hit() {
    let plain = first_stage(5).await;
    let model = ScriptedLlm::new([Reply::text(r#"{"ranking": [4]}"#)]);
    let retriever = with_model(model, 5);
    let hits = retriever
        .search(QUERY, 5, &Filter::default())
        .await
        .unwrap();
    let apis: Vec<_> = hits.iter().map(|h| h.api.clone()).collect();
    let why = retriever
        .explain(QUERY, &apis, 5, &Filter::default())
        .await
        .unwrap();
    let Some(Explanation::Reranked(top)) = &why[0] else {
        panic!("no rerank explanation: {why:?}");
    };
    assert_eq!((top.rank, top.first_stage_rank, top.picked), (1, 4, true));
    assert!(matches!(top.ranking.as_deref(), Some(Explanation::Bm25(_))));
    let text = why[0].as_ref().unwrap().to_string();
    assert!(
        text.contains("moved up to rank 1 from 4 of 5 (named by the reranker)"),
        "{text}"
    );
    let Some(Explanation::Reranked(second)) = &why[1] else {
        panic!("no rerank explanation: {why:?}");
    };
    assert_eq!(
        (second.rank, second.first_stage_rank, second.picked),
        (2, 1, false)
    );
    assert_eq!(apis[1], plain[0].api);
}

/// Names the one candidate whose doc contains a text, recording what it was shown.
struct Naming {
    wanted: &'static str,
    shown: Mutex<Vec<String>>,
}

#[async_trait]
impl Reranker for Naming {
    async fn rerank(&self, _request: &str, candidates: &[Candidate]) -> Result<Vec<usize>> {
        let mut shown = self.shown.lock().unwrap();
        shown.extend(candidates.iter().map(|c| c.doc.clone()));
        Ok(candidates
            .iter()
            .filter(|c| c.doc.contains(self.wanted))
            .map(|c| c.number)
            .collect())
    }
}

#[tokio::test]
async fn expansion_runs_on_the_reranked_list() {
    let catalog = tmdb_catalog();
    let corpus = Arc::new(Corpus::from_catalog(&catalog));
    let bm25: Arc<dyn Retriever> =
        Arc::new(Bm25Index::build(corpus.clone(), Bm25Settings::default()));
    let query = "Get the cast and crew for a movie";
    let first = bm25.search(query, 1, &Filter::default()).await.unwrap();
    assert!(
        first[0].text.contains("/movie/{movie_id}/credits"),
        "{first:?}"
    );
    let naming = Arc::new(Naming {
        wanted: "/tv/{tv_id}/credits",
        shown: Mutex::default(),
    });
    let reranking: Arc<dyn Retriever> = Arc::new(RerankingRetriever::new(
        bm25,
        Arc::clone(&naming) as Arc<dyn Reranker>,
        on(20),
    ));
    let needs = build_graph(&catalog, None, &GraphSettings::PAPER).needs();
    let expanding = ExpandingRetriever::new(reranking, &corpus, needs, ExpandSettings::DEFAULT);
    let (hits, added) = expanding
        .search_expanded(query, 1, &Filter::default())
        .await
        .unwrap();
    assert!(
        naming
            .shown
            .lock()
            .unwrap()
            .iter()
            .any(|d| d.contains("/tv/{tv_id}/credits")),
        "the TV credits must be in the window for this test to mean anything"
    );
    assert!(hits[0].text.contains("/tv/{tv_id}/credits"), "{hits:?}");
    // The producer added feeds the reranked top (the TV show's id), not the movie credits.
    assert!(
        added
            .iter()
            .any(|a| a.param == "tv_id" && a.feeds == hits[0].api),
        "{added:?}"
    );
    assert!(added.iter().all(|a| a.feeds == hits[0].api), "{added:?}");
}
