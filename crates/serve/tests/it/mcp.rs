//! An rmcp client against the MCP server, in process over a duplex pipe (stdio's transport)
//! and over streamable HTTP.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolsmith_serve::{HttpOptions, McpSession, ServeSettings, router};

use crate::service;

/// Counts `tools/list_changed` notifications.
#[derive(Clone, Default)]
struct Client {
    changed: Arc<AtomicUsize>,
}

impl ClientHandler for Client {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.fetch_add(1, Ordering::SeqCst);
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("toolsmith-serve-test", "0"),
        )
    }
}

type Peer = RunningService<RoleClient, Client>;

/// A client connected in process to a session of `settings`'s server, and the count of
/// `tools/list_changed` notifications on the wire. A line is counted before it passes on to
/// the client, so once a response arrives every notification sent before it is counted (the
/// client's handler runs notifications in tasks of their own, in no set order).
async fn connect(settings: ServeSettings) -> (Peer, Arc<AtomicUsize>) {
    let (client_io, relay_client) = tokio::io::duplex(1 << 20);
    let (relay_server, server_io) = tokio::io::duplex(1 << 20);
    let session = McpSession::new(service(settings));
    tokio::spawn(async move {
        let (r, w) = tokio::io::split(server_io);
        let running = session.serve((r, w)).await.unwrap();
        let _ = running.waiting().await;
    });
    let changed = Arc::new(AtomicUsize::new(0));
    let (mut from_client, mut to_client) = tokio::io::split(relay_client);
    let (from_server, mut to_server) = tokio::io::split(relay_server);
    tokio::spawn(async move { tokio::io::copy(&mut from_client, &mut to_server).await });
    tokio::spawn({
        let changed = Arc::clone(&changed);
        async move {
            let mut lines = BufReader::new(from_server).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("notifications/tools/list_changed") {
                    changed.fetch_add(1, Ordering::SeqCst);
                }
                if to_client
                    .write_all(format!("{line}\n").as_bytes())
                    .await
                    .is_err()
                {
                    break;
                }
            }
        }
    });
    let (r, w) = tokio::io::split(client_io);
    (Client::default().serve((r, w)).await.unwrap(), changed)
}

async fn call(peer: &Peer, name: &str, args: Value) -> CallToolResult {
    let Value::Object(map) = args else {
        panic!("arguments must be an object")
    };
    peer.call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(map))
        .await
        .unwrap()
}

/// The JSON text of a result.
fn body(result: &CallToolResult) -> Value {
    let text = result.content[0].as_text().unwrap().text.clone();
    serde_json::from_str(&text).unwrap()
}

async fn names(peer: &Peer) -> Vec<String> {
    peer.list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

async fn wait_for(counter: &AtomicUsize, at_least: usize) {
    for _ in 0..100 {
        if counter.load(Ordering::SeqCst) >= at_least {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("no tools/list_changed after 2 s");
}

#[tokio::test]
async fn search_describe_call_and_sticky_tools_over_stdio_transport() {
    let (peer, changed) = connect(ServeSettings::default()).await;
    let info = peer.peer_info().unwrap();
    assert!(info.capabilities.tools.is_some());
    assert_eq!(
        names(&peer).await,
        ["search_tools", "describe_tool", "call_tool", "read_result"]
    );

    let found = call(
        &peer,
        "search_tools",
        json!({"query": "search for a movie by its title", "k": 3}),
    )
    .await;
    assert_ne!(found.is_error, Some(true));
    let results = body(&found)["results"].as_array().unwrap().clone();
    assert_eq!(results.len(), 3);
    let first = &results[0];
    let id = first["id"].as_str().unwrap().to_owned();
    let name = first["name"].as_str().unwrap().to_owned();
    assert!(first["input_schema"]["type"] == "object", "{first}");
    assert_eq!(
        id, "tmdb/get_search_movie",
        "BM25 finds the movie search first"
    );

    // The found tools are announced and listed under their own names.
    assert_eq!(
        changed.load(Ordering::SeqCst),
        1,
        "the found APIs were announced"
    );
    let listed = names(&peer).await;
    assert_eq!(listed.len(), 4 + 3, "{listed:?}");
    assert!(listed.contains(&name), "{listed:?} lacks {name}");

    let doc = body(&call(&peer, "describe_tool", json!({"id": id})).await);
    assert_eq!(doc["id"], id.as_str());
    assert!(
        doc["markdown"]
            .as_str()
            .unwrap()
            .contains("### tmdb/get_search_movie")
    );

    // By id through call_tool, then by its own name: both reach the simulator.
    let by_id = call(
        &peer,
        "call_tool",
        json!({"id": id, "arguments": {"query": "Dune"}}),
    )
    .await;
    let by_id = body(&by_id);
    assert_eq!(by_id["ok"], true, "{by_id}");
    assert_eq!(by_id["provenance"], "simulated");
    let by_name = body(&call(&peer, &name, json!({"query": "Dune"})).await);
    assert_eq!(by_name["ok"], true, "{by_name}");
    assert_eq!(by_name["id"], id.as_str());

    // Validation in front of the executor: a missing required argument is a failure kind.
    let refused = call(&peer, "call_tool", json!({"id": id, "arguments": {}})).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(body(&refused)["failure"], "bad_parameters");

    // Searching the same again changes nothing: no second announcement.
    call(
        &peer,
        "search_tools",
        json!({"query": "search for a movie by its title", "k": 3}),
    )
    .await;
    assert_eq!(changed.load(Ordering::SeqCst), 1, "no second announcement");
    peer.cancel().await.unwrap();
}

#[tokio::test]
async fn an_unknown_tool_answers_with_the_closest_matches() {
    let (peer, _) = connect(ServeSettings::default()).await;
    let wrong = call(
        &peer,
        "call_tool",
        json!({"id": "tmdb/search_movies_by_title", "arguments": {}}),
    )
    .await;
    assert_eq!(wrong.is_error, Some(true));
    let error = &body(&wrong)["error"];
    assert_eq!(error["code"], "unknown_tool");
    let closest: Vec<&str> = error["closest"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(closest.contains(&"tmdb/get_search_movie"), "{closest:?}");
    // An unknown tool name is the same kind of answer, not a protocol error.
    let unnamed = call(&peer, "movie_search_please", json!({})).await;
    assert_eq!(body(&unnamed)["error"]["code"], "unknown_tool");
    // Bad meta-tool input names the field.
    let bad = call(&peer, "search_tools", json!({"k": 2})).await;
    assert!(
        body(&bad)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`query`")
    );
}

#[tokio::test]
async fn a_one_letter_typo_suggests_the_intended_api_first() {
    let (peer, _) = connect(ServeSettings::default()).await;
    let wrong = call(
        &peer,
        "call_tool",
        json!({"id": "tmdb/get_search_movi", "arguments": {"query": "Dune"}}),
    )
    .await;
    let error = &body(&wrong)["error"];
    assert_eq!(error["code"], "unknown_tool");
    assert_eq!(error["closest"][0], "tmdb/get_search_movie", "{error}");
    assert_eq!(error["closest"].as_array().unwrap().len(), 3, "{error}");
    peer.cancel().await.unwrap();
}

#[tokio::test]
async fn long_results_are_cut_and_read_result_pages_to_the_end() {
    let settings = ServeSettings {
        max_result_chars: 200,
        page_chars: 150,
        ..ServeSettings::default()
    };
    let (peer, _) = connect(settings).await;
    // A doc over 200 characters comes back cut, with a handle.
    let cut = body(
        &call(
            &peer,
            "describe_tool",
            json!({"id": "tmdb/get_search_movie"}),
        )
        .await,
    );
    assert_eq!(cut["truncated"], true, "{cut}");
    let handle = cut["handle"].as_str().unwrap().to_owned();
    let total = cut["total_chars"].as_u64().unwrap() as usize;
    let mut text = cut["text"].as_str().unwrap().to_owned();
    let mut offset = cut["next_offset"].clone();
    let mut pages = 0;
    while let Some(at) = offset.as_u64() {
        let page = body(
            &call(
                &peer,
                "read_result",
                json!({"handle": handle, "offset": at}),
            )
            .await,
        );
        text.push_str(page["text"].as_str().unwrap());
        offset = page["next_offset"].clone();
        pages += 1;
    }
    assert!(pages >= 2, "{total} characters in pages of 150");
    assert_eq!(text.chars().count(), total);
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        doc["id"], "tmdb/get_search_movie",
        "the pages put together are the whole doc"
    );

    // Without the sandbox a jq filter is refused with a code, and a stale handle is named.
    let jq = body(
        &call(
            &peer,
            "read_result",
            json!({"handle": handle, "jq_filter": ".id"}),
        )
        .await,
    );
    assert_eq!(jq["error"]["code"], "jq_unavailable");
    let stale = body(&call(&peer, "read_result", json!({"handle": "res_0_nothing"})).await);
    assert_eq!(stale["error"]["code"], "unknown_handle");
}

#[tokio::test]
async fn exposed_tools_are_listed_from_the_start() {
    let (peer, _) = connect(ServeSettings {
        expose_top_n: 2,
        ..ServeSettings::default()
    })
    .await;
    let listed = names(&peer).await;
    assert_eq!(listed.len(), 6, "{listed:?}");
    let direct = &listed[4];
    let answer = call(&peer, direct, json!({})).await;
    // Whatever the arguments, the call reached validation and came back as an observation.
    assert!(
        body(&answer).get("provenance").is_some(),
        "{}",
        body(&answer)
    );
}

#[tokio::test]
async fn malformed_json_rpc_gets_an_error_and_the_server_keeps_serving() {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let session = McpSession::new(service(ServeSettings::default()));
    tokio::spawn(async move {
        let (r, w) = tokio::io::split(server_io);
        if let Ok(running) = session.serve((r, w)).await {
            let _ = running.waiting().await;
        }
    });
    let (r, mut w) = tokio::io::split(client_io);
    let mut lines = BufReader::new(r).lines();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    w.write_all(format!("{init}\n").as_bytes()).await.unwrap();
    let reply: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(reply["id"], 1);
    w.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .unwrap();
    // Garbage, then a request of an unknown method: the server stays up and answers the next one.
    w.write_all(b"{this is not json\n").await.unwrap();
    w.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"no/such_method\"}\n")
        .await
        .unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    w.write_all(format!("{list}\n").as_bytes()).await.unwrap();
    let mut seen = Map::new();
    while seen.len() < 2 {
        let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
            .await
            .expect("the server stopped answering")
            .unwrap()
            .unwrap();
        let msg: Value = serde_json::from_str(&line).unwrap();
        if let Some(id) = msg.get("id").and_then(Value::as_i64) {
            seen.insert(id.to_string(), msg);
        }
    }
    assert!(seen["2"].get("error").is_some(), "{:?}", seen["2"]);
    assert_eq!(seen["3"]["result"]["tools"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn the_same_tools_over_streamable_http() {
    use rmcp::transport::StreamableHttpClientTransport;
    let options = HttpOptions {
        mcp: true,
        ..HttpOptions::default()
    };
    let stop = options.stop.clone();
    let app = router(service(ServeSettings::default()), options);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(toolsmith_serve::serve(
        listener,
        app,
        stop.clone().cancelled_owned(),
    ));

    let client = Client::default();
    let changed = Arc::clone(&client.changed);
    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let peer = client.serve(transport).await.unwrap();
    assert_eq!(names(&peer).await.len(), 4);
    let found = body(
        &call(
            &peer,
            "search_tools",
            json!({"query": "movie credits cast", "k": 2}),
        )
        .await,
    );
    let name = found["results"][0]["name"].as_str().unwrap().to_owned();
    wait_for(&changed, 1).await;
    assert!(names(&peer).await.contains(&name));
    let id = found["results"][0]["id"].as_str().unwrap();
    let doc = body(&call(&peer, "describe_tool", json!({"id": id})).await);
    assert_eq!(doc["id"], id);
    // A second session starts fresh: sticky tools belong to their session.
    let other = Client::default()
        .serve(StreamableHttpClientTransport::from_uri(format!(
            "http://{addr}/mcp"
        )))
        .await
        .unwrap();
    assert_eq!(names(&other).await.len(), 4);
    let _ = peer.cancel().await;
    let _ = other.cancel().await;
    stop.cancel();
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("the server did not stop")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn search_tools_reads_k_as_the_http_api_does() {
    let (peer, _) = connect(ServeSettings::default()).await;
    let whole = call(&peer, "search_tools", json!({"query": "movie", "k": 2.0})).await;
    assert_ne!(whole.is_error, Some(true), "{:?}", body(&whole));
    assert_eq!(body(&whole)["results"].as_array().unwrap().len(), 2);
    let default = call(&peer, "search_tools", json!({"query": "movie", "k": null})).await;
    assert_eq!(body(&default)["results"].as_array().unwrap().len(), 5);
    let fraction = call(&peer, "search_tools", json!({"query": "movie", "k": 2.5})).await;
    assert_eq!(fraction.is_error, Some(true));
    assert_eq!(body(&fraction)["error"]["code"], "bad_request");
    peer.cancel().await.unwrap();
}
