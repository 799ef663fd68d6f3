//! A whole graph from a catalog view: nodes with their doc as first insight, similarity
//! edges from doc vectors, dependency edges from schemas and examples.

use serde_json::Value;
use toolsmith_catalog::{Api, ApiId, Catalog, ParamLocation};

use crate::dependency::{dependency_edges, id_entity};
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
                lookup: lookup_inputs(&entry.api),
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

/// The required free-text inputs of an API: string parameters (no enum) that are not ids.
fn lookup_inputs(api: &Api) -> Vec<String> {
    api.params
        .iter()
        .filter(|p| {
            p.required
                && !matches!(p.location, ParamLocation::Header | ParamLocation::Cookie)
                && p.schema
                    .get("type")
                    .and_then(Value::as_str)
                    .is_none_or(|t| t == "string")
                && p.schema.get("enum").is_none()
                && !p.name.eq_ignore_ascii_case("id")
                && id_entity(&p.name).is_none()
        })
        .map(|p| p.name.clone())
        .collect()
}
