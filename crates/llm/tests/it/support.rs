//! A loopback OpenAI-compatible server that answers from a queue of canned responses and
//! records every request body.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use toolsmith_llm::{LlmSettings, RetrySettings, Secret};

/// The key the tests send; it must never show up in an error.
pub(crate) const TEST_KEY: &str = "sk-test-do-not-print-0123456789";

/// One canned HTTP response.
#[derive(Clone, Debug)]
pub(crate) struct Canned {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
    pub delay: Duration,
}

impl Canned {
    pub(crate) fn json(body: Value) -> Self {
        Self {
            status: 200,
            headers: vec![("content-type", "application/json".into())],
            body: body.to_string(),
            delay: Duration::ZERO,
        }
    }
    pub(crate) fn status(status: u16, body: &str) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: body.into(),
            delay: Duration::ZERO,
        }
    }
    pub(crate) fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.into()));
        self
    }
    pub(crate) fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// A chat completion with text.
pub(crate) fn completion(text: &str) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    })
}

/// A chat completion with tool calls `(id, name, raw arguments)`.
pub(crate) fn tool_completion(calls: &[(&str, &str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
        .collect();
    json!({
        "id": "chatcmpl-2", "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 9}
    })
}

#[derive(Default)]
struct Shared {
    script: Mutex<VecDeque<Canned>>,
    fallback: Mutex<Option<Canned>>,
    bodies: Mutex<Vec<Value>>,
    auth: Mutex<Vec<Option<String>>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

/// The running server; it stops with the test's runtime.
pub(crate) struct MockServer {
    pub base_url: String,
    shared: Arc<Shared>,
}

impl MockServer {
    /// Serves `script` in order, then 418 for anything more.
    pub(crate) async fn start(script: impl IntoIterator<Item = Canned>) -> Self {
        let shared = Arc::new(Shared {
            script: Mutex::new(script.into_iter().collect()),
            ..Shared::default()
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(handle))
            .route("/v1/embeddings", post(handle))
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("local addr");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            base_url: format!("http://{addr}/v1"),
            shared,
        }
    }

    /// Answers with `canned` whenever the script is empty.
    pub(crate) fn always(self, canned: Canned) -> Self {
        *self.shared.fallback.lock().unwrap() = Some(canned);
        self
    }

    /// Request bodies received, in order.
    pub(crate) fn requests(&self) -> Vec<Value> {
        self.shared.bodies.lock().unwrap().clone()
    }

    /// Number of requests received.
    pub(crate) fn hits(&self) -> usize {
        self.shared.bodies.lock().unwrap().len()
    }

    /// `Authorization` headers received.
    pub(crate) fn auth_headers(&self) -> Vec<Option<String>> {
        self.shared.auth.lock().unwrap().clone()
    }

    /// Most requests seen in flight at once.
    pub(crate) fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }

    /// Settings pointing at this server, with millisecond backoff.
    pub(crate) fn settings(&self) -> LlmSettings {
        LlmSettings {
            base_url: self.base_url.clone(),
            api_key: Some(Secret::new(TEST_KEY)),
            model: "test-model".into(),
            request_timeout_ms: 5_000,
            connect_timeout_ms: 1_000,
            retry: RetrySettings {
                max_retries: 3,
                initial_backoff_ms: 1,
                max_backoff_ms: 5,
                max_retry_after_ms: 5_000,
            },
            ..LlmSettings::default()
        }
    }
}

async fn handle(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    shared.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let parsed = serde_json::from_slice(&body).unwrap_or(Value::Null);
    shared.bodies.lock().unwrap().push(parsed);
    shared.auth.lock().unwrap().push(
        headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
    );
    let next = shared.script.lock().unwrap().pop_front();
    let canned = next
        .or_else(|| shared.fallback.lock().unwrap().clone())
        .unwrap_or_else(|| Canned::status(418, "mock server: script exhausted"));
    if !canned.delay.is_zero() {
        tokio::time::sleep(canned.delay).await;
    }
    shared.in_flight.fetch_sub(1, Ordering::SeqCst);
    let mut response_headers = HeaderMap::new();
    for (name, value) in &canned.headers {
        response_headers.insert(
            HeaderName::from_static(name),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    let status = StatusCode::from_u16(canned.status).unwrap();
    (status, response_headers, canned.body).into_response()
}
