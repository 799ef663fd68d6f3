//! `toolsmith serve`: MCP over the binary's stdin and stdout (raw JSON-RPC lines, as an MCP
//! client sends them), the HTTP API with a token and a clean stop on SIGTERM, and
//! `bench serve` on loopback.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::model::{Prompts, embedding_model};
use crate::support::{Workspace, completion, shared};

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

/// The rest of a server's stderr: keep it open while the server runs (it writes there).
type Stderr = std::io::Lines<BufReader<std::process::ChildStderr>>;

/// Reads the server's stderr up to the line announcing its address; returns the address and
/// the rest of stderr.
fn announced_address(child: &mut Child) -> (String, Stderr) {
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "no address announced");
        let line = stderr.next().unwrap().unwrap();
        if let Some(rest) = line.split("on http://").nth(1) {
            return (rest.split_whitespace().next().unwrap().to_owned(), stderr);
        }
    }
}

/// One HTTP/1.1 request over a fresh connection; the raw response.
async fn raw_request(
    addr: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let auth = token
        .map(|t| format!("authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let body = body.map(Value::to_string).unwrap_or_default();
    let req = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\n{auth}content-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

/// Sends SIGTERM and asserts a clean stop.
fn stop(mut child: Child) {
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "SIGTERM is a clean stop: {status:?}");
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
    let (addr, _stderr) = announced_address(&mut child);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (anonymous, authorized) = rt.block_on(async {
        (
            raw_request(&addr, "GET", "/healthz", None, None).await,
            raw_request(&addr, "GET", "/healthz", Some("tok-123"), None).await,
        )
    });
    assert!(anonymous.starts_with("HTTP/1.1 401"), "{anonymous}");
    assert!(anonymous.contains("\"unauthorized\""), "{anonymous}");
    assert!(authorized.starts_with("HTTP/1.1 200"), "{authorized}");
    assert!(authorized.contains("\"apis\":54"), "{authorized}");
    stop(child);
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
    // An empty TOOLSMITH_SERVE_TOKEN would be an open server: it refuses to start instead.
    let child = serve(
        &ws,
        &["--http", "127.0.0.1:0"],
        &[("TOOLSMITH_SERVE_TOKEN", "")],
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("TOOLSMITH_SERVE_TOKEN") && stderr.contains("empty"),
        "{stderr}"
    );
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
    // Outcomes, not speed: every request was a search or a call, and both kinds were made.
    let (searches, calls) = (
        report["searches"].as_u64().unwrap(),
        report["calls"].as_u64().unwrap(),
    );
    assert!(searches > 0 && calls > 0, "{report}");
    assert_eq!(
        report["requests"].as_u64().unwrap(),
        searches + calls,
        "{report}"
    );
    assert!(report["p99_ms"].as_f64().unwrap() >= report["p50_ms"].as_f64().unwrap());
    assert!(report["rss_after_kib"].as_u64().unwrap() > 0);
}

#[test]
fn the_call_log_keeps_only_its_newest_rows() {
    let ws = Workspace::new();
    tmdb(&ws);
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        "[serve]\ncall_log_keep = 5\n",
    )
    .unwrap();
    let mut child = serve(&ws, &["--http", "127.0.0.1:0", "--method", "bm25"], &[]);
    let (addr, _stderr) = announced_address(&mut child);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let call = json!({"id": "tmdb/get_search_movie", "arguments": {"query": "Dune"}});
    for _ in 0..12 {
        let reply = rt.block_on(raw_request(&addr, "POST", "/v1/call", None, Some(&call)));
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    }
    stop(child);
    let coverage: Value = serde_json::from_str(&ws.ok(&["env", "coverage", "--json"])).unwrap();
    assert_eq!(coverage["total"]["simulated"], 5, "{coverage}");
}

/// 16 dimensions from a text's bytes.
fn byte_vector(text: &str) -> Vec<f32> {
    let mut v = vec![0.1f32; 16];
    for (j, b) in text.bytes().enumerate() {
        v[(j + usize::from(b)) % 16] += 1.0;
    }
    v
}

/// A runtime serving the loopback embedder of [`byte_vector`], every text it embedded, and a
/// workspace using it for `method` with `extra` lines under `[retrieve]`.
fn with_embedder(method: &str, extra: &str) -> (tokio::runtime::Runtime, Prompts, Workspace) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (addr, seen) = rt.block_on(embedding_model(byte_vector));
    let ws = Workspace::new();
    tmdb(&ws);
    ws.use_embedder(addr, Some(method), 16, extra);
    (rt, seen, ws)
}

/// Bytes of the catalog database on disk, its write-ahead log included.
fn db_bytes(ws: &Workspace) -> u64 {
    let db = ws.db();
    let wal = db.with_extension("db-wal");
    [db, wal]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

#[test]
fn unique_searches_leave_the_catalog_db_as_it_was() {
    let (rt, seen, ws) = with_embedder("dense", "");
    let mut child = serve(&ws, &["--http", "127.0.0.1:0"], &[]);
    let (addr, _stderr) = announced_address(&mut child);
    let docs = seen.lock().unwrap().len();
    assert!(docs >= 54, "the catalog was embedded at start: {docs}");
    let before = db_bytes(&ws);
    for i in 0..300 {
        let query = json!({"query": format!("find movie number {i}"), "k": 2});
        let reply = rt.block_on(raw_request(&addr, "POST", "/v1/search", None, Some(&query)));
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    }
    assert_eq!(seen.lock().unwrap().len(), docs + 300);
    assert_eq!(
        db_bytes(&ws),
        before,
        "300 unique queries wrote nothing to the db"
    );
    // A repeated query is answered from memory.
    let again = json!({"query": "find movie number 299", "k": 2});
    rt.block_on(raw_request(&addr, "POST", "/v1/search", None, Some(&again)));
    assert_eq!(seen.lock().unwrap().len(), docs + 300);
    stop(child);
}

#[test]
fn a_catalog_without_its_dense_index_is_served_at_once_with_bm25_and_a_note() {
    let (_rt, seen, ws) = with_embedder("hybrid", "embed_on_search_max = 10\n");
    let mut child = serve(&ws, &["--http", "127.0.0.1:0"], &[]);
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut before_address = Vec::new();
    for line in stderr.by_ref() {
        let line = line.unwrap();
        let announced = line.contains("on http://");
        before_address.push(line);
        if announced {
            break;
        }
    }
    let said = before_address.join("\n");
    assert!(
        said.contains("uses BM25") && said.contains("toolsmith index"),
        "{said}"
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "nothing embedded before serving"
    );
    stop(child);
}

/// Chat requests the loopback LLM answered.
type Asked = std::sync::Arc<std::sync::atomic::AtomicUsize>;

/// An OpenAI-compatible `/v1/chat/completions` that finishes at once with the task (the first
/// line of the user's message) as its answer.
async fn finish_at_once(
    asked: axum::extract::State<Asked>,
    axum::Json(request): axum::Json<Value>,
) -> axum::Json<Value> {
    asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let task = request["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .and_then(|c| c.lines().next())
        .unwrap_or_default()
        .to_owned();
    let finish = json!({"return_type": "give_answer", "final_answer": task}).to_string();
    let message = json!({"role": "assistant", "content": null, "tool_calls": [{
        "id": "call_a", "type": "function",
        "function": {"name": "Finish", "arguments": finish}}]});
    completion(&request, message, "tool_calls", (10, 5))
}

/// Rows of `table` in the workspace's db (0 when the table does not exist).
fn rows(ws: &Workspace, table: &str, filter: &str) -> i64 {
    let conn = rusqlite::Connection::open(ws.db()).unwrap();
    conn.query_row(&format!("SELECT count(*) FROM {table} {filter}"), [], |r| {
        r.get(0)
    })
    .unwrap_or(0)
}

#[test]
fn unique_solve_tasks_leave_the_db_within_its_bounds() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let asked = Asked::default();
    let app = axum::Router::new()
        .route("/v1/chat/completions", axum::routing::post(finish_at_once))
        .with_state(asked.clone());
    let llm = rt.block_on(crate::support::serve_loopback(app));
    let ws = Workspace::new();
    tmdb(&ws);
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        format!(
            "[llm]\nbase_url = \"http://{llm}/v1\"\nmodel = \"loopback-model\"\n\n\
             [serve]\nsolve_cache_entries = 4\nsolve_runs_keep = 3\n"
        ),
    )
    .unwrap();
    // A run of `toolsmith solve` is not the server's to prune, and its answer is cached as usual.
    ws.ok(&[
        "solve",
        "a task from the command line",
        "--tools",
        "tmdb/get_search_movie",
    ]);
    assert_eq!(rows(&ws, "runs", ""), 1);
    let cached_before = rows(&ws, "llm_cache", "");
    assert_eq!(cached_before, 1);

    let mut child = serve(&ws, &["--http", "127.0.0.1:0", "--method", "bm25"], &[]);
    let (addr, _stderr) = announced_address(&mut child);
    let mut run_ids = Vec::new();
    for i in 0..12 {
        let task = json!({"query": format!("unique task number {i}"), "tools": 2});
        let reply = rt.block_on(raw_request(&addr, "POST", "/v1/solve", None, Some(&task)));
        assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
        let body: Value = serde_json::from_str(reply.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body["answer"], format!("unique task number {i}"), "{body}");
        run_ids.push(body["run_id"].as_i64().unwrap());
    }
    let llm_calls = asked.load(std::sync::atomic::Ordering::SeqCst);
    // The newest task is answered from memory; nothing of the 12 reached `llm_cache`.
    let again = json!({"query": "unique task number 11", "tools": 2});
    let reply = rt.block_on(raw_request(&addr, "POST", "/v1/solve", None, Some(&again)));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), llm_calls);
    assert_eq!(rows(&ws, "llm_cache", ""), cached_before);
    // The newest 3 served runs are kept (the repeat is the newest); older ones are gone.
    assert_eq!(rows(&ws, "runs", "WHERE solver LIKE '%@serve'"), 3);
    assert_eq!(rows(&ws, "runs", "WHERE solver NOT LIKE '%@serve'"), 1);
    let newest = run_ids[11];
    let oldest = run_ids[0];
    let kept = rt.block_on(raw_request(
        &addr,
        "GET",
        &format!("/v1/runs/{newest}"),
        None,
        None,
    ));
    assert!(kept.starts_with("HTTP/1.1 200"), "{kept}");
    let gone = rt.block_on(raw_request(
        &addr,
        "GET",
        &format!("/v1/runs/{oldest}"),
        None,
        None,
    ));
    assert!(gone.starts_with("HTTP/1.1 404"), "{gone}");
    stop(child);
}
