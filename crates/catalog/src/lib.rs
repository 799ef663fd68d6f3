//! The tool catalog: every tool and API toolsmith knows, with versioned docs.
//!
//! Data flows one way through toolsmith: **catalog -> refine -> retrieve ->
//! solve -> evaluate**. This crate is the first stage:
//!
//! - [`Tool`] and [`Api`] are the model (category -> tool -> API), identified
//!   by [`ToolId`] and [`ApiId`] (`tool/api`);
//! - every description is a history of [`DocVersion`]s with a [`DocLabel`]
//!   (`original`, `easytool`, `draft`, `draft-ref`, ...), one of them active;
//! - [`read_source`] imports OpenAPI 2.0/3.0/3.1, RapidAPI/ToolBench tool files
//!   and archives, ToolBench query files, DRAFT tool sets, OpenAI function
//!   lists, MCP `tools/list` results, and the papers' refined docs, into an
//!   [`ImportBatch`];
//! - [`Store`] keeps it all in one SQLite file and lands each batch in one
//!   transaction;
//! - [`export`] writes the active docs as OpenAPI 3.1, OpenAI tools, an MCP
//!   tool list or Markdown, and [`TokenStats`] counts their tokens;
//! - the store also keeps the activation gate's doc decisions ([`DocDecision`]): a round's
//!   decisions and activations land together, and [`Store::roll_back_gate_round`] undoes them;
//! - [`lint`] reports where a spec contradicts itself, and fixes the mechanical
//!   cases when docs are rendered.
//!
//! ```
//! use toolsmith_catalog::{ApiId, DocSelector, ImportOptions, Scope, Store, read_bytes};
//! let spec = br#"{
//!   "openapi": "3.0.0",
//!   "info": {"title": "Movies", "version": "1"},
//!   "paths": {"/search/movie": {"get": {
//!     "summary": "Search movies by title",
//!     "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
//!     "responses": {"200": {"description": "Matching movies"}}
//!   }}}
//! }"#;
//! let batch = read_bytes("movies.json".as_ref(), spec, &ImportOptions::default())?;
//! let mut store = Store::in_memory()?;
//! store.import(&batch, toolsmith_catalog::Activate::IfNoneActive)?;
//! let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
//! assert_eq!(catalog.api_count(), 1);
//! let id: ApiId = "movies/get_search_movie".parse()?; // APIs are named `tool/api`
//! assert_eq!(store.api(&id)?.description(), "Search movies by title");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use crate::closest::closest_ids;
pub use crate::error::{Error, Result};
pub use crate::id::{ApiId, ApiName, DocLabel, DocTarget, InvalidId, ToolId};
pub use crate::import::{
    ApiRecord, FileRefs, Format, ImportBatch, ImportOptions, NoRefs, RefDoc, RefSource, RefTarget,
    ToolRecord, read_bytes, read_bytes_with, read_source,
};
pub use crate::inputs::{BodyFields, id_entity};
pub use crate::model::{
    Access, Api, Doc, DocVersion, Effects, Endpoint, HttpMethod, ListFormat, Param, ParamLocation,
    SecurityRequirement, SecurityScheme, Tool, UsageExample,
};
pub use crate::store::{
    Activate, ApiEntry, Catalog, DocSelector, ImportReport, NewDoc, Scope, Store, ToolEntry,
};
pub use crate::store::{DecisionOutcome, DocDecision, Evidence, NewDecision, Restored};
pub use crate::tokens::{Encoding, TokenCounter, TokenStats};

mod closest;
mod error;
pub mod export;
mod id;
mod import;
mod inputs;
pub mod lint;
mod model;
pub mod names;
pub mod render;
mod repair;
mod store;
#[cfg(any(test, feature = "test-utils"))]
pub mod testing;
mod tokens;
