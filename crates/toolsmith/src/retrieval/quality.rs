//! One query's retrieval quality as `bench retrieval` defines it, for commands that compare
//! configurations (`bench agreement`): the ranking's top 10 (for NDCG@10, measured before
//! expansion) and whether the tools offered at K cover the gold path, top-K alone and with
//! dependency expansion (the pipeline's offer, what `bench run --tools retrieve:K` shows).

use toolsmith_catalog::ApiId;
use toolsmith_eval::offered_covers;
use toolsmith_retrieve::Filter;

use super::Pipeline;

/// What one query scored.
pub(crate) struct QueryQuality {
    /// The ranking's top 10.
    pub(crate) top: Vec<ApiId>,
    /// Whether the top K covers the gold path.
    pub(crate) covered: bool,
    /// Whether the offer at K (top K and what expansion added) covers it.
    pub(crate) covered_expanded: bool,
}

/// Scores `query` against `gold` through `pipeline` at cut-off `k`.
pub(crate) async fn query_quality(
    pipeline: &Pipeline,
    query: &str,
    gold: &[ApiId],
    k: usize,
) -> anyhow::Result<QueryQuality> {
    let ranking: Vec<ApiId> = pipeline
        .ranker()
        .search(query, k.max(10), &Filter::default())
        .await?
        .into_iter()
        .map(|h| h.api)
        .collect();
    let plain: Vec<ApiId> = ranking.iter().take(k).cloned().collect();
    let (offered, _) = pipeline.offer(query, k, &Filter::default()).await?;
    let offered: Vec<ApiId> = offered.into_iter().map(|h| h.api).collect();
    Ok(QueryQuality {
        top: ranking.into_iter().take(10).collect(),
        covered: offered_covers(&plain, gold),
        covered_expanded: offered_covers(&offered, gold),
    })
}
