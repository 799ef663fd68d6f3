//! ToolExpNet's tool graph (Fang et al., ACL Findings 2025): the APIs of a catalog as nodes,
//! joined by the two relations that trip agents up.
//!
//! # Overview
//! - A [`Graph`] holds [`Node`]s (an API and its *insight*, initialized from its doc) and
//!   [`Edge`]s of two [`EdgeKind`]s: **similarity** (doc embeddings with cosine at least Φ,
//!   [`similarity_edges`]) and **dependency** (an output field of one API feeds a required
//!   parameter of another, [`dependency_edges`]). Each edge keeps its [`Evidence`] (the
//!   cosine, or which field feeds which parameter by which [`Rule`]), its evidence
//!   `strength` and the trial loop's sampling `weight`.
//! - [`build_graph`] builds the whole graph of a catalog view; [`GraphSettings::PAPER`] is
//!   the paper's Φ = 0.8.
//! - [`Graph::needs`] lists, per API, the parameters other APIs produce and their producers:
//!   what dependency-aware retrieval (`toolsmith-retrieve`) reads.
//! - [`GraphStore`] keeps the graph in the catalog's SQLite file (component `graph`), with
//!   each edge's [`Experience`] pool for the trial-and-error loop.
//! - [`sample_edges`] and [`updated_weight`] are that loop's sampling and weight update.
//! - [`Graph::gold_pairs`] scores the dependency edges against a benchmark's gold tool paths.
//!
//! ```
//! use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
//! use toolsmith_graph::{EdgeKind, GraphSettings, build_graph};
//! let spec = br#"{"openapi": "3.0.0", "info": {"title": "Pets", "version": "1"}, "paths": {
//!   "/search/pet": {"get": {"summary": "Find pets by name",
//!     "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
//!     "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
//!       "type": "object", "properties": {"results": {"type": "array", "items": {
//!         "type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}}}}}}}}}},
//!   "/pet/{pet_id}": {"get": {"summary": "A pet's details",
//!     "parameters": [{"name": "pet_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
//!     "responses": {"200": {"description": "ok"}}}}
//! }}"#;
//! let batch = read_bytes("pets.json".as_ref(), spec, &ImportOptions::default())?;
//! let mut store = Store::in_memory()?;
//! store.import(&batch, toolsmith_catalog::Activate::IfNoneActive)?;
//! let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
//! let graph = build_graph(&catalog, None, &GraphSettings::PAPER);
//! let dep: Vec<_> = graph.edges_of_kind(EdgeKind::Dependency).collect();
//! assert_eq!(dep.len(), 1);
//! assert_eq!(dep[0].from.to_string(), "pets/get_search_pet");
//! assert_eq!(dep[0].params().collect::<Vec<_>>(), ["pet_id"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]

pub use crate::build::build_graph;
pub use crate::dependency::dependency_edges;
pub use crate::error::{Error, Result};
pub use crate::model::{
    Edge, EdgeKind, Evidence, Feed, GoldPairs, Graph, GraphStats, Need, Node, Producer, Rule,
};
pub use crate::sample::{sample_edges, updated_weight};
pub use crate::similarity::{GraphSettings, embed_docs, similarity_edges};
pub use crate::store::{BuildInfo, EdgeKey, Experience, GraphStore};

mod build;
mod dependency;
mod error;
mod model;
mod sample;
mod similarity;
mod store;
