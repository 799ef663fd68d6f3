//! The category -> tool -> API tree AnyTool's agents walk, built from a catalog view, and
//! the search relevance that orders its listings in search-assisted mode.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use toolsmith_catalog::{ApiEntry, ApiId, Catalog, ToolId};
use toolsmith_retrieve::{ExpandingRetriever, Filter, Hit, Link, Retriever};

/// What a tool's category is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CategoryBy {
    /// The catalog's `Tool.category` (ToolBench's RapidAPI categories; the importer's for OpenAPI).
    #[default]
    Category,
    /// The first segment of the tool's API paths (`/movie/{id}` -> `movie`), for OpenAPI
    /// imports filed under one category; tools without HTTP paths keep their category.
    PathPrefix,
}

/// One tool of the tree.
#[derive(Clone, Debug)]
pub struct ToolNode {
    /// The tool.
    pub id: ToolId,
    /// Its source name.
    pub name: String,
    /// Its category in the tree.
    pub category: String,
    /// Its doc's description, or "".
    pub description: String,
    /// Its APIs in source order.
    pub apis: Vec<ApiEntry>,
}

/// The tree: categories (sorted by name), their tools, their APIs.
#[derive(Clone, Debug, Default)]
pub struct Hierarchy {
    categories: BTreeMap<String, Vec<ToolId>>,
    /// In id order, so a name several tools share resolves the same way on every run.
    tools: BTreeMap<ToolId, ToolNode>,
}

impl Hierarchy {
    /// The tree of a catalog view.
    pub fn from_catalog(catalog: &Catalog, by: CategoryBy) -> Self {
        let mut tree = Self::default();
        for entry in &catalog.tools {
            let category = match by {
                CategoryBy::Category => entry.tool.category.clone(),
                CategoryBy::PathPrefix => entry
                    .apis
                    .iter()
                    .find_map(|a| a.api.endpoint.path())
                    .and_then(|p| p.split('/').find(|s| !s.is_empty() && !s.starts_with('{')))
                    .map_or_else(|| entry.tool.category.clone(), str::to_owned),
            };
            let category = if category.trim().is_empty() {
                "uncategorized".to_owned()
            } else {
                category
            };
            tree.categories
                .entry(category.clone())
                .or_default()
                .push(entry.tool.id.clone());
            tree.tools.insert(
                entry.tool.id.clone(),
                ToolNode {
                    id: entry.tool.id.clone(),
                    name: entry.tool.name.clone(),
                    category,
                    description: entry
                        .doc
                        .as_ref()
                        .map_or_else(String::new, |d| d.doc.description.clone()),
                    apis: entry.apis.clone(),
                },
            );
        }
        tree
    }

    /// Categories in name order with their tools.
    pub fn categories(&self) -> impl Iterator<Item = (&str, &[ToolId])> {
        self.categories
            .iter()
            .map(|(name, tools)| (name.as_str(), tools.as_slice()))
    }

    /// The tools of a category (its name matched case-insensitively).
    pub fn category(&self, name: &str) -> Option<(&str, &[ToolId])> {
        self.categories()
            .find(|(c, _)| c.eq_ignore_ascii_case(name.trim()))
    }

    /// A tool by id.
    pub fn tool(&self, id: &ToolId) -> Option<&ToolNode> {
        self.tools.get(id)
    }

    /// A tool by id or source name, as an agent wrote it. A source name several tools share
    /// (ToolEnv2404 has e.g. two "Temp Mail" tools in different categories) resolves to the
    /// first of them in id order, the same one on every run.
    pub fn find_tool(&self, name: &str) -> Option<&ToolNode> {
        let name = name.trim();
        name.parse::<ToolId>()
            .ok()
            .and_then(|id| self.tools.get(&id))
            .or_else(|| {
                self.tools
                    .values()
                    .find(|t| t.name.eq_ignore_ascii_case(name))
            })
    }

    /// Every tool whose source name is `name` (case-insensitively), in id order.
    pub fn tools_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a ToolNode> + 'a {
        let name = name.trim();
        self.tools
            .values()
            .filter(move |t| t.name.eq_ignore_ascii_case(name))
    }

    /// An API and its tool.
    pub fn api(&self, id: &ApiId) -> Option<(&ToolNode, &ApiEntry)> {
        let tool = self.tools.get(id.tool())?;
        tool.apis
            .iter()
            .find(|a| &a.api.id == id)
            .map(|a| (tool, a))
    }

    /// Number of tools.
    pub fn tool_count(&self) -> usize {
        self.tools.len()
    }
}

/// How relevant each tool and category is to one query (search-assisted mode): a tool scores
/// its best API hit, a category its best tool. With a tool graph, a tool that produces the ids
/// a found tool needs scores as high as that tool, and listings name it.
#[derive(Clone, Debug, Default)]
pub struct Relevance {
    tools: HashMap<ToolId, f32>,
    categories: HashMap<String, f32>,
    /// Per tool, the other tools that produce ids its APIs need, in the order expansion added.
    producers: BTreeMap<ToolId, Vec<ToolId>>,
    /// Per API, the APIs expansion added as producers of the ids it needs.
    api_producers: BTreeMap<ApiId, Vec<ApiId>>,
}

impl Relevance {
    /// Scores from the top `depth` hits of `retriever` for `query`.
    pub async fn search(
        retriever: &dyn Retriever,
        hierarchy: &Hierarchy,
        query: &str,
        depth: usize,
    ) -> toolsmith_retrieve::Result<Self> {
        let hits = retriever.search(query, depth, &Filter::default()).await?;
        Ok(Self::from_hits(hierarchy, hits))
    }

    /// Scores from the top `depth` hits of `expander` for `query`, with the dependency
    /// producers it adds scored as the tools they feed.
    pub async fn search_expanded(
        expander: &ExpandingRetriever,
        hierarchy: &Hierarchy,
        query: &str,
        depth: usize,
    ) -> toolsmith_retrieve::Result<Self> {
        let (hits, added) = expander
            .search_expanded(query, depth, &Filter::default())
            .await?;
        let mut relevance = Self::from_hits(hierarchy, hits);
        for a in added {
            if a.link == Link::Producer {
                relevance.add_api_producer(&a.feeds, &a.api);
            }
            let (producer, consumer) = (a.api.tool().clone(), a.feeds.tool().clone());
            if producer == consumer {
                continue;
            }
            if let Some(score) = relevance.tool(&consumer) {
                relevance.lift(hierarchy, &producer, score);
            }
            let feeds = relevance.producers.entry(consumer).or_default();
            if !feeds.contains(&producer) {
                feeds.push(producer);
            }
        }
        Ok(relevance)
    }

    /// Records that `producer` makes an id `consumer` needs.
    pub(crate) fn add_api_producer(&mut self, consumer: &ApiId, producer: &ApiId) {
        let feeds = self.api_producers.entry(consumer.clone()).or_default();
        if !feeds.contains(producer) {
            feeds.push(producer.clone());
        }
    }

    /// Per API, the APIs expansion found producing the ids it needs.
    pub(crate) fn api_producer_links(&self) -> BTreeMap<ApiId, Vec<ApiId>> {
        self.api_producers.clone()
    }

    fn lift(&mut self, hierarchy: &Hierarchy, tool: &ToolId, score: f32) {
        let best = self.tools.entry(tool.clone()).or_insert(f32::MIN);
        *best = best.max(score);
        if let Some(node) = hierarchy.tool(tool) {
            let best = self
                .categories
                .entry(node.category.clone())
                .or_insert(f32::MIN);
            *best = best.max(score);
        }
    }

    fn from_hits(hierarchy: &Hierarchy, hits: Vec<Hit>) -> Self {
        let mut relevance = Self::default();
        for hit in hits {
            let best = relevance.tools.entry(hit.tool.clone()).or_insert(f32::MIN);
            *best = best.max(hit.score);
            if let Some(tool) = hierarchy.tool(&hit.tool) {
                let best = relevance
                    .categories
                    .entry(tool.category.clone())
                    .or_insert(f32::MIN);
                *best = best.max(hit.score);
            }
        }
        relevance
    }

    /// The producers of the ids `listed` tools need that `listed` lacks, each with the tool it
    /// feeds (first listed first).
    pub fn producers_of(&self, listed: &[ToolId]) -> Vec<(ToolId, ToolId)> {
        let mut out: Vec<(ToolId, ToolId)> = Vec::new();
        for consumer in listed {
            for producer in self.producers.get(consumer).into_iter().flatten() {
                if !listed.contains(producer) && !out.iter().any(|(p, _)| p == producer) {
                    out.push((producer.clone(), consumer.clone()));
                }
            }
        }
        out
    }

    /// Scores given directly (tests, other rankers).
    pub fn from_scores(
        hierarchy: &Hierarchy,
        tools: impl IntoIterator<Item = (ToolId, f32)>,
    ) -> Self {
        let mut relevance = Self::default();
        for (id, score) in tools {
            if let Some(tool) = hierarchy.tool(&id) {
                let best = relevance
                    .categories
                    .entry(tool.category.clone())
                    .or_insert(f32::MIN);
                *best = best.max(score);
            }
            relevance.tools.insert(id, score);
        }
        relevance
    }

    /// A tool's score, when the search found it.
    pub fn tool(&self, id: &ToolId) -> Option<f32> {
        self.tools.get(id).copied()
    }

    /// A category's score, when the search found one of its tools.
    pub fn category(&self, name: &str) -> Option<f32> {
        self.categories.get(name).copied()
    }
}

/// Orders `items` by score (found ones first, best first; stable otherwise) and keeps the
/// first `cut` of them; without relevance, returns them unchanged.
pub(crate) fn rank<T: Clone>(
    items: &[T],
    relevance: Option<&Relevance>,
    score: impl Fn(&Relevance, &T) -> Option<f32>,
    cut: usize,
) -> Vec<T> {
    let Some(relevance) = relevance else {
        return items.to_vec();
    };
    let mut scored: Vec<(usize, Option<f32>)> = items
        .iter()
        .enumerate()
        .map(|(i, item)| (i, score(relevance, item)))
        .collect();
    scored.sort_by(|a, b| match (a.1, b.1) {
        (Some(x), Some(y)) => y.total_cmp(&x).then(a.0.cmp(&b.0)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.0.cmp(&b.0),
    });
    scored
        .into_iter()
        .take(cut)
        .filter_map(|(i, _)| items.get(i).cloned())
        .collect()
}
