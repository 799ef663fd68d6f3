//! The [`Retriever`] contract: a query in, the best APIs out.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use toolsmith_catalog::{ApiId, ToolId};

use crate::error::Result;
use crate::explain::Explanation;

/// Restricts a search to a category and/or a tool.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Filter {
    /// Only APIs of tools in this category (case-insensitive).
    pub category: Option<String>,
    /// Only APIs of this tool.
    pub tool: Option<ToolId>,
}

/// One API found for a query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    /// The API.
    pub api: ApiId,
    /// Its tool.
    pub tool: ToolId,
    /// How well it fits: higher is better; comparable only within one result list.
    pub score: f32,
    /// A one-line summary of the API (name, path, description).
    pub text: String,
}

/// One tool found for a query: its best API's score and its matching APIs, best first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolHit {
    /// The tool.
    pub tool: ToolId,
    /// The best score among its APIs.
    pub score: f32,
    /// Its APIs among the hits, best first.
    pub apis: Vec<ApiId>,
}

/// How many API hits [`Retriever::search_tools`] looks at per tool wanted.
pub(crate) const TOOL_FANOUT: usize = 10;

/// Finds the APIs that fit a query. Object-safe: share it as `Arc<dyn Retriever>`.
///
/// `search` is async because dense and hybrid retrieval embed the query first; BM25 answers at
/// once. Indexes are built up front, so a search only reads them and is cheap to repeat.
#[async_trait]
pub trait Retriever: Send + Sync {
    /// The `k` best APIs for `query` among those `filter` lets through, best first.
    async fn search(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>>;

    /// The `k` best tools, each scored by its best API (max aggregation), from the top
    /// `k * TOOL_FANOUT` API hits.
    async fn search_tools(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<ToolHit>> {
        let hits = self
            .search(query, k.saturating_mul(TOOL_FANOUT), filter)
            .await?;
        Ok(aggregate_tools(&hits, k))
    }

    /// Why each of `apis` scores what it does for `query` in a `search(query, k, filter)`:
    /// the parts of its score (see [`Explanation`]), in `apis`' order; `None` for an API this
    /// retriever cannot explain (not in its corpus). Done only on request: `search` computes
    /// none of it. By default nothing is explained.
    async fn explain(
        &self,
        query: &str,
        apis: &[ApiId],
        k: usize,
        filter: &Filter,
    ) -> Result<Vec<Option<Explanation>>> {
        let _ = (query, k, filter);
        Ok(vec![None; apis.len()])
    }
}

#[async_trait]
impl<T: Retriever + ?Sized> Retriever for Arc<T> {
    async fn search(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        (**self).search(query, k, filter).await
    }

    async fn explain(
        &self,
        query: &str,
        apis: &[ApiId],
        k: usize,
        filter: &Filter,
    ) -> Result<Vec<Option<Explanation>>> {
        (**self).explain(query, apis, k, filter).await
    }
}

/// Groups API hits (best first) by tool, scoring each tool by its best API; the `k` best tools.
pub(crate) fn aggregate_tools(hits: &[Hit], k: usize) -> Vec<ToolHit> {
    let mut order: Vec<ToolHit> = Vec::new();
    let mut index: HashMap<&ToolId, usize> = HashMap::new();
    for hit in hits {
        match index.get(&hit.tool) {
            Some(&i) => {
                if let Some(t) = order.get_mut(i) {
                    t.apis.push(hit.api.clone());
                    t.score = t.score.max(hit.score);
                }
            }
            None => {
                index.insert(&hit.tool, order.len());
                order.push(ToolHit {
                    tool: hit.tool.clone(),
                    score: hit.score,
                    apis: vec![hit.api.clone()],
                });
            }
        }
    }
    order.sort_by(|a, b| b.score.total_cmp(&a.score));
    order.truncate(k);
    order
}

/// The `k` best `(document, score)` pairs, best first, ties broken by document order.
/// Partial selection (`select_nth_unstable_by`) then a sort of the `k` kept.
pub(crate) fn top_k(mut scored: Vec<(u32, f32)>, k: usize) -> Vec<(u32, f32)> {
    let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if k == 0 {
        return Vec::new();
    }
    if scored.len() > k {
        scored.select_nth_unstable_by(k - 1, order);
        scored.truncate(k);
    }
    scored.sort_unstable_by(order);
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_selects_and_orders() {
        let scored = vec![(0, 0.1), (1, 0.9), (2, 0.5), (3, 0.9), (4, 0.7)];
        assert_eq!(top_k(scored.clone(), 3), vec![(1, 0.9), (3, 0.9), (4, 0.7)]);
        assert_eq!(top_k(scored.clone(), 10).len(), 5);
        assert!(top_k(scored, 0).is_empty());
    }
}
