//! The jq sandbox: normal filters work; the environment, the clock and
//! other inputs are out of reach; each limit stops a runaway filter.

use std::time::Duration;

use serde_json::json;
use toolsmith_exec::{JqError, JqSandbox, SandboxSettings, pseudo_schema};

fn sandbox() -> JqSandbox {
    JqSandbox::new(env!("CARGO_BIN_EXE_toolsmith-exec-sandbox"))
}

fn response() -> serde_json::Value {
    json!({"page": 1, "results": [{"id": 597, "title": "Titanic"}, {"id": 44918, "title": "Titanic II"}]})
}

#[tokio::test]
async fn a_normal_filter_works() {
    let out = sandbox().run(".results[0].id", &response()).await.unwrap();
    assert_eq!(out.values, vec![json!(597)]);
    assert!(!out.truncated);
    let out = sandbox()
        .run(
            "[.results[] | select(.title | test(\"II\")) | .id]",
            &response(),
        )
        .await
        .unwrap();
    assert_eq!(out.values, vec![json!([44918])]);
    let out = sandbox()
        .run(".results[] | .title", &response())
        .await
        .unwrap();
    assert_eq!(out.values, vec![json!("Titanic"), json!("Titanic II")]);
}

#[tokio::test]
async fn a_bad_filter_gives_the_parse_error() {
    let err = sandbox().run(".results[0", &response()).await.unwrap_err();
    assert!(matches!(err, JqError::Compile(_)), "{err}");
    let text = err.to_string();
    assert!(text.contains("expected"), "{text}");
    let err = sandbox()
        .run("no_such_filter(1)", &response())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no_such_filter"), "{err}");
}

#[tokio::test]
async fn a_runtime_error_is_reported() {
    let err = sandbox()
        .run(".page | keys", &response())
        .await
        .unwrap_err();
    assert!(matches!(err, JqError::Runtime(_)), "{err}");
}

#[tokio::test]
async fn the_environment_is_out_of_reach() {
    for filter in [
        "env",
        "$ENV",
        "$ENV.HOME",
        "env.PATH",
        "input",
        "inputs",
        "now",
        "debug",
        "halt",
        "stderr",
        "input_filename",
    ] {
        let err = sandbox().run(filter, &response()).await.unwrap_err();
        assert!(matches!(err, JqError::Compile(_)), "{filter}: {err}");
    }
}

#[tokio::test]
async fn deep_recursion_is_contained() {
    let err = sandbox()
        .run("def f: [f]; f", &response())
        .await
        .unwrap_err();
    assert!(matches!(err, JqError::Killed(_)), "{err}");
}

#[tokio::test]
async fn memory_is_limited() {
    let settings = SandboxSettings {
        memory_bytes: 64 * 1024 * 1024,
        timeout: Duration::from_secs(20),
        ..SandboxSettings::default()
    };
    // An array of a hundred million numbers: gigabytes.
    let err = sandbox()
        .settings(settings)
        .run("[range(100000000)] | length", &response())
        .await
        .unwrap_err();
    assert!(matches!(err, JqError::Killed(_)), "{err}");
    assert!(err.to_string().contains("memory"), "{err}");
}

#[tokio::test]
async fn an_infinite_loop_is_killed_at_the_timeout() {
    let settings = SandboxSettings {
        timeout: Duration::from_millis(500),
        ..SandboxSettings::default()
    };
    // The deadline only guards against a hang: the loop never ends on its own.
    let err = tokio::time::timeout(
        Duration::from_secs(120),
        sandbox().settings(settings).run("def f: f; f", &response()),
    )
    .await
    .expect("the sandbox's timeout ends the loop")
    .unwrap_err();
    assert!(matches!(err, JqError::Timeout(_)), "{err}");
    let err = sandbox()
        .settings(SandboxSettings {
            timeout: Duration::from_millis(500),
            ..SandboxSettings::default()
        })
        .run("last(repeat(1))", &response())
        .await
        .unwrap_err();
    assert!(matches!(err, JqError::Timeout(_)), "{err}");
}

#[tokio::test]
async fn a_huge_output_is_cut_at_the_cap() {
    let settings = SandboxSettings {
        max_output_bytes: 10_000,
        timeout: Duration::from_secs(10),
        ..SandboxSettings::default()
    };
    let out = sandbox()
        .settings(settings)
        .run("repeat(.results[0])", &response())
        .await
        .unwrap();
    assert!(out.truncated);
    assert!(!out.values.is_empty());
    let total: usize = out.values.iter().map(|v| v.to_string().len() + 1).sum();
    assert!(total <= 10_000, "{total}");
    assert!(
        out.values
            .iter()
            .all(|v| v == &json!({"id": 597, "title": "Titanic"}))
    );
}

#[tokio::test]
async fn a_missing_sandbox_binary_is_a_spawn_error() {
    let err = JqSandbox::new("/nonexistent/toolsmith")
        .run(".", &response())
        .await
        .unwrap_err();
    assert!(matches!(err, JqError::Spawn { .. }), "{err}");
}

#[test]
fn outline_of_a_tmdb_example() {
    let spec: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(toolsmith_catalog::testing::data_path(
            toolsmith_catalog::testing::TMDB_SPEC,
        ))
        .unwrap(),
    )
    .unwrap();
    let example = &spec["paths"]["/search/movie"]["get"]["responses"]["200"]["content"]["application/json"]
        ["examples"]["response"]["value"];
    let text = pseudo_schema(example);
    assert!(text.contains("results: array"), "{text}");
    assert!(text.contains("results[0]: object"), "{text}");
    assert!(text.contains("overview: string = "), "{text}");
    assert!(
        text.len() < example.to_string().len() / 2,
        "the outline should be much shorter"
    );
}
