//! `toolsmith solve --solver anytool` end to end over the TMDB catalog: a loopback model plays
//! the meta, category and tool agents, the solvability check, the solver and the judge.

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::support::{Workspace, completion, serve_loopback, text_completion};

fn call(name: &str, arguments: Value) -> Value {
    json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": "c1", "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}]})
}

/// Plays every part, telling them apart by the functions offered.
async fn chat(Json(request): Json<Value>) -> Json<Value> {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let offered: Vec<String> = request["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["function"]["name"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default();
    let has = |name: &str| offered.iter().any(|o| o == name);
    let last_tool = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or("").to_owned());
    let system = messages
        .first()
        .map(|m| m["content"].as_str().unwrap_or("").to_owned())
        .unwrap_or_default();
    let message = if has("create_category_agent") {
        match last_tool {
            None => call("list_categories", json!({})),
            Some(listing) if !listing.starts_with("created") => {
                let category = listing.split(" (").next().unwrap_or("").to_owned();
                call("create_category_agent", json!({"category": category}))
            }
            Some(_) => call("finish_search", json!({})),
        }
    } else if has("create_tool_agent") {
        match last_tool {
            None => call("create_tool_agent", json!({"tools": ["tmdb"]})),
            Some(_) => call("finish_search", json!({})),
        }
    } else if has("add_apis_to_pool") {
        match last_tool {
            None => call(
                "add_apis_to_pool",
                json!({"apis": ["tmdb/get_search_movie", "tmdb/get_movie_movie_id"]}),
            ),
            Some(r) if r.starts_with("added") => call("check_if_solvable", json!({})),
            Some(_) => call("finish_search", json!({})),
        }
    } else if offered.is_empty() && system.contains("listed APIs") {
        json!({"role": "assistant", "content": "YES\nsearch finds it"})
    } else if offered.is_empty() {
        json!({"role": "assistant", "content": "SOLVED\nit names the movie"})
    } else {
        match last_tool {
            None => call("get_search_movie_for_tmdb", json!({"query": "Dune"})),
            Some(_) => call(
                "Finish",
                json!({"return_type": "give_answer", "final_answer": "Found Dune"}),
            ),
        }
    };
    completion(&request, message, "tool_calls", (100, 10))
}

#[tokio::test(flavor = "multi_thread")]
async fn solve_with_anytool_builds_the_agent_tree_and_answers_from_the_pool() {
    let addr = serve_loopback(Router::new().route("/v1/chat/completions", post(chat))).await;
    let ws = Workspace::tmdb_with_llm(addr);
    let trace = ws.dir.path().join("trace.jsonl");
    let trace_arg = trace.to_str().unwrap().to_owned();
    let (out, _ws) = tokio::task::spawn_blocking(move || {
        let out = ws.run(&[
            "solve",
            "Find the movie Dune",
            "--solver",
            "anytool",
            "--protocol",
            "paper",
            "--trace",
            &trace_arg,
        ]);
        (out, ws)
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), "Found Dune");
    assert!(stderr.contains("tokens by part"), "{stderr}");
    assert!(stderr.contains("tool agent 2 (from 1): tmdb"), "{stderr}");
    let events: Vec<Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let levels: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "agent_created")
        .map(|e| e["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["meta", "category", "tool"]);
    let pool = events.iter().find(|e| e["event"] == "part_tokens").unwrap();
    assert_eq!(
        pool["pool"],
        json!(["tmdb/get_search_movie", "tmdb/get_movie_movie_id"])
    );
    assert!(pool["parts"]["solver"].as_u64().unwrap() > 0);
    assert!(
        events
            .iter()
            .any(|e| e["event"] == "judged" && e["verdict"] == "solved")
    );
    assert_eq!(events.last().unwrap()["event"], "finished");
}

/// A workspace over TMDB whose model is `chat`, except that the first solvability check says
/// NO when `first_check_says_no`; search by BM25, the pool seeded with `seed_k` hits.
async fn seeded_workspace(
    first_check_says_no: bool,
    seed_k: usize,
) -> (Workspace, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let checks = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&checks);
    let app = Router::new().route(
        "/v1/chat/completions",
        post(move |Json(request): Json<Value>| {
            let seen = Arc::clone(&seen);
            async move {
                let system = request["messages"][0]["content"].as_str().unwrap_or("");
                let is_check = request["tools"].as_array().is_none_or(Vec::is_empty)
                    && system.contains("listed APIs");
                if is_check && seen.fetch_add(1, Ordering::SeqCst) == 0 && first_check_says_no {
                    return text_completion(&request, "NO\nno API gives the details", (100, 10));
                }
                chat(Json(request)).await
            }
        }),
    );
    let addr = serve_loopback(app).await;
    let ws = Workspace::tmdb_with_llm(addr);
    let toml = ws.dir.path().join("toolsmith.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(&format!(
        "[retrieve]\nmethod = \"bm25\"\n[anytool]\nseed_k = {seed_k}\njudge_votes = 1\n"
    ));
    std::fs::write(&toml, text).unwrap();
    (ws, checks)
}

/// Runs `solve --solver anytool QUERY --trace` (search-assisted, the default) off the runtime:
/// stdout, stderr and the trace's events.
async fn solve_anytool(ws: Workspace, query: &'static str) -> (String, String, Vec<Value>) {
    let trace = ws.dir.path().join("trace.jsonl");
    let trace_arg = trace.to_str().unwrap().to_owned();
    let (out, ws) = tokio::task::spawn_blocking(move || {
        let out = ws.run(&["solve", query, "--solver", "anytool", "--trace", &trace_arg]);
        (out, ws)
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let events = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    drop(ws);
    (stdout, stderr, events)
}

fn agent_levels(events: &[Value]) -> Vec<&str> {
    events
        .iter()
        .filter(|e| e["event"] == "agent_created")
        .map(|e| e["level"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_seeded_pool_judged_solvable_reaches_the_solver_without_agents() {
    let (ws, checks) = seeded_workspace(false, 1).await;
    // With the tool graph stored, the seeded hit brings the search that produces its movie_id.
    ws.ok(&["graph", "build", "--no-similarity"]);
    let (stdout, stderr, events) = solve_anytool(ws, "Get the cast and crew for a movie").await;
    assert_eq!(stdout.trim(), "Found Dune");
    assert!(
        stderr.contains("search seeded the pool with 2 APIs"),
        "{stderr}"
    );
    assert!(
        stderr.contains("solvable: to the solver without agents"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Search"),
        "the search part's tokens: {stderr}"
    );
    let seeded = events.iter().find(|e| e["event"] == "seeded").unwrap();
    assert_eq!(
        seeded["apis"],
        json!(["tmdb/get_movie_movie_id_credits", "tmdb/get_search_movie"])
    );
    assert_eq!(seeded["solvable"], true);
    assert!(agent_levels(&events).is_empty(), "{stderr}");
    assert_eq!(checks.load(std::sync::atomic::Ordering::SeqCst), 1);
    let parts = events.iter().find(|e| e["event"] == "part_tokens").unwrap();
    assert!(parts["parts"]["search"].as_u64().unwrap() > 0, "{parts}");
    assert!(parts["parts"].get("meta").is_none(), "{parts}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_seeded_pool_judged_unsolvable_creates_the_agents() {
    let (ws, checks) = seeded_workspace(true, 2).await;
    let (stdout, stderr, events) = solve_anytool(ws, "Find the movie Dune").await;
    assert_eq!(stdout.trim(), "Found Dune");
    assert!(
        stderr.contains("not solvable: the agents search on"),
        "{stderr}"
    );
    let seeded = events.iter().find(|e| e["event"] == "seeded").unwrap();
    assert_eq!(seeded["solvable"], false);
    assert_eq!(seeded["apis"].as_array().unwrap().len(), 2);
    assert_eq!(agent_levels(&events), ["meta", "category", "tool"]);
    assert!(checks.load(std::sync::atomic::Ordering::SeqCst) >= 2);
}

/// A workspace over TMDB whose model is `chat`, except that every solvability check says YES
/// and names the first API it lists as the one needed; `[anytool] seed_k` is 0.
async fn naming_workspace() -> Workspace {
    let app = Router::new().route(
        "/v1/chat/completions",
        post(|Json(request): Json<Value>| async move {
            let system = request["messages"][0]["content"].as_str().unwrap_or("");
            let is_check = request["tools"].as_array().is_none_or(Vec::is_empty)
                && system.contains("listed APIs");
            if !is_check {
                return chat(Json(request)).await;
            }
            let listing = request["messages"][1]["content"].as_str().unwrap_or("");
            let first = listing
                .split("APIs:\n")
                .nth(1)
                .and_then(|l| l.lines().next())
                .and_then(|l| l.split(':').next())
                .unwrap_or("")
                .to_owned();
            let content = if system.contains("NEEDED:") {
                format!("YES\nNEEDED: {first}\nit finds the movie")
            } else {
                "YES\nit finds the movie".to_owned()
            };
            text_completion(&request, content, (100, 10))
        }),
    );
    let addr = serve_loopback(app).await;
    let ws = Workspace::tmdb_with_llm(addr);
    let toml = ws.dir.path().join("toolsmith.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str("[retrieve]\nmethod = \"bm25\"\n[anytool]\nseed_k = 0\njudge_votes = 1\n");
    std::fs::write(&toml, text).unwrap();
    ws
}

/// Runs `solve --solver anytool "Find the movie Dune" --trace` with `flags` off the runtime.
async fn solve_anytool_with(ws: Workspace, flags: &'static [&'static str]) -> (String, Vec<Value>) {
    let trace = ws.dir.path().join("trace.jsonl");
    let trace_arg = trace.to_str().unwrap().to_owned();
    let (out, ws) = tokio::task::spawn_blocking(move || {
        let mut args = vec!["solve", "Find the movie Dune", "--solver", "anytool"];
        args.extend_from_slice(flags);
        args.extend(["--trace", &trace_arg]);
        let out = ws.run(&args);
        (out, ws)
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert_eq!(stdout.trim(), "Found Dune");
    let events = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    drop(ws);
    (stderr, events)
}

#[tokio::test(flavor = "multi_thread")]
async fn seed_k_and_trim_pool_flags_choose_the_branch() {
    // `--seed-k 2` over `seed_k = 0`: the search stage seeds two APIs, the check names one,
    // and the solver gets that one (trimming is on by default in search-assisted mode).
    let (stderr, events) = solve_anytool_with(naming_workspace().await, &["--seed-k", "2"]).await;
    let seeded = events.iter().find(|e| e["event"] == "seeded").unwrap();
    let apis = seeded["apis"].as_array().unwrap();
    assert_eq!(apis.len(), 2, "{stderr}");
    assert!(agent_levels(&events).is_empty(), "{stderr}");
    let trimmed = events
        .iter()
        .find(|e| e["event"] == "pool_trimmed")
        .unwrap();
    assert_eq!(trimmed["kept"], json!([apis[0]]), "{stderr}");
    assert_eq!(trimmed["whole"], false);
    assert!(
        stderr.contains("solver gets 1 of 2 pooled APIs"),
        "{stderr}"
    );

    // `--no-trim-pool`: the same search stage, the whole pool to the solver, no naming asked.
    let (stderr, events) = solve_anytool_with(
        naming_workspace().await,
        &["--seed-k", "2", "--no-trim-pool"],
    )
    .await;
    assert!(events.iter().any(|e| e["event"] == "seeded"), "{stderr}");
    assert!(
        !events.iter().any(|e| e["event"] == "pool_trimmed"),
        "{stderr}"
    );

    // No flag: `seed_k = 0` from the file: no search stage, the agents search.
    let (stderr, events) = solve_anytool_with(naming_workspace().await, &[]).await;
    assert!(!events.iter().any(|e| e["event"] == "seeded"), "{stderr}");
    assert_eq!(agent_levels(&events), ["meta", "category", "tool"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn seed_k_is_refused_for_other_solvers() {
    let ws = naming_workspace().await;
    let out = tokio::task::spawn_blocking(move || {
        ws.run(&[
            "solve",
            "Find the movie Dune",
            "--solver",
            "react",
            "--seed-k",
            "2",
        ])
    })
    .await
    .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--solver anytool only"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
