//! `/openapi.json` against the server it describes: the routes it lists are the routes there
//! are, bearer security only with a token, and every answer to generated requests (valid and
//! not) has its status documented for that route, with JSON where JSON is documented.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use reqwest::StatusCode;
use serde_json::{Value, json};
use toolsmith_plumbing::Secret;
use toolsmith_serve::{HttpOptions, ROUTES, ServeSettings};

use crate::http::{Server, client, json_of, start_with};
use crate::service;

async fn document(server: &Server, token: Option<&str>) -> Value {
    let mut request = client().get(server.url("/openapi.json"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    json_of(request.send().await.unwrap()).await.1
}

#[tokio::test]
async fn the_document_fits_the_server_it_describes() {
    let plain = start_with(service(ServeSettings::default()), HttpOptions::default()).await;
    let doc = document(&plain, None).await;
    assert!(doc.get("security").is_none(), "no token, no security");
    assert!(
        doc["paths"].get("/mcp").is_none(),
        "no MCP endpoint, not described"
    );
    assert!(
        doc["paths"]["/healthz"]["get"]["responses"]
            .get("401")
            .is_none()
    );

    let options = HttpOptions {
        token: Some(Secret::new("t0k")),
        mcp: true,
        ..HttpOptions::default()
    };
    let full = start_with(service(ServeSettings::default()), options).await;
    let doc = document(&full, Some("t0k")).await;
    assert_eq!(doc["security"], json!([{"bearer": []}]));
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    let mut described: Vec<(String, String)> = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            described.push((method.clone(), path.clone()));
        }
    }
    described.sort();
    let mut routes: Vec<(String, String)> = ROUTES
        .iter()
        .map(|(m, p)| ((*m).to_owned(), (*p).to_owned()))
        .collect();
    routes.sort();
    assert_eq!(described, routes, "the document lists exactly the routes");
    for (method, path) in &routes {
        assert!(
            doc["paths"][path][method]["responses"].get("401").is_some(),
            "{method} {path} documents 401 with a token"
        );
    }
}

/// One generated request: method, concrete path, and a body (sent as JSON or as text).
#[derive(Clone, Debug)]
struct Probe {
    method: &'static str,
    path: String,
    body: Option<String>,
    json: bool,
}

/// The document's path template a concrete path falls under.
fn template(path: &str) -> &'static str {
    let bare = path.split('?').next().unwrap_or_default();
    match bare {
        "/healthz" => "/healthz",
        "/openapi.json" => "/openapi.json",
        "/v1/tools" => "/v1/tools",
        "/v1/search" => "/v1/search",
        "/v1/call" => "/v1/call",
        "/v1/results/read" => "/v1/results/read",
        "/v1/solve" => "/v1/solve",
        "/mcp" => "/mcp",
        p if p.starts_with("/v1/tools/") => "/v1/tools/{id}",
        p if p.starts_with("/v1/runs/") => "/v1/runs/{id}",
        _ => "",
    }
}

fn word() -> impl Strategy<Value = String> {
    "[ a-z0-9_/%.-]{0,12}"
}

fn json_body() -> impl Strategy<Value = String> {
    prop_oneof![
        (word(), any::<Option<u8>>()).prop_map(|(q, k)| json!({"query": q, "k": k}).to_string()),
        (word(), word()).prop_map(|(id, a)| json!({"id": id, "arguments": {"a": a}}).to_string()),
        (word(), any::<Option<u16>>(), proptest::option::of(word())).prop_map(|(h, o, f)| {
            json!({"handle": h, "offset": o, "jq_filter": f}).to_string()
        }),
        (word(), any::<i8>()).prop_map(|(m, id)| {
            json!({"jsonrpc": "2.0", "id": id, "method": m, "params": {}}).to_string()
        }),
        "[{}\\[\\]\": a-z0-9,]{0,16}",
    ]
}

fn probe() -> impl Strategy<Value = Probe> {
    let get_path = prop_oneof![
        Just("/healthz".to_owned()),
        Just("/openapi.json".to_owned()),
        (any::<Option<u16>>(), word(), word()).prop_map(|(limit, tool, q)| {
            let limit = limit.map(|l| format!("limit={l}&")).unwrap_or_default();
            format!("/v1/tools?{limit}tool={tool}&q={q}").replace(' ', "+")
        }),
        word().prop_map(|id| format!("/v1/tools/tmdb/{}", id.replace(['/', '%', ' '], "_"))),
        "[0-9a-z-]{1,20}".prop_map(|id| format!("/v1/runs/{id}")),
        Just("/mcp".to_owned()),
    ];
    let post_path = prop_oneof![
        Just("/v1/search"),
        Just("/v1/call"),
        Just("/v1/results/read"),
        Just("/v1/solve"),
        Just("/mcp"),
    ];
    prop_oneof![
        get_path.prop_map(|path| Probe {
            method: "get",
            path,
            body: None,
            json: false
        }),
        (post_path, json_body(), any::<bool>()).prop_map(|(path, body, json)| Probe {
            method: "post",
            path: path.to_owned(),
            body: Some(body),
            json,
        }),
        Just(Probe {
            method: "delete",
            path: "/mcp".to_owned(),
            body: None,
            json: false
        }),
    ]
}

/// Sends `probe`; the status, whether the answer is JSON, and its text.
async fn send(server: &Server, probe: &Probe) -> (StatusCode, bool, String) {
    let method: reqwest::Method = probe.method.to_uppercase().parse().unwrap();
    let mut request = client()
        .request(method, server.url(&probe.path))
        .header("accept", "application/json, text/event-stream");
    if let Some(body) = &probe.body {
        let kind = if probe.json {
            "application/json"
        } else {
            "text/plain"
        };
        request = request.header("content-type", kind).body(body.clone());
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let is_json = response
        .headers()
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let text = if response
        .headers()
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
    {
        String::new() // a stream stays open; its status is what is checked
    } else {
        response.text().await.unwrap_or_default()
    };
    (status, is_json, text)
}

#[test]
fn every_answer_to_generated_requests_is_documented() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let options = HttpOptions {
        mcp: true,
        ..HttpOptions::default()
    };
    let server = rt.block_on(start_with(service(ServeSettings::default()), options));
    let doc = rt.block_on(document(&server, None));
    let mut runner = TestRunner::new(Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&probe(), |probe| {
            let (status, is_json, text) = rt.block_on(send(&server, &probe));
            let operation = &doc["paths"][template(&probe.path)][probe.method];
            prop_assert!(operation.is_object(), "{probe:?} has no operation");
            let documented = &operation["responses"][status.as_str()];
            prop_assert!(
                documented.is_object(),
                "{probe:?} answered {status}, not documented: {text}"
            );
            if documented["content"].get("application/json").is_some()
                && documented["content"].get("text/event-stream").is_none()
            {
                prop_assert!(is_json, "{probe:?} answered {status} without JSON: {text}");
                serde_json::from_str::<Value>(&text)
                    .map_err(|e| TestCaseError::fail(format!("{probe:?}: {e}: {text}")))?;
            }
            Ok(())
        })
        .unwrap();
}

#[tokio::test]
async fn schema_valid_requests_are_accepted() {
    let server = start_with(service(ServeSettings::default()), HttpOptions::default()).await;
    // The smallest queries the document allows: one character that is not a space.
    for query in ["x", " x", "7"] {
        let (status, _) = json_of(
            client()
                .post(server.url("/v1/search"))
                .json(&json!({"query": query}))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{query:?}");
    }
    let (status, _) = json_of(
        client()
            .get(server.url("/v1/tools?tool=tmdb&limit=0"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

/// Whether the server refused `body` at `path` as a bad request (400 or 422), as opposed to
/// taking it (which may still end in 404 for an unknown handle, or 503 without an LLM).
async fn refused(server: &Server, path: &str, body: &Value) -> (bool, StatusCode) {
    let response = client()
        .post(server.url(path))
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (
        matches!(
            status,
            StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY
        ),
        status,
    )
}

#[tokio::test]
async fn bodies_are_taken_exactly_when_the_document_allows_them() {
    let server = start_with(service(ServeSettings::default()), HttpOptions::default()).await;
    let doc = document(&server, None).await;
    let cases = [
        // An integer in JSON Schema is any number without a fraction; null is left out.
        ("/v1/search", json!({"query": "x", "k": 28.0})),
        ("/v1/search", json!({"query": "x", "k": null})),
        ("/v1/search", json!({"query": "x", "k": 3})),
        ("/v1/search", json!({"query": "x", "k": 2.5})),
        ("/v1/search", json!({"query": "x", "k": "3"})),
        ("/v1/search", json!({"query": "x", "k": 0})),
        ("/v1/search", json!({"query": "x", "k": 51.0})),
        ("/v1/search", json!({"query": "x", "k": -1})),
        // Without an LLM a valid task answers 503, a bad one 422 all the same.
        ("/v1/solve", json!({"query": "x", "tools": 49.0})),
        ("/v1/solve", json!({"query": "x", "tools": null})),
        ("/v1/solve", json!({"query": "x", "tools": 51})),
        ("/v1/solve", json!({"query": "x", "tools": 1.5})),
        ("/v1/results/read", json!({"handle": "h", "offset": 8490.0})),
        (
            "/v1/results/read",
            json!({"handle": "h", "offset": null, "jq_filter": "."}),
        ),
        (
            "/v1/results/read",
            json!({"handle": "h", "offset": 0, "jq_filter": null}),
        ),
        (
            "/v1/results/read",
            json!({"handle": "h", "offset": 1, "jq_filter": "."}),
        ),
        ("/v1/results/read", json!({"handle": "h", "offset": 0.5})),
        ("/v1/results/read", json!({"handle": "h", "offset": -2})),
    ];
    for (path, body) in cases {
        let schema =
            &doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"];
        let valid = jsonschema::draft202012::is_valid(schema, &body);
        let (refused, status) = refused(&server, path, &body).await;
        assert_eq!(
            refused, !valid,
            "{path} {body}: the document says valid={valid}, the server answered {status}"
        );
        assert!(
            doc["paths"][path]["post"]["responses"]
                .get(status.as_str())
                .is_some(),
            "{path} {body}: {status} is documented"
        );
    }
}

#[tokio::test]
async fn paging_parameters_hold_to_their_documented_maximum() {
    let server = start_with(service(ServeSettings::default()), HttpOptions::default()).await;
    let doc = document(&server, None).await;
    let params = doc["paths"]["/v1/tools"]["get"]["parameters"]
        .as_array()
        .unwrap();
    for name in ["offset", "limit"] {
        let schema = &params.iter().find(|p| p["name"] == name).unwrap()["schema"];
        let max = schema["maximum"].as_u64().unwrap();
        for (value, valid) in [(max, true), (max + 1, false), (0, true)] {
            assert_eq!(
                jsonschema::draft202012::is_valid(schema, &json!(value)),
                valid
            );
            let response = client()
                .get(server.url(&format!("/v1/tools?{name}={value}")))
                .send()
                .await
                .unwrap();
            let expected = if valid {
                StatusCode::OK
            } else {
                StatusCode::BAD_REQUEST
            };
            assert_eq!(response.status(), expected, "{name}={value}");
        }
    }
}

#[tokio::test]
async fn the_tool_id_example_names_a_served_api() {
    let server = start_with(service(ServeSettings::default()), HttpOptions::default()).await;
    let doc = document(&server, None).await;
    let example = doc["paths"]["/v1/tools/{id}"]["get"]["parameters"][0]["example"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(example.contains('/'), "{example} has the tool/api shape");
    let (status, body) = json_of(
        client()
            .get(server.url(&format!("/v1/tools/{example}")))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["id"], example.as_str());
}
