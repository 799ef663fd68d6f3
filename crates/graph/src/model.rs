//! The graph's data: nodes (an API and its insight), edges (similarity or dependency) with
//! their weight, strength and evidence, and the views the other stages read (statistics,
//! the producers each API needs, JSON and Graphviz exports).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;

use crate::error::Error;

/// The two relations ToolExpNet models (paper §2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeKind {
    /// The two APIs' docs are close (embedding cosine at least Φ): easily confused.
    /// Undirected; stored once with `from < to`.
    Similarity,
    /// An output of `from` can feed an input of `to`: call `from` first.
    Dependency,
}

impl EdgeKind {
    /// Both kinds.
    pub const ALL: [Self; 2] = [Self::Similarity, Self::Dependency];

    /// The kind's name in the store and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Similarity => "similarity",
            Self::Dependency => "dependency",
        }
    }
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EdgeKind {
    type Err = Error;
    fn from_str(raw: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str() == raw.trim())
            .ok_or_else(|| Error::Invalid {
                what: "edge kind".into(),
                why: format!("`{raw}` is not similarity or dependency"),
            })
    }
}

/// Which rule found that an output field feeds a parameter, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The output field has the parameter's own name (`seasons[].season_number` ->
    /// `season_number`, `results[].movie_id` -> `movie_id`).
    SameName,
    /// An `id` in the results of an API whose path names the entity
    /// (`results[].id` of `/search/movie` -> `movie_id`).
    PathEntity,
    /// An `id` inside a container named after the entity (`genres[].id` -> `genre_id`,
    /// `production_companies[].id` -> `company_id`).
    ContainerEntity,
    /// An `id` whose example values include the id the consumer's own example answers about
    /// (`cast[].id` of movie credits holds 287, the person `/person/{person_id}` shows).
    ExampleValue,
    /// A container whose entity another API's example values settled (`cast` -> person).
    ContainerLearned,
    /// A list nested in an API about one entity, with no other entity named: the same
    /// entity (`results[].id` of `/movie/{movie_id}/similar` -> `movie_id`).
    SameEntityList,
    /// No response schema or example: the API's name or description says it searches, lists
    /// or gets the entity (`Search Videos` -> `video_id`), so its results plausibly carry
    /// the entity's id. Weaker than every schema rule.
    NamedEntity,
    /// No response schema or example, and the consumer's parameter is a bare `id` (or named
    /// after the entity itself): the producer lists or searches what the consumer's name
    /// says it is about (`Get Messages` -> `id` of `View message`). The weakest rule.
    NamedList,
}

impl Rule {
    /// How much this rule alone says, in (0, 1]: the strength of the evidence it gives.
    pub fn strength(self) -> f32 {
        match self {
            Self::SameName => 0.9,
            Self::PathEntity => 1.0,
            Self::ContainerEntity => 0.8,
            Self::ExampleValue => 0.7,
            Self::ContainerLearned => 0.6,
            Self::SameEntityList => 0.5,
            Self::NamedEntity => 0.4,
            Self::NamedList => 0.3,
        }
    }
}

/// One field of `from`'s response that feeds one parameter of `to`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Feed {
    /// The output field, as a path (`results[].id`, `person.id`).
    pub field: String,
    /// The consumer's parameter (`movie_id`).
    pub param: String,
    /// The rule that matched them.
    pub rule: Rule,
}

/// Why an edge exists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Evidence {
    /// The cosine of the two docs' embeddings.
    Similarity {
        /// Cosine similarity, in [-1, 1].
        cosine: f32,
    },
    /// The fields of `from` that feed parameters of `to`.
    Dependency {
        /// Every field-parameter match, strongest rule first.
        feeds: Vec<Feed>,
    },
}

/// An edge of the graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// Similarity or dependency.
    pub kind: EdgeKind,
    /// The producer (dependency) or the smaller id (similarity).
    pub from: ApiId,
    /// The consumer (dependency) or the larger id (similarity).
    pub to: ApiId,
    /// The trial-and-error sampling weight: 1 at first (paper §3.1), then the error rate
    /// of the edge's experiments.
    pub weight: f32,
    /// How strong the evidence is, in [0, 1]: the cosine, or the best rule's strength.
    pub strength: f32,
    /// Why the edge exists.
    pub evidence: Evidence,
}

impl Edge {
    /// The parameters of `to` this edge feeds (dependency edges; empty otherwise).
    pub fn params(&self) -> impl Iterator<Item = &str> {
        let feeds: &[Feed] = match &self.evidence {
            Evidence::Dependency { feeds } => feeds,
            Evidence::Similarity { .. } => &[],
        };
        feeds.iter().map(|f| f.param.as_str())
    }

    /// Whether `api` is one of its ends.
    pub fn touches(&self, api: &ApiId) -> bool {
        &self.from == api || &self.to == api
    }
}

/// A node: an API and its functional insight (its doc at first, refined later).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// The API.
    pub api: ApiId,
    /// What a model should know about using it; initialized from the API's doc.
    pub insight: String,
    /// Its required free-text inputs (`query`, [`toolsmith_catalog::Api::lookup_inputs`]): an
    /// API with some turns the user's own words into results (a lookup, such as a search), so
    /// it can start a chain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lookup: Vec<String>,
}

/// ToolExpNet's graph over a set of APIs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    /// The nodes, in catalog order.
    pub nodes: Vec<Node>,
    /// The edges, similarity first, each kind in (from, to) order.
    pub edges: Vec<Edge>,
}

/// Counts of a graph, as `graph stats` prints them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GraphStats {
    /// Nodes.
    pub nodes: usize,
    /// All edges.
    pub edges: usize,
    /// Similarity edges.
    pub similarity: usize,
    /// Dependency edges.
    pub dependency: usize,
    /// Mean number of edges touching a node (each edge counts at both ends).
    pub mean_degree: f64,
    /// Nodes no edge touches.
    pub isolated: usize,
}

/// Dependency edges against gold tool paths (a benchmark's solutions, each a list of APIs in
/// call order): how many of the paths' consecutive pairs are edges, and how many edges the
/// paths use. Pairs are distinct and skip repeats (`A, A`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GoldPairs {
    /// Gold paths read.
    pub paths: usize,
    /// Distinct consecutive pairs (A then B, A != B).
    pub pairs: usize,
    /// Of those, dependency edges A -> B.
    pub pairs_linked: usize,
    /// Of those, linked only the other way (an edge B -> A).
    pub pairs_reversed: usize,
    /// `pairs_linked / pairs`.
    pub recall: f64,
    /// Dependency edges.
    pub edges: usize,
    /// Of those, a consecutive pair of some path.
    pub edges_consecutive: usize,
    /// `edges_consecutive / edges`.
    pub precision_consecutive: f64,
    /// Of those, an ordered pair within one path (A anywhere before B).
    pub edges_ordered: usize,
    /// `edges_ordered / edges`.
    pub precision_ordered: f64,
}

/// The producers of one parameter an API needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Need {
    /// The parameter.
    pub param: String,
    /// The APIs whose output feeds it, strongest evidence first.
    pub producers: Vec<Producer>,
}

/// One producer of a [`Need`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Producer {
    /// The producing API.
    pub api: ApiId,
    /// The dependency edge's strength.
    pub strength: f32,
    /// Whether it is a lookup (takes free text, [`Node::lookup`]): it can turn a name the
    /// user gives into the id.
    pub lookup: bool,
}

impl Graph {
    /// Sorts edges into their canonical order (kind, from, to).
    pub fn sort(&mut self) {
        self.edges
            .sort_by(|a, b| (a.kind, &a.from, &a.to).cmp(&(b.kind, &b.from, &b.to)));
    }

    /// The edges of one kind.
    pub fn edges_of_kind(&self, kind: EdgeKind) -> impl Iterator<Item = &Edge> {
        self.edges.iter().filter(move |e| e.kind == kind)
    }

    /// The edges touching `api`.
    pub fn edges_of(&self, api: &ApiId) -> impl Iterator<Item = &Edge> {
        self.edges.iter().filter(move |e| e.touches(api))
    }

    /// The node of `api`.
    pub fn node(&self, api: &ApiId) -> Option<&Node> {
        self.nodes.iter().find(|n| &n.api == api)
    }

    /// Node and edge counts.
    pub fn stats(&self) -> GraphStats {
        let mut touched: BTreeSet<&ApiId> = BTreeSet::new();
        for e in &self.edges {
            touched.insert(&e.from);
            touched.insert(&e.to);
        }
        let nodes = self.nodes.len();
        let isolated = self
            .nodes
            .iter()
            .filter(|n| !touched.contains(&n.api))
            .count();
        GraphStats {
            nodes,
            edges: self.edges.len(),
            similarity: self.edges_of_kind(EdgeKind::Similarity).count(),
            dependency: self.edges_of_kind(EdgeKind::Dependency).count(),
            mean_degree: if nodes == 0 {
                0.0
            } else {
                2.0 * self.edges.len() as f64 / nodes as f64
            },
            isolated,
        }
    }

    /// This graph's dependency edges against gold `paths` ([`GoldPairs`]).
    pub fn gold_pairs(&self, paths: &[Vec<ApiId>]) -> GoldPairs {
        let edges: BTreeSet<(&ApiId, &ApiId)> = self
            .edges_of_kind(EdgeKind::Dependency)
            .map(|e| (&e.from, &e.to))
            .collect();
        let mut consecutive: BTreeSet<(&ApiId, &ApiId)> = BTreeSet::new();
        let mut ordered: BTreeSet<(&ApiId, &ApiId)> = BTreeSet::new();
        for path in paths {
            for w in path.windows(2) {
                if let [a, b] = w
                    && a != b
                {
                    consecutive.insert((a, b));
                }
            }
            for (i, a) in path.iter().enumerate() {
                for b in path.iter().skip(i + 1).filter(|b| *b != a) {
                    ordered.insert((a, b));
                }
            }
        }
        let ratio = |n: usize, d: usize| if d == 0 { 0.0 } else { n as f64 / d as f64 };
        let linked = consecutive.iter().filter(|p| edges.contains(*p)).count();
        let reversed = consecutive
            .iter()
            .filter(|(a, b)| !edges.contains(&(*a, *b)) && edges.contains(&(*b, *a)))
            .count();
        let on_consecutive = edges.iter().filter(|e| consecutive.contains(*e)).count();
        let on_ordered = edges.iter().filter(|e| ordered.contains(*e)).count();
        GoldPairs {
            paths: paths.len(),
            pairs: consecutive.len(),
            pairs_linked: linked,
            pairs_reversed: reversed,
            recall: ratio(linked, consecutive.len()),
            edges: edges.len(),
            edges_consecutive: on_consecutive,
            precision_consecutive: ratio(on_consecutive, edges.len()),
            edges_ordered: on_ordered,
            precision_ordered: ratio(on_ordered, edges.len()),
        }
    }

    /// For every API some dependency edge feeds, the parameters it needs and their
    /// producers, strongest first: what dependency-aware retrieval reads.
    pub fn needs(&self) -> BTreeMap<ApiId, Vec<Need>> {
        let lookups: BTreeSet<&ApiId> = self
            .nodes
            .iter()
            .filter(|n| !n.lookup.is_empty())
            .map(|n| &n.api)
            .collect();
        let mut by_param: BTreeMap<ApiId, BTreeMap<String, Vec<Producer>>> = BTreeMap::new();
        for e in self.edges_of_kind(EdgeKind::Dependency) {
            let params: BTreeSet<&str> = e.params().collect();
            for p in params {
                by_param
                    .entry(e.to.clone())
                    .or_default()
                    .entry(p.to_owned())
                    .or_default()
                    .push(Producer {
                        api: e.from.clone(),
                        strength: e.strength,
                        lookup: lookups.contains(&e.from),
                    });
            }
        }
        by_param
            .into_iter()
            .map(|(api, params)| {
                let needs = params
                    .into_iter()
                    .map(|(param, mut producers)| {
                        producers.sort_by(|a, b| {
                            b.strength.total_cmp(&a.strength).then(a.api.cmp(&b.api))
                        });
                        Need { param, producers }
                    })
                    .collect();
                (api, needs)
            })
            .collect()
    }

    /// The graph in Graphviz's DOT language: similarity edges undirected and dashed,
    /// dependency edges as arrows labelled with the parameters they feed.
    pub fn to_dot(&self) -> String {
        let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
        let mut out = String::from("digraph toolexpnet {\n  node [shape=box];\n");
        for n in &self.nodes {
            out.push_str(&format!("  {};\n", quote(&n.api.to_string())));
        }
        for e in &self.edges {
            let (from, to) = (quote(&e.from.to_string()), quote(&e.to.to_string()));
            match e.kind {
                EdgeKind::Similarity => out.push_str(&format!(
                    "  {from} -> {to} [dir=none, style=dashed, label=\"{:.2}\"];\n",
                    e.strength
                )),
                EdgeKind::Dependency => {
                    let params: BTreeSet<&str> = e.params().collect();
                    let label = params.into_iter().collect::<Vec<_>>().join(",");
                    out.push_str(&format!(
                        "  {from} -> {to} [label={}];\n",
                        quote(&format!("{label} ({:.2})", e.strength))
                    ));
                }
            }
        }
        out.push_str("}\n");
        out
    }
}
