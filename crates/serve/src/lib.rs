//! toolsmith served to any agent: an MCP server and an HTTP API over the catalog's active docs,
//! hybrid search, the executors and the solvers.
//!
//! - [`ToolService`] is what both front ends serve. The binary builds it from its settings
//!   ([`ServiceParts`]: the catalog view, a retriever, an executor in its mode, the jq
//!   sandbox, a solver factory, the runs database), so this crate reads no config.
//! - [`McpSession`] is the MCP server of one client (rmcp): the meta-tools `search_tools`,
//!   `describe_tool`, `call_tool` and `read_result`; APIs found by search stay callable by
//!   their own names for the session (announced with `tools/list_changed`). Served over stdio
//!   by [`serve_stdio`] and over streamable HTTP at `/mcp` by the [`router`].
//! - [`router`] is the HTTP API (axum): `/v1/tools`, `/v1/search`, `/v1/call`,
//!   `/v1/results/read`, `/v1/solve`, `/v1/runs/{id}`, `/healthz`, `/openapi.json` (see
//!   [`ROUTES`] and [`openapi::document`]), with the bearer token, limits and JSON errors;
//!   [`serve`] runs it with graceful shutdown. Without a token it answers loopback `Host`s
//!   only ([`HostPolicy`]); `/mcp` also checks `Origin`, caps the open sessions
//!   ([`ServeSettings::max_sessions`], idle ones closed after
//!   [`ServeSettings::session_idle_secs`]) and answers protocol errors as JSON-RPC.
//! - The output-size contract: every tool result over [`ServeSettings::max_result_chars`] is
//!   cut ([`Clipped::Cut`]) and kept under a [`ResultHandle`] for `read_result` to page through
//!   or filter with jq.
//! - [`load`] is `toolsmith bench serve`'s load generator.
//!
//! ```
//! use std::sync::Arc;
//! use serde_json::json;
//! use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
//! use toolsmith_exec::{ApiBook, Provenance, Simulator, Validated};
//! use toolsmith_retrieve::{Bm25Index, Corpus, RetrieveSettings};
//! use toolsmith_serve::{ServeSettings, ServiceParts, ToolService};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let spec = br#"{"openapi": "3.0.0", "info": {"title": "Movies", "version": "1"},
//!   "paths": {"/search/movie": {"get": {"description": "Find movies by their title.",
//!     "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
//!     "responses": {"200": {"description": "Movies", "content": {"application/json": {"schema": {
//!       "type": "object", "properties": {"results": {"type": "array", "items": {"type": "string"}}}}}}}}}}}}"#;
//! let mut store = Store::in_memory()?;
//! store.import(&read_bytes("movies.json".as_ref(), spec, &ImportOptions::default())?, toolsmith_catalog::Activate::IfNoneActive)?;
//! let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
//! let book = Arc::new(ApiBook::from_catalog(&catalog));
//! let corpus = Arc::new(Corpus::from_catalog(&catalog));
//! let service = ToolService::new(ServiceParts {
//!     retriever: Arc::new(Bm25Index::build(corpus, RetrieveSettings::default().bm25)),
//!     executor: Arc::new(Validated::new(Simulator::new(Arc::clone(&book)), book, Provenance::Simulated)),
//!     catalog,
//!     sandbox: None,
//!     solver: None,
//!     runs: None,
//!     settings: ServeSettings::default(),
//! });
//! let found = service.search("find a movie by title", Some(1)).await?;
//! assert_eq!(found[0].id.to_string(), "movies/get_search_movie");
//! let reply = service.call("movies/get_search_movie", &json!({"query": "Dune"})).await?;
//! assert!(reply.ok);
//! // A wrong id answers with the closest matches.
//! let wrong = service.call("movies/search_movies", &json!({})).await.unwrap_err();
//! assert!(wrong.to_string().contains("closest matches: movies/get_search_movie"));
//! # Ok(()) }
//! ```

pub use crate::error::{Error, Result};
pub use crate::guard::HostPolicy;
pub use crate::http::{ApiError, HttpOptions, ROUTES, router, serve};
pub use crate::mcp::{
    CALL_TOOL, DESCRIBE_TOOL, McpSession, READ_RESULT, SEARCH_TOOLS, mcp_http_service, serve_stdio,
};
pub use crate::results::{Clipped, CutResult, Page, ResultHandle};
pub use crate::service::{
    CallReply, ListQuery, MakeSolver, ReadRequest, RunReply, ServiceParts, SolveReply,
    SolveRequest, ToolCard, ToolDoc, ToolPage, ToolService,
};
pub use crate::settings::{SHUTDOWN_GRACE, ServeSettings};
/// Stops a server ([`HttpOptions::stop`], the shutdown future of [`serve`]).
pub use tokio_util::sync::CancellationToken;

mod api_error;
mod error;
mod guard;
mod http;
pub mod load;
mod mcp;
mod mcp_endpoint;
pub mod openapi;
mod results;
mod service;
mod settings;
mod wire;
