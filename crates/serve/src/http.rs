//! The HTTP API (axum): the catalog, search, calls, solver runs and the MCP endpoint behind
//! one router, with a bearer token compared in constant time, a body-size limit, a bound on
//! requests served at once, JSON errors with stable codes, and graceful shutdown.

use std::future::Future;
use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Path, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use toolsmith_plumbing::Secret;

pub use crate::api_error::ApiError;
use crate::guard::{HostPolicy, authorized, check_host, unauthorized};
use crate::mcp::{routed_service, session_manager};
use crate::mcp_endpoint::{self, Endpoint};
use crate::service::{ListQuery, ReadRequest, SolveRequest, ToolService, to_value};

/// Every route of the API, as `(method, path)` in OpenAPI's path syntax; the OpenAPI document
/// describes each (a test checks it).
pub const ROUTES: &[(&str, &str)] = &[
    ("get", "/healthz"),
    ("get", "/openapi.json"),
    ("get", "/v1/tools"),
    ("get", "/v1/tools/{id}"),
    ("post", "/v1/search"),
    ("post", "/v1/call"),
    ("post", "/v1/results/read"),
    ("post", "/v1/solve"),
    ("get", "/v1/runs/{id}"),
    ("get", "/mcp"),
    ("post", "/mcp"),
    ("delete", "/mcp"),
];

/// How the router is set up beyond the service.
#[derive(Clone, Debug, Default)]
pub struct HttpOptions {
    /// When set, every route requires `Authorization: Bearer <token>`, and any `Host` is
    /// served (without a token only loopback hosts and [`ServeSettings::allowed_hosts`](crate::ServeSettings::allowed_hosts)).
    pub token: Option<Secret>,
    /// Mount the MCP endpoint (streamable HTTP) at `/mcp`.
    pub mcp: bool,
    /// Cancelled at shutdown: ends the MCP endpoint's open streams.
    pub stop: CancellationToken,
    /// `Host` names answered besides the loopback ones, added to
    /// [`ServeSettings::allowed_hosts`](crate::ServeSettings::allowed_hosts) (see [`HostPolicy`]).
    pub allowed_hosts: Vec<String>,
}

/// A JSON body whose rejections are [`ApiError`]s (`invalid_json`, `payload_too_large`).
struct Body<T>(T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(rejection_error(&rejection)),
        }
    }
}

fn rejection_error(rejection: &JsonRejection) -> ApiError {
    let status = rejection.status();
    let code = match status {
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        _ => "invalid_json",
    };
    ApiError::new(status, code, rejection.body_text())
}

/// What the handlers share: the service, and the MCP endpoint when mounted.
#[derive(Clone)]
struct AppState {
    service: Arc<ToolService>,
    mcp: Option<Arc<Endpoint>>,
    /// Whether the server has a token (the document then declares bearer security).
    token: bool,
}

/// The router: every route of [`ROUTES`], the host check, the token check, the limits.
pub fn router(service: Arc<ToolService>, options: HttpOptions) -> Router {
    let settings = service.settings().clone();
    let mut allowed = settings.allowed_hosts.clone();
    allowed.extend(options.allowed_hosts.iter().cloned());
    let policy = HostPolicy::new(options.token.is_some(), &allowed);
    let endpoint = options.mcp.then(|| {
        let sessions = Arc::new(session_manager(&settings));
        Arc::new(Endpoint::new(sessions, &settings, policy.clone()))
    });
    let mut app = Router::new()
        .route("/healthz", get(healthz))
        .route("/openapi.json", get(openapi))
        .route("/v1/tools", get(list_tools))
        .route("/v1/tools/{*id}", get(get_tool))
        .route("/v1/search", post(search))
        .route("/v1/call", post(call))
        .route("/v1/results/read", post(read_result))
        .route("/v1/solve", post(solve))
        .route("/v1/runs/{id}", get(get_run))
        .fallback(not_found)
        .with_state(AppState {
            service: Arc::clone(&service),
            mcp: endpoint.clone(),
            token: options.token.is_some(),
        });
    if let Some(endpoint) = endpoint {
        let mcp = routed_service(
            service,
            options.stop.child_token(),
            Arc::clone(&endpoint.sessions),
        );
        app = app.merge(Router::new().route_service("/mcp", mcp).route_layer(
            middleware::from_fn_with_state(endpoint, mcp_endpoint::guard),
        ));
    }
    let permits = Arc::new(Semaphore::new(settings.max_concurrent_requests.max(1)));
    let token = options.token.map(Arc::new);
    app.layer(tower_http::limit::RequestBodyLimitLayer::new(
        settings.max_body_bytes,
    ))
    // Outside the limit, so that its plain-text 413 becomes a JSON error.
    .layer(middleware::from_fn(json_limit_errors))
    .layer(middleware::from_fn(move |req: Request, next: Next| {
        let permits = Arc::clone(&permits);
        async move {
            // Waits for a turn: at most `max_concurrent_requests` run at once.
            let Ok(_permit) = permits.acquire_owned().await else {
                return ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "shutting_down",
                    "the server is stopping",
                )
                .into_response();
            };
            next.run(req).await
        }
    }))
    .layer(middleware::from_fn(move |req: Request, next: Next| {
        let token = token.clone();
        async move {
            match &token {
                Some(token) if !authorized(&req, token) => unauthorized(),
                _ => next.run(req).await,
            }
        }
    }))
    // Outermost: a foreign host learns nothing, not even whether a token is needed.
    .layer(middleware::from_fn(move |req: Request, next: Next| {
        let policy = policy.clone();
        async move {
            match check_host(&policy, &req) {
                None => next.run(req).await,
                Some(refused) => refused,
            }
        }
    }))
}

/// The body limit answers 413 with plain text before a handler runs; make it JSON too.
async fn json_limit_errors(req: Request, next: Next) -> Response {
    let response = next.run(req).await;
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE && !is_json {
        return ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            "the request body is over the size limit",
        )
        .into_response();
    }
    response
}

async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "no_route",
        "no such route; see /openapi.json",
    )
}

async fn healthz(State(state): State<AppState>) -> Json<Value> {
    let mut health = json!({"status": "ok", "apis": state.service.len()});
    if let (Some(endpoint), Some(map)) = (&state.mcp, health.as_object_mut()) {
        map.insert("mcp_sessions".into(), endpoint.open_sessions().await.into());
        map.insert("max_sessions".into(), endpoint.max_sessions().into());
    }
    Json(health)
}

async fn openapi(State(state): State<AppState>) -> Json<Value> {
    Json(crate::openapi::document(&crate::openapi::Described {
        token: state.token,
        mcp: state.mcp.is_some(),
        max_k: state.service.settings().max_k,
        example_id: state.service.first_apis(1).first().map(ToString::to_string),
    }))
}

async fn list_tools(
    State(AppState { service, .. }): State<AppState>,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(query) =
        query.map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, "bad_query", e.body_text()))?;
    Ok(Json(to_value(&service.list(&query))))
}

async fn get_tool(
    State(AppState { service, .. }): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(to_value(&service.describe(&id).await?)))
}

/// `POST /v1/search`'s body.
#[derive(Deserialize)]
struct SearchBody {
    query: String,
    #[serde(default, deserialize_with = "crate::wire::optional_count")]
    k: Option<usize>,
}

async fn search(
    State(AppState { service, .. }): State<AppState>,
    Body(body): Body<SearchBody>,
) -> Result<Json<Value>, ApiError> {
    let results = service.search(&body.query, body.k).await?;
    Ok(Json(json!({ "results": results })))
}

/// `POST /v1/call`'s body.
#[derive(Deserialize)]
struct CallBody {
    id: String,
    #[serde(default = "empty_object")]
    arguments: Value,
}

fn empty_object() -> Value {
    json!({})
}

async fn call(
    State(AppState { service, .. }): State<AppState>,
    Body(body): Body<CallBody>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(to_value(
        &service.call(&body.id, &body.arguments).await?,
    )))
}

async fn read_result(
    State(AppState { service, .. }): State<AppState>,
    Body(body): Body<ReadRequest>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(service.read_result(&body).await?))
}

async fn solve(
    State(AppState { service, .. }): State<AppState>,
    Body(body): Body<SolveRequest>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(to_value(&service.solve(&body).await?)))
}

async fn get_run(
    State(AppState { service, .. }): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let id: i64 = id.parse().map_err(|_| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("`{id}` is not a run id"),
        )
    })?;
    Ok(Json(to_value(&service.run(id).await?)))
}

/// Serves `app` on `listener` until `shutdown` completes, then stops accepting and finishes
/// the requests in flight before returning.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}
