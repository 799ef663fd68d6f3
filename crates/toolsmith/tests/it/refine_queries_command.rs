//! `toolsmith refine --method queries` end to end: a loopback OpenAI-compatible server plays
//! the query writer and the embedding endpoint; a second run replays the cache.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::{Workspace, serve_loopback, shared};

const REQUESTS: [&str; 3] = [
    "Find the film Dune",
    "Which movies are named Alien",
    "Look up Heat from 1995",
];

async fn chat(
    calls: axum::extract::State<Arc<AtomicUsize>>,
    Json(request): Json<Value>,
) -> Json<Value> {
    calls.fetch_add(1, Ordering::SeqCst);
    let prompt = request["messages"].to_string();
    let requests: Vec<Value> = if prompt.contains("Imagine people talking to an assistant") {
        REQUESTS
            .iter()
            .map(|r| json!({"text": r, "calls": [{"arguments": {"query": r.rsplit(' ').next()}}]}))
            .collect()
    } else {
        Vec::new()
    };
    let reply = json!({ "requests": requests });
    Json(
        json!({"id": "x", "object": "chat.completion", "model": request["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.to_string()}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 60, "total_tokens": 360}}),
    )
}

/// 64 dimensions, a bag of hashed words: texts sharing no words are far apart.
async fn embeddings(Json(request): Json<Value>) -> Json<Value> {
    let data: Vec<Value> = request["input"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let mut v = vec![0.0f32; 64];
            for word in text.as_str().unwrap().split_whitespace() {
                let h: usize = word.to_lowercase().bytes().map(usize::from).sum();
                v[h % 64] += 1.0;
            }
            json!({"index": i, "embedding": v})
        })
        .collect();
    Json(json!({ "data": data }))
}

#[tokio::test(flavor = "multi_thread")]
async fn refine_queries_stores_the_requests_as_a_doc_version_and_replays_from_the_cache() {
    let calls = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .route("/v1/embeddings", post(embeddings))
        .with_state(Arc::clone(&calls));
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!(
            "[llm]\nbase_url = \"http://{addr}/v1\"\nmodel = \"loopback-model\"\n\
             [retrieve]\nembedder = \"http\"\nembedding_dimensions = 64\n\
             [refine.queries]\ncount = 3\n"
        ),
    )
    .unwrap();
    let api = "tmdb/get_search_movie";
    let counted = Arc::clone(&calls);
    tokio::task::spawn_blocking(move || {
        let dry = ws.ok(&["refine", "--method", "queries", "--apis", api, "--dry-run"]);
        // Three asks at most (no tool description), each with two repairs.
        assert!(
            dry.contains("queries on 1 APIs of 1 tools: at most 9 LLM calls (3 requests"),
            "{dry}"
        );
        assert_eq!(
            counted.load(Ordering::SeqCst),
            0,
            "a dry run spends nothing"
        );

        let out = ws.ok(&["refine", "--method", "queries", "--apis", api]);
        assert!(
            out.contains("1 APIs refined (1 new `queries` doc versions)"),
            "{out}"
        );
        assert_eq!(counted.load(Ordering::SeqCst), 1, "one writer request");

        let history: Value =
            serde_json::from_str(&ws.ok(&["docs", "history", api, "--json"])).unwrap();
        let versions = history["versions"].as_array().unwrap();
        let original = versions.iter().find(|v| v["label"] == "original").unwrap();
        let queries = versions.iter().find(|v| v["label"] == "queries").unwrap();
        assert_eq!(queries["active"], false, "refine never activates");
        assert_eq!(queries["doc"]["queries"], json!(REQUESTS));
        assert_eq!(
            queries["doc"]["description"], original["doc"]["description"],
            "the description is kept"
        );
        let text = ws.ok(&["docs", "history", api, "--rounds"]);
        assert!(
            text.contains("    request: Look up Heat from 1995")
                && text.contains("request written: Find the film Dune"),
            "{text}"
        );
        let diff = ws.ok(&["docs", "diff", api, "original", "queries"]);
        assert!(diff.contains("{+\nRequest: Find the film Dune"), "{diff}");

        // A new run over the same API replays the writer from the cache: no model call.
        let again = ws.ok(&[
            "refine", "--method", "queries", "--apis", api, "--cache", "replay",
        ]);
        assert!(
            again.contains("1 APIs refined") && again.contains("0 LLM calls, 0 tokens"),
            "{again}"
        );
        assert_eq!(
            counted.load(Ordering::SeqCst),
            1,
            "the replay asked no model"
        );
        let after: Value =
            serde_json::from_str(&ws.ok(&["docs", "history", api, "--json"])).unwrap();
        assert_eq!(
            after["versions"].as_array().unwrap().len(),
            versions.len(),
            "the same requests are no new version"
        );
    })
    .await
    .unwrap();
}
