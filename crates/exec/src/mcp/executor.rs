//! [`McpExecutor`]: calls the APIs whose tool lives on an MCP server (the
//! tool's `base_url` is an MCP address) with `tools/call`, one connection per
//! server, opened on first use and opened again after the server went away.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use async_trait::async_trait;
use serde_json::Value;
use toolsmith_catalog::{ApiId, Endpoint};

use crate::error::{Result, error_chain};
use crate::executor::{ApiBook, BookEntry, Executor};
use crate::mcp::client::{McpClient, McpSettings};
use crate::mcp::error::McpError;
use crate::mcp::server::{McpAddress, McpServer, McpServers};
use crate::observation::{FailureKind, Observation, Provenance};

/// One server's connection, opened when first needed.
type Slot = Arc<tokio::sync::Mutex<Option<Arc<McpClient>>>>;

/// Calls MCP tools.
///
/// Arguments are checked against the catalog's input schema before any
/// connection is made. Every failure of the server (it cannot start, it
/// crashes, it is slow, it says `isError`) is an observation; `Err` is only
/// for an API the book does not hold. Child processes end when the executor
/// is dropped, or earlier with [`McpExecutor::close`].
pub struct McpExecutor {
    book: Arc<ApiBook>,
    servers: McpServers,
    settings: McpSettings,
    connections: Mutex<HashMap<McpAddress, Slot>>,
}

impl fmt::Debug for McpExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpExecutor")
            .field("apis", &self.book.len())
            .field("servers", &self.servers.names().collect::<Vec<_>>())
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl McpExecutor {
    /// An executor over `book`; `mcp://NAME` addresses are looked up in `servers`.
    pub fn new(book: Arc<ApiBook>, servers: McpServers, settings: McpSettings) -> Self {
        Self {
            book,
            servers,
            settings,
            connections: Mutex::new(HashMap::new()),
        }
    }

    /// Whether `api` is an MCP tool's (a function of a tool whose base URL is
    /// an MCP address), so that a router can send it here.
    pub fn serves(&self, api: &ApiId) -> bool {
        self.book.get(api).is_some_and(|entry| is_mcp_entry(entry))
    }

    /// Closes every open connection (child processes are asked to exit,
    /// then killed). Calls made afterwards connect again.
    pub async fn close(&self) {
        let slots: Vec<Slot> = self
            .connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
            .map(|(_, slot)| slot)
            .collect();
        for slot in slots {
            let client = slot.lock().await.take();
            if let Some(client) = client.and_then(|c| Arc::try_unwrap(c).ok()) {
                client.close().await;
            }
        }
    }

    /// The live connection to a server, opened if there is none or the last one died.
    async fn client(
        &self,
        address: &McpAddress,
        server: &McpServer,
    ) -> std::result::Result<Arc<McpClient>, McpError> {
        let slot = Arc::clone(
            self.connections
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(address.clone())
                .or_default(),
        );
        let mut open = slot.lock().await;
        if let Some(client) = open.as_ref().filter(|c| !c.is_closed()) {
            return Ok(Arc::clone(client));
        }
        tracing::debug!(server = %server.name, %address, "connecting to the MCP server");
        let client = Arc::new(McpClient::connect(server, &self.settings).await?);
        *open = Some(Arc::clone(&client));
        Ok(client)
    }
}

fn is_mcp_entry(entry: &BookEntry) -> bool {
    matches!(entry.api.api.endpoint, Endpoint::Function { .. })
        && entry
            .tool
            .base_url
            .as_deref()
            .is_some_and(McpAddress::is_mcp)
}

/// The observation of a server that could not be reached.
fn unreachable(err: &McpError, secrets: &[String]) -> Observation {
    let kind = match err {
        McpError::ConnectTimeout { .. } => FailureKind::Timeout,
        McpError::BadSettings { .. } | McpError::UnknownServer { .. } => FailureKind::Unsupported,
        _ => FailureKind::Network,
    };
    let mut message = error_chain(err);
    for secret in secrets {
        message = message.replace(secret.as_str(), "***");
    }
    Observation::transport_error(kind, message, Provenance::Live)
}

#[async_trait]
impl Executor for McpExecutor {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        let start = Instant::now();
        let entry = self.book.entry(api)?;
        let refuse = |kind, message: String| {
            Ok(Observation::tool_error(kind, message, Provenance::Live)
                .with_latency(start.elapsed()))
        };
        let Endpoint::Function { name } = &entry.api.api.endpoint else {
            return refuse(
                FailureKind::Unsupported,
                format!("`{api}` is not an MCP tool (it has no function name to call)"),
            );
        };
        let Some(raw) = entry.tool.base_url.as_deref() else {
            return refuse(
                FailureKind::Unsupported,
                format!("tool `{}` has no MCP server address", entry.tool.id),
            );
        };
        let address = match raw.parse::<McpAddress>() {
            Ok(address) => address,
            Err(err) => return refuse(FailureKind::Unsupported, err.to_string()),
        };
        let server = match self.servers.resolve(&address) {
            Ok(server) => server,
            Err(err) => return refuse(FailureKind::Unsupported, err.to_string()),
        };
        let client = match self.client(&address, &server).await {
            Ok(client) => client,
            Err(err) => {
                return Ok(unreachable(&err, &server.secrets()).with_latency(start.elapsed()));
            }
        };
        let obs = client.call(name, args).await;
        if client.is_closed() {
            tracing::debug!(server = %server.name, "the MCP connection closed; the next call reconnects");
        }
        Ok(obs.with_latency(start.elapsed()))
    }
}
