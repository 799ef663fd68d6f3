//! The per-intent reranking window: each intent's own top list shown grouped by need, the
//! picks interleaved so every need reaches the first slots; scripted intents and reranker over
//! a fixed first stage.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use toolsmith_catalog::ApiId;
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};
use toolsmith_llm::{CacheDb, CacheMode, CachedChat, ChatModel, Role};
use toolsmith_retrieve::{
    Explanation, Filter, Hit, IntentRetriever, IntentSettings, LlmIntents, LlmReranker,
    RerankCounts, RerankSettings, RerankWindow, RerankingRetriever, Result, Retriever,
};

const REQUEST: &str = "The latest air quality in Beijing, and is the Mailcheap API up";
const AIR: &str = "air quality of a city";
const MAIL: &str = "status of a mail provider's API";
const INTENTS: &str =
    r#"{"intents": ["air quality of a city", "status of a mail provider's API"]}"#;

fn hit(api: &str, score: f32) -> Hit {
    let api: ApiId = api.parse().unwrap();
    Hit {
        tool: api.tool().clone(),
        text: format!("{api}: the doc of {api}"),
        api,
        score,
    }
}

/// Eight hits `tool/name1..8`, best first.
fn list(tool: &str, name: &str) -> Vec<Hit> {
    (1..=8)
        .map(|i| hit(&format!("{tool}/{name}{i}"), 10.0 - i as f32))
        .collect()
}

/// A first stage with fixed answers: each intent's list, and the request as written.
struct Fixed {
    lists: HashMap<&'static str, Vec<Hit>>,
}

impl Fixed {
    fn new() -> Arc<Self> {
        let mut lists = HashMap::new();
        lists.insert(AIR, list("air", "a"));
        lists.insert(MAIL, list("mail", "m"));
        let mut blob = list("air", "a");
        blob.extend(list("mail", "m"));
        lists.insert(REQUEST, blob);
        Arc::new(Self { lists })
    }
}

#[async_trait]
impl Retriever for Fixed {
    async fn search(&self, query: &str, k: usize, _filter: &Filter) -> Result<Vec<Hit>> {
        let list = self.lists.get(query).cloned().unwrap_or_default();
        Ok(list.into_iter().take(k).collect())
    }
}

fn ids(hits: &[Hit]) -> Vec<String> {
    hits.iter().map(|h| h.api.to_string()).collect()
}

fn settings(window: RerankWindow, depth: usize, per_intent: usize) -> RerankSettings {
    RerankSettings {
        enabled: true,
        depth,
        window,
        per_intent,
        ..RerankSettings::default()
    }
}

fn intents_over(
    first: Arc<dyn Retriever>,
    model: impl ChatModel + 'static,
) -> Arc<IntentRetriever> {
    let settings = IntentSettings {
        enabled: true,
        ..IntentSettings::default()
    };
    Arc::new(IntentRetriever::new(
        first,
        Arc::new(LlmIntents::new(model)),
        settings,
    ))
}

/// The reranking stage over intents (`INTENTS` from `intents`), per-intent windows read from
/// the intent stage.
fn stage(
    intents: ScriptedLlm,
    reranker: impl ChatModel + 'static,
    settings: RerankSettings,
) -> RerankingRetriever {
    let fused = intents_over(Fixed::new(), intents);
    RerankingRetriever::new(
        Arc::clone(&fused) as Arc<dyn Retriever>,
        Arc::new(LlmReranker::new(reranker)),
        settings,
    )
    .with_intents(fused)
}

fn intent_model() -> ScriptedLlm {
    ScriptedLlm::new([]).with_rule(When::role(Role::INTENTS), Reply::text(INTENTS))
}

/// Names the sixth API of each need (window numbers 6 and 12 of a per-intent window of 6);
/// asked about a fused window, names its last two candidates.
fn picking_model() -> ScriptedLlm {
    ScriptedLlm::new([])
        .with_rule(
            When::last_message_contains("Need 1: "),
            Reply::text(r#"{"needs": [[6, 2], [12]]}"#),
        )
        .with_rule(
            When::role(Role::RERANK),
            Reply::text(r#"{"ranking": [8, 7]}"#),
        )
}

#[tokio::test]
async fn each_needs_deep_pick_reaches_the_first_slots_where_the_fused_window_cannot() {
    let none = Filter::default();
    let plain = intents_over(Fixed::new(), intent_model())
        .search(REQUEST, 20, &none)
        .await
        .unwrap();
    let rank = |api: &str| ids(&plain).iter().position(|a| a == api).unwrap() + 1;
    assert_eq!((rank("air/a6"), rank("mail/m6")), (11, 12), "{plain:?}");

    let reranker = picking_model();
    let per_intent = stage(
        intent_model(),
        reranker.clone(),
        settings(RerankWindow::PerIntent, 8, 6),
    );
    let hits = per_intent.search(REQUEST, 5, &none).await.unwrap();
    // Need 1's best, need 2's best, need 1's second; then the fused list without them.
    assert_eq!(
        ids(&hits),
        ["air/a6", "mail/m6", "air/a2", "air/a1", "mail/m1"]
    );
    let asked = reranker.requests();
    assert_eq!(asked.len(), 1);
    let prompt = asked[0].last_message();
    assert!(prompt.contains(&format!("Need 1: {AIR}")), "{prompt}");
    assert!(prompt.contains(&format!("Need 2: {MAIL}")), "{prompt}");
    assert!(
        prompt.contains("[6] air/a6") && prompt.contains("[12] mail/m6"),
        "{prompt}"
    );
    assert!(
        !prompt.contains("[13]") && !prompt.contains("air/a7"),
        "{prompt}"
    );
    assert_eq!(
        per_intent.counts(),
        RerankCounts {
            reranked: 1,
            unusable: 0,
            shown: 12
        }
    );

    // The fused window of 8 holds neither: whatever the model names, they stay out of the top.
    let fused = stage(
        intent_model(),
        picking_model(),
        settings(RerankWindow::Fused, 8, 6),
    );
    let top = ids(&fused.search(REQUEST, 5, &none).await.unwrap());
    assert!(
        !top.contains(&"air/a6".to_owned()) && !top.contains(&"mail/m6".to_owned()),
        "{top:?}"
    );
}

#[tokio::test]
async fn one_intent_gets_exactly_the_fused_reranking() {
    let none = Filter::default();
    let one = || {
        ScriptedLlm::new([]).with_rule(
            When::role(Role::INTENTS),
            Reply::text(r#"{"intents": ["air quality of a city"]}"#),
        )
    };
    let per_model = picking_model();
    let per_intent = stage(
        one(),
        per_model.clone(),
        settings(RerankWindow::PerIntent, 8, 6),
    );
    let fused_model = picking_model();
    let fused = stage(
        one(),
        fused_model.clone(),
        settings(RerankWindow::Fused, 8, 6),
    );
    for k in [3, 8, 12] {
        assert_eq!(
            per_intent.search(REQUEST, k, &none).await.unwrap(),
            fused.search(REQUEST, k, &none).await.unwrap()
        );
    }
    let (a, b) = (per_model.requests(), fused_model.requests());
    assert_eq!((a.len(), b.len()), (1, 1));
    assert_eq!(a[0].last_message(), b[0].last_message());
    assert!(!a[0].last_message().contains("Need 1"));
    let top = ids(&per_intent.search(REQUEST, 2, &none).await.unwrap());
    assert_eq!(top, ["air/a8", "air/a7"], "the fused window's 8th and 7th");
}

#[tokio::test]
async fn a_malformed_needs_reply_keeps_the_fused_order_and_is_counted() {
    let none = Filter::default();
    let plain = intents_over(Fixed::new(), intent_model())
        .search(REQUEST, 10, &none)
        .await
        .unwrap();
    for replies in [
        vec![
            Reply::text("air first, then mail"),
            Reply::text("still prose"),
        ],
        vec![Reply::text(r#"{"needs": [[0, 40], ["x"]]}"#)],
        vec![Reply::status(500, "down"), Reply::status(500, "down")],
    ] {
        let reranker = ScriptedLlm::new(replies.clone());
        let per_intent = stage(
            intent_model(),
            reranker,
            settings(RerankWindow::PerIntent, 8, 6),
        );
        let hits = per_intent.search(REQUEST, 10, &none).await.unwrap();
        assert_eq!(hits, plain, "{replies:?}");
        assert_eq!(per_intent.counts().unusable, 1, "{replies:?}");
        assert_eq!(per_intent.counts().reranked, 0);
    }
}

#[tokio::test]
async fn a_replay_from_the_cache_makes_no_call() {
    let none = Filter::default();
    let db = CacheDb::in_memory().unwrap();
    let cached = |model: ScriptedLlm, mode| CachedChat::new(model, db.clone(), mode);
    let live_model = picking_model();
    let live = stage(
        intent_model(),
        cached(live_model.clone(), CacheMode::ReadWrite),
        settings(RerankWindow::PerIntent, 8, 6),
    );
    let first = live.search(REQUEST, 5, &none).await.unwrap();
    assert_eq!(live_model.requests().len(), 1);
    let silent = ScriptedLlm::new([]);
    let replay = stage(
        intent_model(),
        cached(silent.clone(), CacheMode::Replay),
        settings(RerankWindow::PerIntent, 8, 6),
    );
    assert_eq!(replay.search(REQUEST, 5, &none).await.unwrap(), first);
    assert!(silent.requests().is_empty());
    assert_eq!(replay.counts().reranked, 1);
    assert_eq!(ids(&first)[..2], ["air/a6", "mail/m6"]);
}

#[tokio::test]
async fn one_call_per_request_whatever_k_is_read() {
    let none = Filter::default();
    for window in [RerankWindow::PerIntent, RerankWindow::Fused] {
        let reranker = picking_model();
        let stage = stage(intent_model(), reranker.clone(), settings(window, 8, 6));
        for k in [1, 5, 8, 12, 30] {
            let hits = stage.search(REQUEST, k, &none).await.unwrap();
            assert_eq!(hits.len(), k.min(16), "{window:?} at {k}");
            let apis: Vec<ApiId> = hits.iter().map(|h| h.api.clone()).collect();
            stage.explain(REQUEST, &apis, k, &none).await.unwrap();
        }
        assert_eq!(reranker.requests().len(), 1, "{window:?}");
    }
}

/// A first stage whose near-ties come out in another order on every other read (as a query
/// embedded again can): the same request must still be one window and one question.
struct Jittery {
    reads: AtomicUsize,
}

#[async_trait]
impl Retriever for Jittery {
    async fn search(&self, _query: &str, k: usize, _filter: &Filter) -> Result<Vec<Hit>> {
        let mut hits = list("air", "a");
        if self.reads.fetch_add(1, Ordering::Relaxed) % 2 == 1 {
            hits.swap(0, 1);
        }
        Ok(hits.into_iter().take(k).collect())
    }
}

#[tokio::test]
async fn a_request_read_twice_is_one_window_and_one_question() {
    let none = Filter::default();
    let reranker = ScriptedLlm::new([])
        .with_rule(When::role(Role::RERANK), Reply::text(r#"{"ranking": [3]}"#));
    let stage = RerankingRetriever::new(
        Arc::new(Jittery {
            reads: AtomicUsize::new(0),
        }),
        Arc::new(LlmReranker::new(reranker.clone())),
        settings(RerankWindow::Fused, 4, 6),
    );
    let first = stage.search(REQUEST, 4, &none).await.unwrap();
    let again = stage.search(REQUEST, 4, &none).await.unwrap();
    assert_eq!(first, again);
    assert_eq!(reranker.requests().len(), 1);
}

#[tokio::test]
async fn explain_names_the_need_each_pick_served() {
    let none = Filter::default();
    let per_intent = stage(
        intent_model(),
        picking_model(),
        settings(RerankWindow::PerIntent, 8, 6),
    );
    let hits = per_intent.search(REQUEST, 4, &none).await.unwrap();
    let apis: Vec<ApiId> = hits.iter().map(|h| h.api.clone()).collect();
    let why = per_intent.explain(REQUEST, &apis, 4, &none).await.unwrap();
    let Some(Explanation::Reranked(second)) = &why[1] else {
        panic!("no rerank explanation: {why:?}");
    };
    assert_eq!(
        (second.rank, second.first_stage_rank, second.picked),
        (2, 12, true)
    );
    let need = second.need.as_ref().unwrap();
    assert_eq!((need.index, need.needs, need.intent.as_str()), (2, 2, MAIL));
    assert_eq!(second.window, 12);
    let text = why[1].as_ref().unwrap().to_string();
    assert!(
        text.contains(&format!(
            "moved up to rank 2 from 12 of 12 (named by the reranker for need 2 of 2 {MAIL:?})"
        )),
        "{text}"
    );
    // The fused list's top, not picked, moved down and served no need.
    let Some(Explanation::Reranked(fourth)) = &why[3] else {
        panic!("no rerank explanation: {why:?}");
    };
    assert_eq!(
        (fourth.rank, fourth.first_stage_rank, fourth.picked),
        (4, 1, false)
    );
    assert!(fourth.need.is_none());
}

/// The same eight hits for any query.
struct Same;

#[async_trait]
impl Retriever for Same {
    async fn search(&self, _query: &str, k: usize, _filter: &Filter) -> Result<Vec<Hit>> {
        Ok(list("air", "a").into_iter().take(k).collect())
    }
}

#[tokio::test]
async fn a_benchmark_set_warmed_then_measured_asks_once_per_request() {
    let none = Filter::default();
    let reranker = ScriptedLlm::new([])
        .with_rule(When::role(Role::RERANK), Reply::text(r#"{"ranking": [2]}"#));
    let stage = RerankingRetriever::new(
        Arc::new(Same),
        Arc::new(LlmReranker::new(reranker.clone())),
        settings(RerankWindow::Fused, 4, 6),
    );
    // ToolBench G1's 353 resolved queries: warmed at one depth, then read at another.
    let queries: Vec<String> = (0..353).map(|i| format!("request {i}")).collect();
    for k in [20, 5] {
        for q in &queries {
            let hits = stage.search(q, k, &none).await.unwrap();
            assert_eq!(hits[0].api.to_string(), "air/a2");
        }
    }
    assert_eq!(reranker.requests().len(), 353);
}
