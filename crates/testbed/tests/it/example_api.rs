//! The example library API end to end: its spec imported into a catalog,
//! then a chain of dependent calls through the HTTP executor, and the same
//! APIs simulated offline.

use std::sync::Arc;

use serde_json::json;
use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_source};
use toolsmith_exec::{
    ApiBook, Executor, FailureKind, HttpExecutor, Provenance, Simulator, Validated,
};
use toolsmith_testbed::{ExampleApi, library_spec};

async fn library() -> (ExampleApi, Arc<ApiBook>, tempfile::TempDir) {
    let server = ExampleApi::start("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spec_path = dir.path().join("library_openapi.json");
    std::fs::write(&spec_path, library_spec(&server.base_url()).to_string()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(
            &read_source(&spec_path, &ImportOptions::default()).unwrap(),
            toolsmith_catalog::Activate::IfNoneActive,
        )
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    (server, Arc::new(ApiBook::from_catalog(&catalog)), dir)
}

#[tokio::test]
async fn search_author_then_books_then_borrow() {
    let (server, book, _dir) = library().await;
    let mut ids: Vec<String> = book.ids().map(ToString::to_string).collect();
    ids.sort();
    assert_eq!(ids.len(), 11, "{ids:?}");
    let http =
        HttpExecutor::new(Arc::clone(&book), Default::default(), Default::default()).unwrap();
    let exec = Arc::new(Validated::new(http, Arc::clone(&book), Provenance::Live));
    let call = |api: &str, args: serde_json::Value| {
        let exec = exec.clone();
        let api = api.parse().unwrap();
        async move { exec.call(&api, &args).await.unwrap() }
    };

    let authors = call("library/search_authors", json!({"name": "le guin"})).await;
    assert!(authors.is_ok(), "{authors:?}");
    let author_id = authors.body.json().unwrap()["results"][0]["id"]
        .as_i64()
        .unwrap();

    let books = call("library/list_author_books", json!({"author_id": author_id})).await;
    let list = books.body.json().unwrap()["books"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(list.len(), 3);
    let book_id = list
        .iter()
        .find(|b| b["title"] == "The Dispossessed")
        .unwrap()["id"]
        .as_i64()
        .unwrap();

    let detail = call("library/get_book", json!({"book_id": book_id})).await;
    assert_eq!(detail.body.json().unwrap()["copies_available"], 2);

    let loan = call(
        "library/create_loan",
        json!({"book_id": book_id, "member_id": 2, "days": 7}),
    )
    .await;
    assert!(loan.is_ok(), "{loan:?}");
    assert_eq!(loan.status, Some(201));
    let loan_id = loan.body.json().unwrap()["id"].as_i64().unwrap();

    let got = call("library/get_loan", json!({"loan_id": loan_id})).await;
    let got = got.body.json().unwrap();
    assert_eq!(got["book_id"].as_i64(), Some(book_id));
    assert_eq!(got["member_id"], 2);
    assert_eq!(got["status"], "active");

    let after = call("library/get_book", json!({"book_id": book_id})).await;
    assert_eq!(after.body.json().unwrap()["copies_available"], 1);

    let missing = call("library/get_book", json!({"book_id": 999})).await;
    assert_eq!(missing.failure(), Some(FailureKind::NotFound));
    let none_left = call("library/create_loan", json!({"book_id": 7, "member_id": 1})).await;
    assert_eq!(none_left.status, Some(409));
    let invalid = call("library/create_loan", json!({"book_id": 1})).await;
    assert_eq!(invalid.failure(), Some(FailureKind::BadParameters));
    assert_eq!(
        invalid.status, None,
        "refused before the call: member_id is required"
    );
    drop(server);
}

#[tokio::test]
async fn the_spec_is_served_and_simulable() {
    let (server, book, _dir) = library().await;
    let client = reqwest::Client::new();
    let text = client
        .get(format!("{}/openapi.json", server.base_url()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let served: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(served["info"]["title"], "Example Library");
    let sim = Simulator::new(book);
    let obs = sim
        .call(&"library/get_book".parse().unwrap(), &json!({"book_id": 5}))
        .await
        .unwrap();
    assert_eq!(obs.body.json().unwrap()["id"], 5);
}
