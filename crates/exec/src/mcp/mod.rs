//! MCP servers as tools, through the official Rust SDK (rmcp), which stays
//! inside this module.
//!
//! - [`McpAddress`] is what a tool's `base_url` holds (`mcp+stdio:COMMAND
//!   ARGS`, `mcp+http(s)://URL`, `mcp://NAME`), [`McpServers`] the named
//!   servers of the config file, and [`McpServer`] a resolved server with
//!   its [`McpTransport`].
//! - [`McpClient`] is one connection: `tools/list` for the catalog's
//!   `mcp-tools` importer, `tools/call` as an observation, and a
//!   [`ToolListObserver`] told of every `tools/list_changed`.
//! - [`McpExecutor`] is the [`Executor`](crate::Executor) over a book of MCP tools.
//! - The MCP test server these are tested against is `toolsmith-testbed`'s.

mod client;
mod error;
mod executor;
mod result;
mod server;
mod stderr;

pub use client::{McpClient, McpSettings, ToolListChange, ToolListObserver};
pub use error::McpError;
pub use executor::McpExecutor;
pub use server::{MCP_SAFE_ENV, McpAddress, McpServer, McpServers, McpTransport};
