//! The HTTP executor against loopback servers: request building for every
//! parameter location, credentials and their redaction, the host
//! allow-list, timeouts, the size cap and retries.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{any, get};
use serde_json::{Value, json};
use toolsmith_catalog::{
    Api, ApiEntry, ApiId, Endpoint, HttpMethod, ListFormat, Param, ParamLocation, SecurityScheme,
    Tool,
};
use toolsmith_exec::{
    ApiBook, Credential, Credentials, Executor, FailureKind, HttpExecutor, HttpSettings, Mode,
    ModeExecutor, Provenance, ResponseCache, RetrySettings, Secret, Validated,
};

const SECRET: &str = "sk-live-7d1e9b2c";
/// Long enough for any loaded machine; it only turns a hang into a failure.
const HANG_GUARD: Duration = Duration::from_secs(120);

async fn echo(request: Request) -> impl IntoResponse {
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let headers: serde_json::Map<String, Value> = parts
        .headers
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), json!(v.to_str().unwrap_or(""))))
        .collect();
    axum::Json(json!({
        "method": parts.method.as_str(),
        "path": parts.uri.path(),
        "query": parts.uri.query(),
        "headers": headers,
        "body": serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null),
    }))
}

async fn serve(router: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    addr
}

fn param(name: &str, location: ParamLocation, schema: Value, required: bool) -> Param {
    Param {
        name: name.to_owned(),
        location,
        required,
        schema,
        description: String::new(),
        list_format: Default::default(),
    }
}

fn api(tool: &str, name: &str, method: HttpMethod, path: &str, params: Vec<Param>) -> ApiEntry {
    ApiEntry {
        api: Api {
            id: format!("{tool}/{name}").parse().unwrap(),
            name: name.to_owned(),
            source_name: name.to_owned(),
            endpoint: Endpoint::Http {
                method,
                path: path.to_owned(),
            },
            params,
            request_body: None,
            response_schema: None,
            response_examples: Vec::new(),
            access: Default::default(),
        },
        doc: None,
    }
}

fn tool(base: &str, security: Vec<SecurityScheme>) -> Tool {
    Tool {
        id: "svc".parse().unwrap(),
        name: "svc".to_owned(),
        category: "test".to_owned(),
        base_url: Some(base.to_owned()),
        security,
    }
}

/// A book of the test service's APIs at `base`.
fn book(base: &str, security: Vec<SecurityScheme>) -> Arc<ApiBook> {
    let t = tool(base, security);
    let mut book = ApiBook::new();
    let echo_params = vec![
        param(
            "item_id",
            ParamLocation::Path,
            json!({"type": "string"}),
            true,
        ),
        param("q", ParamLocation::Query, json!({"type": "string"}), false),
        param(
            "tags",
            ParamLocation::Query,
            json!({"type": "array", "items": {"type": "string"}}),
            false,
        ),
        Param {
            list_format: ListFormat::Comma,
            ..param(
                "ids",
                ParamLocation::Query,
                json!({"type": "array", "items": {"type": "string"}}),
                false,
            )
        },
        Param {
            list_format: ListFormat::Pipe,
            ..param(
                "codes",
                ParamLocation::Query,
                json!({"type": "array", "items": {"type": "integer"}}),
                false,
            )
        },
        param(
            "X-Trace",
            ParamLocation::Header,
            json!({"type": "string"}),
            false,
        ),
        param(
            "session",
            ParamLocation::Cookie,
            json!({"type": "string"}),
            false,
        ),
        param(
            "name",
            ParamLocation::Body,
            json!({"type": "string"}),
            false,
        ),
        param(
            "count",
            ParamLocation::Body,
            json!({"type": "integer"}),
            false,
        ),
    ];
    book.insert(
        t.clone(),
        api(
            "svc",
            "echo",
            HttpMethod::Post,
            "/echo/{item_id}",
            echo_params,
        ),
    );
    book.insert(
        t.clone(),
        api("svc", "whoami", HttpMethod::Get, "/whoami", vec![]),
    );
    for name in [
        "slow",
        "big",
        "flaky",
        "redirect",
        "local_redirect",
        "broken_json",
        "missing",
    ] {
        book.insert(
            t.clone(),
            api("svc", name, HttpMethod::Get, &format!("/{name}"), vec![]),
        );
    }
    Arc::new(book)
}

fn id(raw: &str) -> ApiId {
    raw.parse().unwrap()
}

fn router(flaky_hits: Arc<AtomicUsize>) -> Router {
    Router::new()
        .route("/echo/{item_id}", any(echo))
        .route(
            "/whoami",
            get(|headers: HeaderMap| async move {
                // A careless server that echoes the caller's credentials back.
                let auth = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                let key = headers
                    .get("x-api-key")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_owned();
                axum::Json(json!({"you_sent": auth, "key": key}))
            }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                "late"
            }),
        )
        .route(
            "/big",
            get(|| async {
                (
                    [("content-type", "application/json")],
                    vec![b'a'; 10 * 1024 * 1024],
                )
            }),
        )
        .route(
            "/flaky",
            get(move || {
                let hits = Arc::clone(&flaky_hits);
                async move {
                    if hits.fetch_add(1, Ordering::SeqCst) < 2 {
                        (
                            StatusCode::TOO_MANY_REQUESTS,
                            [("retry-after", "0")],
                            "slow down",
                        )
                            .into_response()
                    } else {
                        axum::Json(json!({"ok": true})).into_response()
                    }
                }
            }),
        )
        .route(
            "/redirect",
            get(|| async {
                (
                    StatusCode::FOUND,
                    [("location", "http://evil.example.com/steal")],
                    "",
                )
                    .into_response()
            }),
        )
        .route(
            "/local_redirect",
            get(|| async { (StatusCode::FOUND, [("location", "/whoami")], "").into_response() }),
        )
        .route(
            "/broken_json",
            get(|| async { ([("content-type", "application/json")], "{\"a\": ") }),
        )
        .route(
            "/missing",
            get(|| async {
                (
                    StatusCode::NOT_FOUND,
                    axum::Json(json!({"error": "no such thing"})),
                )
            }),
        )
}

async fn start(
    security: Vec<SecurityScheme>,
    credentials: Credentials,
    settings: HttpSettings,
) -> (Validated<HttpExecutor>, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let addr = serve(router(Arc::clone(&hits))).await;
    let book = book(&format!("http://{addr}"), security);
    let http = HttpExecutor::new(Arc::clone(&book), credentials, settings).unwrap();
    (Validated::new(http, book, Provenance::Live), hits)
}

fn fast() -> HttpSettings {
    HttpSettings {
        timeout: Duration::from_millis(800),
        retry: RetrySettings {
            initial_backoff_ms: 10,
            ..HttpSettings::RETRY
        },
        ..HttpSettings::default()
    }
}

/// [`fast`] with this many retries.
fn fast_retrying(max_retries: u32) -> HttpSettings {
    let mut settings = fast();
    settings.retry.max_retries = max_retries;
    settings
}

#[tokio::test]
async fn every_parameter_location_reaches_the_server() {
    let (exec, _) = start(vec![], Credentials::new(), fast()).await;
    let args = json!({
        "item_id": "a/b c",
        "q": "Tom & Jerry",
        "tags": ["x", "y"],
        "X-Trace": "trace-1",
        "session": "s1",
        "name": "widget",
        "count": 3
    });
    let obs = exec.call(&id("svc/echo"), &args).await.unwrap();
    assert!(obs.is_ok(), "{obs:?}");
    assert_eq!(obs.status, Some(200));
    let got = obs.body.json().unwrap();
    assert_eq!(got["method"], "POST");
    assert_eq!(
        got["path"], "/echo/a%2Fb%20c",
        "a path argument stays one segment"
    );
    let query = got["query"].as_str().unwrap();
    assert!(
        query.contains("q=Tom+%26+Jerry") || query.contains("q=Tom%20%26%20Jerry"),
        "{query}"
    );
    assert!(
        query.contains("tags=x") && query.contains("tags=y"),
        "{query}"
    );
    assert_eq!(got["headers"]["x-trace"], "trace-1");
    assert_eq!(got["headers"]["cookie"], "session=s1");
    assert_eq!(got["headers"]["content-type"], "application/json");
    assert_eq!(got["body"], json!({"name": "widget", "count": 3}));
}

#[tokio::test]
async fn a_list_goes_on_the_wire_as_the_spec_says() {
    let (exec, _) = start(vec![], Credentials::new(), fast()).await;
    let args = json!({"item_id": "1", "tags": ["x", "y"], "ids": ["a", "b"], "codes": [1, 2]});
    let obs = exec.call(&id("svc/echo"), &args).await.unwrap();
    let got = obs.body.json().unwrap();
    let url =
        reqwest::Url::parse(&format!("http://x/?{}", got["query"].as_str().unwrap())).unwrap();
    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    let values = |key: &str| -> Vec<&str> {
        pairs
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    };
    assert_eq!(values("tags"), ["x", "y"], "exploded: one key per item");
    assert_eq!(values("ids"), ["a,b"], "explode: false joins with commas");
    assert_eq!(values("codes"), ["1|2"], "pipeDelimited joins with pipes");
}

#[tokio::test]
async fn bad_arguments_make_no_call() {
    let (exec, _) = start(vec![], Credentials::new(), fast()).await;
    let obs = exec
        .call(&id("svc/echo"), &json!({"item_id": "1", "count": "three"}))
        .await
        .unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::BadParameters));
    assert_eq!(obs.status, None, "no request was sent");
}

#[tokio::test]
async fn credentials_are_sent_and_never_shown() {
    let security = vec![SecurityScheme::Bearer {
        scheme: "bearer".to_owned(),
    }];
    let mut credentials = Credentials::new();
    credentials.insert(
        "svc".parse().unwrap(),
        Credential::Bearer(Secret::new(SECRET)),
    );
    let (exec, _) = start(security, credentials, fast()).await;
    assert!(!format!("{exec:?}").contains(SECRET));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cache.db");
    let cache = Arc::new(ResponseCache::open(&db).unwrap());
    let recorder = ModeExecutor::new(Mode::Record, cache).live(Arc::new(exec));
    let obs = recorder.call(&id("svc/whoami"), &json!({})).await.unwrap();
    assert!(obs.is_ok(), "{obs:?}");
    // The server did receive it...
    assert_eq!(obs.body.json().unwrap()["you_sent"], "Bearer ***");
    // ...but neither the observation nor the cache holds it.
    let text = serde_json::to_string(&obs).unwrap();
    assert!(!text.contains(SECRET), "{text}");
    drop(recorder);
    let raw = std::fs::read(&db).unwrap();
    let wal = std::fs::read(dir.path().join("cache.db-wal")).unwrap_or_default();
    for bytes in [raw, wal] {
        assert!(!String::from_utf8_lossy(&bytes).contains(SECRET));
    }
    let conn = rusqlite_dump(&db);
    assert!(
        conn.contains("Bearer ***"),
        "the response was recorded: {conn}"
    );
    assert!(!conn.contains(SECRET));
}

/// Every stored observation, as text.
fn rusqlite_dump(db: &std::path::Path) -> String {
    let cache = ResponseCache::open(db).unwrap();
    cache
        .get(&id("svc/whoami"), &json!({}))
        .unwrap()
        .map(|o| serde_json::to_string(&o).unwrap())
        .unwrap_or_default()
}

#[tokio::test]
async fn api_key_credentials_from_a_lookup() {
    let security = vec![SecurityScheme::ApiKey {
        scheme: "key".to_owned(),
        name: "X-Api-Key".to_owned(),
        location: ParamLocation::Header,
    }];
    let t = tool("http://127.0.0.1:1", security.clone());
    let credentials = Credentials::from_lookup([&t], |name| {
        (name == "TOOLSMITH_KEY_SVC").then(|| SECRET.to_owned())
    });
    let (exec, _) = start(security, credentials, fast()).await;
    let obs = exec.call(&id("svc/whoami"), &json!({})).await.unwrap();
    assert_eq!(obs.body.json().unwrap()["key"], "***");
}

#[tokio::test]
async fn a_redirect_to_another_host_is_refused() {
    let (exec, _) = start(vec![], Credentials::new(), fast()).await;
    let obs = exec.call(&id("svc/redirect"), &json!({})).await.unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::Network), "{obs:?}");
    assert!(serde_json::to_string(&obs).unwrap().contains("refused"));
    let obs = exec
        .call(&id("svc/local_redirect"), &json!({}))
        .await
        .unwrap();
    assert!(obs.is_ok(), "a same-host redirect is followed: {obs:?}");
}

#[tokio::test]
async fn a_slow_server_times_out() {
    let settings = fast_retrying(0);
    let (exec, _) = start(vec![], Credentials::new(), settings).await;
    // The server sleeps 5 s; the deadline only guards against a hang.
    let obs = tokio::time::timeout(HANG_GUARD, exec.call(&id("svc/slow"), &json!({})))
        .await
        .expect("the timeout ends the call")
        .unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::Timeout), "{obs:?}");
}

#[tokio::test]
async fn a_huge_response_is_cut_and_marked() {
    let (exec, _) = start(
        vec![],
        Credentials::new(),
        HttpSettings {
            timeout: Duration::from_secs(20),
            ..fast()
        },
    )
    .await;
    let obs = tokio::time::timeout(HANG_GUARD, exec.call(&id("svc/big"), &json!({})))
        .await
        .expect("a huge response does not hang the call")
        .unwrap();
    assert!(obs.truncated);
    assert_eq!(obs.failure(), Some(FailureKind::ResponseTooLarge));
    assert_eq!(obs.body.to_text().len(), 1024 * 1024);
    assert!(obs.bytes >= 1024 * 1024);
}

#[tokio::test]
async fn rate_limits_are_retried() {
    let (exec, hits) = start(vec![], Credentials::new(), fast()).await;
    let obs = exec.call(&id("svc/flaky"), &json!({})).await.unwrap();
    assert!(obs.is_ok(), "{obs:?}");
    assert_eq!(hits.load(Ordering::SeqCst), 3);
    let (exec, hits) = start(vec![], Credentials::new(), fast_retrying(1)).await;
    let obs = exec.call(&id("svc/flaky"), &json!({})).await.unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::RateLimited));
    assert_eq!(hits.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn statuses_and_bodies_map_to_kinds() {
    let (exec, _) = start(vec![], Credentials::new(), fast()).await;
    let obs = exec.call(&id("svc/missing"), &json!({})).await.unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::NotFound));
    assert_eq!(obs.body.json().unwrap()["error"], "no such thing");
    let obs = exec.call(&id("svc/broken_json"), &json!({})).await.unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::UnparsableResponse));
}

#[tokio::test]
async fn a_closed_port_is_a_network_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let exec = HttpExecutor::new(
        book(&format!("http://{addr}"), vec![]),
        Credentials::new(),
        fast_retrying(0),
    )
    .unwrap();
    let obs = exec.call(&id("svc/whoami"), &json!({})).await.unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::Network), "{obs:?}");
}
