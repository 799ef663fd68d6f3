//! Path sampling: which APIs each synthesized request needs. Deterministic for a seed.
//!
//! - single-API paths;
//! - chains of two or three APIs along the tool graph's dependency edges (the producer first),
//!   two-step ones at [`SampleSizes::two_step_share`], and by default those that start from an
//!   API finding an entity by name (search, then what the user asks about it) first: real
//!   users name an entity (RestBench TMDB's human queries: path lengths 1: 6, 2: 65, 3: 27, 4:
//!   2, mostly search-then-detail);
//! - ToolBench's combinations where the catalog has several tools or categories: APIs of one
//!   tool (I1), of different tools in one category (I2), of tools in different categories (I3).

use std::collections::{BTreeMap, BTreeSet};

use rand::rngs::StdRng;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use toolsmith_catalog::{ApiId, Catalog};

use super::path::{GoldPath, PathKind};

/// How many paths of each kind to sample; fewer come back when the catalog has fewer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleSizes {
    /// Single-API paths.
    pub single: usize,
    /// Dependency chains (two or three APIs).
    pub chains: usize,
    /// Paths of each ToolBench combination (I1, I2 and I3 each).
    pub combos: usize,
    /// The seed every draw derives from.
    pub seed: u64,
    /// The share of chains with two APIs (the rest: three) where the graph has enough of
    /// both (0.7: RestBench TMDB's human queries, 65 of the 92 with two or three APIs).
    #[serde(default = "default_two_step_share")]
    pub two_step_share: f64,
    /// Which chains come first.
    #[serde(default)]
    pub chain_start: ChainStart,
}

/// The share of two-API chains in RestBench TMDB's human queries (65 of 92).
pub const DEFAULT_TWO_STEP_SHARE: f64 = 0.7;

fn default_two_step_share() -> f64 {
    DEFAULT_TWO_STEP_SHARE
}

/// Which chains sampling prefers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChainStart {
    /// Chains whose first API finds an entity by name (it needs no other API's output and
    /// takes a required text parameter that is not an id), then any others; and single-API
    /// paths on APIs no other API feeds first (RestBench's human single-API requests ask for
    /// lists such as the top rated films, never for a detail by a database id).
    #[default]
    EntityFirst,
    /// Any chain, at random.
    Any,
}

/// Producers looked at per consumer when enumerating chains: keeps a large catalog's
/// enumeration small, and the strongest producers come first.
const PRODUCERS_PER_API: usize = 4;

/// Samples the gold paths of a set over `catalog`. `producers` maps an API to the APIs whose
/// output feeds one of its required parameters, strongest first (the tool graph's
/// `Graph::needs` of toolsmith-graph, flattened). Paths are distinct.
pub fn sample_paths(
    catalog: &Catalog,
    producers: &BTreeMap<ApiId, Vec<ApiId>>,
    sizes: &SampleSizes,
) -> Vec<GoldPath> {
    let mut rng = StdRng::seed_from_u64(sizes.seed);
    let mut all: Vec<ApiId> = catalog.apis().map(|(_, a)| a.api.id.clone()).collect();
    all.shuffle(&mut rng);
    if sizes.chain_start == ChainStart::EntityFirst {
        // A request about one API names what the user knows; an API another one feeds needs an
        // id the user would first have to look up, so those come last.
        all.sort_by_key(|api| producers.get(api).is_some_and(|p| !p.is_empty()));
    }
    let mut out: Vec<GoldPath> = all
        .into_iter()
        .take(sizes.single)
        .map(|api| GoldPath {
            kind: PathKind::Single,
            apis: vec![api],
        })
        .collect();
    let finders = finders(catalog, producers);
    out.extend(
        pick_chains(chains(producers), &finders, sizes, &mut rng)
            .into_iter()
            .map(|apis| GoldPath {
                kind: PathKind::Chain,
                apis,
            }),
    );
    let groups = Groups::of(catalog);
    for kind in [
        PathKind::WithinTool,
        PathKind::WithinCategory,
        PathKind::CrossCategory,
    ] {
        out.extend(combos(&groups, kind, sizes.combos, &mut rng));
    }
    out
}

/// The APIs that find an entity by name: no other API feeds them, and one of their required
/// parameters is text other than an id (a query, a name).
fn finders(catalog: &Catalog, producers: &BTreeMap<ApiId, Vec<ApiId>>) -> BTreeSet<ApiId> {
    catalog
        .apis()
        .map(|(_, a)| a)
        .filter(|a| producers.get(&a.api.id).is_none_or(Vec::is_empty))
        .filter(|a| {
            a.api.params.iter().any(|p| {
                let name = p.name.to_lowercase();
                p.required
                    && p.schema.get("type").and_then(serde_json::Value::as_str) == Some("string")
                    && !(name == "id" || name.ends_with("_id") || name.ends_with("ids"))
            })
        })
        .map(|a| a.api.id.clone())
        .collect()
}

/// `sizes.chains` of `all`: two-step ones at `sizes.two_step_share` (filled from the other
/// length where one runs short), each length shuffled and, with
/// [`ChainStart::EntityFirst`], those starting at a finder first.
fn pick_chains(
    mut all: Vec<Vec<ApiId>>,
    finders: &BTreeSet<ApiId>,
    sizes: &SampleSizes,
    rng: &mut StdRng,
) -> Vec<Vec<ApiId>> {
    all.shuffle(rng);
    if sizes.chain_start == ChainStart::EntityFirst {
        // Stable: the shuffle still orders each group.
        all.sort_by_key(|c| c.first().is_none_or(|a| !finders.contains(a)));
    }
    let (two, three): (Vec<_>, Vec<_>) = all.into_iter().partition(|c| c.len() == 2);
    let share = sizes.two_step_share.clamp(0.0, 1.0);
    let want_two = ((sizes.chains as f64) * share).round() as usize;
    let n_two = want_two.min(two.len());
    let n_three = (sizes.chains - n_two.min(sizes.chains)).min(three.len());
    let n_two = (sizes.chains - n_three).min(two.len());
    two.into_iter()
        .take(n_two)
        .chain(three.into_iter().take(n_three))
        .collect()
}

/// Every chain of two or three distinct APIs, producer first, in a stable order.
fn chains(producers: &BTreeMap<ApiId, Vec<ApiId>>) -> Vec<Vec<ApiId>> {
    let mut out: BTreeSet<Vec<ApiId>> = BTreeSet::new();
    let of = |api: &ApiId| {
        producers
            .get(api)
            .map(|p| p.iter().take(PRODUCERS_PER_API).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    for consumer in producers.keys() {
        for p in of(consumer).into_iter().filter(|p| *p != consumer) {
            out.insert(vec![p.clone(), consumer.clone()]);
            for q in of(p).into_iter().filter(|q| *q != p && *q != consumer) {
                out.insert(vec![q.clone(), p.clone(), consumer.clone()]);
            }
        }
    }
    out.into_iter().collect()
}

/// The catalog's APIs by tool and tools by category.
struct Groups {
    /// Each tool's APIs (tools with at least one).
    tools: Vec<Vec<ApiId>>,
    /// Each category's tools (indexes into `tools`).
    categories: Vec<Vec<usize>>,
}

impl Groups {
    fn of(catalog: &Catalog) -> Self {
        let mut tools = Vec::new();
        let mut by_category: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for t in catalog.tools.iter().filter(|t| !t.apis.is_empty()) {
            by_category
                .entry(t.tool.category.as_str())
                .or_default()
                .push(tools.len());
            tools.push(t.apis.iter().map(|a| a.api.id.clone()).collect());
        }
        Self {
            tools,
            categories: by_category.into_values().collect(),
        }
    }
}

/// Up to `n` distinct paths of a combination `kind`, each of two or three APIs.
fn combos(groups: &Groups, kind: PathKind, n: usize, rng: &mut StdRng) -> Vec<GoldPath> {
    let mut seen: BTreeSet<BTreeSet<ApiId>> = BTreeSet::new();
    let mut out = Vec::new();
    // Bounded attempts: a small catalog has fewer distinct combinations than asked for.
    for _ in 0..n.saturating_mul(20) {
        if out.len() >= n {
            break;
        }
        let width = rng.random_range(2..=3);
        let Some(apis) = draw(groups, kind, width, rng) else {
            break;
        };
        if seen.insert(apis.iter().cloned().collect()) {
            out.push(GoldPath { kind, apis });
        }
    }
    out
}

/// One combination of `kind` with up to `width` APIs (at least two); `None` when the catalog
/// has none of this kind.
fn draw(groups: &Groups, kind: PathKind, width: usize, rng: &mut StdRng) -> Option<Vec<ApiId>> {
    let apis: Vec<ApiId> = match kind {
        PathKind::WithinTool => {
            let eligible: Vec<&Vec<ApiId>> = groups.tools.iter().filter(|t| t.len() >= 2).collect();
            let tool = eligible.choose(rng)?;
            tool.choose_multiple(rng, width).cloned().collect()
        }
        PathKind::WithinCategory => {
            let eligible: Vec<&Vec<usize>> =
                groups.categories.iter().filter(|c| c.len() >= 2).collect();
            let category = eligible.choose(rng)?;
            let tools: Vec<usize> = category.choose_multiple(rng, width).copied().collect();
            one_api_each(groups, &tools, rng)?
        }
        PathKind::CrossCategory => {
            if groups.categories.len() < 2 {
                return None;
            }
            let categories: Vec<&Vec<usize>> =
                groups.categories.choose_multiple(rng, width).collect();
            let tools: Vec<usize> = categories
                .iter()
                .filter_map(|c| c.choose(rng).copied())
                .collect();
            one_api_each(groups, &tools, rng)?
        }
        PathKind::Single | PathKind::Chain => return None,
    };
    (apis.len() >= 2).then_some(apis)
}

fn one_api_each(groups: &Groups, tools: &[usize], rng: &mut StdRng) -> Option<Vec<ApiId>> {
    tools
        .iter()
        .map(|t| {
            groups
                .tools
                .get(*t)
                .and_then(|apis| apis.choose(rng))
                .cloned()
        })
        .collect()
}
