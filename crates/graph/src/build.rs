//! A whole graph from a catalog view: nodes with their doc as first insight, similarity
//! edges from doc vectors, dependency edges from schemas and examples.

use toolsmith_catalog::{ApiId, Catalog};

use crate::dependency::dependency_edges;
use crate::model::{Graph, Node};
use crate::similarity::{GraphSettings, similarity_edges};

/// The graph of `catalog`: one node per API (its insight initialized from its doc, §2.2),
/// similarity edges when `vectors` (one per API, from [`crate::embed_docs`]) are given, and
/// dependency edges.
pub fn build_graph(
    catalog: &Catalog,
    vectors: Option<&[(ApiId, Vec<f32>)]>,
    settings: &GraphSettings,
) -> Graph {
    let nodes = catalog
        .apis()
        .map(|(_, entry)| {
            let description = entry.description().trim();
            Node {
                api: entry.api.id.clone(),
                insight: if description.is_empty() {
                    entry.api.name.clone()
                } else {
                    description.to_owned()
                },
                lookup: entry
                    .api
                    .lookup_inputs()
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
            }
        })
        .collect();
    let mut edges = vectors
        .map(|v| similarity_edges(v, settings))
        .unwrap_or_default();
    edges.extend(dependency_edges(catalog, settings));
    let mut graph = Graph { nodes, edges };
    graph.sort();
    graph
}
