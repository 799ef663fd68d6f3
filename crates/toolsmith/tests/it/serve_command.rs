//! `toolsmith serve`: MCP over the binary's stdin and stdout (raw JSON-RPC lines, as an MCP
//! client sends them), the HTTP API with a token and a clean stop on SIGTERM, and
//! `bench serve` on loopback.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{Workspace, shared};

fn tmdb(ws: &Workspace) {
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
}

fn serve(ws: &Workspace, args: &[&str], envs: &[(&str, &str)]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .arg("--db")
        .arg(ws.db())
        .arg("serve")
        .args(args)
        .current_dir(ws.dir.path())
        .env_remove("OPENAI_BASE_URL")
        .env_remove("TOOLSMITH_CONFIG")
        .env_remove("TOOLSMITH_SERVE_TOKEN")
        .envs(envs.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends a request and returns the response with its id (skipping notifications).
fn request(
    stdin: &mut ChildStdin,
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    id: u64,
    method: &str,
    params: Value,
) -> Value {
    let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    writeln!(stdin, "{msg}").unwrap();
    stdin.flush().unwrap();
    for line in lines.by_ref() {
        let reply: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if reply["id"] == id {
            return reply;
        }
    }
    panic!("the server closed stdout before answering {method}");
}

/// The JSON text of a `tools/call` result.
fn tool_json(reply: &Value) -> Value {
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    serde_json::from_str(text).unwrap()
}

#[test]
fn mcp_on_stdio_searches_calls_and_filters_cut_results_with_jq() {
    let ws = Workspace::new();
    tmdb(&ws);
    // A small result limit from toolsmith.toml, so that a search result is cut.
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        "[serve]\nmax_result_chars = 300\npage_chars = 300\n",
    )
    .unwrap();
    let mut child = serve(&ws, &["--method", "bm25"], &[]);
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let init = request(
        &mut stdin,
        &mut lines,
        1,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "cli-test", "version": "0"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "toolsmith", "{init}");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    let list = request(&mut stdin, &mut lines, 2, "tools/list", json!({}));
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 4);

    let search = request(
        &mut stdin,
        &mut lines,
        3,
        "tools/call",
        json!({"name": "search_tools", "arguments": {"query": "search movies by title", "k": 5}}),
    );
    let cut = tool_json(&search);
    assert_eq!(cut["truncated"], true, "{cut}");
    let filtered = request(
        &mut stdin,
        &mut lines,
        4,
        "tools/call",
        json!({"name": "read_result", "arguments": {"handle": cut["handle"],
               "jq_filter": "[.results[].id]"}}),
    );
    let ids = tool_json(&filtered);
    assert_eq!(ids["values"][0][0], "tmdb/get_search_movie", "{ids}");
    assert_eq!(ids["values"][0].as_array().unwrap().len(), 5);

    // The found APIs are now tools of this session, callable by name, simulated by default.
    let list = request(&mut stdin, &mut lines, 5, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 9);
    let called = request(
        &mut stdin,
        &mut lines,
        6,
        "tools/call",
        json!({"name": "get_search_movie_for_tmdb", "arguments": {"query": "Dune"}}),
    );
    let observed = tool_json(&called);
    assert_eq!(called["result"]["isError"], false, "{called}");
    assert_eq!(observed["provenance"], "simulated");
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "serve exits cleanly when the client closes stdin"
    );
}

#[test]
fn http_api_wants_its_token_and_stops_cleanly_on_sigterm() {
    let ws = Workspace::new();
    tmdb(&ws);
    let mut child = serve(
        &ws,
        &[
            "--http",
            "127.0.0.1:0",
            "--token-env",
            "MY_SERVE_TOKEN",
            "--method",
            "bm25",
        ],
        &[("MY_SERVE_TOKEN", "tok-123")],
    );
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    let addr = loop {
        assert!(Instant::now() < deadline, "no address announced");
        let line = stderr.next().unwrap().unwrap();
        if let Some(rest) = line.split("on http://").nth(1) {
            break rest.split_whitespace().next().unwrap().to_owned();
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (anonymous, authorized) = rt.block_on(async {
        let stream = |token: Option<&str>| {
            let addr = addr.clone();
            let token = token.map(str::to_owned);
            async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
                let auth = token
                    .map(|t| format!("authorization: Bearer {t}\r\n"))
                    .unwrap_or_default();
                let req = format!(
                    "GET /healthz HTTP/1.1\r\nhost: {addr}\r\n{auth}connection: close\r\n\r\n"
                );
                s.write_all(req.as_bytes()).await.unwrap();
                let mut out = String::new();
                s.read_to_string(&mut out).await.unwrap();
                out
            }
        };
        (stream(None).await, stream(Some("tok-123")).await)
    });
    assert!(anonymous.starts_with("HTTP/1.1 401"), "{anonymous}");
    assert!(anonymous.contains("\"unauthorized\""), "{anonymous}");
    assert!(authorized.starts_with("HTTP/1.1 200"), "{authorized}");
    assert!(authorized.contains("\"apis\":54"), "{authorized}");

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "SIGTERM is a clean stop: {status:?}");
}

#[test]
fn a_missing_token_variable_is_an_error_that_names_it() {
    let ws = Workspace::new();
    tmdb(&ws);
    let out = ws.run(&[
        "serve",
        "--http",
        "127.0.0.1:0",
        "--token-env",
        "NO_SUCH_TOKEN_VAR",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("NO_SUCH_TOKEN_VAR"));
    let empty = ws.run(&["serve", "--http", "127.0.0.1:0", "--token", ""]);
    assert_eq!(empty.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("--token is empty"));
    let both = ws.run(&["serve", "--token", "a", "--token-env", "B"]);
    assert!(
        !both.status.success(),
        "--token and --token-env exclude each other"
    );
}

#[test]
fn bench_serve_reports_throughput_latency_and_no_errors() {
    let ws = Workspace::new();
    let data = shared("restbench-tmdb/..");
    let out = ws.ok(&[
        "bench",
        "serve",
        "--data-dir",
        &data,
        "--clients",
        "4",
        "--seconds",
        "2",
        "--method",
        "bm25",
        "--json",
    ]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["apis"], 54);
    assert_eq!(report["errors"], 0, "{report}");
    assert!(report["searches"].as_u64().unwrap() > 10, "{report}");
    assert!(report["calls"].as_u64().unwrap() > 10, "{report}");
    assert!(report["p99_ms"].as_f64().unwrap() >= report["p50_ms"].as_f64().unwrap());
    assert!(report["rss_after_kib"].as_u64().unwrap() > 0);
}
