//! Servers to try toolsmith against, kept out of the product crates so that
//! they pull in no server stack:
//!
//! - [`ExampleApi`] (feature `example-api`): a small lending library
//!   (authors, books, members, loans) over HTTP with axum, with its own
//!   OpenAPI spec ([`library_spec`]). `toolsmith example-api` serves it for
//!   the quickstart, and end-to-end tests start it on a loopback port.
//! - [`McpFixture`] (feature `mcp-fixture`): a small MCP server (rmcp) with
//!   tools that succeed, fail, crash, stall and change the tool list, over
//!   stdio (the `toolsmith-testbed-mcp-fixture` binary, or
//!   [`McpFixture::main_with_args`] in another crate's test binary) or over
//!   streamable HTTP ([`McpFixture::serve_http`]).
//!
//! Neither depends on another toolsmith crate: they are servers, and only
//! speak HTTP and MCP.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let api = toolsmith_testbed::ExampleApi::start("127.0.0.1:0".parse()?).await?;
//! let url = format!("{}/books?title=solaris", api.base_url());
//! let books: serde_json::Value = serde_json::from_str(&reqwest::get(url).await?.text().await?)?;
//! assert_eq!(books["results"][0]["title"], "Solaris");
//! # Ok(()) }
//! ```

pub use crate::error::{Error, Result};
#[cfg(feature = "example-api")]
pub use crate::example_api::{
    ExampleApi, LIBRARY_QUERIES, LIBRARY_SPEC, library_router, library_spec,
};
#[cfg(feature = "mcp-fixture")]
pub use crate::mcp_fixture::{McpFixture, McpFixtureScript, McpHttpFixture};
pub use crate::runtime::runtime;

mod error;
#[cfg(feature = "example-api")]
mod example_api;
#[cfg(feature = "mcp-fixture")]
mod mcp_fixture;
mod runtime;
