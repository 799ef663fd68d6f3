//! `call --mode simulate` on an API with nothing to simulate from: with an LLM endpoint
//! configured, the model invents the response (marked `simulated+llm`), and the LLM cache replays
//! it; without one, the call is `unsupported`. With `[exec.simulate] fill = "llm"`, the model
//! fills the values of every schema-valid response the same way.

use std::sync::{Arc, Mutex};

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::{Workspace, serve_loopback, text_completion};

type Seen = Arc<Mutex<Vec<Value>>>;

async fn chat(seen: axum::extract::State<Seen>, Json(request): Json<Value>) -> Json<Value> {
    seen.lock().unwrap().push(request.clone());
    text_completion(&request, "{\"city\": \"Oslo\", \"temp_c\": 4}", (50, 9))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_configured_llm_invents_responses_once_and_the_cache_replays_them() {
    let ws = Workspace::new();
    ws.import_weather();
    let call = [
        "call",
        "weather/current_weather",
        "--args",
        r#"{"city": "Oslo"}"#,
    ];

    let without: Value = serde_json::from_slice(&ws.run(&call).stdout).unwrap();
    assert_eq!(without["kind"], "unsupported", "{without}");

    let seen: Seen = Arc::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(seen.clone());
    let addr = serve_loopback(app).await;
    ws.use_llm(addr);
    let run = move |ws: Workspace| {
        let out = ws.ok(&call);
        (serde_json::from_str::<Value>(&out).unwrap(), ws)
    };
    let (first, ws) = tokio::task::spawn_blocking(move || run(ws)).await.unwrap();
    assert_eq!(first["provenance"], "simulated+llm", "{first}");
    assert_eq!(first["body"]["value"], json!({"city": "Oslo", "temp_c": 4}));
    let (again, _ws) = tokio::task::spawn_blocking(move || run(ws)).await.unwrap();
    assert_eq!(again["body"], first["body"]);
    let requests = seen.lock().unwrap();
    assert_eq!(
        requests.len(),
        1,
        "the second call was answered from the LLM cache"
    );
    assert!(
        requests[0].to_string().contains("Oslo"),
        "the model saw the arguments"
    );
}

const SPEC: &str = r#"{"openapi": "3.0.0", "info": {"title": "Weather", "version": "1"},
  "paths": {"/current": {"get": {"summary": "The weather now in a city.",
    "parameters": [{"name": "city", "in": "query", "required": true, "schema": {"type": "string"}}],
    "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
      "type": "object", "required": ["city", "temp_c"],
      "properties": {"city": {"type": "string"}, "temp_c": {"type": "number"}}}}}}}}}}}"#;

#[tokio::test(flavor = "multi_thread")]
async fn fill_llm_has_the_model_write_a_schema_valid_response_once() {
    let ws = Workspace::new();
    let spec = ws.dir.path().join("weather.json");
    std::fs::write(&spec, SPEC).unwrap();
    ws.ok(&["import", spec.to_str().unwrap()]);
    let call = [
        "call",
        "weather/get_current",
        "--args",
        r#"{"city": "Oslo"}"#,
    ];
    let fill = "[exec.simulate]\nfill = \"llm\"\n";
    // Asked for without a model: a clear error, not a silent schema fill.
    std::fs::write(ws.dir.path().join("toolsmith.toml"), fill).unwrap();
    let refused = ws.run(&call);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("no LLM is configured"), "{stderr}");

    let seen: Seen = Arc::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(seen.clone());
    let addr = serve_loopback(app).await;
    ws.use_llm(addr);
    let config = ws.dir.path().join("toolsmith.toml");
    let llm = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{llm}{fill}")).unwrap();
    let run = move |ws: Workspace| {
        let out = ws.ok(&call);
        (serde_json::from_str::<Value>(&out).unwrap(), ws)
    };
    let (first, ws) = tokio::task::spawn_blocking(move || run(ws)).await.unwrap();
    assert_eq!(first["provenance"], "simulated+llm", "{first}");
    assert_eq!(first["body"]["value"], json!({"city": "Oslo", "temp_c": 4}));
    let (again, _ws) = tokio::task::spawn_blocking(move || run(ws)).await.unwrap();
    assert_eq!(again["body"], first["body"]);
    let requests = seen.lock().unwrap();
    assert_eq!(
        requests.len(),
        1,
        "the rerun was answered from the LLM cache"
    );
    let prompt = requests[0].to_string();
    assert!(
        prompt.contains("Draft response"),
        "the model filled a draft: {prompt}"
    );
}
