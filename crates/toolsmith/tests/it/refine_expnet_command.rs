//! `toolsmith graph build` then `toolsmith refine --method expnet` end to end: a loopback
//! OpenAI-compatible server writes each dependency edge's request, plays a lost actor and
//! writes insights.

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::{Workspace, serve_loopback, shared};

const GUIDANCE: &str = "Call it with ids from the search functions.";

/// The text between `start` and the next `end` in `text`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text.find(start).map_or(0, |i| i + start.len());
    let rest = &text[from..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

async fn chat(Json(request): Json<Value>) -> Json<Value> {
    let last = request["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_owned();
    let reply = if last.contains("may supply") {
        let from = between(&last, "The output of function ", " may supply");
        let to = between(&last, " to function ", ".\n");
        json!({"queries": [{"query": "details of the film Dune", "tools": [from, to]}]})
    } else if last.contains("User request:") {
        json!({"tools": []})
    } else {
        json!({"differences": "d", "dependencies": "e", "typical_queries": ["q"], "guidance": GUIDANCE})
    };
    Json(
        json!({"id": "x", "object": "chat.completion", "model": request["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.to_string()}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn refine_expnet_tries_edges_and_stores_expnet_doc_versions() {
    let app = Router::new().route("/v1/chat/completions", post(chat));
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!("[llm]\nbase_url = \"http://{addr}/v1\"\nmodel = \"loopback-model\"\n"),
    )
    .unwrap();
    let ws = tokio::task::spawn_blocking(move || {
        let missing = ws.run(&["refine", "--method", "expnet"]);
        let stderr = String::from_utf8_lossy(&missing.stderr);
        assert!(
            !missing.status.success() && stderr.contains("graph build"),
            "{stderr}"
        );
        ws.ok(&["graph", "build", "--no-similarity"]);
        let out = ws.ok(&[
            "refine",
            "--method",
            "expnet",
            "--iterations",
            "1",
            "--max-try",
            "2",
        ]);
        assert!(
            out.contains("2 edges tried, 0/2 requests answered right"),
            "{out}"
        );
        assert!(!out.contains(" 0 new `expnet` doc versions"), "{out}");

        let history: Value =
            serde_json::from_str(&ws.ok(&["docs", "history", "tmdb/get_search_movie", "--json"]))
                .unwrap();
        let versions = history["versions"].as_array().unwrap();
        let expnet = versions.iter().find(|v| v["label"] == "expnet").unwrap();
        assert!(
            expnet["doc"]["description"]
                .as_str()
                .unwrap()
                .starts_with(GUIDANCE)
        );
        assert_eq!(expnet["active"], false, "refine never activates");

        let again = ws.ok(&["refine", "--resume"]);
        assert!(
            again.contains("0 edges tried") && again.contains(" 0 new `expnet` doc versions"),
            "{again}"
        );
        ws
    })
    .await
    .unwrap();
    drop(ws);
}
