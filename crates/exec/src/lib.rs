//! Tool execution: run one API call against a live, simulated or recorded
//! backend, and extract what an agent needs from what comes back.
//!
//! - [`Executor`] is the contract every backend meets; [`Observation`] is
//!   what the agent sees (a tool failure is an observation with a
//!   [`FailureKind`], never an `Err`), and its [`Provenance`] says where it
//!   came from.
//! - Arguments are checked against the API's input schema in front of the
//!   backend, by the [`Validated`] wrapper (each schema compiled once, from
//!   [`InputSchemas`]); a violation is a `bad_parameters` observation and no
//!   call is made. A list of scalars given as one comma-separated string is
//!   sent as the list when every piece is a valid item ([`coerce_lists`]).
//! - Backends: [`HttpExecutor`] (live HTTP with credentials held as
//!   [`Secret`]s and sent as each API's security requirement says, see
//!   [`Credentials`]; host allow-list, timeouts, retries and a size cap),
//!   [`NativeTools`] (FuncQA's arithmetic), [`Simulator`] (deterministic
//!   responses synthesized from response schemas and examples, their values
//!   optionally written by a [`ResponseOracle`] under [`Fill::Llm`], and
//!   what a session's calls changed kept for its next reads), and
//!   [`ModeExecutor`] over a [`ResponseCache`] for record and replay, and
//!   (feature `mcp`, on by default) [`McpExecutor`] for the tools of MCP
//!   servers over stdio or streamable HTTP, with [`McpClient`] to list them.
//! - [`WriteGate`] keeps a model's calls to a live backend safe (GET, HEAD,
//!   OPTIONS, tools declared read-only) unless a [`WritePolicy`] allows the
//!   tool or API; a refused call is a `not_allowed` observation.
//! - For large responses: [`pseudo_schema`] outlines a JSON value, and
//!   [`JqSandbox`] runs a jq filter in a child process with time, memory and
//!   output limits.
//! - Servers to try all this against (the example library API, an MCP test
//!   server) live in the `toolsmith-testbed` crate.
//!
//! ```
//! use std::sync::Arc;
//! use serde_json::json;
//! use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
//! use toolsmith_exec::{ApiBook, Executor, FailureKind, Provenance, Simulator, Validated};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let spec = br#"{"openapi": "3.0.0", "info": {"title": "Movies", "version": "1"},
//!   "paths": {"/search/movie": {"get": {
//!     "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
//!     "responses": {"200": {"description": "Movies", "content": {"application/json": {"schema": {
//!       "type": "object", "properties": {"results": {"type": "array", "items": {"type": "object",
//!         "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}}}}}}}}}}}}}"#;
//! let mut store = Store::in_memory()?;
//! store.import(&read_bytes("movies.json".as_ref(), spec, &ImportOptions::default())?, toolsmith_catalog::Activate::IfNoneActive)?;
//! let book = Arc::new(ApiBook::from_catalog(&store.catalog(&DocSelector::Active, &Scope::default())?));
//! let tools = Validated::new(Simulator::new(Arc::clone(&book)), book, Provenance::Simulated);
//! let search = "movies/get_search_movie".parse()?;
//!
//! let obs = tools.call(&search, &json!({"query": "Titanic"})).await?;
//! assert!(obs.is_ok() && obs.provenance == Provenance::Simulated);
//! // A missing required argument never reaches the backend.
//! let refused = tools.call(&search, &json!({})).await?;
//! assert_eq!(refused.failure(), Some(FailureKind::BadParameters));
//! # Ok(()) }
//! ```

pub use crate::canonical::canonical_json;
pub use crate::credentials::{
    Credential, Credentials, Secret, Selected, requirement_of, variables,
};
pub use crate::error::{Error, Result};
pub use crate::executor::{ApiBook, BookEntry, Executor, fresh_session, task_session};
pub use crate::gate::{WriteGate, WritePolicy, is_safe};
pub use crate::http::{HttpExecutor, HttpSettings};
#[cfg(feature = "mcp")]
pub use crate::mcp::{
    MCP_SAFE_ENV, McpAddress, McpClient, McpError, McpExecutor, McpServer, McpServers, McpSettings,
    McpTransport, ToolListChange, ToolListObserver,
};
pub use crate::native::{ArithOp, NativeTools};
pub use crate::observation::{Body, FailureKind, Observation, Outcome, Provenance};
pub use crate::pseudo_schema::pseudo_schema;
pub use crate::redact::{REDACTED, Redactor};
pub use crate::replay::{Coverage, Mode, ModeExecutor, ResponseCache};
pub use crate::sandbox::{JqError, JqOutput, JqSandbox, SandboxSettings};
pub use crate::simulate::{
    Fill, OracleAsk, ResponseOracle, Simulator, SimulatorSettings, filled_default, utc_today,
};
#[cfg(feature = "llm-oracle")]
pub use crate::simulate::{LlmOracle, ORACLE_ROLE};
pub use crate::validate::{Coercion, InputSchemas, Validated, coerce_lists};
pub use toolsmith_plumbing::retry::RetrySettings;

mod canonical;
pub mod compact;
mod credentials;
mod dates;
mod error;
mod executor;
mod gate;
mod http;
#[cfg(feature = "mcp")]
mod mcp;
mod native;
mod observation;
mod paging_fields;
mod pseudo_schema;
mod redact;
mod replay;
pub mod sandbox;
mod simulate;
#[cfg(any(test, feature = "test-utils"))]
pub mod testing;
mod validate;

/// A tokio runtime for callers that are not async themselves (the command
/// line): current-thread, with timers and I/O enabled.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    toolsmith_plumbing::runtime::current_thread().map_err(|source| Error::Io {
        context: "starting the async runtime".to_owned(),
        source,
    })
}
