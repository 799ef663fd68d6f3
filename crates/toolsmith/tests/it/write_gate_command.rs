//! An agent against a live API may only read unless the user allows writes:
//! `solve --mode live` with a loopback model that tries a DELETE on a loopback
//! API. Refused, the model reads why in its next prompt and the server never
//! sees the call; with `--allow-write` it goes through.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::routing::{delete, post};
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::{Workspace, completion, serve_loopback};

type Seen = Arc<Mutex<Vec<Value>>>;

/// A model that deletes item 1, then answers with what the tool said.
async fn chat(seen: axum::extract::State<Seen>, Json(request): Json<Value>) -> Json<Value> {
    seen.lock().unwrap().push(request.clone());
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let answered = messages.iter().any(|m| m["role"] == "tool");
    let tool = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["function"]["name"].as_str())
        .find(|name| name.starts_with("delete"))
        .unwrap_or("missing")
        .to_owned();
    let (name, arguments) = if answered {
        (
            "Finish".to_owned(),
            json!({"return_type": "give_answer", "final_answer": "done"}),
        )
    } else {
        (tool, json!({"id": "1"}))
    };
    let message = json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": name, "arguments": arguments.to_string()}}]});
    completion(&request, message, "tool_calls", (50, 5))
}

fn spec(api: std::net::SocketAddr) -> Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": format!("http://{api}")}],
        "paths": {"/items/{id}": {"delete": {
            "operationId": "delete_item",
            "summary": "Delete an item",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "deleted"}}
        }}}
    })
}

/// The tool message the model was sent after its call.
fn tool_message(seen: &Seen) -> String {
    let requests = seen.lock().unwrap().clone();
    let last = requests.last().unwrap();
    last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or("").to_owned())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_live_agents_delete_is_refused_unless_allowed() {
    let deletes = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&deletes);
    let api = Router::new().route(
        "/items/{id}",
        delete(move || {
            let counter = Arc::clone(&counter);
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                Json(json!({"deleted": true}))
            }
        }),
    );
    let api_addr = serve_loopback(api).await;
    let seen: Seen = Arc::default();
    let llm = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(Arc::clone(&seen));
    let llm_addr = serve_loopback(llm).await;

    let ws = Workspace::new();
    let spec_path = ws.dir.path().join("shop.json");
    std::fs::write(&spec_path, spec(api_addr).to_string()).unwrap();
    ws.ok(&["import", spec_path.to_str().unwrap(), "--tool", "shop"]);
    ws.use_llm(llm_addr);
    let solve = |extra: &'static [&'static str]| {
        let mut args = vec!["solve", "Delete item 1", "--tools", "shop/delete_item"];
        args.extend(["--mode", "live"]);
        args.extend(extra);
        let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        move |ws: Workspace| {
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = ws.run(&refs);
            (out, ws)
        }
    };

    let run = solve(&[]);
    let (out, ws) = tokio::task::spawn_blocking(move || run(ws)).await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        deletes.load(Ordering::SeqCst),
        0,
        "the server never got the DELETE"
    );
    let shown = tool_message(&seen);
    assert!(shown.contains("not_allowed"), "{shown}");
    assert!(
        shown.contains("--allow-write shop") && shown.contains("allow_writes"),
        "the model is told how writes are allowed: {shown}"
    );

    seen.lock().unwrap().clear();
    let run = solve(&["--allow-write", "shop"]);
    let (out, _ws) = tokio::task::spawn_blocking(move || run(ws)).await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        deletes.load(Ordering::SeqCst),
        1,
        "allowed, it went through"
    );
    let shown = tool_message(&seen);
    assert!(shown.contains("deleted"), "{shown}");
    assert!(!shown.contains("not_allowed"), "{shown}");
}
