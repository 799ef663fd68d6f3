//! `toolsmith import http://...`: a spec fetched by URL, its tool named from `info.title`
//! (issue 16, item 13), against the example API on loopback.

use serde_json::Value;
use toolsmith_testbed::ExampleApi;

use crate::support::Workspace;

#[tokio::test(flavor = "multi_thread")]
async fn import_fetches_a_spec_by_url_and_names_the_tool_from_its_title() {
    let api = ExampleApi::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let url = format!("{}/openapi.json", api.base_url());
    let ws = Workspace::new();
    let out = ws.ok(&["import", &url]);
    assert!(
        out.contains(&format!("{url} (openapi)")),
        "the URL is the source: {out}"
    );
    // "Example Library" names the tool `library`, not the file name `openapi`.
    let tools: Value = serde_json::from_str(&ws.ok(&["tools", "--json"])).unwrap();
    let ids: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"library/search_books"), "{ids:?}");

    ws.ok(&["import", &url, "--tool", "books"]);
    let tools: Value =
        serde_json::from_str(&ws.ok(&["tools", "--json", "--tool", "books"])).unwrap();
    assert!(
        !tools.as_array().unwrap().is_empty(),
        "--tool overrides the title"
    );

    let missing = ws.run(&["import", &format!("{}/nope.json", api.base_url())]);
    assert!(!missing.status.success());
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(stderr.contains("HTTP 404"), "{stderr}");

    let closed = ws.run(&["import", "http://127.0.0.1:1/openapi.json"]);
    assert!(!closed.status.success());
    assert!(
        String::from_utf8_lossy(&closed.stderr)
            .contains("fetching http://127.0.0.1:1/openapi.json")
    );
}
