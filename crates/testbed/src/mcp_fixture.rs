//! A small MCP server for tests, ours end to end: served over stdio by the
//! `toolsmith-testbed-mcp-fixture` binary (and the thin copies other crates
//! build for their tests), or over streamable HTTP on a loopback
//! port inside a test ([`McpFixture::serve_http`]).
//!
//! Its tools, listed three to a page so that clients must follow cursors:
//! `add {a, b}` (structured `{sum}`), `echo {text}` (plain text), `fail`
//! (`isError`), `crash` (the process exits; over HTTP the server stops),
//! `slow {seconds}` (sleeps, then says `done`), and `add_tool {name}`
//! (registers a tool `name` that greets, then sends `tools/list_changed`).
//!
//! The binary takes a script ([`McpFixtureScript`]) to change its list on
//! its own and to exit after a while: `--announce NAME --after-ms N
//! --exit-after-ms N`, for tests of clients that watch a server.

use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Tools per `tools/list` page.
const PAGE: usize = 3;

/// What `crash` does: end the process (stdio) or stop the HTTP server.
type CrashHook = Arc<dyn Fn() + Send + Sync>;

/// The test server's handler. Clones share the tools added by `add_tool`.
#[derive(Clone)]
pub struct McpFixture {
    added: Arc<Mutex<Vec<String>>>,
    crash: CrashHook,
}

impl Default for McpFixture {
    fn default() -> Self {
        Self::new()
    }
}

impl McpFixture {
    /// A fresh server whose `crash` ends the process (exit code 3).
    pub fn new() -> Self {
        Self {
            added: Arc::default(),
            crash: Arc::new(|| std::process::exit(3)),
        }
    }

    /// The fixture binaries' `main`: serves on stdio as the command-line
    /// arguments (without the program name) script it.
    pub fn main_with_args(args: impl IntoIterator<Item = String>) -> ExitCode {
        let served = McpFixtureScript::from_args(args).and_then(|script| {
            let runtime = crate::runtime::runtime().map_err(|e| e.to_string())?;
            let served = runtime.block_on(Self::new().serve_stdio(&script));
            // Stdin is read on a blocking thread that a runtime's drop would
            // wait for; when the script ends the server, do not wait.
            runtime.shutdown_background();
            served.map_err(|e| e.to_string())
        });
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                let _ = writeln!(std::io::stderr(), "toolsmith MCP fixture: {err}");
                ExitCode::FAILURE
            }
        }
    }

    /// Serves MCP on this process's stdin and stdout until stdin closes (or
    /// the script's time is up). Writes a line to stderr first, as real
    /// servers do, which a client must keep off its own stdout.
    pub async fn serve_stdio(self, script: &McpFixtureScript) -> std::io::Result<()> {
        let _ = writeln!(std::io::stderr(), "toolsmith MCP fixture: serving on stdio");
        let added = Arc::clone(&self.added);
        let running = self
            .serve(rmcp::transport::stdio())
            .await
            .map_err(std::io::Error::other)?;
        if let Some((name, after)) = script.announce.clone() {
            let peer = running.peer().clone();
            tokio::spawn(async move {
                tokio::time::sleep(after).await;
                added
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(name);
                if let Err(err) = peer.notify_tool_list_changed().await {
                    tracing::warn!(%err, "could not send tools/list_changed");
                }
            });
        }
        match script.exit_after {
            Some(after) => {
                tokio::select! {
                    done = running.waiting() => { done.map_err(std::io::Error::other)?; }
                    () = tokio::time::sleep(after) => {}
                }
            }
            None => {
                running.waiting().await.map_err(std::io::Error::other)?;
            }
        }
        Ok(())
    }

    /// Serves MCP over streamable HTTP at `http://127.0.0.1:PORT/mcp` on a
    /// free port, until the returned handle is dropped. `crash` stops the server.
    pub async fn serve_http(self) -> std::io::Result<McpHttpFixture> {
        let stop = CancellationToken::new();
        let fixture = Self {
            crash: Arc::new({
                let stop = stop.clone();
                move || stop.cancel()
            }),
            ..self
        };
        let service = StreamableHttpService::new(
            move || Ok(fixture.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default().with_cancellation_token(stop.child_token()),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("http://{}/mcp", listener.local_addr()?);
        let shutdown = stop.clone();
        let task = tokio::spawn(async move {
            let served = axum::serve(listener, router)
                .with_graceful_shutdown(shutdown.cancelled_owned())
                .await;
            if let Err(err) = served {
                tracing::warn!(%err, "MCP fixture server failed");
            }
        });
        Ok(McpHttpFixture { url, stop, task })
    }

    fn tools(&self) -> Vec<Tool> {
        let mut tools = vec![
            Tool::new(
                "add",
                "Adds two numbers.",
                object(json!({
                    "type": "object",
                    "properties": {"a": {"type": "number", "description": "First addend."},
                                   "b": {"type": "number", "description": "Second addend."}},
                    "required": ["a", "b"]
                })),
            )
            .with_title("Add")
            .with_raw_output_schema(Arc::new(object(json!({
                "type": "object",
                "properties": {"sum": {"type": "number"}},
                "required": ["sum"]
            })))),
            Tool::new(
                "echo",
                "Says the text back.",
                object(json!({
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"]
                })),
            ),
            Tool::new("fail", "Always fails.", object(json!({"type": "object"}))),
            Tool::new(
                "crash",
                "Ends the server.",
                object(json!({"type": "object"})),
            ),
            Tool::new(
                "slow",
                "Sleeps, then says done.",
                object(json!({
                    "type": "object",
                    "properties": {"seconds": {"type": "number", "minimum": 0}}
                })),
            ),
            Tool::new(
                "add_tool",
                "Adds a tool that greets, and tells the client the list changed.",
                object(json!({
                    "type": "object",
                    "properties": {"name": {"type": "string", "pattern": "^[a-z_]+$"}},
                    "required": ["name"]
                })),
            ),
            Tool::new(
                "env",
                "Reports the server's environment variables (to check what a client passes on).",
                object(json!({"type": "object"})),
            ),
        ];
        for name in self
            .added
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            tools.push(Tool::new(
                name.clone(),
                format!("Greets from {name}."),
                object(json!({"type": "object"})),
            ));
        }
        tools
    }
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn text(result: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(result)]).into()
}

fn number(args: &JsonObject, key: &str) -> Result<f64, ErrorData> {
    args.get(key)
        .and_then(Value::as_f64)
        .ok_or_else(|| ErrorData::invalid_params(format!("`{key}` must be a number"), None))
}

impl ServerHandler for McpFixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new(
            "toolsmith-mcp-fixture",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .map_err(|_| ErrorData::invalid_params("bad cursor", None))?,
        };
        let tools = self.tools();
        let page: Vec<Tool> = tools.iter().skip(start).take(PAGE).cloned().collect();
        let next = start + page.len();
        let mut result = ListToolsResult::with_all_items(page);
        result.next_cursor = (next < tools.len()).then(|| next.to_string());
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        match request.name.as_ref() {
            "add" => {
                let sum = number(&args, "a")? + number(&args, "b")?;
                Ok(CallToolResult::structured(json!({ "sum": sum })).into())
            }
            "echo" => Ok(text(
                args.get("text").and_then(Value::as_str).unwrap_or_default(),
            )),
            "fail" => Ok(CallToolResult::error(vec![ContentBlock::text(
                "the fixture fails on purpose",
            )])
            .into()),
            "crash" => {
                let _ = writeln!(
                    std::io::stderr(),
                    "toolsmith MCP fixture: crashing on purpose"
                );
                (self.crash)();
                // Over HTTP the server is stopping; this answer may never arrive.
                Ok(text("crashed"))
            }
            "env" => {
                let vars: serde_json::Map<String, Value> = std::env::vars()
                    .map(|(k, v)| (k, Value::String(v)))
                    .collect();
                Ok(CallToolResult::structured(json!({ "env": vars })).into())
            }
            "slow" => {
                let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(30.0);
                tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 600.0))).await;
                Ok(text("done"))
            }
            "add_tool" => {
                let name = args
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ErrorData::invalid_params("`name` is required", None))?
                    .to_owned();
                self.added
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(name.clone());
                if let Err(err) = context.peer.notify_tool_list_changed().await {
                    tracing::warn!(%err, "could not send tools/list_changed");
                }
                Ok(text(format!("added {name}")))
            }
            other => {
                let added = self.added.lock().unwrap_or_else(PoisonError::into_inner);
                if added.iter().any(|n| n == other) {
                    Ok(text(format!("hello from {other}")))
                } else {
                    Err(ErrorData::invalid_params(
                        format!("unknown tool `{other}`"),
                        None,
                    ))
                }
            }
        }
    }
}

/// What the stdio fixture does on its own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct McpFixtureScript {
    /// Add this tool after this long, and send `tools/list_changed`.
    pub announce: Option<(String, Duration)>,
    /// Exit after this long.
    pub exit_after: Option<Duration>,
}

impl McpFixtureScript {
    /// Reads `--announce NAME [--after-ms N] [--exit-after-ms N]` (the
    /// announcement comes after 1 s unless told otherwise).
    pub fn from_args(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut script = Self::default();
        let mut announce = None;
        let mut after = Duration::from_secs(1);
        let mut args = args.into_iter();
        while let Some(flag) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("`{flag}` needs a value"));
            let millis = |raw: String| {
                raw.parse::<u64>()
                    .map(Duration::from_millis)
                    .map_err(|_| format!("`{raw}` is not a number of milliseconds"))
            };
            match flag.as_str() {
                "--announce" => announce = Some(value()?),
                "--after-ms" => after = millis(value()?)?,
                "--exit-after-ms" => script.exit_after = Some(millis(value()?)?),
                other => return Err(format!("unknown argument `{other}`")),
            }
        }
        script.announce = announce.map(|name| (name, after));
        Ok(script)
    }
}

/// The fixture served over streamable HTTP on loopback; stops when dropped.
#[derive(Debug)]
pub struct McpHttpFixture {
    url: String,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl McpHttpFixture {
    /// The endpoint, `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The endpoint as an MCP address, `mcp+http://127.0.0.1:PORT/mcp`.
    pub fn address(&self) -> String {
        format!("mcp+{}", self.url)
    }
}

impl Drop for McpHttpFixture {
    fn drop(&mut self) {
        self.stop.cancel();
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(args: &[&str]) -> Result<McpFixtureScript, String> {
        McpFixtureScript::from_args(args.iter().map(|a| (*a).to_owned()))
    }

    #[test]
    fn scripts_parse() {
        assert_eq!(script(&[]).unwrap(), McpFixtureScript::default());
        let s = script(&[
            "--announce",
            "greet",
            "--after-ms",
            "20",
            "--exit-after-ms",
            "90",
        ])
        .unwrap();
        assert_eq!(
            s.announce,
            Some(("greet".to_owned(), Duration::from_millis(20)))
        );
        assert_eq!(s.exit_after, Some(Duration::from_millis(90)));
        assert!(
            script(&["--after-ms"])
                .unwrap_err()
                .contains("needs a value")
        );
        assert!(
            script(&["--after-ms", "soon"])
                .unwrap_err()
                .contains("`soon`")
        );
        assert!(
            script(&["--verbose"])
                .unwrap_err()
                .contains("unknown argument")
        );
    }
}
