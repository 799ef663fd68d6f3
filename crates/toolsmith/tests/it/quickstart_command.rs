//! `toolsmith quickstart`: the tour's steps run for real against the example API, and a
//! second run updates what the first stored.

use crate::support::{Workspace, completion};

#[test]
fn quickstart_imports_searches_and_calls_the_example_api_then_says_how_to_add_an_llm() {
    let ws = Workspace::new();
    let no_data = ws.dir.path().join("no-data");
    std::fs::create_dir_all(&no_data).unwrap();
    std::fs::write(no_data.join(".keep"), "").unwrap();
    let no_data = no_data.to_string_lossy().into_owned();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(ws.dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());

    let first = ws.ok(&["quickstart", "--data-dir", &no_data]);
    // The tour's folder ignores itself: a checkout it lands in shows nothing of it.
    let status = git(&["status", "--porcelain", "--untracked-files=all"]);
    let status = String::from_utf8(status.stdout).unwrap();
    assert!(
        status.contains("no-data/.keep"),
        "git sees untracked files: {status}"
    );
    assert!(!status.contains("quickstart"), "{status}");
    assert!(first.contains("11 APIs added"), "{first}");
    assert!(
        first.contains(
            "$ toolsmith call library/search_books --args '{\"title\": \"solaris\"}' --mode live"
        ),
        "each step shows the command a user would type: {first}"
    );
    // The simulated call answers from the schema; the live one reached the running API.
    assert!(first.contains("\"provenance\": \"simulated\""), "{first}");
    assert!(first.contains("\"title\": \"Solaris\""), "{first}");
    assert!(first.contains("\"provenance\": \"live\""), "{first}");
    assert!(
        first.contains("library/create_loan"),
        "search shows the loan API: {first}"
    );
    assert!(first.contains("skipped the retrieval benchmark"), "{first}");
    assert!(first.contains("export OPENAI_BASE_URL="), "{first}");

    let second = ws.ok(&["quickstart", "--data-dir", &no_data]);
    assert!(
        second.contains("0 APIs added, 0 updated, 11 unchanged"),
        "{second}"
    );
}

/// A model that answers every request by finishing at once.
async fn finish_at_once(
    seen: axum::extract::State<std::sync::Arc<std::sync::atomic::AtomicUsize>>,
    axum::Json(request): axum::Json<serde_json::Value>,
) -> axum::Json<serde_json::Value> {
    seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let arguments =
        serde_json::json!({"return_type": "give_answer", "final_answer": "I do not know"});
    let message = serde_json::json!({"role": "assistant", "content": null,
        "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "Finish", "arguments": arguments.to_string()}}]});
    completion(&request, message, "tool_calls", (10, 5))
}

#[tokio::test(flavor = "multi_thread")]
async fn with_an_llm_quickstart_benchmarks_two_agents_on_the_example_queries_and_compares_them() {
    let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let app = axum::Router::new()
        .route("/v1/chat/completions", axum::routing::post(finish_at_once))
        .with_state(seen.clone());
    let addr = crate::support::serve_loopback(app).await;
    let ws = Workspace::new();
    ws.use_llm(addr);
    let no_data = ws.dir.path().join("no-data");
    std::fs::create_dir_all(&no_data).unwrap();
    let no_data = no_data.to_string_lossy().into_owned();

    let (out, ws) = tokio::task::spawn_blocking(move || {
        let out = ws.ok(&["quickstart", "--data-dir", &no_data]);
        (out, ws)
    })
    .await
    .unwrap();
    assert!(!out.contains("export OPENAI_BASE_URL="), "{out}");
    assert!(out.contains("run 1: 24 queries"), "{out}");
    assert!(out.contains("run 2: 24 queries"), "{out}");
    assert!(out.contains("$ toolsmith bench compare 1 2"), "{out}");
    assert!(
        out.contains("$ toolsmith synth run quickstart"),
        "the tour goes on to synthesize an evaluation set of the user's own tools: {out}"
    );
    assert!(
        out.contains("quickstart-conagents"),
        "the comparison table: {out}"
    );
    let last = out.lines().last().unwrap_or_default();
    let index = last
        .strip_prefix("The benchmark's report (open it in a browser): ")
        .unwrap_or_else(|| panic!("the tour ends with the report's path: {out}"));
    assert!(index.ends_with("index.html"), "{last}");
    let html = std::fs::read_to_string(index).unwrap();
    assert!(
        html.contains("quickstart-conagents"),
        "the report names the runs"
    );
    assert!(
        seen.load(std::sync::atomic::Ordering::SeqCst) >= 48,
        "every query asked the model"
    );
    let runs: serde_json::Value =
        serde_json::from_str(&ws.ok(&["bench", "list", "--json"])).unwrap();
    let names: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(
        names[..2],
        ["quickstart-react", "quickstart-conagents"],
        "{runs}"
    );
    assert!(
        names[2..]
            .iter()
            .all(|n| n.starts_with("quickstart-synth-")),
        "the own-tools steps bench only the synthesized set: {runs}"
    );
}
