//! Who the HTTP server answers: loopback hosts only without a token, any host with one or
//! the listed hosts, browser origins on `/mcp`, and the bearer scheme in any case.

use reqwest::StatusCode;
use serde_json::json;
use toolsmith_plumbing::Secret;
use toolsmith_serve::{HttpOptions, ServeSettings};

use crate::http::{client, json_of, start_with};
use crate::service;

fn options(token: Option<&str>, allowed: &[&str]) -> HttpOptions {
    HttpOptions {
        token: token.map(Secret::new),
        mcp: true,
        allowed_hosts: allowed.iter().map(|h| (*h).to_owned()).collect(),
        ..HttpOptions::default()
    }
}

/// The status of `method path` sent with `Host: host` (and the token, if any).
async fn status_for(
    base: &str,
    method: reqwest::Method,
    path: &str,
    host: &str,
    token: Option<&str>,
) -> StatusCode {
    let mut request = client()
        .request(method, format!("{base}{path}"))
        .header("host", host)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(json!({"query": "movie"}).to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap().status()
}

const ROUTES: [(&str, &str); 5] = [
    ("GET", "/healthz"),
    ("GET", "/openapi.json"),
    ("GET", "/v1/tools"),
    ("POST", "/v1/search"),
    ("POST", "/mcp"),
];

#[tokio::test]
async fn a_foreign_host_is_refused_without_a_token_and_served_with_one() {
    let open = start_with(service(ServeSettings::default()), options(None, &[])).await;
    let base = open.url("");
    for (method, path) in ROUTES {
        let method: reqwest::Method = method.parse().unwrap();
        let refused = status_for(&base, method.clone(), path, "evil.example", None).await;
        assert_eq!(refused, StatusCode::FORBIDDEN, "{method} {path}");
        let local = status_for(&base, method.clone(), path, "localhost:8765", None).await;
        assert_ne!(local, StatusCode::FORBIDDEN, "{method} {path}");
    }
    let (status, body) = json_of(
        client()
            .post(open.url("/v1/call"))
            .header("host", "rebound.example:8765")
            .json(&json!({"id": "tmdb/get_search_movie", "arguments": {"query": "Dune"}}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["error"]["code"], "forbidden_host");

    let with_token = start_with(service(ServeSettings::default()), options(Some("t0k"), &[])).await;
    let base = with_token.url("");
    for (method, path) in ROUTES {
        let method: reqwest::Method = method.parse().unwrap();
        let status = status_for(&base, method, path, "tools.example.com", Some("t0k")).await;
        assert_ne!(status, StatusCode::FORBIDDEN, "{path}");
        assert_ne!(status, StatusCode::UNAUTHORIZED, "{path}");
    }

    let listed = start_with(
        service(ServeSettings::default()),
        options(None, &["tools.example.com"]),
    )
    .await;
    let base = listed.url("");
    let get = reqwest::Method::GET;
    assert_eq!(
        status_for(&base, get.clone(), "/healthz", "tools.example.com:80", None).await,
        StatusCode::OK
    );
    assert_eq!(
        status_for(&base, get, "/healthz", "evil.example", None).await,
        StatusCode::FORBIDDEN
    );
}

#[tokio::test]
async fn mcp_refuses_a_foreign_browser_origin() {
    let server = start_with(service(ServeSettings::default()), options(None, &[])).await;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "0"}}});
    let send = |origin: &'static str| {
        client()
            .post(server.url("/mcp"))
            .header("origin", origin)
            .header("accept", "application/json, text/event-stream")
            .json(&initialize)
            .send()
    };
    let (status, body) = json_of(send("https://evil.example").await.unwrap()).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["error"]["code"], "forbidden_origin");
    assert_eq!(
        send("http://localhost:3000").await.unwrap().status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn the_bearer_scheme_is_matched_in_any_case() {
    let server = start_with(service(ServeSettings::default()), options(Some("t0k"), &[])).await;
    for header in ["Bearer t0k", "bearer t0k", "BEARER  t0k"] {
        let status = client()
            .get(server.url("/healthz"))
            .header("authorization", header)
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, StatusCode::OK, "{header}");
    }
    for header in ["Basic t0k", "Bearer t0", "Bearert0k"] {
        let status = client()
            .get(server.url("/healthz"))
            .header("authorization", header)
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{header}");
    }
}
