//! Credentials as the spec's security requirements say, end to end: an
//! OpenAPI spec is imported, its APIs called live against a loopback server
//! that records what it received, and nothing secret is recorded.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::routing::any;
use base64::Engine as _;
use serde_json::{Value, json};
use toolsmith_catalog::{ApiId, DocSelector, ImportOptions, Scope, Store, read_bytes};
use toolsmith_exec::{
    ApiBook, Credentials, Executor, HttpExecutor, HttpSettings, Mode, ModeExecutor, ResponseCache,
    Selected,
};

const HEADER_KEY: &str = "hdr-key-5f1c9a7e";
const QUERY_KEY: &str = "qry-key-0b8d2e64";
const USER: &str = "ann-user-31";
const PASSWORD: &str = "pw-secret-9d2f";

/// What the server received: headers (lower-case names) and the query, per path.
type Received = Arc<Mutex<HashMap<String, Value>>>;

async fn record(State(seen): State<Received>, request: Request) -> axum::Json<Value> {
    let headers: serde_json::Map<String, Value> = request
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), json!(v.to_str().unwrap_or(""))))
        .collect();
    let got = json!({"headers": headers, "query": request.uri().query()});
    seen.lock()
        .unwrap()
        .insert(request.uri().path().to_owned(), got.clone());
    // A careless server: it echoes everything back.
    axum::Json(got)
}

async fn serve() -> (SocketAddr, Received) {
    let seen = Received::default();
    let app = Router::new()
        .fallback(any(record))
        .with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, seen)
}

fn spec(addr: SocketAddr) -> Value {
    let op = |id: &str, security: Option<Value>| {
        let mut op = json!({"operationId": id, "responses": {"200": {"description": "ok"}}});
        if let Some(security) = security {
            op["security"] = security;
        }
        json!({"get": op})
    };
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Svc", "version": "1"},
        "servers": [{"url": format!("http://{addr}")}],
        "components": {"securitySchemes": {
            "token": {"type": "http", "scheme": "bearer"},
            "key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            "qkey": {"type": "apiKey", "in": "query", "name": "api_key"},
            "basic": {"type": "http", "scheme": "basic"}
        }},
        "security": [{"key": []}],
        "paths": {
            "/header": op("by_header", None),
            "/query": op("by_query", Some(json!([{"qkey": []}]))),
            "/basic": op("by_basic", Some(json!([{"basic": []}]))),
            "/either": op("either", Some(json!([{"token": []}, {"key": []}]))),
            "/open": op("open", Some(json!([])))
        }
    })
}

/// The spec imported, as a book, and the id of the API at each path.
fn import(addr: SocketAddr) -> (Arc<ApiBook>, HashMap<String, ApiId>) {
    let options = ImportOptions {
        tool: Some("svc".to_owned()),
        ..ImportOptions::default()
    };
    let bytes = serde_json::to_vec(&spec(addr)).unwrap();
    let batch = read_bytes("svc.json".as_ref(), &bytes, &options).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let book = ApiBook::from_catalog(&catalog);
    let ids = book
        .ids()
        .map(|id| {
            let path = book.get(id).unwrap().api.api.endpoint.path().unwrap();
            (path.to_owned(), id.clone())
        })
        .collect();
    (Arc::new(book), ids)
}

fn variables(name: &str) -> Option<String> {
    match name {
        "TOOLSMITH_KEY_SVC_KEY" => Some(HEADER_KEY.to_owned()),
        "TOOLSMITH_KEY_SVC_QKEY" => Some(QUERY_KEY.to_owned()),
        "TOOLSMITH_USERNAME_SVC" => Some(USER.to_owned()),
        "TOOLSMITH_PASSWORD_SVC" => Some(PASSWORD.to_owned()),
        _ => None,
    }
}

#[tokio::test]
async fn each_api_sends_the_credentials_its_requirement_names() {
    let (addr, seen) = serve().await;
    let (book, ids) = import(addr);
    let tools: Vec<_> = ids
        .values()
        .map(|id| book.get(id).unwrap().tool.clone())
        .collect();
    let credentials = Credentials::from_lookup(&tools, variables);
    let http = HttpExecutor::new(Arc::clone(&book), credentials, HttpSettings::default()).unwrap();
    for path in ["/header", "/query", "/basic", "/either", "/open"] {
        let obs = http.call(&ids[path], &json!({})).await.unwrap();
        assert!(obs.is_ok(), "{path}: {obs:?}");
    }
    let seen = seen.lock().unwrap().clone();
    let header = |path: &str, name: &str| seen[path]["headers"][name].clone();

    // The global requirement: the key in the declared header, and nothing else.
    assert_eq!(header("/header", "x-api-key"), HEADER_KEY);
    assert_eq!(header("/header", "authorization"), Value::Null);
    // An operation's own requirement: the key in the declared query parameter.
    assert_eq!(seen["/query"]["query"], format!("api_key={QUERY_KEY}"));
    assert_eq!(header("/query", "x-api-key"), Value::Null);
    // Basic: base64 of user:password.
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
    assert_eq!(header("/basic", "authorization"), format!("Basic {token}"));
    // The first alternative whose variables are set: no token, so the key.
    assert_eq!(header("/either", "x-api-key"), HEADER_KEY);
    assert_eq!(header("/either", "authorization"), Value::Null);
    // `security: []`: nothing at all.
    assert_eq!(header("/open", "x-api-key"), Value::Null);
    assert_eq!(header("/open", "authorization"), Value::Null);
}

#[tokio::test]
async fn no_secret_reaches_an_observation_or_the_recording() {
    let (addr, _) = serve().await;
    let (book, ids) = import(addr);
    let tools: Vec<_> = ids
        .values()
        .map(|id| book.get(id).unwrap().tool.clone())
        .collect();
    let credentials = Credentials::from_lookup(&tools, variables);
    let http = HttpExecutor::new(Arc::clone(&book), credentials, HttpSettings::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cache.db");
    let recorder = ModeExecutor::new(Mode::Record, Arc::new(ResponseCache::open(&db).unwrap()))
        .live(Arc::new(http));
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
    let secrets = [HEADER_KEY, QUERY_KEY, PASSWORD, USER, token.as_str()];
    let mut shown = String::new();
    for path in ["/header", "/query", "/basic"] {
        let obs = recorder.call(&ids[path], &json!({})).await.unwrap();
        assert!(obs.is_ok(), "{path}: {obs:?}");
        shown.push_str(&serde_json::to_string(&obs).unwrap());
    }
    assert!(shown.contains("***"), "the echoes were redacted: {shown}");
    drop(recorder);
    let mut stored = String::from_utf8_lossy(&std::fs::read(&db).unwrap()).into_owned();
    let wal = std::fs::read(dir.path().join("cache.db-wal")).unwrap_or_default();
    stored.push_str(&String::from_utf8_lossy(&wal));
    let cache = ResponseCache::open(&db).unwrap();
    for path in ["/header", "/query", "/basic"] {
        let recorded = cache.get(&ids[path], &json!({})).unwrap().unwrap();
        stored.push_str(&serde_json::to_string(&recorded).unwrap());
    }
    for secret in secrets {
        assert!(!shown.contains(secret), "{secret} shown: {shown}");
        assert!(!stored.contains(secret), "{secret} recorded");
    }
}

#[tokio::test]
async fn an_unset_variable_is_named() {
    let (addr, _) = serve().await;
    let (book, ids) = import(addr);
    let entry = book.get(&ids["/header"]).unwrap();
    let none = Credentials::from_lookup([&entry.tool], |_| None);
    assert_eq!(
        none.select(entry),
        Selected::Missing(vec!["TOOLSMITH_KEY_SVC_KEY".to_owned()])
    );
    let open = book.get(&ids["/open"]).unwrap();
    assert_eq!(none.select(open), Selected::Send(Vec::new()));
}
