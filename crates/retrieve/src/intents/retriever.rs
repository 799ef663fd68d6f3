//! [`IntentRetriever`]: a ranking searched once per intent of the request, the lists fused.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use hashlink::LruCache;
use toolsmith_catalog::ApiId;

use super::extract::IntentExtractor;
use super::fuse::{Sourced, fuse};
use super::settings::IntentSettings;
use crate::error::Result;
use crate::explain::{Explanation, IntentExplanation};
use crate::retriever::{Filter, Hit, Retriever};

/// Requests whose intents are kept in memory (an expanding search asks twice per request,
/// and a benchmark warms every query before it measures them: ToolBench G1 has 474).
const REMEMBERED: usize = 1024;

/// A request's intents and each one's own ranking, before fusion (what an intent-aware
/// reranking window is built from).
#[derive(Clone, Debug, PartialEq)]
pub struct IntentLists {
    /// The intents, in the request's order (at least two).
    pub intents: Arc<Vec<String>>,
    /// Each intent's ranking by the inner retriever, best first, in the intents' order.
    pub lists: Vec<Vec<Hit>>,
}

impl IntentLists {
    /// Every API of the lists once: the first intent's list, then what each next one adds,
    /// each API where it first appears.
    pub fn union(&self) -> Vec<&Hit> {
        let mut out: Vec<&Hit> = Vec::new();
        for hit in self.lists.iter().flatten() {
            if !out.iter().any(|h| h.api == hit.api) {
                out.push(hit);
            }
        }
        out
    }
}

/// Wraps a ranking: each request is split into intents by an [`IntentExtractor`], each intent
/// is searched on its own (`k` deep), and the lists are fused ([`IntentSettings::fusion`]) into
/// `k` hits. A request with one intent, or whose extraction fails (logged as a warning), is
/// searched as written: exactly the inner ranking.
pub struct IntentRetriever {
    inner: Arc<dyn Retriever>,
    extractor: Arc<dyn IntentExtractor>,
    settings: IntentSettings,
    remembered: Mutex<LruCache<String, Arc<Vec<String>>>>,
}

impl IntentRetriever {
    /// `inner` searched per intent of what `extractor` finds.
    pub fn new(
        inner: Arc<dyn Retriever>,
        extractor: Arc<dyn IntentExtractor>,
        settings: IntentSettings,
    ) -> Self {
        Self {
            inner,
            extractor,
            settings,
            remembered: Mutex::new(LruCache::new(REMEMBERED)),
        }
    }

    /// The intents searched for `query`: trimmed, without empty or repeated ones (case
    /// aside), at most `max_intents`; just the query itself when extraction fails or
    /// finds none.
    pub async fn intents(&self, query: &str) -> Arc<Vec<String>> {
        if let Some(known) = self.memory().get(query) {
            return Arc::clone(known);
        }
        let max = self.settings.max_intents.max(1);
        let found = match self.extractor.intents(query, max).await {
            Ok(found) => clean(found, max),
            Err(err) => {
                tracing::warn!(
                    error = %err,
                    chain = ?std::error::Error::source(&err),
                    "intent extraction failed; searching the request as one query"
                );
                Vec::new()
            }
        };
        let intents = Arc::new(if found.is_empty() {
            vec![query.to_owned()]
        } else {
            found
        });
        self.memory().insert(query.to_owned(), Arc::clone(&intents));
        intents
    }

    /// Each intent's own top `m` by the inner ranking, unfused; `None` when the request has
    /// one intent (it is searched as written).
    pub async fn lists(
        &self,
        query: &str,
        m: usize,
        filter: &Filter,
    ) -> Result<Option<IntentLists>> {
        let intents = self.intents(query).await;
        if intents.len() < 2 {
            return Ok(None);
        }
        let mut lists = Vec::with_capacity(intents.len());
        for intent in intents.iter() {
            lists.push(self.inner.search(intent, m, filter).await?);
        }
        Ok(Some(IntentLists { intents, lists }))
    }

    /// The fused hits with the intent and rank each came from; `None` when the request has
    /// one intent (the inner ranking of the request as written).
    async fn sourced(
        &self,
        query: &str,
        k: usize,
        filter: &Filter,
    ) -> Result<Option<(Arc<Vec<String>>, Vec<Sourced>)>> {
        let Some(IntentLists { intents, lists }) = self.lists(query, k, filter).await? else {
            return Ok(None);
        };
        let fused = fuse(&lists, k, self.settings.fusion);
        Ok(Some((intents, fused)))
    }

    fn memory(&self) -> MutexGuard<'_, LruCache<String, Arc<Vec<String>>>> {
        self.remembered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Trims, drops empty and repeated (case-insensitively) intents, keeps the first `max`.
fn clean(found: Vec<String>, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for intent in found {
        let intent = intent.trim();
        if intent.is_empty() || out.iter().any(|o| o.eq_ignore_ascii_case(intent)) {
            continue;
        }
        out.push(intent.to_owned());
        if out.len() >= max {
            break;
        }
    }
    out
}

#[async_trait]
impl Retriever for IntentRetriever {
    async fn search(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        match self.sourced(query, k, filter).await? {
            Some((_, fused)) => Ok(fused.into_iter().map(|s| s.hit).collect()),
            None => self.inner.search(query, k, filter).await,
        }
    }

    /// Each API's intent, its rank in that intent's list and the fused score, over the inner
    /// ranking's explanation of the API for that intent; one intent: the inner explanation.
    async fn explain(
        &self,
        query: &str,
        apis: &[ApiId],
        k: usize,
        filter: &Filter,
    ) -> Result<Vec<Option<Explanation>>> {
        let Some((intents, fused)) = self.sourced(query, k, filter).await? else {
            return self.inner.explain(query, apis, k, filter).await;
        };
        let mut out = Vec::with_capacity(apis.len());
        for api in apis {
            let Some(source) = fused.iter().find(|s| &s.hit.api == api) else {
                out.push(None);
                continue;
            };
            let intent = intents.get(source.intent).cloned().unwrap_or_default();
            let ranking = self
                .inner
                .explain(&intent, std::slice::from_ref(api), k, filter)
                .await?
                .into_iter()
                .next()
                .flatten();
            out.push(Some(Explanation::Intent(IntentExplanation {
                intent,
                index: source.intent + 1,
                rank: source.rank,
                score: source.hit.score,
                intents: intents.len(),
                ranking: ranking.map(Box::new),
            })));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_trims_dedups_and_caps() {
        let found = vec![
            " weather forecast ".to_owned(),
            String::new(),
            "Weather Forecast".to_owned(),
            "api status".to_owned(),
            "third".to_owned(),
        ];
        assert_eq!(clean(found, 2), ["weather forecast", "api status"]);
    }
}
