//! Dependency-aware retrieval: after ranking, offer the APIs the dependency edges of
//! ToolExpNet's graph (`toolsmith-graph`) link to the retrieved ones, within a budget of extra
//! tools.
//!
//! A query like "recommend movies like Titanic" ranks `/movie/{movie_id}/recommendations`
//! high but not `/search/movie`, which produces the `movie_id` it needs; and "who played in
//! Friends" ranks `/search/tv` high but `/tv/{tv_id}/credits` below several movie APIs. Two
//! passes ([`Expander::offer`]), selectable by [`ExpandMode`]:
//! - **producers** ([`expand`]): for each offered API (in rank order, added ones included, so
//!   chains close), each parameter it needs that no offered API produces gets its best
//!   producer: the one ranked highest for the query in a deeper search, preferring producers
//!   whose own needs are already met, then the stronger evidence;
//! - **neighbours** (after the producers): the remaining slots go to the APIs of the query's
//!   ranking, read `depth` deep, that a dependency edge links to an offered API in either
//!   direction (a consumer of an offered producer, or a producer of an offered consumer),
//!   best-ranked first; `swap` slots of the plain top-k can be handed to this pass.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;
use toolsmith_graph::{Need, Producer};

use crate::corpus::Corpus;
use crate::error::Result;
use crate::explain::{Added, ExpandedExplanation, Explanation, Link};
use crate::retriever::{Filter, Hit, Retriever};

/// Which APIs expansion adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExpandMode {
    /// Only the producers of the ids offered APIs need ([`expand`]).
    #[default]
    Producers,
    /// The producers, then the APIs linked to offered ones by a dependency edge in either
    /// direction, best chain score first, until the budget is spent.
    Neighbours,
}

/// How dependency expansion runs. `Default` is the measured choice (see the crate docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExpandSettings {
    /// Whether to expand at all (it also needs a graph with dependency edges). By default on.
    pub enabled: bool,
    /// What to add. By default [`ExpandMode::Producers`] (neighbours gained at most one
    /// point of coverage at equal tools offered on TMDB, none on Spotify: see the crate docs).
    pub mode: ExpandMode,
    /// At most this many tools added to one result list (besides the `swap` slots). By
    /// default 4 (producers rarely use it all; neighbours always do: 2 is its measured value).
    pub budget: usize,
    /// Producers added per unmet need. By default 1.
    pub per_need: usize,
    /// How deep the query's ranking is read to rank producers. By default 100.
    pub pool: usize,
    /// Neighbours mode: only APIs within this rank of the query's ranking are added as
    /// neighbours (producers may come from `pool`). By default 40.
    pub depth: usize,
    /// Neighbours mode: slots of the plain top-k handed to expansion (the top `k - swap`
    /// are kept; the rest go to producers, neighbours, then the next-ranked). By default 0.
    pub swap: usize,
    /// Neighbours mode: how much the rank of the offered API a candidate is linked to counts
    /// beside the candidate's own (a chain score, `1/(c + own rank) + w/(c + its link's
    /// rank)`, c = 10): 0 ranks candidates by their own rank alone. By default 1.
    pub anchor_weight: f32,
}

impl ExpandSettings {
    /// Measured on RestBench TMDB with the hybrid retriever (see the crate docs).
    pub const DEFAULT: Self = Self {
        enabled: true,
        mode: ExpandMode::Producers,
        budget: 4,
        per_need: 1,
        pool: 100,
        depth: 40,
        swap: 0,
        anchor_weight: 1.0,
    };

    /// The graph-aware mode at its measured budget: producers, then dependency neighbours,
    /// two tools added in all.
    pub const NEIGHBOURS: Self = Self {
        mode: ExpandMode::Neighbours,
        budget: 2,
        ..Self::DEFAULT
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

/// The rank constant of the neighbours' chain score (as in reciprocal rank fusion).
const CHAIN_C: f32 = 10.0;

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
                    link: Link::Producer,
                });
            }
        }
    }
    added
}

/// Per API, the APIs a dependency edge links it to, either direction: (the other API, the
/// parameter, how the other is linked to it).
type Links = HashMap<ApiId, Vec<(ApiId, String, Link)>>;

/// The result of [`Expander::offer`]: the plain top APIs kept, then the ones added.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Offer {
    /// How many of the ranking's top APIs are offered as they rank.
    pub kept: usize,
    /// The APIs added after them, in order, with why.
    pub added: Vec<Added>,
}

impl Offer {
    /// Every offered API: the kept top of `pool`, then the added ones.
    pub fn apis(&self, pool: &[ApiId]) -> Vec<ApiId> {
        pool.iter()
            .take(self.kept)
            .cloned()
            .chain(self.added.iter().map(|a| a.api.clone()))
            .collect()
    }
}

/// Dependency expansion over one graph's needs: what [`ExpandingRetriever`] and `bench
/// retrieval` run on a query's ranking.
#[derive(Clone, Debug)]
pub struct Expander {
    needs: Arc<BTreeMap<ApiId, Vec<Need>>>,
    links: Arc<Links>,
    settings: ExpandSettings,
}

impl Expander {
    /// An expander over `needs` (`toolsmith_graph::Graph::needs`).
    pub fn new(needs: BTreeMap<ApiId, Vec<Need>>, settings: ExpandSettings) -> Self {
        let mut links: Links = HashMap::new();
        for (consumer, api_needs) in &needs {
            for need in api_needs {
                for p in need.producers.iter().filter(|p| &p.api != consumer) {
                    links.entry(consumer.clone()).or_default().push((
                        p.api.clone(),
                        need.param.clone(),
                        Link::Producer,
                    ));
                    links.entry(p.api.clone()).or_default().push((
                        consumer.clone(),
                        need.param.clone(),
                        Link::Consumer,
                    ));
                }
            }
        }
        Self {
            needs: Arc::new(needs),
            links: Arc::new(links),
            settings,
        }
    }

    /// Its settings.
    pub fn settings(&self) -> &ExpandSettings {
        &self.settings
    }

    /// Whether the graph has any dependency to expand by.
    pub fn is_empty(&self) -> bool {
        self.needs.is_empty()
    }

    /// How deep a query's ranking should be read for [`Expander::offer`].
    pub fn pool_depth(&self, k: usize) -> usize {
        k.max(self.settings.pool).max(self.settings.depth)
    }

    /// What to offer for a query whose ranking (best first, at least
    /// [`Expander::pool_depth`] deep when the corpus allows) is `pool`, when `k` tools are
    /// asked for. `allowed` says which APIs may be added (the search's filter).
    pub fn offer(&self, pool: &[ApiId], k: usize, allowed: &dyn Fn(&ApiId) -> bool) -> Offer {
        let s = &self.settings;
        let top = k.min(pool.len());
        if !s.enabled {
            return Offer {
                kept: top,
                added: Vec::new(),
            };
        }
        let rank: HashMap<ApiId, usize> = pool
            .iter()
            .enumerate()
            .map(|(i, a)| (a.clone(), i))
            .collect();
        let kept = match s.mode {
            ExpandMode::Producers => top,
            ExpandMode::Neighbours => top.saturating_sub(s.swap).max(top.min(1)),
        };
        // Swapped slots come back to expansion; a short ranking has none to give.
        let budget = s.budget + (top - kept);
        let offered: Vec<ApiId> = pool.iter().take(kept).cloned().collect();
        let producers = ExpandSettings { budget, ..*s };
        let mut added = expand(&offered, &rank, &self.needs, &producers, allowed);
        if s.mode == ExpandMode::Producers {
            return Offer { kept, added };
        }
        let mut present: HashSet<ApiId> = offered.iter().cloned().collect();
        present.extend(added.iter().map(|a| a.api.clone()));
        let window = &pool[..s.depth.min(pool.len())];
        let score = |r: Option<&usize>| r.map_or(0.0, |&r| 1.0 / (CHAIN_C + r as f32));
        while added.len() < budget {
            // The API of the window with the best chain score, linked to an offered one.
            let mut best: Option<(f32, Added)> = None;
            for c in window {
                if present.contains(c) || !allowed(c) {
                    continue;
                }
                let Some(links) = self.links.get(c) else {
                    continue;
                };
                // Its best-ranked offered link: an offered producer makes `c` a consumer.
                let Some((other, param, how)) = links
                    .iter()
                    .filter(|(other, _, _)| present.contains(other))
                    .min_by_key(|(other, _, _)| rank.get(other).copied().unwrap_or(usize::MAX))
                else {
                    continue;
                };
                let chain = score(rank.get(c)) + s.anchor_weight * score(rank.get(other));
                if best.as_ref().is_none_or(|(b, _)| chain > *b) {
                    best = Some((
                        chain,
                        Added {
                            api: c.clone(),
                            feeds: other.clone(),
                            param: param.clone(),
                            link: match how {
                                Link::Producer => Link::Consumer,
                                _ => Link::Producer,
                            },
                        },
                    ));
                }
            }
            let Some((_, next)) = best else { break };
            present.insert(next.api.clone());
            added.push(next);
        }
        // Slots handed over and left unused go back to the ranking's next APIs.
        let floor = top.saturating_sub(kept);
        for api in pool.iter().skip(kept) {
            if added.len() >= floor {
                break;
            }
            if !present.contains(api) && allowed(api) {
                present.insert(api.clone());
                added.push(Added {
                    api: api.clone(),
                    feeds: api.clone(),
                    param: String::new(),
                    link: Link::Rank,
                });
            }
        }
        Offer { kept, added }
    }
}

/// A retriever whose result lists carry the APIs their dependency edges link them to: the
/// inner retriever's best (`k`, less any swapped slots), then the ones [`Expander::offer`]
/// adds, so a search may return more than `k` hits.
pub struct ExpandingRetriever {
    inner: Arc<dyn Retriever>,
    expander: Expander,
    docs: HashMap<ApiId, Hit>,
}

impl ExpandingRetriever {
    /// Expands `inner`'s results over `corpus` by the dependency edges behind `needs`
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
            expander: Expander::new(needs, settings),
            docs,
        }
    }

    /// The kept best hits and the APIs added to them, with why each was added.
    pub async fn search_expanded(
        &self,
        query: &str,
        k: usize,
        filter: &Filter,
    ) -> Result<(Vec<Hit>, Vec<Added>)> {
        let pool = self
            .inner
            .search(query, self.expander.pool_depth(k), filter)
            .await?;
        let ids: Vec<ApiId> = pool.iter().map(|h| h.api.clone()).collect();
        let rank: HashMap<&ApiId, usize> = ids.iter().enumerate().map(|(i, a)| (a, i)).collect();
        let unfiltered = filter == &Filter::default();
        let allowed = |api: &ApiId| unfiltered || rank.contains_key(api);
        let offer = self.expander.offer(&ids, k, &allowed);
        let mut hits: Vec<Hit> = pool.iter().take(offer.kept).cloned().collect();
        for a in &offer.added {
            let hit = rank
                .get(&a.api)
                .and_then(|&i| pool.get(i))
                .or_else(|| self.docs.get(&a.api))
                .cloned();
            if let Some(hit) = hit {
                hits.push(hit);
            }
        }
        Ok((hits, offer.added))
    }
}

#[async_trait]
impl Retriever for ExpandingRetriever {
    async fn search(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        Ok(self.search_expanded(query, k, filter).await?.0)
    }

    /// The inner ranking's explanation of each API (as read for the expansion's pool), and
    /// for an API expansion adds, the offered API it serves and the parameter it carries.
    async fn explain(
        &self,
        query: &str,
        apis: &[ApiId],
        k: usize,
        filter: &Filter,
    ) -> Result<Vec<Option<Explanation>>> {
        let (_, added) = self.search_expanded(query, k, filter).await?;
        let ranked = self
            .inner
            .explain(query, apis, self.expander.pool_depth(k), filter)
            .await?;
        Ok(apis
            .iter()
            .zip(ranked)
            .map(
                |(api, ranking)| match added.iter().find(|a| &a.api == api) {
                    Some(a) => Some(Explanation::Expanded(ExpandedExplanation {
                        added: a.clone(),
                        ranking: ranking.map(Box::new),
                    })),
                    None => ranking,
                },
            )
            .collect())
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
                param: "movie_id".into(),
                link: Link::Producer,
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
    fn neighbours_fill_the_budget_with_linked_apis_by_chain_score_and_swap_hands_over_slots() {
        // Ranking: person (needs person_id), then unrelated APIs, credits (feeds person) and
        // search_person deeper.
        let pool: Vec<ApiId> = ["person", "x1", "x2", "similar", "credits", "search_person"]
            .map(id)
            .to_vec();
        let expander = Expander::new(needs(), ExpandSettings::NEIGHBOURS);
        let all = |_: &ApiId| true;
        let offer = expander.offer(&pool, 1, &all);
        assert_eq!(offer.kept, 1);
        let added: Vec<(ApiId, Link)> = offer
            .added
            .iter()
            .map(|a| (a.api.clone(), a.link))
            .collect();
        // The producer of person_id first, then the linked API with the best chain score
        // (credits also feeds person; x1 and x2 rank higher but have no edge).
        assert_eq!(
            added,
            [
                (id("search_person"), Link::Producer),
                (id("credits"), Link::Producer)
            ]
        );
        assert_eq!(offer.apis(&pool).len(), 3);
        // Swap: the top 3 become the top 1 plus 2 expansion slots (+ the budget of 2).
        let swapped = Expander::new(
            needs(),
            ExpandSettings {
                swap: 2,
                ..ExpandSettings::NEIGHBOURS
            },
        )
        .offer(&pool, 3, &all);
        assert_eq!(swapped.kept, 1);
        // The chain closes (similar feeds credits); unlinked x1 and x2 are left out, since
        // the linked APIs fill more than the two swapped slots.
        assert_eq!(
            swapped.apis(&pool),
            ["person", "search_person", "credits", "similar"].map(id)
        );
        // Producers mode adds only what is needed.
        let producers = Expander::new(needs(), ExpandSettings::DEFAULT).offer(&pool, 1, &all);
        assert_eq!(producers.added.len(), 1);
        // Off: nothing.
        assert!(
            Expander::new(needs(), ExpandSettings::OFF)
                .offer(&pool, 1, &all)
                .added
                .is_empty()
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
