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

/// Nine requests sharing no words, three for each API a batched prompt numbers.
const BATCHED: [[&str; 3]; 3] = [
    [
        "Find the film Dune",
        "which movies are named Alien",
        "Heat from 1995 please",
    ],
    [
        "Who is the actress Sigourney Weaver",
        "people called Keanu",
        "look up director Denis Villeneuve",
    ],
    [
        "Everything about movie 603",
        "runtime of title 438631",
        "budget for picture 949",
    ],
];

/// Answers the batched writer: each API the prompt numbers gets its three requests.
async fn batched_chat(
    calls: axum::extract::State<Arc<AtomicUsize>>,
    Json(request): Json<Value>,
) -> Json<Value> {
    calls.fetch_add(1, Ordering::SeqCst);
    let prompt = request["messages"].to_string();
    let mut reply = serde_json::Map::new();
    for (n, texts) in BATCHED.iter().enumerate() {
        if prompt.contains(&format!("API {} (write", n + 1)) {
            reply.insert((n + 1).to_string(), json!(texts));
        }
    }
    Json(
        json!({"id": "x", "object": "chat.completion", "model": request["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": Value::Object(reply).to_string()}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 60, "total_tokens": 360}}),
    )
}

/// The numbers in "at most N LLM calls (M requests" of a dry run.
fn planned_requests(dry: &str) -> u64 {
    let after = dry.split(" LLM calls (").nth(1).unwrap();
    after.split(' ').next().unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn refine_queries_reads_apis_per_call_from_the_config_and_asks_once_per_chunk() {
    let calls = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route("/v1/chat/completions", post(batched_chat))
        .route("/v1/embeddings", post(embeddings))
        .with_state(Arc::clone(&calls));
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    let config = move |apis_per_call: usize| {
        format!(
            "[llm]\nbase_url = \"http://{addr}/v1\"\nmodel = \"loopback-model\"\n\
             [retrieve]\nembedder = \"http\"\nembedding_dimensions = 64\n\
             [refine.queries]\ncount = 3\napis_per_call = {apis_per_call}\n"
        )
    };
    let toml = ws.dir.path().join("toolsmith.toml");
    let apis = "tmdb/get_movie_movie_id,tmdb/get_search_movie,tmdb/get_search_person";
    let counted = Arc::clone(&calls);
    tokio::task::spawn_blocking(move || {
        std::fs::write(&toml, config(1)).unwrap();
        let per_api = planned_requests(&ws.ok(&[
            "refine",
            "--method",
            "queries",
            "--apis",
            "tmdb",
            "--dry-run",
        ]));
        std::fs::write(&toml, config(3)).unwrap();
        let batched = planned_requests(&ws.ok(&[
            "refine",
            "--method",
            "queries",
            "--apis",
            "tmdb",
            "--dry-run",
        ]));
        // Three asks per API, or per chunk of three APIs (the last chunk may be shorter).
        assert_eq!(
            batched,
            (per_api / 3).div_ceil(3) * 3,
            "{per_api} vs {batched}"
        );

        std::fs::write(&toml, config(0)).unwrap();
        let refused = ws.run(&["refine", "--method", "queries", "--apis", apis]);
        assert!(!refused.status.success());
        assert!(
            String::from_utf8_lossy(&refused.stderr).contains("apis_per_call"),
            "{}",
            String::from_utf8_lossy(&refused.stderr)
        );

        std::fs::write(&toml, config(3)).unwrap();
        let out = ws.ok(&["refine", "--method", "queries", "--apis", apis]);
        assert!(
            out.contains("3 APIs refined (3 new `queries` doc versions)"),
            "{out}"
        );
        assert_eq!(
            counted.load(Ordering::SeqCst),
            1,
            "one request for the three APIs"
        );
        // Sorted by id, the chunk numbers get_movie_movie_id 1, get_search_movie 2 and
        // get_search_person 3.
        for (api, texts) in apis.split(',').zip(BATCHED) {
            let history: Value =
                serde_json::from_str(&ws.ok(&["docs", "history", api, "--json"])).unwrap();
            let versions = history["versions"].as_array().unwrap();
            let queries = versions.iter().find(|v| v["label"] == "queries").unwrap();
            assert_eq!(queries["doc"]["queries"], json!(texts), "{api}");
        }
    })
    .await
    .unwrap();
}

/// A spec of one tool titled `title` with a GET operation per path.
fn small_tool(title: &str, paths: &[&str]) -> String {
    let paths: serde_json::Map<String, Value> = paths
        .iter()
        .map(|p| {
            (
                (*p).to_owned(),
                json!({"get": {"summary": format!("List the {p}")}}),
            )
        })
        .collect();
    json!({"openapi": "3.0.0", "info": {"title": title, "version": "1"}, "paths": paths})
        .to_string()
}

#[test]
fn refine_queries_reads_pack_tools_from_the_config_and_counts_a_packed_chunk_once() {
    let ws = Workspace::new();
    // Three tools of 2, 1 and 4 APIs: five a request packs the first two into one.
    let tools: [(&str, &[&str]); 3] = [
        ("Aviary", &["/birds", "/cages"]),
        ("Bakery", &["/loaves"]),
        ("Circus", &["/acts", "/clowns", "/tents", "/tickets"]),
    ];
    for (title, paths) in tools {
        let file = ws.dir.path().join(format!("{title}.json"));
        std::fs::write(&file, small_tool(title, paths)).unwrap();
        ws.ok(&["import", file.to_str().unwrap()]);
    }
    let toml = ws.dir.path().join("toolsmith.toml");
    let dry_run = |pack_tools: bool| {
        let config =
            format!("[refine.queries]\ncount = 3\napis_per_call = 5\npack_tools = {pack_tools}\n");
        std::fs::write(&toml, config).unwrap();
        planned_requests(&ws.ok(&["refine", "--method", "queries", "--dry-run"]))
    };
    // Three asks per chunk.
    assert_eq!(dry_run(false), 9, "a chunk per tool");
    assert_eq!(dry_run(true), 6, "Aviary with Bakery, then Circus");
}
