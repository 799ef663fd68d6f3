//! What stands in front of rmcp's streamable HTTP service at `/mcp`: the `Origin` check, the
//! body read whole under the size limit (a JSON 413 however it was sent), JSON-RPC parse
//! errors answered as JSON-RPC (`-32700`, `-32600`, `-32602`), the cap on open sessions, and
//! answers in the forms clients expect (JSON errors, 204 for a closed session).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};

use crate::api_error::ApiError;
use crate::guard::{HostPolicy, check_origin};

/// The header that names a client's MCP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// The endpoint's state: the open sessions and the limits.
#[derive(Debug)]
pub(crate) struct Endpoint {
    pub(crate) sessions: Arc<LocalSessionManager>,
    /// `initialize` requests being served (their sessions may not be in the map yet).
    opening: AtomicUsize,
    max_sessions: usize,
    idle_secs: u64,
    max_body: usize,
    policy: HostPolicy,
}

impl Endpoint {
    pub(crate) fn new(
        sessions: Arc<LocalSessionManager>,
        settings: &crate::ServeSettings,
        policy: HostPolicy,
    ) -> Self {
        Self {
            sessions,
            opening: AtomicUsize::new(0),
            max_sessions: settings.max_sessions,
            idle_secs: settings.session_idle_secs,
            max_body: settings.max_body_bytes,
            policy,
        }
    }

    /// The most sessions open at once.
    pub(crate) fn max_sessions(&self) -> usize {
        self.max_sessions
    }

    /// MCP sessions open now.
    pub(crate) async fn open_sessions(&self) -> usize {
        self.sessions.sessions.read().await.len()
    }
}

/// The middleware of `/mcp`.
pub(crate) async fn guard(
    State(endpoint): State<Arc<Endpoint>>,
    req: Request,
    next: Next,
) -> Response {
    if let Some(refused) = check_origin(&endpoint.policy, &req) {
        return refused;
    }
    let mut req = req;
    accept_anything_means_both(&mut req);
    let is_delete = req.method() == Method::DELETE;
    if is_delete {
        let id = req
            .headers()
            .get(SESSION_HEADER)
            .map(|v| v.to_str().map(str::to_owned));
        if let Some(unknown) = unknown_session(&endpoint, id).await {
            return unknown;
        }
    }
    let response = if req.method() == Method::POST {
        post(&endpoint, req, next).await
    } else {
        next.run(req).await
    };
    tidy(response, is_delete).await
}

/// A client that sends no `Accept`, or `*/*`, takes any media type (RFC 9110, 12.5.1): it is
/// given what the MCP transport needs (JSON and an event stream on POST, a stream on GET)
/// rather than a 406. A list that leaves them out still gets the 406.
fn accept_anything_means_both(req: &mut Request) {
    let accepts_any = {
        let mut values = req.headers().get_all(header::ACCEPT).iter().peekable();
        values.peek().is_none()
            || values
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .any(|range| {
                    let mut parts = range.split(';').map(str::trim);
                    parts.next() == Some("*/*") && parts.all(|p| !zero_weight(p))
                })
    };
    let wanted = match *req.method() {
        Method::POST => "application/json, text/event-stream",
        Method::GET => "text/event-stream",
        _ => return,
    };
    if accepts_any {
        req.headers_mut()
            .insert(header::ACCEPT, HeaderValue::from_static(wanted));
    }
}

/// Whether a media range's parameter is `q=0` (the range is refused).
fn zero_weight(parameter: &str) -> bool {
    parameter.split_once('=').is_some_and(|(name, value)| {
        name.trim().eq_ignore_ascii_case("q") && value.trim().parse::<f32>().is_ok_and(|q| q <= 0.0)
    })
}

/// A DELETE naming a session this server does not have answers 404, as the MCP transport
/// says (rmcp would answer that it closed it). No header at all is rmcp's 400.
/// `id` is the header's value, if sent (an error when it is not text).
async fn unknown_session<E>(
    endpoint: &Endpoint,
    id: Option<Result<String, E>>,
) -> Option<Response> {
    let known = match id? {
        Ok(id) => endpoint
            .sessions
            .sessions
            .read()
            .await
            .contains_key(id.as_str()),
        Err(_) => false,
    };
    (!known).then(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_session",
            "no such MCP session (it was closed, idled out, or never opened)",
        )
        .into_response()
    })
}

/// A POST: read and check the body, hold a place for a new session, then hand over to rmcp.
async fn post(endpoint: &Endpoint, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, endpoint.max_body).await {
        Ok(bytes) => bytes,
        Err(err) if over_limit(&err) => {
            return ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                "the request body is over the size limit",
            )
            .into_response();
        }
        Err(err) => {
            return ApiError::new(StatusCode::BAD_REQUEST, "bad_body", err.to_string())
                .into_response();
        }
    };
    let json_body = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim()
                .to_ascii_lowercase()
                .starts_with("application/json")
        });
    let mut opening = None;
    if json_body {
        if let Err(refused) = check_message(&bytes).map_err(|r| *r) {
            return refused;
        }
        let new_session = !parts.headers.contains_key(SESSION_HEADER)
            && serde_json::from_slice::<Value>(&bytes)
                .is_ok_and(|m| m.get("method").and_then(Value::as_str) == Some("initialize"));
        if new_session {
            match Opening::claim(endpoint).await {
                Some(claim) => opening = Some(claim),
                None => return too_many_sessions(endpoint),
            }
        }
    }
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    drop(opening);
    response
}

/// A place held for a session being opened, given back when its `initialize` is answered.
struct Opening<'a>(&'a AtomicUsize);

impl<'a> Opening<'a> {
    /// A place, unless the open sessions and those being opened reach the cap.
    async fn claim(endpoint: &'a Endpoint) -> Option<Self> {
        let before = endpoint.opening.fetch_add(1, Ordering::SeqCst);
        let claim = Self(&endpoint.opening);
        (endpoint.open_sessions().await + before < endpoint.max_sessions).then_some(claim)
    }
}

impl Drop for Opening<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn too_many_sessions(endpoint: &Endpoint) -> Response {
    let mut response = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "too_many_sessions",
        format!(
            "{} MCP sessions are open, the most this server keeps; end one (DELETE /mcp) or \
             retry once an idle one has closed",
            endpoint.max_sessions
        ),
    )
    .into_response();
    if let Ok(after) = HeaderValue::from_str(&endpoint.idle_secs.max(1).to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, after);
    }
    response
}

/// Whether a body read failed on the size limit (rather than on the connection).
fn over_limit(err: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = source {
        if e.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = e.source();
    }
    false
}

/// A JSON-RPC error answer with the HTTP status `status`.
fn rpc_error(status: StatusCode, id: Value, code: i64, message: String) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    (status, Json(body)).into_response()
}

fn rpc_error_boxed(status: StatusCode, id: Value, code: i64, message: String) -> Box<Response> {
    Box::new(rpc_error(status, id, code, message))
}

/// Refuses a body that is not JSON (-32700), not a JSON-RPC message (-32600), or a
/// `tools/call` whose `arguments` is not an object (-32602).
fn check_message(bytes: &Bytes) -> Result<(), Box<Response>> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        rpc_error_boxed(
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32700,
            format!("parse error: {e}"),
        )
    })?;
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let arguments = value.pointer("/params/arguments");
    if value.get("method").and_then(Value::as_str) == Some("tools/call")
        && arguments.is_some_and(|a| !a.is_object() && !a.is_null())
    {
        return Err(rpc_error_boxed(
            StatusCode::OK,
            id,
            -32602,
            "invalid params: `arguments` of tools/call must be an object".to_owned(),
        ));
    }
    serde_json::from_value::<ClientJsonRpcMessage>(value)
        .map(drop)
        .map_err(|e| {
            rpc_error_boxed(
                StatusCode::BAD_REQUEST,
                id,
                -32600,
                format!("invalid request: {e}"),
            )
        })
}

/// rmcp's answers in the forms clients expect: a closed session is 204 (not 202), and a
/// plain-text error is a JSON one.
async fn tidy(response: Response, is_delete: bool) -> Response {
    let status = response.status();
    if is_delete && status == StatusCode::ACCEPTED {
        return StatusCode::NO_CONTENT.into_response();
    }
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let headers = response.headers().clone();
    let text = axum::body::to_bytes(response.into_body(), 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let code = match status {
        StatusCode::NOT_FOUND => "unknown_session",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::NOT_ACCEPTABLE => "not_acceptable",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::FORBIDDEN => "forbidden",
        s if s.is_server_error() => "internal",
        _ => "bad_request",
    };
    let mut json = ApiError::new(status, code, text).into_response();
    if let Some(allow) = headers.get(header::ALLOW) {
        json.headers_mut().insert(header::ALLOW, allow.clone());
    }
    json
}
