//! A newcomer with no LLM configured (issue 16, item 12): `solve` says at once how to
//! configure one; after retries, the error names the endpoint and the last error.

use std::time::{Duration, Instant};

use crate::support::{Workspace, shared};

#[test]
fn solve_without_an_llm_says_how_to_configure_one() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    let started = Instant::now();
    let out = ws.run(&[
        "solve",
        "Who directed Dune?",
        "--tools",
        "tmdb/get_search_movie",
    ]);
    assert!(!out.status.success());
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "no retries against a default endpoint"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    for needed in [
        "no LLM is configured",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "TOOLSMITH_MODEL",
        "toolsmith.toml",
        "[llm]",
    ] {
        assert!(stderr.contains(needed), "missing {needed:?} in:\n{stderr}");
    }
}

#[test]
fn an_unreachable_llm_is_named_after_the_retries() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        "[llm]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n\
         retry = { max_retries = 1, initial_backoff_ms = 1, max_backoff_ms = 2, max_retry_after_ms = 2 }\n",
    )
    .unwrap();
    let out = ws.run(&[
        "solve",
        "Who directed Dune?",
        "--tools",
        "tmdb/get_search_movie",
        "--cache",
        "off",
    ]);
    assert!(!out.status.success());
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains("gave up after 2 attempts"), "{all}");
    assert!(
        all.contains("http://127.0.0.1:1/v1/chat/completions"),
        "the endpoint is named: {all}"
    );
    assert!(
        all.contains("connection failed"),
        "the last error is named: {all}"
    );
}
