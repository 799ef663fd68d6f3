//! Why a reranked API sits where it does: its rank before and after, and the need it served.

use toolsmith_catalog::ApiId;

use super::asked::{Asked, Window, reorder};
use super::needs::{NeedWindow, arrange};
use super::order::Order;
use super::settings::RerankSettings;
use crate::error::Result;
use crate::explain::{Explanation, RerankExplanation, ServedNeed};
use crate::retriever::{Filter, Hit, Retriever};

/// What the explanation reads of the reranking stage: the ranking it wraps, its settings.
pub(super) struct Stage<'a> {
    pub(super) inner: &'a dyn Retriever,
    pub(super) settings: &'a RerankSettings,
}

/// The explanations of `apis` for `query` at `k`, given the request's window and order.
pub(super) async fn explain(
    stage: Stage<'_>,
    query: &str,
    asked: &Asked,
    apis: &[ApiId],
    k: usize,
    filter: &Filter,
) -> Result<Vec<Option<Explanation>>> {
    let (first_stage, reranked, read) = match &asked.window {
        Window::Fused(window) => (
            window.clone(),
            reorder(window, &asked.order),
            k.max(stage.settings.depth),
        ),
        Window::PerIntent(window) => {
            // Deep enough that round-robin fusion holds every intent's top `per_intent`.
            let read = k
                .max(window.hits.len())
                .max(window.needs.len() * stage.settings.per_intent);
            let fused = stage.inner.search(query, read, filter).await?;
            let reranked = arrange(window, &asked.order, &fused, read);
            (fused, reranked, read)
        }
    };
    let inner = stage.inner.explain(query, apis, read, filter).await?;
    let window = asked.window.hits();
    let mut out = Vec::with_capacity(apis.len());
    for (api, ranking) in apis.iter().zip(inner) {
        let Some(rank) = reranked.iter().position(|h| &h.api == api) else {
            out.push(ranking);
            continue;
        };
        let pos = window.iter().position(|h| &h.api == api);
        let picked = pos.and_then(|p| picked_at(&asked.order, p));
        let served = match &asked.window {
            Window::PerIntent(w) => picked.and_then(|i| served_need(w, &asked.order, i)),
            Window::Fused(_) => None,
        };
        out.push(Some(Explanation::Reranked(RerankExplanation {
            rank: rank + 1,
            first_stage_rank: rank_in(&first_stage, api),
            picked: picked.is_some(),
            window: window.len(),
            score: reranked.get(rank).map_or(0.0, |h| h.score),
            need: served,
            ranking: ranking.map(Box::new),
        })));
    }
    Ok(out)
}

/// Where (from 0) among the model's picks window position `pos` went, if it was picked.
fn picked_at(order: &Order, pos: usize) -> Option<usize> {
    order
        .placed(pos)
        .and_then(|(new, picked)| picked.then_some(new))
}

/// The need the `i`-th pick (from 0) was chosen for.
fn served_need(window: &NeedWindow, order: &Order, i: usize) -> Option<ServedNeed> {
    let need = *order.served.get(i)?;
    Some(ServedNeed {
        index: need + 1,
        needs: window.needs.len(),
        intent: window.needs.get(need)?.intent.clone(),
    })
}

/// `api`'s rank (from 1) in `list`; 0 when the list read does not hold it.
fn rank_in(list: &[Hit], api: &ApiId) -> usize {
    list.iter().position(|h| &h.api == api).map_or(0, |p| p + 1)
}
