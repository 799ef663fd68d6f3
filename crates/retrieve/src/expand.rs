//! Dependency-aware retrieval: after ranking, add the producers of the ids the retrieved APIs
//! need (ToolExpNet's dependency edges, `toolsmith-graph`), within a budget of extra tools.
//!
//! A query like "recommend movies like Titanic" ranks `/movie/{movie_id}/recommendations`
//! high but not `/search/movie`, which produces the `movie_id` it needs. For each offered API
//! (in rank order, added ones included, so chains close), each parameter it needs that no
//! offered API produces gets its best producer: the one ranked highest for the query in a
//! deeper search, preferring producers whose own needs are already met, then the stronger
//! evidence.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;
use toolsmith_graph::{Need, Producer};

use crate::corpus::Corpus;
use crate::error::Result;
use crate::retriever::{Filter, Hit, Retriever};

/// How dependency expansion runs. `Default` is the measured choice (see the crate docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExpandSettings {
    /// Whether to expand at all (it also needs a graph with dependency edges). By default on.
    pub enabled: bool,
    /// At most this many tools added to one result list. By default 4 (on TMDB, budget 8
    /// adds 0.1 tools a query and no coverage; 2 loses 3 points at K = 10).
    pub budget: usize,
    /// Producers added per unmet need. By default 1.
    pub per_need: usize,
    /// How deep the query's ranking is read to rank producers. By default 100.
    pub pool: usize,
}

impl ExpandSettings {
    /// Measured on RestBench TMDB with the hybrid retriever (see the crate docs).
    pub const DEFAULT: Self = Self {
        enabled: true,
        budget: 4,
        per_need: 1,
        pool: 100,
    };

    /// No expansion.
    pub const OFF: Self = Self {
        enabled: false,
        ..Self::DEFAULT
    };
}

impl Default for ExpandSettings {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// How many producer links [`grounded`] follows (search -> details -> credits -> person).
const GROUNDING_DEPTH: usize = 3;

/// Whether `api` can run with the tools in `present`: it needs nothing, or each of its needs
/// has a present producer that can run in turn (within `depth` links).
fn grounded(
    api: &ApiId,
    needs: &BTreeMap<ApiId, Vec<Need>>,
    present: &HashSet<ApiId>,
    depth: usize,
) -> bool {
    let Some(api_needs) = needs.get(api) else {
        return true;
    };
    depth > 0
        && api_needs.iter().all(|n| {
            n.producers.iter().any(|p| {
                &p.api != api
                    && present.contains(&p.api)
                    && grounded(&p.api, needs, present, depth - 1)
            })
        })
}

/// One API added by [`expand`], and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Added {
    /// The producer added.
    pub api: ApiId,
    /// The offered API whose need it meets.
    pub feeds: ApiId,
    /// The parameter it produces.
    pub param: String,
}

/// The producers to add to `offered`, in the order added. For every offered API (added ones
/// included, so chains close) and every parameter of it in `needs`:
/// - when no offered producer of it is a lookup (takes free text: turns a name the user
///   gives into the id, as a search does), the best lookup producer;
/// - else, when no offered producer can run (its own needs met, [`grounded`]), the best one
///   that can;
///
/// "best" being the highest in `rank` (each API's position in a deeper ranking for the
/// query; lower is better), then the stronger evidence; at most `per_need` per parameter and
/// `budget` in all. `allowed` says which APIs may be added (the search's filter).
pub fn expand(
    offered: &[ApiId],
    rank: &HashMap<ApiId, usize>,
    needs: &BTreeMap<ApiId, Vec<Need>>,
    settings: &ExpandSettings,
    allowed: &dyn Fn(&ApiId) -> bool,
) -> Vec<Added> {
    let mut added: Vec<Added> = Vec::new();
    if !settings.enabled || settings.budget == 0 {
        return added;
    }
    let mut present: HashSet<ApiId> = offered.iter().cloned().collect();
    let mut queue: Vec<ApiId> = offered.to_vec();
    let mut i = 0;
    while let Some(api) = queue.get(i).cloned() {
        i += 1;
        let Some(api_needs) = needs.get(&api) else {
            continue;
        };
        for need in api_needs {
            let others = || need.producers.iter().filter(|p| p.api != api);
            let has_lookup = others().any(|p| p.lookup && present.contains(&p.api));
            let runs = others().any(|p| {
                present.contains(&p.api) && grounded(&p.api, needs, &present, GROUNDING_DEPTH)
            });
            if has_lookup && runs {
                continue;
            }
            let mut candidates: Vec<&Producer> = others()
                .filter(|p| !present.contains(&p.api) && allowed(&p.api))
                .filter(|p| has_lookup || p.lookup)
                .collect();
            if candidates.is_empty() && !runs {
                candidates = others()
                    .filter(|p| !present.contains(&p.api) && allowed(&p.api))
                    .collect();
            }
            let can_run = |p: &Producer| grounded(&p.api, needs, &present, GROUNDING_DEPTH);
            candidates.sort_by(|a, b| {
                let ra = rank.get(&a.api).copied().unwrap_or(usize::MAX);
                let rb = rank.get(&b.api).copied().unwrap_or(usize::MAX);
                can_run(b)
                    .cmp(&can_run(a))
                    .then(ra.cmp(&rb))
                    .then(b.strength.total_cmp(&a.strength))
                    .then(a.api.cmp(&b.api))
            });
            for producer in candidates.into_iter().take(settings.per_need.max(1)) {
                if added.len() >= settings.budget {
                    return added;
                }
                present.insert(producer.api.clone());
                queue.push(producer.api.clone());
                added.push(Added {
                    api: producer.api.clone(),
                    feeds: api.clone(),
                    param: need.param.clone(),
                });
            }
        }
    }
    added
}

/// A retriever whose result lists carry the producers their APIs need: the inner
/// retriever's `k` best, then up to `budget` producers ([`expand`]), so a search may return
/// more than `k` hits.
pub struct ExpandingRetriever {
    inner: Arc<dyn Retriever>,
    needs: Arc<BTreeMap<ApiId, Vec<Need>>>,
    docs: HashMap<ApiId, Hit>,
    settings: ExpandSettings,
}

impl ExpandingRetriever {
    /// Expands `inner`'s results over `corpus` with the producers of `needs`
    /// (`toolsmith_graph::Graph::needs`).
    pub fn new(
        inner: Arc<dyn Retriever>,
        corpus: &Corpus,
        needs: BTreeMap<ApiId, Vec<Need>>,
        settings: ExpandSettings,
    ) -> Self {
        let docs = corpus
            .docs()
            .iter()
            .map(|d| {
                (
                    d.api.clone(),
                    Hit {
                        api: d.api.clone(),
                        tool: d.tool.clone(),
                        score: 0.0,
                        text: d.summary(),
                    },
                )
            })
            .collect();
        Self {
            inner,
            needs: Arc::new(needs),
            docs,
            settings,
        }
    }

    /// The `k` best hits and the producers added to them, with why each was added.
    pub async fn search_expanded(
        &self,
        query: &str,
        k: usize,
        filter: &Filter,
    ) -> Result<(Vec<Hit>, Vec<Added>)> {
        let pool = self
            .inner
            .search(query, k.max(self.settings.pool), filter)
            .await?;
        let rank: HashMap<ApiId, usize> = pool
            .iter()
            .enumerate()
            .map(|(i, h)| (h.api.clone(), i))
            .collect();
        let mut hits: Vec<Hit> = pool.iter().take(k).cloned().collect();
        let offered: Vec<ApiId> = hits.iter().map(|h| h.api.clone()).collect();
        let unfiltered = filter == &Filter::default();
        let allowed = |api: &ApiId| unfiltered || rank.contains_key(api);
        let added = expand(&offered, &rank, &self.needs, &self.settings, &allowed);
        for a in &added {
            let hit = rank
                .get(&a.api)
                .and_then(|&i| pool.get(i))
                .or_else(|| self.docs.get(&a.api))
                .cloned();
            if let Some(hit) = hit {
                hits.push(hit);
            }
        }
        Ok((hits, added))
    }
}

#[async_trait]
impl Retriever for ExpandingRetriever {
    async fn search(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        Ok(self.search_expanded(query, k, filter).await?.0)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn id(s: &str) -> ApiId {
        format!("t/{s}").parse().unwrap()
    }

    fn needs() -> BTreeMap<ApiId, Vec<Need>> {
        let need = |param: &str, producers: &[(&str, f32)]| Need {
            param: param.into(),
            producers: producers
                .iter()
                .map(|(p, s)| Producer {
                    api: id(p),
                    strength: *s,
                    lookup: p.starts_with("search"),
                })
                .collect(),
        };
        BTreeMap::from([
            (
                id("credits"),
                vec![need(
                    "movie_id",
                    &[("search_movie", 1.0), ("popular", 1.0), ("similar", 0.5)],
                )],
            ),
            (
                id("similar"),
                vec![need("movie_id", &[("search_movie", 1.0)])],
            ),
            (
                id("person"),
                vec![need(
                    "person_id",
                    &[("search_person", 1.0), ("credits", 0.7)],
                )],
            ),
        ])
    }

    #[test]
    fn adds_the_best_ranked_self_sufficient_producer_and_closes_chains() {
        let rank = HashMap::from([
            (id("person"), 0),
            (id("similar"), 3),
            (id("search_movie"), 7),
        ]);
        let all = |_: &ApiId| true;
        // `person` needs person_id; credits (rank unknown) needs movie_id in turn.
        let added = expand(
            &[id("person")],
            &rank,
            &needs(),
            &ExpandSettings::DEFAULT,
            &all,
        );
        assert_eq!(
            added[0].api,
            id("search_person"),
            "self-sufficient producer first"
        );
        assert_eq!(added.len(), 1);
        // `credits` needs movie_id: `similar` ranks higher, but is no lookup and needs
        // movie_id itself.
        let added = expand(
            &[id("credits")],
            &rank,
            &needs(),
            &ExpandSettings::DEFAULT,
            &all,
        );
        assert_eq!(
            added,
            vec![Added {
                api: id("search_movie"),
                feeds: id("credits"),
                param: "movie_id".into()
            }]
        );
        // Already produced: nothing to add.
        let added = expand(
            &[id("credits"), id("search_movie")],
            &rank,
            &needs(),
            &ExpandSettings::DEFAULT,
            &all,
        );
        assert!(added.is_empty());
        // A list producer runs but cannot look up the name the user gives: add the search.
        let added = expand(
            &[id("credits"), id("popular")],
            &rank,
            &needs(),
            &ExpandSettings::DEFAULT,
            &all,
        );
        assert_eq!(
            added.iter().map(|a| &a.api).collect::<Vec<_>>(),
            [&id("search_movie")]
        );
    }

    #[test]
    fn respects_the_budget_and_the_switch() {
        let rank = HashMap::new();
        let all = |_: &ApiId| true;
        let offered = [id("credits"), id("person")];
        let one = ExpandSettings {
            budget: 1,
            ..ExpandSettings::DEFAULT
        };
        assert_eq!(expand(&offered, &rank, &needs(), &one, &all).len(), 1);
        assert_eq!(
            expand(&offered, &rank, &needs(), &ExpandSettings::DEFAULT, &all).len(),
            2
        );
        assert!(expand(&offered, &rank, &needs(), &ExpandSettings::OFF, &all).is_empty());
        let none = |_: &ApiId| false;
        assert!(expand(&offered, &rank, &needs(), &ExpandSettings::DEFAULT, &none).is_empty());
    }
}
