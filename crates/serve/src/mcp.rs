//! The MCP server: one [`McpSession`] per client connection, over stdio ([`serve_stdio`]) or
//! streamable HTTP ([`mcp_http_service`], mounted at `/mcp` by the HTTP router).
//!
//! A session offers four meta-tools (`search_tools`, `describe_tool`, `call_tool`,
//! `read_result`), the first `expose_top_n` APIs, and every API a search of this session
//! found: those stay callable by their own names (ToolBench's `<api>_for_<tool>`), and the
//! client is told with `notifications/tools/list_changed`. Every result obeys the output-size
//! contract; a tool failure or bad input is an `isError` result the model can read (an unknown
//! tool comes with its closest matches), never a protocol error.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

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
use toolsmith_catalog::ApiId;

use crate::error::Error;
use crate::service::{ReadRequest, ToolService, to_value};

/// Name of the meta-tool that searches the catalog.
pub const SEARCH_TOOLS: &str = "search_tools";
/// Name of the meta-tool that shows an API's full doc.
pub const DESCRIBE_TOOL: &str = "describe_tool";
/// Name of the meta-tool that calls any API by id.
pub const CALL_TOOL: &str = "call_tool";
/// Name of the meta-tool that pages through or filters a cut result.
pub const READ_RESULT: &str = "read_result";

/// One client's session: the shared service and the APIs this session has found.
#[derive(Clone, Debug)]
pub struct McpSession {
    service: Arc<ToolService>,
    /// Callable name -> API, for the exposed and the found APIs.
    direct: Arc<Mutex<BTreeMap<String, ApiId>>>,
}

impl McpSession {
    /// A fresh session: the meta-tools and the first `expose_top_n` APIs.
    pub fn new(service: Arc<ToolService>) -> Self {
        let mut direct = BTreeMap::new();
        for id in service.first_apis(service.settings().expose_top_n) {
            if let Some(name) = service.name_of(&id) {
                direct.insert(name.to_owned(), id);
            }
        }
        Self {
            service,
            direct: Arc::new(Mutex::new(direct)),
        }
    }

    fn direct(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, ApiId>> {
        self.direct.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes `ids` callable by name; true when any was new.
    fn stick(&self, ids: impl IntoIterator<Item = (String, ApiId)>) -> bool {
        let mut direct = self.direct();
        let before = direct.len();
        direct.extend(ids);
        direct.len() > before
    }

    fn tools(&self) -> Vec<Tool> {
        let mut tools = meta_tools(self.service.settings().max_k);
        for (name, id) in self.direct().iter() {
            let Some(doc) = self.service.card(id, None) else {
                continue;
            };
            tools.push(Tool::new(
                name.clone(),
                format!("[{id}] {}", doc.description),
                object(doc.input_schema),
            ));
        }
        tools
    }

    async fn dispatch(
        &self,
        name: &str,
        args: &JsonObject,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, Error> {
        let service = &self.service;
        match name {
            SEARCH_TOOLS => {
                let query = string_arg(args, "query")?;
                // As over HTTP: a whole number (`3` or `3.0`), or null for the default.
                let k = crate::wire::optional_count(args.get("k").cloned().unwrap_or(Value::Null))
                    .map_err(|e| Error::BadRequest(format!("`k`: {e}")))?;
                let cards = service.search(query, k).await?;
                let found = cards.iter().map(|c| (c.name.clone(), c.id.clone()));
                if self.stick(found) {
                    // The found tools are now listed under their own names.
                    if let Err(err) = context.peer.notify_tool_list_changed().await {
                        tracing::warn!(%err, "could not send tools/list_changed");
                    }
                }
                Ok(to_value(&service.clip(json!({ "results": cards }))))
            }
            DESCRIBE_TOOL => {
                let doc = service.describe(string_arg(args, "id")?).await?;
                Ok(to_value(&service.clip(to_value(&doc))))
            }
            CALL_TOOL => {
                let id = string_arg(args, "id")?;
                let arguments = args.get("arguments").cloned().unwrap_or_else(|| json!({}));
                Ok(to_value(&service.call(id, &arguments).await?))
            }
            READ_RESULT => {
                let request: ReadRequest = serde_json::from_value(Value::Object(args.clone()))
                    .map_err(|e| Error::BadRequest(format!("read_result: {e}")))?;
                service.read_result(&request).await
            }
            other => {
                let id = self.direct().get(other).cloned();
                match id {
                    Some(id) => Ok(to_value(
                        &service
                            .call(&id.to_string(), &Value::Object(args.clone()))
                            .await?,
                    )),
                    // Not offered in this session: the closest matches, or a call by id if
                    // the name is a catalog API the session has not found yet.
                    None => Ok(to_value(
                        &service.call(other, &Value::Object(args.clone())).await?,
                    )),
                }
            }
        }
    }
}

fn string_arg<'a>(args: &'a JsonObject, key: &str) -> Result<&'a str, Error> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| Error::BadRequest(format!("`{key}` is required and must be a string")))
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// The four meta-tools with their input schemas.
fn meta_tools(max_k: usize) -> Vec<Tool> {
    vec![
        Tool::new(
            SEARCH_TOOLS,
            "Search the tool catalog in plain words. Returns the best APIs with their ids, \
             descriptions and input schemas; each one found becomes callable by its own name.",
            object(json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What you need a tool for."},
                    "k": {"type": "integer", "minimum": 1, "maximum": max_k,
                          "description": "How many APIs to return."}
                },
                "required": ["query"]
            })),
        ),
        Tool::new(
            DESCRIBE_TOOL,
            "The full documentation of one API: description, parameters, examples.",
            object(json!({
                "type": "object",
                "properties": {"id": {"type": "string", "description": "The API id, tool/api."}},
                "required": ["id"]
            })),
        ),
        Tool::new(
            CALL_TOOL,
            "Call one API by id with arguments that follow its input schema.",
            object(json!({
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "The API id, tool/api."},
                    "arguments": {"type": "object", "description": "The API's arguments."}
                },
                "required": ["id"]
            })),
        ),
        Tool::new(
            READ_RESULT,
            "Read more of a result that was cut: the page at `offset`, or the output of a jq \
             filter over the whole result.",
            object(json!({
                "type": "object",
                "properties": {
                    "handle": {"type": "string", "description": "The handle of the cut result."},
                    "offset": {"type": "integer", "minimum": 0,
                               "description": "Character to start the page at."},
                    "jq_filter": {"type": "string",
                                  "description": "A jq filter run over the whole JSON result."}
                },
                "required": ["handle"]
            })),
        ),
    ]
}

/// A result the model reads: the reply as JSON text, `isError` when the tool failed.
fn reply(value: &Value, is_error: bool) -> CallToolResult {
    let text = ContentBlock::text(value.to_string());
    if is_error {
        CallToolResult::error(vec![text])
    } else {
        CallToolResult::success(vec![text])
    }
}

impl ServerHandler for McpSession {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("toolsmith", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Search the catalog with search_tools, read an API's doc with describe_tool, call \
             it with call_tool (or by the name search gave it). Long results are cut: page or \
             filter them with read_result.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match self.dispatch(request.name.as_ref(), &args, &context).await {
            Ok(value) => {
                let failed = value.get("ok").and_then(Value::as_bool) == Some(false);
                reply(&value, failed)
            }
            Err(err) => {
                if !err.is_client_error() {
                    tracing::warn!(error = %err, source = ?std::error::Error::source(&err), tool = %request.name, "MCP tool failed");
                }
                let closest = match &err {
                    Error::UnknownTool { closest, .. } => closest.clone(),
                    _ => Vec::new(),
                };
                reply(
                    &json!({"error": {"code": err.code(), "message": err.to_string(),
                                      "closest": closest}}),
                    true,
                )
            }
        };
        Ok(result.into())
    }
}

/// Serves one MCP session on this process's stdin and stdout until the client closes it.
pub async fn serve_stdio(service: Arc<ToolService>) -> std::io::Result<()> {
    let running = McpSession::new(service)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

/// The streamable HTTP MCP endpoint (a tower service; the router mounts it at `/mcp`). Each
/// client session gets its own [`McpSession`]; `stop` ends the open streams at shutdown. On its
/// own it answers loopback hosts only; the [`router`](crate::router) checks hosts, origins,
/// bodies and the session cap in front of it.
pub fn mcp_http_service(
    service: Arc<ToolService>,
    stop: CancellationToken,
) -> StreamableHttpService<McpSession, LocalSessionManager> {
    let sessions = Arc::new(session_manager(service.settings()));
    let config = StreamableHttpServerConfig::default().with_cancellation_token(stop);
    StreamableHttpService::new(
        move || Ok(McpSession::new(Arc::clone(&service))),
        sessions,
        config,
    )
}

/// The sessions of the endpoint, closed after `session_idle_secs` without a message.
pub(crate) fn session_manager(settings: &crate::ServeSettings) -> LocalSessionManager {
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(std::time::Duration::from_secs(
        settings.session_idle_secs.max(1),
    ));
    manager
}

/// The endpoint as the router mounts it: `sessions` shared with the router (which counts
/// them), and no host or body checks of rmcp's own, since the router makes them first.
pub(crate) fn routed_service(
    service: Arc<ToolService>,
    stop: CancellationToken,
    sessions: Arc<LocalSessionManager>,
) -> StreamableHttpService<McpSession, LocalSessionManager> {
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(stop)
        .disable_allowed_hosts()
        .with_max_request_body_bytes(service.settings().max_body_bytes.saturating_add(1));
    StreamableHttpService::new(
        move || Ok(McpSession::new(Arc::clone(&service))),
        sessions,
        config,
    )
}
