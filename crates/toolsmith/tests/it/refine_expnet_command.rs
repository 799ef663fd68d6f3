//! `toolsmith graph build` then `toolsmith refine --method expnet` end to end: a loopback
//! OpenAI-compatible server writes each dependency edge's request, plays a lost actor and
//! writes insights.

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::{Workspace, completion, serve_loopback, shared, text_completion};

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
    text_completion(&request, reply.to_string(), (100, 20))
}

#[tokio::test(flavor = "multi_thread")]
async fn refine_expnet_tries_edges_and_stores_expnet_doc_versions() {
    let app = Router::new().route("/v1/chat/completions", post(chat));
    let addr = serve_loopback(app).await;
    let ws = Workspace::tmdb_with_llm(addr);
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

/// Agent turns (requests offering functions) and selection-actor prompts seen by
/// [`executing_chat`].
static AGENT_TURNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static SELECTIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// As [`chat`], but a request offering functions is ReAct's turn: it finishes at once.
async fn executing_chat(Json(request): Json<Value>) -> Json<Value> {
    use std::sync::atomic::Ordering;
    let offers_functions = request["tools"].as_array().is_some_and(|t| !t.is_empty());
    if !offers_functions {
        let last = request["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
            .unwrap_or("");
        if last.contains("User request:") {
            SELECTIONS.fetch_add(1, Ordering::SeqCst);
        }
        return chat(Json(request)).await;
    }
    AGENT_TURNS.fetch_add(1, Ordering::SeqCst);
    let finish = json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": "call_finish", "type": "function", "function": {"name": "Finish",
        "arguments": json!({"return_type": "give_answer", "final_answer": "no idea"}).to_string()}}]});
    completion(&request, finish, "tool_calls", (100, 20))
}

/// `[refine.expnet] actor = "execute"`: ReAct answers each trial request (here calling
/// nothing, so every request is answered wrong); the selection prompt is never sent.
#[tokio::test(flavor = "multi_thread")]
async fn refine_expnet_with_the_execute_actor_runs_a_solver_per_request() {
    use std::sync::atomic::Ordering;
    let app = Router::new().route("/v1/chat/completions", post(executing_chat));
    let addr = serve_loopback(app).await;
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!(
            "[llm]\nbase_url = \"http://{addr}/v1\"\nmodel = \"loopback-model\"\n\
             [refine.expnet]\nactor = \"execute\"\n"
        ),
    )
    .unwrap();
    let ws = tokio::task::spawn_blocking(move || {
        ws.ok(&["graph", "build", "--no-similarity"]);
        let out = ws.ok(&[
            "refine",
            "--method",
            "expnet",
            "--iterations",
            "1",
            "--max-try",
            "2",
            // Both requests are the same text: the LLM cache would answer the second run.
            "--cache",
            "off",
        ]);
        assert!(
            out.contains("2 edges tried, 0/2 requests answered right"),
            "{out}"
        );
        ws
    })
    .await
    .unwrap();
    assert_eq!(
        AGENT_TURNS.load(Ordering::SeqCst),
        2,
        "one ReAct run per request"
    );
    assert_eq!(SELECTIONS.load(Ordering::SeqCst), 0);
    drop(ws);
}

/// `--apis` bounds a run: its dry run counts only the edges between those APIs and their
/// insights, and the run tries only those edges and writes only those APIs' insights.
#[tokio::test(flavor = "multi_thread")]
async fn refine_expnet_over_some_apis_estimates_and_runs_only_their_part_of_the_graph() {
    let app = Router::new().route("/v1/chat/completions", post(chat));
    let addr = serve_loopback(app).await;
    let ws = Workspace::tmdb_with_llm(addr);
    let ws = tokio::task::spawn_blocking(move || {
        ws.ok(&["graph", "build", "--no-similarity"]);
        let apis = "tmdb/get_search_movie,tmdb/get_movie_movie_id";
        let args = [
            "refine",
            "--method",
            "expnet",
            "--apis",
            apis,
            "--iterations",
            "1",
        ];
        let dry: Value =
            serde_json::from_str(&ws.ok(&[&args[..], &["--dry-run", "--json"]].concat())).unwrap();
        // One dependency edge (search -> details) with 5 requests answered by the selection
        // actor, and two reflections.
        assert_eq!(dry["apis"], 2, "{dry}");
        assert_eq!(dry["estimate"]["requests"], 1 + 5 + 2, "{dry}");
        // Each request may take two repairs of a malformed reply: the bound counts them.
        assert_eq!(dry["estimate"]["llm_calls"], 3 * (1 + 5 + 2), "{dry}");
        assert_eq!(dry["estimate"]["tool_calls"], 0, "{dry}");
        assert!(dry["estimate"]["tokens"].as_u64().unwrap() > 1000, "{dry}");

        let out = ws.ok(&args);
        assert!(
            out.contains("1 edges tried, 0/1 requests answered right"),
            "{out}"
        );
        assert!(out.contains(" 2 new `expnet` doc versions"), "{out}");
        let history: Value = serde_json::from_str(&ws.ok(&[
            "docs",
            "history",
            "tmdb/get_movie_movie_id_credits",
            "--json",
        ]))
        .unwrap();
        assert!(
            history["versions"]
                .as_array()
                .unwrap()
                .iter()
                .all(|v| v["label"] != "expnet"),
            "an API outside --apis gets no insight"
        );
        ws
    })
    .await
    .unwrap();
    drop(ws);
}
