//! [`RerankingRetriever`]: a ranking whose top candidates a [`Reranker`] reorders.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use hashlink::LruCache;
use toolsmith_catalog::ApiId;
use toolsmith_plumbing::text::truncate_chars;

use super::model::{Candidate, Reranker};
use super::order::Order;
use super::settings::RerankSettings;
use crate::error::Result;
use crate::explain::{Explanation, RerankExplanation};
use crate::retriever::{Filter, Hit, Retriever};

/// Windows whose order is kept in memory (a search is asked several times per request: at
/// several cut-offs, and again by expansion).
const REMEMBERED: usize = 256;

/// What the stage has done so far: distinct windows reordered, and replies it could not use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RerankCounts {
    /// Windows the model reordered.
    pub reranked: usize,
    /// Windows left in the first stage's order because the model failed or its reply held
    /// no usable number.
    pub unusable: usize,
}

/// Wraps a ranking: its top [`RerankSettings::depth`] hits are shown to a [`Reranker`], the
/// ones it picks go first in its order, the rest follow in their old order, and any hits past
/// the window come after unchanged. The window's scores are handed out again in the new order,
/// so scores still fall down the list.
pub struct RerankingRetriever {
    inner: Arc<dyn Retriever>,
    reranker: Arc<dyn Reranker>,
    settings: RerankSettings,
    remembered: Mutex<LruCache<String, Arc<Order>>>,
    reranked: AtomicUsize,
    unusable: AtomicUsize,
}

impl RerankingRetriever {
    /// `inner` with its top candidates reordered by `reranker`.
    pub fn new(
        inner: Arc<dyn Retriever>,
        reranker: Arc<dyn Reranker>,
        settings: RerankSettings,
    ) -> Self {
        Self {
            inner,
            reranker,
            settings,
            remembered: Mutex::new(LruCache::new(REMEMBERED)),
            reranked: AtomicUsize::new(0),
            unusable: AtomicUsize::new(0),
        }
    }

    /// What the stage has done so far in this process.
    pub fn counts(&self) -> RerankCounts {
        RerankCounts {
            reranked: self.reranked.load(Ordering::Relaxed),
            unusable: self.unusable.load(Ordering::Relaxed),
        }
    }

    /// The first stage's window for `query`, and the model's order of it.
    async fn window(&self, query: &str, filter: &Filter) -> Result<(Vec<Hit>, Arc<Order>)> {
        let window = self
            .inner
            .search(query, self.settings.depth, filter)
            .await?;
        let order = self.order(query, &window).await;
        Ok((window, order))
    }

    /// The order of `window` for `query`: remembered, else asked of the model (a failure or
    /// an unusable reply is counted, logged, and keeps the window as it is).
    async fn order(&self, query: &str, window: &[Hit]) -> Arc<Order> {
        if window.len() < 2 {
            return Arc::new(Order::unchanged(window.len()));
        }
        let key = memory_key(query, window);
        if let Some(known) = self.memory().get(&key) {
            return Arc::clone(known);
        }
        let candidates: Vec<Candidate> = window
            .iter()
            .enumerate()
            .map(|(i, hit)| Candidate {
                number: i + 1,
                doc: truncate_chars(hit.text.trim(), self.settings.doc_chars),
            })
            .collect();
        let order = match self.reranker.rerank(query, &candidates).await {
            Ok(numbers) => Order::from_numbers(&numbers, window.len()),
            Err(err) => {
                tracing::warn!(
                    error = %err,
                    chain = ?std::error::Error::source(&err),
                    "reranking failed; keeping the first stage's order"
                );
                None
            }
        };
        let order = Arc::new(match order {
            Some(order) => {
                self.reranked.fetch_add(1, Ordering::Relaxed);
                order
            }
            None => {
                self.unusable.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("the reranker's reply named no candidate; order kept");
                Order::unchanged(window.len())
            }
        });
        self.memory().insert(key, Arc::clone(&order));
        order
    }

    fn memory(&self) -> MutexGuard<'_, LruCache<String, Arc<Order>>> {
        self.remembered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The request and the window's APIs: the same window of the same request is one question.
fn memory_key(query: &str, window: &[Hit]) -> String {
    let mut key = query.to_owned();
    for hit in window {
        key.push('\n');
        key.push_str(&hit.api.to_string());
    }
    key
}

/// `window` in `order`, each new position taking the score the old list had there.
fn reorder(window: &[Hit], order: &Order) -> Vec<Hit> {
    order
        .positions
        .iter()
        .zip(window)
        .filter_map(|(&from, slot)| {
            window.get(from).map(|hit| Hit {
                score: slot.score,
                ..hit.clone()
            })
        })
        .collect()
}

#[async_trait]
impl Retriever for RerankingRetriever {
    async fn search(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        let depth = self.settings.depth;
        if depth == 0 {
            return self.inner.search(query, k, filter).await;
        }
        let (window, order) = self.window(query, filter).await?;
        let mut hits = reorder(&window, &order);
        if k > window.len() && window.len() == depth {
            let more = self.inner.search(query, k, filter).await?;
            let tail: Vec<Hit> = more
                .into_iter()
                .filter(|h| !window.iter().any(|w| w.api == h.api))
                .collect();
            hits.extend(tail);
        }
        hits.truncate(k);
        Ok(hits)
    }

    /// For an API of the window: its rank before and after reranking, over the inner
    /// ranking's explanation; past the window: the inner explanation.
    async fn explain(
        &self,
        query: &str,
        apis: &[ApiId],
        k: usize,
        filter: &Filter,
    ) -> Result<Vec<Option<Explanation>>> {
        let depth = self.settings.depth;
        if depth == 0 {
            return self.inner.explain(query, apis, k, filter).await;
        }
        let (window, order) = self.window(query, filter).await?;
        let reranked = reorder(&window, &order);
        let inner = self
            .inner
            .explain(query, apis, k.max(depth), filter)
            .await?;
        let mut out = Vec::with_capacity(apis.len());
        for (api, ranking) in apis.iter().zip(inner) {
            let was = window.iter().position(|h| &h.api == api);
            let Some((rank, picked)) = was.and_then(|pos| order.placed(pos)) else {
                out.push(ranking);
                continue;
            };
            out.push(Some(Explanation::Reranked(RerankExplanation {
                rank: rank + 1,
                first_stage_rank: was.map_or(0, |p| p + 1),
                picked,
                window: window.len(),
                score: reranked.get(rank).map_or(0.0, |h| h.score),
                ranking: ranking.map(Box::new),
            })));
        }
        Ok(out)
    }
}
