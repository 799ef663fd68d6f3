//! The write gate in front of a live backend: unsafe calls never reach the
//! server unless the policy allows their tool or API.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::routing::get;
use serde_json::json;
use toolsmith_catalog::{
    Access, Api, ApiEntry, ApiId, Effects, Endpoint, HttpMethod, Param, ParamLocation, Tool,
};
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_exec::{
    ApiBook, Credentials, Executor, FailureKind, HttpExecutor, HttpSettings, WriteGate, WritePolicy,
};

fn api(name: &str, endpoint: Endpoint, params: Vec<Param>, effects: Effects) -> ApiEntry {
    ApiEntry {
        api: Api {
            id: format!("svc/{name}").parse().unwrap(),
            name: name.to_owned(),
            source_name: name.to_owned(),
            endpoint,
            params,
            request_body: None,
            response_schema: None,
            response_examples: Vec::new(),
            access: Access {
                security: None,
                effects,
            },
        },
        doc: None,
    }
}

fn http(method: HttpMethod, path: &str) -> Endpoint {
    Endpoint::Http {
        method,
        path: path.to_owned(),
    }
}

fn book(base: &str) -> Arc<ApiBook> {
    let tool = Tool {
        id: "svc".parse().unwrap(),
        name: "svc".to_owned(),
        category: "test".to_owned(),
        base_url: Some(base.to_owned()),
        security: Vec::new(),
    };
    let id_param = Param {
        name: "id".to_owned(),
        location: ParamLocation::Path,
        required: true,
        schema: json!({"type": "string"}),
        description: String::new(),
        list_format: Default::default(),
    };
    let mut book = ApiBook::new();
    for entry in [
        api(
            "list_items",
            http(HttpMethod::Get, "/items"),
            vec![],
            Effects::Unknown,
        ),
        api(
            "delete_item",
            http(HttpMethod::Delete, "/items/{id}"),
            vec![id_param],
            Effects::Unknown,
        ),
    ] {
        book.insert(tool.clone(), entry);
    }
    Arc::new(book)
}

fn id(raw: &str) -> ApiId {
    raw.parse().unwrap()
}

/// A server counting the DELETEs it received.
async fn serve(deletes: Arc<AtomicUsize>) -> String {
    let app = Router::new()
        .route("/items", get(|| async { axum::Json(json!([{"id": "1"}])) }))
        .route(
            "/items/{id}",
            axum::routing::delete(move || {
                let deletes = Arc::clone(&deletes);
                async move {
                    deletes.fetch_add(1, Ordering::SeqCst);
                    axum::Json(json!({"deleted": true}))
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

#[tokio::test]
async fn a_delete_is_refused_unless_its_tool_or_api_is_allowed() {
    let deletes = Arc::new(AtomicUsize::new(0));
    let book = book(&serve(Arc::clone(&deletes)).await);
    let live = || {
        HttpExecutor::new(
            Arc::clone(&book),
            Credentials::new(),
            HttpSettings::default(),
        )
    };
    let gated = WriteGate::new(live().unwrap(), Arc::clone(&book), WritePolicy::read_only());

    let listed = gated.call(&id("svc/list_items"), &json!({})).await.unwrap();
    assert!(listed.is_ok(), "a GET goes through: {listed:?}");
    let refused = gated
        .call(&id("svc/delete_item"), &json!({"id": "1"}))
        .await
        .unwrap();
    assert_eq!(refused.failure(), Some(FailureKind::NotAllowed));
    let text = serde_json::to_string(&refused).unwrap();
    assert!(
        text.contains("--allow-write svc") && text.contains("allow_writes"),
        "{text}"
    );
    assert_eq!(deletes.load(Ordering::SeqCst), 0, "the server never saw it");

    for allowed in ["svc", "svc/delete_item"] {
        let policy = WritePolicy::allowing([allowed]).unwrap();
        let gated = WriteGate::new(live().unwrap(), Arc::clone(&book), policy);
        let obs = gated
            .call(&id("svc/delete_item"), &json!({"id": "1"}))
            .await
            .unwrap();
        assert!(obs.is_ok(), "{allowed}: {obs:?}");
    }
    assert_eq!(deletes.load(Ordering::SeqCst), 2);
    let other = WritePolicy::allowing(["svc/list_items", "other"]).unwrap();
    let gated = WriteGate::new(live().unwrap(), Arc::clone(&book), other);
    let obs = gated
        .call(&id("svc/delete_item"), &json!({"id": "1"}))
        .await
        .unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::NotAllowed));
    assert_eq!(deletes.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn function_tools_pass_only_when_declared_read_only() {
    let tool = Tool {
        id: "svc".parse().unwrap(),
        name: "svc".to_owned(),
        category: "test".to_owned(),
        base_url: Some("mcp+stdio:svc".to_owned()),
        security: Vec::new(),
    };
    let mut book = ApiBook::new();
    for (name, effects) in [
        ("lookup", Effects::ReadOnly),
        ("rename", Effects::Writes),
        ("mystery", Effects::Unknown),
    ] {
        let endpoint = Endpoint::Function {
            name: name.to_owned(),
        };
        book.insert(tool.clone(), api(name, endpoint, vec![], effects));
    }
    let book = Arc::new(book);
    let backend = Arc::new(
        ScriptedExecutor::new()
            .respond(id("svc/lookup"), json!({"ok": true}))
            .respond(id("svc/rename"), json!({"ok": true}))
            .respond(id("svc/mystery"), json!({"ok": true})),
    );
    let gated = WriteGate::new(Arc::clone(&backend), book, WritePolicy::read_only());
    let mut failures = Vec::new();
    for name in ["lookup", "rename", "mystery"] {
        let obs = gated
            .call(&id(&format!("svc/{name}")), &json!({}))
            .await
            .unwrap();
        failures.push(obs.failure());
    }
    assert_eq!(
        failures,
        [
            None,
            Some(FailureKind::NotAllowed),
            Some(FailureKind::NotAllowed)
        ]
    );
    let called: Vec<ApiId> = backend.calls().into_iter().map(|(api, _)| api).collect();
    assert_eq!(called, [id("svc/lookup")]);
}
