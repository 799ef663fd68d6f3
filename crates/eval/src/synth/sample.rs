//! Path sampling: which APIs each synthesized request needs. Deterministic for a seed.
//!
//! - single-API paths;
//! - chains of two or three APIs along the tool graph's dependency edges (the producer first);
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleSizes {
    /// Single-API paths.
    pub single: usize,
    /// Dependency chains (two or three APIs).
    pub chains: usize,
    /// Paths of each ToolBench combination (I1, I2 and I3 each).
    pub combos: usize,
    /// The seed every draw derives from.
    pub seed: u64,
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
    let mut out: Vec<GoldPath> = all
        .into_iter()
        .take(sizes.single)
        .map(|api| GoldPath {
            kind: PathKind::Single,
            apis: vec![api],
        })
        .collect();
    let mut chains = chains(producers);
    chains.shuffle(&mut rng);
    out.extend(chains.into_iter().take(sizes.chains).map(|apis| GoldPath {
        kind: PathKind::Chain,
        apis,
    }));
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
