//! `toolsmith import` from an MCP server (our stdio test server), then
//! `tools` lists its APIs and `call` reaches it.

use std::io::Read;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::Workspace;

fn fixture() -> &'static str {
    env!("CARGO_BIN_EXE_toolsmith-mcp-fixture")
}

/// Runs `toolsmith call API --args ARGS --mode live`; the observation and whether it exited 0.
fn call(ws: &Workspace, api: &str, args: &str) -> (Value, bool) {
    let out = ws.run(&["call", api, "--args", args, "--mode", "live"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let observation = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON observation ({e}):\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (observation, out.status.success())
}

#[test]
fn import_a_stdio_server_list_its_apis_and_call_them() {
    let ws = Workspace::new();
    let address = format!("mcp+stdio:'{}'", fixture());
    let out = ws.ok(&["import", &address, "--tool", "fixture"]);
    assert!(
        out.contains("(mcp-tools): 1 tools added") && out.contains("7 APIs added"),
        "{out}"
    );

    let rows: Vec<Value> = serde_json::from_str(&ws.ok(&["tools", "--json"])).unwrap();
    let functions: Vec<&str> = rows
        .iter()
        .map(|r| r["function"].as_str().unwrap())
        .collect();
    assert_eq!(
        functions,
        ["add", "echo", "fail", "crash", "slow", "add_tool", "env"]
    );
    assert!(rows.iter().all(|r| r["tool"] == "fixture"));
    let add = &rows[0];
    assert_eq!(add["id"], "fixture/add");
    assert_eq!(add["description"], "Adds two numbers.");

    let (obs, ok) = call(&ws, "fixture/add", r#"{"a": 2, "b": 3}"#);
    assert!(ok, "{obs}");
    assert_eq!(obs["result"], "ok");
    assert_eq!(obs["body"]["value"]["sum"], 5.0);
    assert_eq!(obs["provenance"], "live");

    let (obs, ok) = call(&ws, "fixture/echo", r#"{"text": "hi there"}"#);
    assert!(ok);
    assert_eq!(
        obs["body"],
        serde_json::json!({"type": "text", "value": "hi there"})
    );

    let (obs, ok) = call(&ws, "fixture/fail", "{}");
    assert!(!ok, "a failing tool exits 1");
    assert_eq!(obs["kind"], "tool_failed");

    let (obs, ok) = call(&ws, "fixture/add", r#"{"a": "two"}"#);
    assert!(!ok);
    assert_eq!(obs["kind"], "bad_parameters");

    let (obs, _) = call(&ws, "fixture/crash", "{}");
    assert_eq!(obs["kind"], "network", "{obs}");

    // Importing again changes nothing.
    let out = ws.ok(&["import", &address, "--tool", "fixture"]);
    assert!(
        out.contains("0 tools added, 0 updated, 1 unchanged; 0 APIs added, 0 updated"),
        "{out}"
    );
}

#[test]
fn named_servers_come_from_toolsmith_toml() {
    let ws = Workspace::new();
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!(
            "[mcp]\ntimeout_ms = 500\n\n[mcp.servers.calc]\ncommand = {:?}\nenv = {{ FIXTURE_MODE = \"test\" }}\n",
            fixture()
        ),
    )
    .unwrap();
    let out = ws.ok(&["import", "mcp://calc"]);
    assert!(out.starts_with("mcp://calc (mcp-tools)"), "{out}");
    let shown: Value = serde_json::from_str(&ws.ok(&["show", "calc", "--json"])).unwrap();
    assert_eq!(shown["tool"]["base_url"], "mcp://calc", "{shown}");
    let (obs, ok) = call(&ws, "calc/add", r#"{"a": 1, "b": 41}"#);
    assert!(ok, "{obs}");
    assert_eq!(obs["body"]["value"]["sum"], 42.0);

    // `[mcp] timeout_ms` bounds each call: a 20 s sleep is a timeout (0.5 s), not an answer.
    let (obs, ok) = call(&ws, "calc/slow", r#"{"seconds": 20}"#);
    assert!(!ok, "{obs}");
    assert_eq!(obs["kind"], "timeout", "{obs}");

    let out = ws.run(&["import", "mcp://nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no MCP server named `nowhere`") && err.contains("calc"),
        "{err}"
    );
}

/// Runs `toolsmith ARGS...` like `Workspace::run`, killing it if it is still
/// running after `limit` (a watch that never ends fails instead of hanging).
fn run_at_most(ws: &Workspace, args: &[&str], limit: Duration) -> Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .arg("--db")
        .arg(ws.db())
        .args(args)
        .current_dir(ws.dir.path())
        .env_remove("TOOLSMITH_CONFIG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("toolsmith {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    Output {
        status,
        stdout,
        stderr,
    }
}

#[test]
fn watch_imports_again_when_the_tool_list_changes() {
    let ws = Workspace::new();
    // The server adds `greet` after 1 s, says so, and exits after 3 s, which ends the watch.
    let address = format!(
        "mcp+stdio:'{}' --announce greet --after-ms 1000 --exit-after-ms 3000",
        fixture()
    );
    let out = run_at_most(
        &ws,
        &["import", &address, "--tool", "fixture", "--watch"],
        Duration::from_secs(60),
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines.len(),
        2,
        "one import, then one re-import:\n{stdout}\n{stderr}"
    );
    assert!(
        lines[0].contains("(mcp-tools): 1 tools added") && lines[0].contains("7 APIs added"),
        "{stdout}"
    );
    assert!(
        lines[1]
            .contains("(mcp-tools, tools/list_changed): 0 tools added, 1 updated; 1 APIs added"),
        "{stdout}"
    );
    assert!(
        stderr.contains("closed the connection; stopped watching"),
        "{stderr}"
    );
    let rows: Vec<Value> = serde_json::from_str(&ws.ok(&["tools", "--json"])).unwrap();
    assert!(rows.iter().any(|r| r["id"] == "fixture/greet"), "{rows:?}");
}

/// A stdio server sees none of toolsmith's secrets, and a secret it is
/// configured with and echoes is neither shown nor recorded.
#[test]
fn stdio_servers_get_a_safe_environment_and_echoed_secrets_are_redacted() {
    let ws = Workspace::new();
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!(
            "[mcp.servers.calc]\ncommand = {:?}\nenv = {{ FIXTURE_API_KEY = \"sk-configured-0123456789\" }}\ninherit_env = [\"FIXTURE_PASSED\"]\n",
            fixture()
        ),
    )
    .unwrap();
    ws.ok(&["import", "mcp://calc"]);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .arg("--db")
        .arg(ws.db())
        .args(["call", "calc/env", "--args", "{}", "--mode", "record"])
        .current_dir(ws.dir.path())
        .env("TOOLSMITH_KEY_TMDB", "tmdb-secret-0123456789")
        .env("FIXTURE_PASSED", "passed-on")
        .env_remove("TOOLSMITH_CONFIG")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let obs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let env = &obs["body"]["value"]["env"];
    assert!(env.get("TOOLSMITH_KEY_TMDB").is_none(), "{env}");
    assert_eq!(env["FIXTURE_PASSED"], "passed-on", "{env}");
    assert_eq!(env["FIXTURE_API_KEY"], "[redacted]", "{env}");
    let db = std::fs::read(ws.db()).unwrap();
    let db = String::from_utf8_lossy(&db);
    assert!(!db.contains("sk-configured-0123456789") && !db.contains("tmdb-secret"));
}
