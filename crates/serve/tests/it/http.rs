//! The HTTP API over a loopback port: routes, the token, bad bodies, limits, shutdown.

use std::net::SocketAddr;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use toolsmith_plumbing::Secret;
use toolsmith_serve::{HttpOptions, ROUTES, ServeSettings, router};

use crate::{Gate, held_service, service, service_with};

pub(crate) struct Server {
    pub(crate) addr: SocketAddr,
    pub(crate) stop: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Server {
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

async fn start(
    service: std::sync::Arc<toolsmith_serve::ToolService>,
    token: Option<&str>,
) -> Server {
    start_with(
        service,
        HttpOptions {
            token: token.map(Secret::new),
            mcp: true,
            ..HttpOptions::default()
        },
    )
    .await
}

/// The router of `service` with `options` on a loopback port.
pub(crate) async fn start_with(
    service: std::sync::Arc<toolsmith_serve::ToolService>,
    mut options: HttpOptions,
) -> Server {
    let stop = CancellationToken::new();
    options.stop = stop.clone();
    let app = router(service, options);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(toolsmith_serve::serve(
        listener,
        app,
        stop.clone().cancelled_owned(),
    ));
    Server { addr, stop, task }
}

pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

pub(crate) async fn json_of(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    let text = response.text().await.unwrap();
    let value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("not JSON ({e}), status {status}: {text}"));
    (status, value)
}

#[tokio::test]
async fn every_route_answers_with_json() {
    let server = start(service(ServeSettings::default()), None).await;
    let http = client();
    let (status, health) = json_of(http.get(server.url("/healthz")).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(health["apis"], 54);

    let (_, page) = json_of(
        http.get(server.url("/v1/tools?limit=5&offset=2"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(page["total"], 54);
    assert_eq!(page["offset"], 2);
    assert_eq!(page["tools"].as_array().unwrap().len(), 5);
    let (_, filtered) = json_of(
        http.get(server.url("/v1/tools?q=credits"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let ids: Vec<&str> = filtered["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert!(
        !ids.is_empty() && ids.iter().all(|id| id.contains("credit")),
        "{ids:?}"
    );

    let (status, doc) = json_of(
        http.get(server.url("/v1/tools/tmdb/get_search_movie"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(doc["id"], "tmdb/get_search_movie");
    let (_, encoded) = json_of(
        http.get(server.url("/v1/tools/tmdb%2Fget_search_movie"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(encoded["id"], "tmdb/get_search_movie");
    let (status, missing) = json_of(
        http.get(server.url("/v1/tools/tmdb/search_movies"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(missing["error"]["code"], "unknown_tool");
    assert!(
        missing["error"]["closest"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "tmdb/get_search_movie")
    );

    let (_, found) = json_of(
        http.post(server.url("/v1/search"))
            .json(&json!({"query": "movie reviews", "k": 2}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(found["results"].as_array().unwrap().len(), 2);

    let (status, called) = json_of(
        http.post(server.url("/v1/call"))
            .json(&json!({"id": "tmdb/get_search_movie", "arguments": {"query": "Dune"}}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(called["ok"], true);
    assert_eq!(called["provenance"], "simulated");
    let (_, refused) = json_of(
        http.post(server.url("/v1/call"))
            .json(&json!({"id": "tmdb/get_search_movie"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(refused["ok"], false);
    assert_eq!(refused["failure"], "bad_parameters");

    // No LLM: solving says so with its code; a run that does not exist is a 404.
    let (status, solve) = json_of(
        http.post(server.url("/v1/solve"))
            .json(&json!({"query": "Who directed Dune?"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(solve["error"]["code"], "solve_unavailable");
    let (status, run) = json_of(http.get(server.url("/v1/runs/7")).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(run["error"]["code"], "run_not_found");
    let (status, route) = json_of(http.get(server.url("/v2/nothing")).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(route["error"]["code"], "no_route");
}

#[tokio::test]
async fn the_openapi_document_lists_every_route() {
    let server = start(service(ServeSettings::default()), None).await;
    let (_, doc) = json_of(
        client()
            .get(server.url("/openapi.json"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(doc["openapi"], "3.1.0");
    for (method, path) in ROUTES {
        assert!(
            doc["paths"][path][method].is_object(),
            "{method} {path} is not described"
        );
    }
    let described: usize = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|p| p.as_object().unwrap().len())
        .sum();
    assert_eq!(
        described,
        ROUTES.len(),
        "the document describes a route that does not exist"
    );
}

#[tokio::test]
async fn with_a_token_every_route_wants_it() {
    let server = start(service(ServeSettings::default()), Some("s3cret-token")).await;
    let http = client();
    for path in ["/healthz", "/openapi.json", "/v1/tools", "/v1/runs/1"] {
        let response = http.get(server.url(path)).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(response.headers()["www-authenticate"], "Bearer");
        let (_, body) = json_of(response).await;
        assert_eq!(body["error"]["code"], "unauthorized");
        let wrong = http
            .get(server.url(path))
            .bearer_auth("s3cret-tokem")
            .send()
            .await
            .unwrap();
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "{path}");
    }
    let mcp = http
        .post(server.url("/mcp"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        mcp.status(),
        StatusCode::UNAUTHORIZED,
        "the MCP endpoint too"
    );
    let ok = http
        .get(server.url("/healthz"))
        .bearer_auth("s3cret-token")
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    let found = http
        .post(server.url("/v1/search"))
        .bearer_auth("s3cret-token")
        .json(&json!({"query": "tv show", "k": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(found.status(), StatusCode::OK);
}

#[tokio::test]
async fn bad_and_oversized_bodies_get_coded_errors() {
    let server = start(
        service(ServeSettings {
            max_body_bytes: 4096,
            ..ServeSettings::default()
        }),
        None,
    )
    .await;
    let http = client();
    let post = |body: &'static str| {
        http.post(server.url("/v1/search"))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let (status, broken) = json_of(post("{\"query\": ").await.unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(broken["error"]["code"], "invalid_json");
    let (status, typed) = json_of(post("{\"query\": 3}").await.unwrap()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(typed["error"]["code"], "invalid_json");
    let (status, empty) = json_of(post("{\"query\": \"  \"}").await.unwrap()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(empty["error"]["code"], "bad_request");
    let (status, k) = json_of(post("{\"query\": \"movie\", \"k\": 0}").await.unwrap()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(k["error"]["message"].as_str().unwrap().contains("`k`"));
    let (status, args) = json_of(
        http.post(server.url("/v1/call"))
            .json(&json!({"id": "tmdb/get_search_movie", "arguments": [1]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        args["error"]["message"]
            .as_str()
            .unwrap()
            .contains("JSON object")
    );
    let (status, media) = json_of(
        http.post(server.url("/v1/search"))
            .body("{}")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(media["error"]["code"], "unsupported_media_type");

    let huge = json!({"query": "x".repeat(10_000)});
    let (status, big) = json_of(
        http.post(server.url("/v1/search"))
            .json(&huge)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(big["error"]["code"], "payload_too_large");
    // A body sent in chunks, with no length up front, is cut at the limit too.
    let raw = chunked_post(server.addr, "/v1/search", &huge.to_string()).await;
    assert!(raw.starts_with("HTTP/1.1 413"), "{raw}");
    assert!(raw.contains("payload_too_large"), "{raw}");
    // And the server still serves.
    let ok = http.get(server.url("/healthz")).send().await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
}

/// Sends `body` in 1 KiB chunks (`Transfer-Encoding: chunked`); returns the raw response.
pub(crate) async fn chunked_post(addr: SocketAddr, path: &str, body: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         transfer-encoding: chunked\r\nconnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    for chunk in body.as_bytes().chunks(1024) {
        let sent = async {
            stream
                .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                .await?;
            stream.write_all(chunk).await?;
            stream.write_all(b"\r\n").await
        };
        if sent.await.is_err() {
            break; // the server answered and closed early
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out).await;
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn graceful_shutdown_finishes_the_request_in_flight() {
    let gate = Gate::new();
    let server = start(held_service(gate.clone()), None).await;
    let http = client();
    let in_flight = tokio::spawn({
        let url = server.url("/v1/call");
        let http = http.clone();
        async move {
            http.post(url)
                .json(&json!({"id": "tmdb/get_search_movie", "arguments": {"query": "Dune"}}))
                .send()
                .await
        }
    });
    gate.started().await;
    server.stop.cancel();
    gate.release(1);
    let response = in_flight
        .await
        .unwrap()
        .expect("the call in flight was dropped");
    let (status, called) = json_of(response).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(called["ok"], true);
    let health = server.url("/healthz");
    tokio::time::timeout(Duration::from_secs(5), server.task)
        .await
        .expect("the server did not stop")
        .unwrap()
        .unwrap();
    let refused = client().get(health).send().await;
    assert!(refused.is_err(), "a stopped server accepts nothing");
}

#[tokio::test]
async fn solve_runs_the_solver_stores_the_run_and_returns_its_trace() {
    use std::sync::Arc;
    use toolsmith_llm::testing::{Reply, ScriptedLlm};
    use toolsmith_solve::{AgentSettings, React, ReactSettings, Runtime, Solver, Tracer};

    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs.db");
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call(
            "get_search_movie_for_tmdb",
            json!({"query": "Dune"}).to_string(),
        ),
        Reply::tool_call(
            "Finish",
            json!({"return_type": "give_answer", "final_answer": "Dune (2021)"}).to_string(),
        ),
    ]));
    // The solver's own executor: the service's executor is not reachable from here, so the
    // factory builds a simulator over the same catalog.
    let catalog = toolsmith_catalog::testing::tmdb_catalog();
    let book = Arc::new(toolsmith_exec::ApiBook::from_catalog(&catalog));
    let executor: Arc<dyn toolsmith_exec::Executor> = Arc::new(toolsmith_exec::Validated::new(
        toolsmith_exec::Simulator::new(Arc::clone(&book)),
        Arc::clone(&book),
        toolsmith_exec::Provenance::Simulated,
    ));
    let factory: toolsmith_serve::MakeSolver = Arc::new({
        let llm = Arc::clone(&llm);
        move || -> Box<dyn Solver> {
            Box::new(React::new(
                Runtime {
                    llm: llm.clone(),
                    executor: Arc::clone(&executor),
                    retriever: None,
                    book: Arc::clone(&book),
                    settings: AgentSettings::default(),
                    tracer: Tracer::new(),
                    jq: None,
                },
                ReactSettings::PAPER,
            ))
        }
    });
    let server = start(
        service_with(
            ServeSettings::default(),
            Duration::ZERO,
            Some(factory),
            Some(runs),
        ),
        None,
    )
    .await;
    let http = client();
    let (status, solved) = json_of(
        http.post(server.url("/v1/solve"))
            .json(&json!({"query": "search the movie Dune", "tools": 3}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{solved}");
    assert_eq!(solved["finish"], "answered");
    assert_eq!(solved["answer"], "Dune (2021)");
    assert!(
        solved["offered"]
            .as_array()
            .unwrap()
            .iter()
            .any(|id| id == "tmdb/get_search_movie"),
        "{solved}"
    );
    let trace = solved["trace"].as_array().unwrap();
    assert!(trace.len() >= 3, "{solved}");
    let run_id = solved["run_id"].as_i64().unwrap();
    let (status, stored) = json_of(
        http.get(server.url(&format!("/v1/runs/{run_id}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        stored["trace"].as_array().unwrap().len(),
        trace.len(),
        "the stored trace is the returned one"
    );
    let (status, bad) = json_of(http.get(server.url("/v1/runs/abc")).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(bad["error"]["code"], "bad_request");
    llm.assert_finished();
}

#[tokio::test]
async fn a_client_that_leaves_mid_call_does_not_stop_the_server() {
    let gate = Gate::new();
    let server = start(held_service(gate.clone()), None).await;
    let http = client();
    let call = json!({"id": "tmdb/get_search_movie", "arguments": {"query": "Dune"}});
    let leaving = tokio::spawn({
        let request = http.post(server.url("/v1/call")).json(&call);
        async move { request.send().await }
    });
    gate.started().await;
    leaving.abort(); // the connection closes with the call in flight
    assert!(leaving.await.unwrap_err().is_cancelled());
    gate.release(2);
    let (status, called) = json_of(
        http.post(server.url("/v1/call"))
            .json(&call)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(called["ok"], true);
}
