//! `/mcp` as raw HTTP: the session cap, closing a session, and the protocol details a client
//! relies on (JSON 413 for a chunked body, -32700 for broken JSON, -32602 for bad params).

use reqwest::StatusCode;
use serde_json::{Value, json};
use toolsmith_serve::{HttpOptions, ServeSettings};

use crate::http::{Server, chunked_post, client, json_of, start_with};
use crate::service;

async fn mcp_server(settings: ServeSettings) -> Server {
    let options = HttpOptions {
        mcp: true,
        ..HttpOptions::default()
    };
    start_with(service(settings), options).await
}

fn post(server: &Server, session: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
    let mut request = client()
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(body);
    if let Some(id) = session {
        request = request.header("mcp-session-id", id);
    }
    request
}

/// Opens a session; its id, or the refusal.
async fn initialize(server: &Server) -> Result<String, reqwest::Response> {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}});
    let response = post(server, None, &init).send().await.unwrap();
    if response.status() != StatusCode::OK {
        return Err(response);
    }
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = post(server, Some(&id), &initialized).send().await.unwrap();
    assert_eq!(accepted.status(), StatusCode::ACCEPTED);
    Ok(id)
}

async fn sessions(server: &Server) -> u64 {
    let (_, health) = json_of(client().get(server.url("/healthz")).send().await.unwrap()).await;
    health["mcp_sessions"].as_u64().unwrap()
}

async fn delete(server: &Server, id: &str) -> StatusCode {
    client()
        .delete(server.url("/mcp"))
        .header("mcp-session-id", id)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn sessions_past_the_cap_are_refused_until_one_ends() {
    let server = mcp_server(ServeSettings {
        max_sessions: 2,
        session_idle_secs: 30,
        ..ServeSettings::default()
    })
    .await;
    let first = initialize(&server).await.unwrap();
    initialize(&server).await.unwrap();
    assert_eq!(sessions(&server).await, 2);
    let refused = initialize(&server).await.unwrap_err();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(refused.headers()["retry-after"], "30");
    let (_, body) = json_of(refused).await;
    assert_eq!(body["error"]["code"], "too_many_sessions");
    // Ending a session (204, as clients expect) makes room for a new one.
    assert_eq!(delete(&server, &first).await, StatusCode::NO_CONTENT);
    assert_eq!(sessions(&server).await, 1);
    initialize(&server).await.unwrap();
    assert_eq!(sessions(&server).await, 2);
    // The ended session is gone, and says so in JSON.
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let (status, gone) = json_of(post(&server, Some(&first), &ping).send().await.unwrap()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(gone["error"]["code"], "unknown_session");
}

#[tokio::test]
async fn protocol_errors_are_answered_as_json_rpc() {
    let server = mcp_server(ServeSettings {
        max_body_bytes: 4096,
        ..ServeSettings::default()
    })
    .await;
    let session = initialize(&server).await.unwrap();
    let broken = client()
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .body("{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": ")
        .send()
        .await
        .unwrap();
    let (status, parse) = json_of(broken).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(parse["error"]["code"], -32700, "{parse}");

    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "call_tool", "arguments": [1, 2]}});
    let (_, params) = json_of(post(&server, Some(&session), &call).send().await.unwrap()).await;
    assert_eq!(params["error"]["code"], -32602, "{params}");
    assert_eq!(params["id"], 4);

    let huge = json!({"jsonrpc": "2.0", "id": 5, "method": "ping",
        "params": {"pad": "x".repeat(10_000)}});
    let raw = chunked_post(server.addr, "/mcp", &huge.to_string()).await;
    assert!(raw.starts_with("HTTP/1.1 413"), "{raw}");
    assert!(raw.contains("payload_too_large"), "{raw}");
    // And the server still serves the session.
    let ping = json!({"jsonrpc": "2.0", "id": 6, "method": "ping"});
    let alive = post(&server, Some(&session), &ping).send().await.unwrap();
    assert_eq!(alive.status(), StatusCode::OK);
}

#[tokio::test]
async fn ending_a_session_it_does_not_have_answers_404() {
    let server = mcp_server(ServeSettings::default()).await;
    let session = initialize(&server).await.unwrap();
    for fake in ["not-a-session", ""] {
        let response = client()
            .delete(server.url("/mcp"))
            .header("mcp-session-id", fake)
            .send()
            .await
            .unwrap();
        let (status, body) = json_of(response).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{fake:?}");
        assert_eq!(body["error"]["code"], "unknown_session");
    }
    // The real session was not touched, and no header at all is a bad request.
    assert_eq!(sessions(&server).await, 1);
    let bare = client().delete(server.url("/mcp")).send().await.unwrap();
    assert_eq!(bare.status(), StatusCode::BAD_REQUEST);
    assert_eq!(delete(&server, &session).await, StatusCode::NO_CONTENT);
    assert_eq!(delete(&server, &session).await, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_client_that_accepts_anything_is_served() {
    let server = mcp_server(ServeSettings::default()).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}});
    for accept in [None, Some("*/*"), Some("text/html, */*;q=0.8")] {
        let mut request = client().post(server.url("/mcp")).json(&init);
        if let Some(accept) = accept {
            request = request.header("accept", accept);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{accept:?}");
        assert!(response.headers().contains_key("mcp-session-id"));
    }
    // A fake session's stream is unknown (404), not "not acceptable".
    let stream = client()
        .get(server.url("/mcp"))
        .header("mcp-session-id", "fake")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), StatusCode::NOT_FOUND);
    // A list that leaves both out is still refused, as JSON.
    for accept in ["text/html", "*/*;q=0"] {
        let refused = client()
            .post(server.url("/mcp"))
            .header("accept", accept)
            .json(&init)
            .send()
            .await
            .unwrap();
        let (status, body) = json_of(refused).await;
        assert_eq!(status, StatusCode::NOT_ACCEPTABLE, "{accept}");
        assert_eq!(body["error"]["code"], "not_acceptable");
    }
}
