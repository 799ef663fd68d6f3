//! What can go wrong while reaching an MCP server or asking it something.
//! A failed *tool call* is not one of these: [`McpExecutor`](crate::McpExecutor)
//! turns every failure of a call into an observation.

use std::time::Duration;

/// An MCP server could not be reached, or did not answer a request.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The address is not one toolsmith understands.
    #[error("`{address}` is not an MCP address: {reason}")]
    BadAddress {
        /// The address as given.
        address: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `mcp://NAME` names no configured server.
    #[error("no MCP server named `{name}` is configured (known: {})", list(known))]
    UnknownServer {
        /// The name asked for.
        name: String,
        /// The configured names.
        known: Vec<String>,
    },
    /// The server's settings cannot be used (a bad header, an HTTP client that cannot be built).
    #[error("MCP server `{server}`: {reason}")]
    BadSettings {
        /// The server.
        server: String,
        /// What is wrong.
        reason: String,
    },
    /// The server's process could not be started.
    #[error("MCP server `{server}`: cannot start `{command}`")]
    Spawn {
        /// The server.
        server: String,
        /// The program.
        command: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The MCP handshake failed.
    #[error("MCP server `{server}`: the handshake failed{}", tail(stderr))]
    Handshake {
        /// The server.
        server: String,
        /// The last lines the server wrote to stderr, when it is a child process.
        stderr: String,
        /// The cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The server did not finish the handshake in time.
    #[error("MCP server `{server}`: no handshake within {after:?}{}", tail(stderr))]
    ConnectTimeout {
        /// The server.
        server: String,
        /// The time allowed.
        after: Duration,
        /// The last lines the server wrote to stderr, when it is a child process.
        stderr: String,
    },
    /// The connection is gone (the process exited, the HTTP session ended).
    #[error(
        "MCP server `{server}` closed the connection during `{method}`{}",
        tail(stderr)
    )]
    Closed {
        /// The server.
        server: String,
        /// The request that was cut off.
        method: &'static str,
        /// The last lines the server wrote to stderr, when it is a child process.
        stderr: String,
    },
    /// A request did not complete in time.
    #[error("MCP server `{server}`: no answer to `{method}` within {after:?}")]
    RequestTimeout {
        /// The server.
        server: String,
        /// The request.
        method: &'static str,
        /// The time allowed.
        after: Duration,
    },
    /// The server answered a request with an error, or with something else than asked.
    #[error("MCP server `{server}`: `{method}` failed")]
    Request {
        /// The server.
        server: String,
        /// The request.
        method: &'static str,
        /// The cause.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none; add a [mcp.servers.NAME] table to toolsmith.toml".to_owned()
    } else {
        names.join(", ")
    }
}

fn tail(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("; its stderr ends with: {}", stderr.trim())
    }
}
