//! `toolsmith bench run/list/show/compare` end to end: ReAct on the first 3 RestBench TMDB
//! queries against a loopback LLM that follows a per-query script and the simulated API; a
//! replay of the run from the LLM cache; the `--json` shapes of every subcommand.

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::routing::post;
use serde_json::{Value, json};

use crate::support::model::serve_with_state;
use crate::support::{Workspace, completion, json_of, shared};

pub(crate) type Seen = Arc<Mutex<Vec<Value>>>;

fn call(name: &str, arguments: Value) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": format!("call_{name}"), "type": "function",
        "function": {"name": name, "arguments": arguments.to_string()}}]})
}

/// Per query, by the number of tool results so far: Coppola and The Dark Knight follow their
/// gold paths; the top-rated query answers without calling anything (no CP).
pub(crate) async fn chat(
    seen: axum::extract::State<Seen>,
    Json(request): Json<Value>,
) -> Json<Value> {
    seen.lock().unwrap().push(request.clone());
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let user = messages
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_owned();
    let step = messages.iter().filter(|m| m["role"] == "tool").count();
    let finish = call(
        "Finish",
        json!({"return_type": "give_answer", "final_answer": "an answer"}),
    );
    let plan: Vec<Value> = if user.contains("Sofia Coppola") {
        vec![
            call(
                "get_search_person_for_tmdb",
                json!({"query": "Sofia Coppola"}),
            ),
            call(
                "get_person_person_id_movie_credits_for_tmdb",
                json!({"person_id": 1}),
            ),
        ]
    } else if user.contains("Dark Knight") {
        vec![
            call(
                "get_search_movie_for_tmdb",
                json!({"query": "The Dark Knight"}),
            ),
            call(
                "get_movie_movie_id_credits_for_tmdb",
                json!({"movie_id": 1}),
            ),
        ]
    } else {
        vec![]
    };
    let message = plan.get(step).cloned().unwrap_or(finish);
    completion(&request, message, "tool_calls", (100, 10))
}

/// The agent of [`chat`] on a loopback port, and a workspace whose model it is.
pub(crate) async fn tmdb_agent() -> (Workspace, Seen) {
    let (addr, seen) = serve_with_state("/v1/chat/completions", post(chat)).await;
    (Workspace::with_llm(addr), seen)
}

#[tokio::test(flavor = "multi_thread")]
async fn bench_runs_replays_and_reports_as_json() {
    let (ws, seen) = tmdb_agent().await;
    let data = shared("restbench-tmdb/..");
    let ws = tokio::task::spawn_blocking(move || {
        let run = |extra: &[&str]| json_of(&ws.bench_run("restbench-tmdb", &data, extra));
        let first = run(&["--name", "recorded"]);
        assert_eq!(first["run"], 1);
        assert_eq!(first["summary"]["queries"], 3);
        let cp = first["summary"]["cp"].as_f64().unwrap();
        assert!((cp - 200.0 / 3.0).abs() < 1e-9, "CP% {cp}");
        assert_eq!(first["summary"]["coverage"], 100.0);
        assert_eq!(first["spec"]["tools"], "all");
        assert_eq!(first["summary"]["llm_calls"], 3 + 3 + 1);

        // The replay needs no LLM: every answer comes from the cache.
        let replay = run(&["--name", "replayed", "--cache", "replay"]);
        assert_eq!(replay["run"], 2);
        for key in [
            "cp",
            "path_set",
            "path_f1",
            "success",
            "tokens",
            "llm_calls",
        ] {
            assert_eq!(replay["summary"][key], first["summary"][key], "{key}");
        }
        ws
    })
    .await
    .unwrap();
    assert_eq!(
        seen.lock().unwrap().len(),
        7,
        "the replay asked the LLM nothing"
    );

    // Resumed with a larger limit, run 1 solves only the 4th query (one LLM call).
    let data = shared("restbench-tmdb/..");
    let ws = tokio::task::spawn_blocking(move || {
        let resumed = json_of(&ws.ok(&[
            "bench",
            "run",
            "--resume",
            "1",
            "--limit",
            "4",
            "--json",
            "--data-dir",
            &data,
        ]));
        assert_eq!(resumed["run"], 1);
        assert_eq!(resumed["summary"]["queries"], 4);
        assert_eq!(resumed["spec"]["limit"], 4);
        ws
    })
    .await
    .unwrap();
    assert_eq!(
        seen.lock().unwrap().len(),
        8,
        "finished queries were not redone"
    );

    let list = json_of(&ws.ok(&["bench", "list", "--json"]));
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["recorded", "replayed"]);
    assert_eq!(list[0]["summary"]["queries"], 4, "{list:#}");
    assert!(list[0]["finished_ms"].is_i64());
    assert_eq!(list[0]["spec"]["solver"], "react");

    let show = json_of(&ws.ok(&["bench", "show", "1", "--json"]));
    assert_eq!(show["id"], 1);
    assert_eq!(show["summary"]["queries"], 4);
    let queries = show["queries"].as_array().unwrap();
    assert_eq!(queries.len(), 4);
    let q0 = queries.iter().find(|q| q["query_id"] == "0").unwrap();
    assert_eq!(q0["scores"]["correct_path"], true);
    assert_eq!(q0["scores"]["errors"], json!([]));
    let q2 = queries.iter().find(|q| q["query_id"] == "2").unwrap();
    assert_eq!(q2["scores"]["correct_path"], false);
    assert_eq!(q2["scores"]["errors"], json!(["incomplete_invocation"]));

    let one = json_of(&ws.ok(&["bench", "show", "1", "0", "--json"]));
    assert_eq!(one["query_id"], "0");
    let kinds: Vec<&str> = one["run"]["trace"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "started",
            "llm_call",
            "tool_call",
            "llm_call",
            "tool_call",
            "llm_call",
            "finished"
        ]
    );
    assert_eq!(one["run"]["trace"][2]["v"], 1);
    assert_eq!(one["run"]["trace"][2]["provenance"], "simulated");
    assert_eq!(
        one["record"]["calls"][0]["api"]["known"],
        "tmdb/get_search_person"
    );
    assert_eq!(one["offered"].as_array().unwrap().len(), 54);

    let compare = json_of(&ws.ok(&["bench", "compare", "1", "2", "--json"]));
    assert_eq!(compare["metrics"][0], "cp");
    assert_eq!(compare["runs"].as_array().unwrap().len(), 2);
    assert_eq!(compare["runs"][1]["name"], "replayed");
    assert_eq!(compare["runs"][0]["deltas"]["cp"], 0.0);
    let cp = |i: usize| compare["runs"][i]["values"]["cp"].as_f64().unwrap();
    let delta = compare["runs"][1]["deltas"]["cp"].as_f64().unwrap();
    assert!((delta - (cp(1) - cp(0))).abs() < 1e-9);
    assert!((cp(0) - 50.0).abs() < 1e-9, "2 of 4 after the resume");

    // The text forms print tables.
    let table = ws.ok(&["bench", "compare", "1", "2"]);
    assert!(table.lines().next().unwrap().contains("cp"), "{table}");
    let missing = ws.run(&["bench", "show", "9"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no benchmark run 9"));
}

/// `bench retrieval --coverage-k --misses`: coverage at any cut-off, and each query the
/// expanded offer misses with its missing gold APIs and their ranks.
#[test]
fn retrieval_reports_coverage_at_asked_cut_offs_and_lists_the_misses() {
    let ws = Workspace::new();
    let data = shared("restbench-tmdb/..");
    let report: Value = serde_json::from_str(&ws.ok(&[
        "bench",
        "retrieval",
        "--dataset",
        "restbench-tmdb",
        "--method",
        "bm25",
        "--coverage-k",
        "8,10",
        "--misses",
        "10",
        "--json",
        "--data-dir",
        &data,
    ]))
    .unwrap();
    let curve = report["coverage_curve"].as_array().unwrap();
    assert_eq!(curve.len(), 2);
    assert_eq!(curve[0]["k"], 8);
    assert!(curve[0]["offered"].as_f64().unwrap() >= 8.0);
    // K = 10 is also a standard cut-off: the two agree.
    assert_eq!(curve[1]["plain"], report["coverage@10"]);
    assert_eq!(curve[1]["expanded"], report["expanded"]["coverage@10"]);
    let misses = report["misses"].as_array().unwrap();
    let queries = report["queries"].as_f64().unwrap();
    let covered = report["expanded"]["coverage@10"].as_f64().unwrap();
    assert_eq!(
        misses.len() as f64,
        (queries * (1.0 - covered / 100.0)).round()
    );
    for miss in misses {
        let missing = miss["missing"].as_array().unwrap();
        assert!(!missing.is_empty(), "{miss}");
        // A missing gold API ranks below the ten kept, or not at all.
        assert!(
            missing
                .iter()
                .all(|m| m["rank"].is_null() || m["rank"].as_u64().unwrap() > 10),
            "{miss}"
        );
        // Each missing API's BM25 score parts, set against the top hit's, which outscores it
        // (no top hit: no API shares a term with the query, and the missing ones score 0).
        let top = &miss["top"]["explanation"];
        let score = |e: &Value| e["score"].as_f64().unwrap();
        let top_score = if miss["top"].is_null() {
            0.0
        } else {
            assert_eq!(top["method"], "bm25", "{miss}");
            score(top)
        };
        for m in missing {
            let why = &m["explanation"];
            assert_eq!(why["method"], "bm25", "{miss}");
            assert!(score(why) <= top_score, "{miss}");
            let terms: f64 = why["terms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["score"].as_f64().unwrap())
                .sum();
            assert!((terms - score(why)).abs() < 1e-3, "{miss}");
        }
    }
}

/// `--doc-version LABEL` on a named benchmark reaches the docs refined in `--db` (the
/// benchmark's own catalog is built in memory from its sources), and a label found nowhere is
/// an error, not a silent run on the original docs.
#[tokio::test(flavor = "multi_thread")]
async fn a_named_benchmark_runs_on_the_doc_version_refined_in_the_db() {
    let (ws, seen) = tmdb_agent().await;
    let data = shared("restbench-tmdb/..");
    let spec = shared("restbench-tmdb/restgpt/tmdb_oas.json");
    tokio::task::spawn_blocking(move || {
        let run = |label: &str| {
            ws.run(&[
                "bench",
                "run",
                "--dataset",
                "restbench-tmdb",
                "--limit",
                "1",
                "--doc-version",
                label,
                "--json",
                "--data-dir",
                &data,
            ])
        };
        let missing = run("mine");
        assert!(!missing.status.success());
        let err = String::from_utf8_lossy(&missing.stderr);
        assert!(
            err.contains("no tool or API of this benchmark has a `mine` doc"),
            "{err}"
        );

        ws.ok(&["import", &spec]);
        let marker = "Looks people up by name (refined in the db).";
        ws.ok(&[
            "docs",
            "add",
            "tmdb/get_search_person",
            "--label",
            "mine",
            "--description",
            marker,
        ]);
        let out = run("mine");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    })
    .await
    .unwrap();
    let requests = seen.lock().unwrap();
    let shown = requests[0]["tools"].to_string();
    assert!(
        shown.contains("refined in the db"),
        "the refined doc is shown: {shown}"
    );
}

/// `bench retrieval --doc-version` on a named benchmark reads the label from `--db` too, and
/// refuses a label that no API has rather than scoring the original docs under its name.
#[test]
fn bench_retrieval_refuses_a_doc_version_found_nowhere() {
    let ws = Workspace::new();
    let data = shared("restbench-tmdb/..");
    let out = ws.run(&[
        "bench",
        "retrieval",
        "--dataset",
        "restbench-tmdb",
        "--method",
        "bm25",
        "--doc-version",
        "mine",
        "--data-dir",
        &data,
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has a `mine` doc"), "{err}");
}
