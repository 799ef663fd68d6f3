//! One live connection to an MCP server ([`McpClient`]): the handshake over
//! stdio or streamable HTTP, `tools/list` (every page) for the importer,
//! `tools/call` as an [`Observation`], and re-listing when the server says
//! its tools changed ([`ToolListObserver`]).

use std::collections::HashMap;
use std::fmt;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
    Tool as McpTool,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceError, ServiceExt};
use serde_json::{Map, Value};

use crate::mcp::error::McpError;
use crate::mcp::result::{failure_of, observe};
use crate::mcp::server::{MCP_SAFE_ENV, McpServer, McpTransport};
use crate::mcp::stderr::StderrTail;
use crate::observation::{FailureKind, Observation, Provenance};

/// The MCP client's knobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpSettings {
    /// Time allowed to start the server (or reach it) and finish the handshake.
    pub connect_timeout: Duration,
    /// Time allowed for one request: a `tools/call`, or all pages of `tools/list`.
    pub timeout: Duration,
    /// Results are cut at this many bytes (as the HTTP executor cuts bodies).
    pub max_response_bytes: usize,
}

impl Default for McpSettings {
    /// Connect in 10 s (a server started through `npx` or `uvx` may need
    /// that), answer in 30 s (MCP tools often front slower services than one
    /// HTTP request), cut results at 1 MB like the HTTP executor.
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_response_bytes: 1024 * 1024,
        }
    }
}

/// Told when a server's tool list changes (`notifications/tools/list_changed`),
/// after the client has listed the tools again. Both methods do nothing by
/// default; they run on the connection's notification task, so they should
/// hand the work on (to a channel) rather than block.
pub trait ToolListObserver: Send + Sync + 'static {
    /// The server's new tool list, in the form [`McpClient::list_tools`] returns.
    fn tools_changed(&self, server: &str, tools: Value) {
        let _ = (server, tools);
    }

    /// Listing the tools again failed.
    fn relist_failed(&self, server: &str, error: McpError) {
        let _ = (server, error);
    }
}

/// One re-listing after a `tools/list_changed` notification, as sent to a channel.
#[derive(Debug)]
pub enum ToolListChange {
    /// The new list, in the form [`McpClient::list_tools`] returns.
    Listed(Value),
    /// Listing again failed.
    Failed(McpError),
}

/// A bounded channel as an observer: each change is sent to it, and a
/// change that finds the channel full is dropped with a warning (the next
/// one carries the whole list anyway).
impl ToolListObserver for tokio::sync::mpsc::Sender<ToolListChange> {
    fn tools_changed(&self, server: &str, tools: Value) {
        if self.try_send(ToolListChange::Listed(tools)).is_err() {
            tracing::warn!(
                server,
                "tool list change dropped: the receiver is full or gone"
            );
        }
    }

    fn relist_failed(&self, server: &str, error: McpError) {
        if self.try_send(ToolListChange::Failed(error)).is_err() {
            tracing::warn!(
                server,
                "tool list failure dropped: the receiver is full or gone"
            );
        }
    }
}

/// The client side of the protocol: who we are, and what to do when the
/// server's tools change.
struct Handler {
    server: String,
    observer: Option<Arc<dyn ToolListObserver>>,
    timeout: Duration,
}

impl ClientHandler for Handler {
    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let Some(observer) = &self.observer else {
            return;
        };
        tracing::debug!(server = %self.server, "tools/list_changed: listing again");
        // rmcp has dropped its cached list before calling us, so this asks the server.
        let listed = tokio::time::timeout(self.timeout, context.peer.list_all_tools()).await;
        let result = match listed {
            Err(_) => Err(McpError::RequestTimeout {
                server: self.server.clone(),
                method: "tools/list",
                after: self.timeout,
            }),
            Ok(Err(err)) => Err(request_error(
                &self.server,
                "tools/list",
                err,
                String::new(),
            )),
            Ok(Ok(tools)) => tool_list_json(&self.server, &tools),
        };
        match result {
            Ok(tools) => observer.tools_changed(&self.server, tools),
            Err(err) => observer.relist_failed(&self.server, err),
        }
    }

    fn get_info(&self) -> ClientConfig {
        // The legacy handshake: servers of every protocol revision accept it,
        // and they send `tools/list_changed` unasked (2026-07-28 servers only
        // send it on a `subscriptions/listen` stream).
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("toolsmith", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }
}

/// A live connection to one MCP server.
///
/// A child process is killed when the client is dropped (and asked to exit
/// first by [`McpClient::close`]); its stderr is read into a short tail for
/// error messages, never passed to our stdout.
pub struct McpClient {
    server: String,
    service: RunningService<RoleClient, Handler>,
    settings: McpSettings,
    stderr: StderrTail,
    process_id: Option<u32>,
    secrets: Vec<String>,
}

impl fmt::Debug for McpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpClient")
            .field("server", &self.server)
            .field("process_id", &self.process_id)
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl McpClient {
    /// Starts or reaches the server and completes the MCP handshake.
    pub async fn connect(server: &McpServer, settings: &McpSettings) -> Result<Self, McpError> {
        Self::open(server, settings, None).await
    }

    /// Like [`McpClient::connect`], and on every `tools/list_changed`
    /// notification lists the tools again and tells `observer`.
    pub async fn connect_watching(
        server: &McpServer,
        settings: &McpSettings,
        observer: Arc<dyn ToolListObserver>,
    ) -> Result<Self, McpError> {
        Self::open(server, settings, Some(observer)).await
    }

    async fn open(
        server: &McpServer,
        settings: &McpSettings,
        observer: Option<Arc<dyn ToolListObserver>>,
    ) -> Result<Self, McpError> {
        let handler = Handler {
            server: server.name.clone(),
            observer,
            timeout: settings.timeout,
        };
        let stderr = StderrTail::default();
        let (service, process_id) = match &server.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                inherit_env,
                cwd,
            } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.env_clear();
                for name in MCP_SAFE_ENV
                    .iter()
                    .copied()
                    .chain(inherit_env.iter().map(String::as_str))
                {
                    if let Some(value) = std::env::var_os(name) {
                        cmd.env(name, value);
                    }
                }
                cmd.args(args).envs(env).kill_on_drop(true);
                if let Some(dir) = cwd {
                    cmd.current_dir(dir);
                }
                let (process, err) = TokioChildProcess::builder(cmd)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|source| McpError::Spawn {
                        server: server.name.clone(),
                        command: command.clone(),
                        source,
                    })?;
                let process_id = process.id();
                if let Some(err) = err {
                    stderr.follow(err, server.name.clone());
                }
                let started = handshake(server, settings, &stderr, handler.serve(process)).await?;
                (started, process_id)
            }
            McpTransport::Http {
                url,
                bearer_token,
                headers,
            } => {
                let transport = http_transport(server, settings, url, bearer_token, headers)?;
                (
                    handshake(server, settings, &stderr, handler.serve(transport)).await?,
                    None,
                )
            }
        };
        Ok(Self {
            server: server.name.clone(),
            service,
            settings: settings.clone(),
            stderr,
            process_id,
            secrets: server.secrets(),
        })
    }

    /// The server's name.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The id of the server's process, for a server started as a child process.
    pub fn process_id(&self) -> Option<u32> {
        self.process_id
    }

    /// Whether the connection is gone (the process exited, the session
    /// ended, or [`McpClient::close`] was called). A closed client answers
    /// every call with a `network` observation; connect again.
    pub fn is_closed(&self) -> bool {
        self.service.is_closed() || self.service.peer().is_transport_closed()
    }

    /// The server's tools as a `tools/list` result, `{"tools": [...]}`,
    /// with every page fetched: what the catalog's `mcp-tools` importer reads.
    pub async fn list_tools(&self) -> Result<Value, McpError> {
        let listed =
            tokio::time::timeout(self.settings.timeout, self.service.peer().list_all_tools()).await;
        match listed {
            Err(_) => Err(McpError::RequestTimeout {
                server: self.server.clone(),
                method: "tools/list",
                after: self.settings.timeout,
            }),
            Ok(Err(err)) => {
                let stderr = self.stderr.text_after_exit().await;
                Err(request_error(&self.server, "tools/list", err, stderr))
            }
            Ok(Ok(tools)) => tool_list_json(&self.server, &tools),
        }
    }

    /// Calls the server's tool `tool` with `args` (a JSON object) and says
    /// what came back. Never fails: a refusal, a crash or a timeout is an
    /// observation with its [`FailureKind`]. Arguments are not checked here;
    /// [`McpExecutor`](crate::McpExecutor) checks them against the catalog first.
    pub async fn call(&self, tool: &str, args: &Value) -> Observation {
        let start = Instant::now();
        let mut params = CallToolRequestParams::new(tool.to_owned());
        match args {
            Value::Object(map) => params = params.with_arguments(map.clone()),
            Value::Null => {}
            other => {
                let mut wrapped = Map::new();
                wrapped.insert("value".to_owned(), other.clone());
                params = params.with_arguments(wrapped);
            }
        }
        let called =
            tokio::time::timeout(self.settings.timeout, self.service.call_tool(params)).await;
        let obs = match called {
            Err(_) => Observation::transport_error(
                FailureKind::Timeout,
                format!(
                    "MCP server `{}` gave no answer to `{tool}` within {:?}",
                    self.server, self.settings.timeout
                ),
                Provenance::Live,
            ),
            Ok(Ok(result)) => observe(result, self.settings.max_response_bytes),
            Ok(Err(err)) => {
                let stderr = if matches!(
                    err,
                    ServiceError::TransportClosed | ServiceError::TransportSend(_)
                ) {
                    self.stderr.text_after_exit().await
                } else {
                    String::new()
                };
                failure_of(&self.server, tool, &err, &stderr)
            }
        };
        self.redacted(obs).with_latency(start.elapsed())
    }

    /// Ends the connection: a child process has its stdin closed and is given
    /// a few seconds to exit before it is killed.
    pub async fn close(mut self) {
        if let Ok(None) = self
            .service
            .close_with_timeout(Duration::from_secs(10))
            .await
        {
            tracing::warn!(server = %self.server, "MCP connection did not close in time");
        }
    }

    fn redacted(&self, mut obs: Observation) -> Observation {
        if self.secrets.is_empty() {
            return obs;
        }
        let redact = |text: &mut String| {
            for secret in &self.secrets {
                if text.contains(secret.as_str()) {
                    *text = text.replace(secret.as_str(), "***");
                }
            }
        };
        match &mut obs.outcome {
            crate::observation::Outcome::Ok => {}
            crate::observation::Outcome::ToolError { message, .. }
            | crate::observation::Outcome::TransportError { message, .. } => redact(message),
        }
        obs
    }
}

async fn handshake<F, E>(
    server: &McpServer,
    settings: &McpSettings,
    stderr: &StderrTail,
    serving: F,
) -> Result<RunningService<RoleClient, Handler>, McpError>
where
    F: Future<Output = Result<RunningService<RoleClient, Handler>, E>>,
    E: std::error::Error + Send + Sync + 'static,
{
    match tokio::time::timeout(settings.connect_timeout, serving).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(err)) => Err(McpError::Handshake {
            server: server.name.clone(),
            stderr: stderr.text_after_exit().await,
            source: Box::new(err),
        }),
        Err(_) => Err(McpError::ConnectTimeout {
            server: server.name.clone(),
            after: settings.connect_timeout,
            stderr: stderr.text().await,
        }),
    }
}

fn http_transport(
    server: &McpServer,
    settings: &McpSettings,
    url: &reqwest::Url,
    bearer_token: &Option<crate::credentials::Secret>,
    headers: &std::collections::BTreeMap<String, crate::credentials::Secret>,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, McpError> {
    let bad = |reason: String| McpError::BadSettings {
        server: server.name.clone(),
        reason,
    };
    let client = reqwest::Client::builder()
        .connect_timeout(settings.connect_timeout)
        // An MCP endpoint that redirects elsewhere is not followed: the
        // token would go to a host nobody configured.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| bad(format!("cannot build the HTTP client: {e}")))?;
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| bad(format!("`{name}` is not a valid header name")))?;
        let mut value = HeaderValue::from_str(value.expose())
            .map_err(|_| bad(format!("the value of header `{name}` is not valid")))?;
        value.set_sensitive(true);
        custom.insert(header, value);
    }
    let mut config =
        StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
    if let Some(token) = bearer_token {
        config = config.auth_header(token.expose());
    }
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

/// A `tools/list` result as JSON.
fn tool_list_json(server: &str, tools: &[McpTool]) -> Result<Value, McpError> {
    let tools = serde_json::to_value(tools).map_err(|e| McpError::Request {
        server: server.to_owned(),
        method: "tools/list",
        source: Box::new(e),
    })?;
    let mut result = Map::new();
    result.insert("tools".to_owned(), tools);
    Ok(Value::Object(result))
}

fn request_error(
    server: &str,
    method: &'static str,
    err: ServiceError,
    stderr: String,
) -> McpError {
    match err {
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => McpError::Closed {
            server: server.to_owned(),
            method,
            stderr,
        },
        other => McpError::Request {
            server: server.to_owned(),
            method,
            source: Box::new(other),
        },
    }
}
