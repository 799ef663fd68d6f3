//! `toolsmith solve` end to end: a loopback OpenAI-compatible server stands in
//! for the LLM, the simulated TMDB API for the tools.

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::routing::post;
use serde_json::{Value, json};

use crate::support::model::serve_with_state;
use crate::support::{Workspace, completion};

type Seen = Arc<Mutex<Vec<Value>>>;

/// Answers like a model that searches once, then finishes with the title it found.
async fn chat(seen: axum::extract::State<Seen>, Json(request): Json<Value>) -> Json<Value> {
    seen.lock().unwrap().push(request.clone());
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let tool_result = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or("").to_owned());
    let message = match tool_result {
        None => {
            json!({"role": "assistant", "content": "I will search for the movie.", "tool_calls": [{
            "id": "call_a", "type": "function",
            "function": {"name": "get_search_movie_for_tmdb", "arguments": "{\"query\": \"Dune\"}"}}]})
        }
        Some(result) => {
            let answer = if result.contains("Dune") {
                "Found Dune"
            } else {
                "Not found"
            };
            json!({"role": "assistant", "content": null, "tool_calls": [{
                "id": "call_b", "type": "function",
                "function": {"name": "Finish", "arguments": json!({"return_type": "give_answer", "final_answer": answer}).to_string()}}]})
        }
    };
    completion(&request, message, "tool_calls", (100, 10))
}

#[tokio::test(flavor = "multi_thread")]
async fn solve_runs_an_agent_against_a_loopback_llm_and_the_simulated_api() {
    let (addr, seen) = serve_with_state::<Seen>("/v1/chat/completions", post(chat)).await;
    let ws = Workspace::tmdb_with_llm(addr);
    let trace = ws.dir.path().join("trace.jsonl");
    let trace_arg = trace.to_str().unwrap().to_owned();
    let args: Vec<String> = [
        "solve",
        "Find the movie Dune",
        "--tools",
        "tmdb/get_search_movie,tmdb/get_movie_movie_id",
        "--trace",
        &trace_arg,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let run = move |ws: Workspace| {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ws.run(&refs);
        (out, ws)
    };
    let run_again = run.clone();
    let (out, ws) = tokio::task::spawn_blocking(move || run(ws)).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}\n{}",
        stdout,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.trim(),
        "Found Dune",
        "the simulated search echoes the query into titles"
    );

    let requests = seen.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0]["model"], "loopback-model",
        "the model comes from toolsmith.toml"
    );
    let offered: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        offered,
        [
            "get_search_movie_for_tmdb",
            "get_movie_movie_id_for_tmdb",
            "Finish"
        ]
    );

    let events: Vec<Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["started", "llm_call", "tool_call", "llm_call", "finished"]
    );
    assert_eq!(events[2]["api"], "tmdb/get_search_movie");
    assert_eq!(events[2]["provenance"], "simulated");
    // The finished event and the summary count the calls by how they ended.
    assert_eq!(events[4]["calls"]["executed"], 1);
    assert_eq!(events[4]["calls"]["rejected"], 0);
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(summary.contains("1 API call executed"), "{summary}");

    // A second run is answered from the LLM cache: the server sees nothing new.
    let (again, _ws) = tokio::task::spawn_blocking(move || run_again(ws))
        .await
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(seen.lock().unwrap().len(), 2);
}
