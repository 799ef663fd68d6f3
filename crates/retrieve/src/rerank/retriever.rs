//! [`RerankingRetriever`]: a ranking whose top candidates a [`Reranker`] reorders.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use hashlink::LruCache;
use toolsmith_catalog::ApiId;
use toolsmith_plumbing::text::truncate_chars;

use super::asked::{Asked, Window, reorder};
use super::model::{Candidate, Reranker};
use super::needs::{NeedWindow, arrange};
use super::order::Order;
use super::settings::RerankSettings;
use crate::error::Result;
use crate::explain::Explanation;
use crate::intents::IntentRetriever;
use crate::retriever::{Filter, Hit, Retriever};

/// Requests whose window and order are kept in memory: a search is asked several times per
/// request (at several cut-offs, and again by expansion), and a benchmark warms every query
/// before it measures them, so this holds a whole benchmark set (ToolBench G1 has 474).
const REMEMBERED: usize = 1024;

/// What the stage has done so far: distinct windows reordered, and replies it could not use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RerankCounts {
    /// Windows the model reordered.
    pub reranked: usize,
    /// Windows left in the first stage's order because the model failed or its reply held
    /// no usable number.
    pub unusable: usize,
    /// Candidates shown to the model, over all the windows it was asked about.
    pub shown: usize,
}

/// Wraps a ranking: its top [`RerankSettings::depth`] hits are shown to a [`Reranker`], the
/// ones it picks go first in its order, the rest follow in their old order, and any hits past
/// the window come after unchanged. The window's scores are handed out again in the new order,
/// so scores still fall down the list.
///
/// With [`RerankingRetriever::with_intents`] and a per-intent window
/// ([`RerankSettings::per_intent_window`]), a request with several intents is shown each
/// intent's own top [`RerankSettings::per_intent`] grouped by need; the model picks per need,
/// the picks are interleaved (every need's best, then every need's second, ...) and the fused
/// list follows without them. A request with one intent gets the fused window.
///
/// A request is asked about once: its window (read once, whatever cut-off is asked) and the
/// model's order are remembered, so every cut-off, and expansion, read the same window.
pub struct RerankingRetriever {
    inner: Arc<dyn Retriever>,
    reranker: Arc<dyn Reranker>,
    settings: RerankSettings,
    intents: Option<Arc<IntentRetriever>>,
    remembered: Mutex<LruCache<String, Arc<Asked>>>,
    reranked: AtomicUsize,
    unusable: AtomicUsize,
    shown: AtomicUsize,
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
            intents: None,
            remembered: Mutex::new(LruCache::new(REMEMBERED)),
            reranked: AtomicUsize::new(0),
            unusable: AtomicUsize::new(0),
            shown: AtomicUsize::new(0),
        }
    }

    /// Per-intent windows read from `intents` (the intent stage `inner` is, or wraps) when the
    /// settings ask for them.
    pub fn with_intents(self, intents: Arc<IntentRetriever>) -> Self {
        Self {
            intents: Some(intents),
            ..self
        }
    }

    /// What the stage has done so far in this process.
    pub fn counts(&self) -> RerankCounts {
        RerankCounts {
            reranked: self.reranked.load(Ordering::Relaxed),
            unusable: self.unusable.load(Ordering::Relaxed),
            shown: self.shown.load(Ordering::Relaxed),
        }
    }

    /// The window of `query` and the model's order of it: remembered, else read and asked.
    pub(crate) async fn asked(&self, query: &str, filter: &Filter) -> Result<Arc<Asked>> {
        let key = format!("{query}\n{filter:?}");
        if let Some(known) = self.memory().get(&key) {
            return Ok(Arc::clone(known));
        }
        let asked = match self.need_window(query, filter).await? {
            Some(window) => {
                let order = self.ask_needs(query, &window).await;
                Asked {
                    window: Window::PerIntent(window),
                    order,
                }
            }
            None => {
                let depth = self.settings.depth;
                let window = self.inner.search(query, depth, filter).await?;
                let order = self.ask(query, &window).await;
                Asked {
                    window: Window::Fused(window),
                    order,
                }
            }
        };
        let asked = Arc::new(asked);
        self.memory().insert(key, Arc::clone(&asked));
        Ok(asked)
    }

    /// The per-intent window of `query`, when the settings ask for one and the request has
    /// several intents.
    async fn need_window(&self, query: &str, filter: &Filter) -> Result<Option<NeedWindow>> {
        let Some(intents) = self
            .intents
            .as_ref()
            .filter(|_| self.settings.per_intent_window())
        else {
            return Ok(None);
        };
        let lists = intents
            .lists(query, self.settings.per_intent, filter)
            .await?;
        Ok(lists.as_ref().map(NeedWindow::new))
    }

    /// The model's order of a fused `window`.
    async fn ask(&self, query: &str, window: &[Hit]) -> Order {
        if window.len() < 2 {
            return Order::unchanged(window.len());
        }
        let candidates: Vec<Candidate> = window
            .iter()
            .enumerate()
            .map(|(i, hit)| Candidate {
                number: i + 1,
                doc: truncate_chars(hit.text.trim(), self.settings.doc_chars),
            })
            .collect();
        let reply = self.reranker.rerank(query, &candidates).await;
        let order = reply.map(|numbers| Order::from_numbers(&numbers, window.len()));
        self.settle(order, window.len())
    }

    /// The model's order of a per-intent `window`, its picks interleaved across needs.
    async fn ask_needs(&self, query: &str, window: &NeedWindow) -> Order {
        let len = window.hits.len();
        if len < 2 {
            return Order::unchanged(len);
        }
        let needs = window.prompt(self.settings.doc_chars);
        let reply = self.reranker.rerank_needs(query, &needs).await;
        let order = reply.map(|lists| Order::interleave(&lists, len));
        self.settle(order, len)
    }

    /// The order a reply gave, counted; a failure or an unusable reply is counted, logged,
    /// and keeps the window of `len` as it is.
    fn settle(&self, reply: Result<Option<Order>>, len: usize) -> Order {
        self.shown.fetch_add(len, Ordering::Relaxed);
        let order = reply.unwrap_or_else(|err| {
            tracing::warn!(
                error = %err,
                chain = ?std::error::Error::source(&err),
                "reranking failed; keeping the first stage's order"
            );
            None
        });
        match order {
            Some(order) => {
                self.reranked.fetch_add(1, Ordering::Relaxed);
                order
            }
            None => {
                self.unusable.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("the reranker's reply named no candidate; order kept");
                Order::unchanged(len)
            }
        }
    }

    /// The reranked list of `asked` for `query` at `k`.
    pub(crate) async fn arranged(
        &self,
        query: &str,
        asked: &Asked,
        k: usize,
        filter: &Filter,
    ) -> Result<Vec<Hit>> {
        match &asked.window {
            Window::Fused(window) => {
                let mut hits = reorder(window, &asked.order);
                if k > window.len() && window.len() == self.settings.depth {
                    let more = self.inner.search(query, k, filter).await?;
                    let tail = more
                        .into_iter()
                        .filter(|h| !window.iter().any(|w| w.api == h.api));
                    hits.extend(tail);
                }
                hits.truncate(k);
                Ok(hits)
            }
            Window::PerIntent(window) => {
                let fused = self.inner.search(query, k, filter).await?;
                Ok(arrange(window, &asked.order, &fused, k))
            }
        }
    }

    fn memory(&self) -> MutexGuard<'_, LruCache<String, Arc<Asked>>> {
        self.remembered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait]
impl Retriever for RerankingRetriever {
    async fn search(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        if self.settings.depth == 0 {
            return self.inner.search(query, k, filter).await;
        }
        let asked = self.asked(query, filter).await?;
        self.arranged(query, &asked, k, filter).await
    }

    /// For an API of the window: its rank before and after reranking (and with a per-intent
    /// window, the need it was picked for), over the inner ranking's explanation; past the
    /// window: the inner explanation.
    async fn explain(
        &self,
        query: &str,
        apis: &[ApiId],
        k: usize,
        filter: &Filter,
    ) -> Result<Vec<Option<Explanation>>> {
        if self.settings.depth == 0 {
            return self.inner.explain(query, apis, k, filter).await;
        }
        let asked = self.asked(query, filter).await?;
        let stage = super::explain::Stage {
            inner: self.inner.as_ref(),
            settings: &self.settings,
        };
        super::explain::explain(stage, query, &asked, apis, k, filter).await
    }
}
