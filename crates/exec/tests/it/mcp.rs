//! MCP round trips against toolsmith-testbed's test server (as this crate's
//! `toolsmith-exec-mcp-fixture` binary over stdio, `McpFixture::serve_http` over streamable HTTP): list, import,
//! call; and every way a server can misbehave is an observation, in time.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolsmith_catalog::{DocSelector, Format, ImportOptions, Scope, Store, read_bytes};
use toolsmith_exec::{
    ApiBook, Body, Executor, FailureKind, MCP_SAFE_ENV, McpAddress, McpClient, McpExecutor,
    McpServer, McpServers, McpSettings, McpTransport, Mode, ModeExecutor, Outcome, Provenance,
    REDACTED, Redactor, ResponseCache, ToolListChange, Validated,
};
use toolsmith_testbed::McpFixture;

/// Long enough for any loaded machine; it only turns a hang into a failure.
const HANG_GUARD: Duration = Duration::from_secs(120);

fn fixture_command() -> &'static str {
    env!("CARGO_BIN_EXE_toolsmith-exec-mcp-fixture")
}

fn stdio_address() -> String {
    McpAddress::Stdio {
        command: fixture_command().to_owned(),
        args: Vec::new(),
    }
    .to_string()
}

fn settings() -> McpSettings {
    McpSettings {
        connect_timeout: Duration::from_secs(20),
        timeout: Duration::from_secs(20),
        ..McpSettings::default()
    }
}

/// The names in a `tools/list` result.
fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A tool list imported as tool `fixture` at `address`, as a book.
fn book(list: &Value, address: &str) -> Arc<ApiBook> {
    let options = ImportOptions {
        format: Some(Format::McpTools),
        tool: Some("fixture".to_owned()),
        base_url: Some(address.to_owned()),
        ..ImportOptions::default()
    };
    let batch = read_bytes(Path::new(address), list.to_string().as_bytes(), &options).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    Arc::new(ApiBook::from_catalog(&catalog))
}

/// Lists the stdio fixture's tools and builds an executor over them.
async fn stdio_executor(settings: McpSettings) -> McpExecutor {
    let server = McpServer::stdio("fixture", fixture_command(), Vec::<String>::new());
    let client = McpClient::connect(&server, &settings).await.unwrap();
    let list = client.list_tools().await.unwrap();
    client.close().await;
    McpExecutor::new(book(&list, &stdio_address()), McpServers::new(), settings)
}

fn message(outcome: &Outcome) -> &str {
    match outcome {
        Outcome::Ok => "",
        Outcome::ToolError { message, .. } | Outcome::TransportError { message, .. } => message,
    }
}

const ALL_TOOLS: [&str; 7] = ["add", "echo", "fail", "crash", "slow", "add_tool", "env"];

#[tokio::test]
async fn stdio_round_trip_lists_every_page_and_calls_tools() {
    let server = McpServer::stdio("fixture", fixture_command(), Vec::<String>::new());
    let client = McpClient::connect(&server, &settings()).await.unwrap();
    assert!(client.process_id().is_some());
    let list = client.list_tools().await.unwrap();
    assert_eq!(names(&list), ALL_TOOLS, "every page of three");
    assert_eq!(
        list["tools"][0]["outputSchema"]["properties"]["sum"]["type"],
        "number"
    );
    client.close().await;

    let book = book(&list, &stdio_address());
    let add = book.entry(&"fixture/add".parse().unwrap()).unwrap();
    assert_eq!(add.tool.base_url.as_deref(), Some(stdio_address().as_str()));
    assert!(
        add.api.api.response_schema.is_some(),
        "outputSchema is kept"
    );
    let executor = McpExecutor::new(book, McpServers::new(), settings());
    assert!(executor.serves(&"fixture/add".parse().unwrap()));

    let obs = executor
        .call(&"fixture/add".parse().unwrap(), &json!({"a": 2, "b": 3.5}))
        .await
        .unwrap();
    assert!(obs.is_ok(), "{obs:?}");
    assert_eq!(obs.body, Body::Json(json!({"sum": 5.5})));
    let obs = executor
        .call(
            &"fixture/echo".parse().unwrap(),
            &json!({"text": "hello there"}),
        )
        .await
        .unwrap();
    assert_eq!(obs.body, Body::Text("hello there".to_owned()));
    executor.close().await;
}

#[tokio::test]
async fn http_round_trip_lists_calls_and_sees_added_tools() {
    let fixture = McpFixture::new().serve_http().await.unwrap();
    let address: McpAddress = fixture.address().parse().unwrap();
    let server = McpServers::new().resolve(&address).unwrap();
    assert_eq!(server.name, "127.0.0.1");
    let client = McpClient::connect(&server, &settings()).await.unwrap();
    let list = client.list_tools().await.unwrap();
    assert_eq!(names(&list), ALL_TOOLS);
    client.close().await;

    let executor = McpExecutor::new(
        book(&list, &fixture.address()),
        McpServers::new(),
        settings(),
    );
    let obs = executor
        .call(&"fixture/add".parse().unwrap(), &json!({"a": 40, "b": 2}))
        .await
        .unwrap();
    assert_eq!(obs.body, Body::Json(json!({"sum": 42.0})), "{obs:?}");
    let obs = executor
        .call(
            &"fixture/add_tool".parse().unwrap(),
            &json!({"name": "greet"}),
        )
        .await
        .unwrap();
    assert_eq!(obs.body, Body::Text("added greet".to_owned()));

    // A new connection lists the new tool, and once imported it answers.
    let client = McpClient::connect(&server, &settings()).await.unwrap();
    let list = client.list_tools().await.unwrap();
    assert!(names(&list).contains(&"greet".to_owned()), "{list}");
    client.close().await;
    let executor = McpExecutor::new(
        book(&list, &fixture.address()),
        McpServers::new(),
        settings(),
    );
    let obs = executor
        .call(&"fixture/greet".parse().unwrap(), &json!({}))
        .await
        .unwrap();
    assert_eq!(obs.body, Body::Text("hello from greet".to_owned()));
    executor.close().await;
}

#[tokio::test]
async fn bad_arguments_are_refused_before_any_connection() {
    let list = json!({"tools": [{"name": "add", "inputSchema": {
        "type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"]}}]});
    // Nothing runs at this address: reaching it would be a `network` failure.
    let address = "mcp+stdio:/nonexistent/toolsmith-mcp-server";
    let book = book(&list, address);
    let executor = Validated::new(
        McpExecutor::new(Arc::clone(&book), McpServers::new(), settings()),
        book,
        Provenance::Live,
    );
    let api = "fixture/add".parse().unwrap();
    let obs = executor.call(&api, &json!({"a": "two"})).await.unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::BadParameters), "{obs:?}");
    let text = message(&obs.outcome);
    assert!(
        text.contains("no call made") && text.contains("`a`"),
        "{text}"
    );
    // With good arguments the call is made, and the missing program is a network failure.
    let obs = executor.call(&api, &json!({"a": 1, "b": 2})).await.unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::Network), "{obs:?}");
    assert!(message(&obs.outcome).contains("cannot start"), "{obs:?}");
}

#[tokio::test]
async fn is_error_is_a_tool_failure() {
    let executor = stdio_executor(settings()).await;
    let obs = executor
        .call(&"fixture/fail".parse().unwrap(), &json!({}))
        .await
        .unwrap();
    assert!(
        matches!(
            obs.outcome,
            Outcome::ToolError {
                kind: FailureKind::ToolFailed,
                ..
            }
        ),
        "{obs:?}"
    );
    assert!(message(&obs.outcome).contains("fails on purpose"));
    assert_eq!(
        obs.body,
        Body::Text("the fixture fails on purpose".to_owned())
    );
    executor.close().await;
}

#[tokio::test]
async fn a_crash_is_a_network_observation_in_time_and_the_next_call_reconnects() {
    let executor = stdio_executor(settings()).await;
    // The deadline only guards against a hang.
    let obs = tokio::time::timeout(
        HANG_GUARD,
        executor.call(&"fixture/crash".parse().unwrap(), &json!({})),
    )
    .await
    .expect("a crash does not hang the call")
    .unwrap();
    assert!(
        matches!(
            obs.outcome,
            Outcome::TransportError {
                kind: FailureKind::Network,
                ..
            }
        ),
        "{obs:?}"
    );
    assert!(
        message(&obs.outcome).contains("crashing on purpose"),
        "the server's last words are in the message: {obs:?}"
    );
    let obs = executor
        .call(&"fixture/add".parse().unwrap(), &json!({"a": 1, "b": 1}))
        .await
        .unwrap();
    assert_eq!(
        obs.body,
        Body::Json(json!({"sum": 2.0})),
        "a new process answers: {obs:?}"
    );
    executor.close().await;
}

#[tokio::test]
async fn a_slow_tool_is_a_timeout_observation() {
    let executor = stdio_executor(McpSettings {
        timeout: Duration::from_secs(1),
        ..settings()
    })
    .await;
    // The tool sleeps 30 s; the deadline only guards against a hang.
    let obs = tokio::time::timeout(
        HANG_GUARD,
        executor.call(&"fixture/slow".parse().unwrap(), &json!({"seconds": 30})),
    )
    .await
    .expect("the call timeout ends a slow call")
    .unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::Timeout), "{obs:?}");
    // The connection survives a slow call.
    let obs = executor
        .call(&"fixture/slow".parse().unwrap(), &json!({"seconds": 0}))
        .await
        .unwrap();
    assert_eq!(obs.body, Body::Text("done".to_owned()), "{obs:?}");
    executor.close().await;
}

#[tokio::test]
async fn list_changed_hands_the_new_list_to_the_observer() {
    let server = McpServer::stdio("fixture", fixture_command(), Vec::<String>::new());
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let client = McpClient::connect_watching(&server, &settings(), Arc::new(tx))
        .await
        .unwrap();
    let obs = client.call("add_tool", &json!({"name": "greet"})).await;
    assert!(obs.is_ok(), "{obs:?}");
    let change = tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a change within 10 s")
        .expect("the channel is open");
    let ToolListChange::Listed(list) = change else {
        panic!("re-listing failed: {change:?}");
    };
    assert_eq!(
        names(&list),
        [
            "add", "echo", "fail", "crash", "slow", "add_tool", "env", "greet"
        ]
    );
    // The new list imports, and the new tool answers on this connection.
    let book = book(&list, &stdio_address());
    assert!(book.get(&"fixture/greet".parse().unwrap()).is_some());
    let obs = client.call("greet", &json!({})).await;
    assert_eq!(obs.body, Body::Text("hello from greet".to_owned()));
    client.close().await;
}

#[tokio::test]
async fn the_child_process_ends_with_its_client() {
    let server = McpServer::stdio("fixture", fixture_command(), Vec::<String>::new());
    let client = McpClient::connect(&server, &settings()).await.unwrap();
    let pid = client.process_id().unwrap();
    assert!(is_running(pid));
    drop(client);
    let deadline = Instant::now() + Duration::from_secs(10);
    while is_running(pid) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!is_running(pid), "process {pid} outlived its client");
}

/// Whether a process exists and is not a zombie waiting to be reaped.
fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

#[tokio::test]
async fn unknown_named_servers_and_unknown_tools_are_observations() {
    let list = json!({"tools": [{"name": "nope", "inputSchema": {"type": "object"}}]});
    let executor = McpExecutor::new(book(&list, "mcp://missing"), McpServers::new(), settings());
    let obs = executor
        .call(&"fixture/nope".parse().unwrap(), &json!({}))
        .await
        .unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::Unsupported), "{obs:?}");
    assert!(message(&obs.outcome).contains("no MCP server named `missing`"));

    // A tool the catalog has but the server does not: the server's refusal.
    let executor = McpExecutor::new(book(&list, &stdio_address()), McpServers::new(), settings());
    let obs = executor
        .call(&"fixture/nope".parse().unwrap(), &json!({}))
        .await
        .unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::BadParameters), "{obs:?}");
    assert!(
        message(&obs.outcome).contains("unknown tool `nope`"),
        "{obs:?}"
    );
    executor.close().await;
}

/// The variables the fixture's `env` tool reports.
async fn server_env(server: &McpServer) -> serde_json::Map<String, Value> {
    let client = McpClient::connect(server, &settings()).await.unwrap();
    let obs = client.call("env", &json!({})).await;
    client.close().await;
    assert!(obs.is_ok(), "{obs:?}");
    obs.body.json().unwrap()["env"].as_object().unwrap().clone()
}

/// A caller's variables the stdio server must not see, and one it is told to pass on.
const CALLER_ENV: [(&str, &str); 2] = [
    ("TOOLSMITH_FIXTURE_API_KEY", "sk-fixture-0123456789"),
    ("TOOLSMITH_FIXTURE_PASSED", "passed-on"),
];

/// The caller's environment is given explicitly to a child run of this test binary, which
/// runs [`stdio_env_in_a_child`]: no `set_var` in a process whose other tests spawn children.
#[test]
fn a_stdio_server_gets_the_safe_variables_and_its_own_only() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["mcp::stdio_env_in_a_child", "--exact", "--include-ignored"])
        .envs(CALLER_ENV)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
#[ignore = "run by a_stdio_server_gets_the_safe_variables_and_its_own_only with the caller's variables"]
async fn stdio_env_in_a_child() {
    if CALLER_ENV
        .iter()
        .any(|(name, value)| std::env::var(name).ok().as_deref() != Some(*value))
    {
        eprintln!(
            "skipped: runs only as the child of a_stdio_server_gets_the_safe_variables_and_its_own_only"
        );
        return;
    }
    let mut server = McpServer::stdio("fixture", fixture_command(), Vec::<String>::new());
    let plain = server_env(&server).await;
    assert!(
        !plain.contains_key("TOOLSMITH_FIXTURE_API_KEY"),
        "{plain:?}"
    );
    assert!(!plain.contains_key("TOOLSMITH_FIXTURE_PASSED"));
    for name in plain.keys() {
        assert!(
            MCP_SAFE_ENV.contains(&name.as_str()),
            "{name} was passed on"
        );
    }
    assert_eq!(
        plain.get("PATH").and_then(Value::as_str),
        std::env::var("PATH").ok().as_deref()
    );
    if let McpTransport::Stdio {
        env, inherit_env, ..
    } = &mut server.transport
    {
        env.insert("LOG_LEVEL".to_owned(), "warn".to_owned());
        inherit_env.push("TOOLSMITH_FIXTURE_PASSED".to_owned());
    }
    let configured = server_env(&server).await;
    assert_eq!(configured["LOG_LEVEL"], "warn");
    assert_eq!(configured["TOOLSMITH_FIXTURE_PASSED"], "passed-on");
    assert!(!configured.contains_key("TOOLSMITH_FIXTURE_API_KEY"));

    // A secret a server echoes (here: one configured for it) is neither
    // recorded nor shown.
    if let McpTransport::Stdio { env, .. } = &mut server.transport {
        env.insert(
            "FIXTURE_TOKEN".to_owned(),
            "tok-fixture-0123456789".to_owned(),
        );
    }
    let list = {
        let client = McpClient::connect(&server, &settings()).await.unwrap();
        let list = client.list_tools().await.unwrap();
        client.close().await;
        list
    };
    let book = book(&list, "mcp://fixture");
    let mut servers = McpServers::new();
    servers.insert(server);
    let live = Arc::new(McpExecutor::new(book, servers, settings()));
    let cache = Arc::new(ResponseCache::in_memory().unwrap());
    let mut redactor = Redactor::new();
    redactor.add("tok-fixture-0123456789");
    let recorder = ModeExecutor::new(Mode::Record, Arc::clone(&cache))
        .live(live)
        .redacting(redactor);
    let api = "fixture/env".parse().unwrap();
    let obs = recorder.call(&api, &json!({})).await.unwrap();
    assert!(obs.is_ok(), "{obs:?}");
    assert_eq!(obs.body.json().unwrap()["env"]["FIXTURE_TOKEN"], REDACTED);
    let stored = cache.get(&api, &json!({})).unwrap().unwrap();
    let text = serde_json::to_string(&stored).unwrap();
    assert!(
        !text.contains("tok-fixture-0123456789") && text.contains(REDACTED),
        "{text}"
    );
}
