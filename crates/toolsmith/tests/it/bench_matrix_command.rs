//! `toolsmith bench matrix`: docs (original and a hand-written `easytool` label) x expansion
//! (off, on) x ReAct on a small film API, each cell one stored run; a second invocation
//! resumes every finished cell without asking the model anything; expansion changes what
//! a query is offered.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::support::model::finishing_agent;
use crate::support::{Workspace, json_of};

/// Two searches produce the ids the credits and the reviews take.
const FILMS: &str = r#"{"openapi": "3.0.0", "info": {"title": "films", "version": "1"},
  "servers": [{"url": "https://films.example"}],
  "paths": {
    "/search/movie": {"get": {"operationId": "search_movie", "summary": "Search movies by their title",
      "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
      "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object",
        "properties": {"results": {"type": "array", "items": {"type": "object",
          "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}}}}}}}}}}},
    "/search/person": {"get": {"operationId": "search_person", "summary": "Search people by their name",
      "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
      "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object",
        "properties": {"results": {"type": "array", "items": {"type": "object",
          "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}}}}}}}}}},
    "/movie/{movie_id}/credits": {"get": {"operationId": "movie_credits", "summary": "The cast and crew of a movie, its director included",
      "parameters": [{"name": "movie_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
      "responses": {"200": {"description": "ok"}}}},
    "/movie/{movie_id}/reviews": {"get": {"operationId": "movie_reviews", "summary": "What reviewers wrote about a movie",
      "parameters": [{"name": "movie_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
      "responses": {"200": {"description": "ok"}}}},
    "/person/{person_id}/movie_credits": {"get": {"operationId": "person_movie_credits", "summary": "The movies a person directed or acted in",
      "parameters": [{"name": "person_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
      "responses": {"200": {"description": "ok"}}}}
  }}"#;

/// RestGPT's query format: each query with its gold path.
const QUERIES: &str = r#"[
  {"query": "Who directed the movie Titanic? Give the director from its credits", "solution": ["GET /search/movie", "GET /movie/{movie_id}/credits"]},
  {"query": "What do reviewers say about the movie Dune?", "solution": ["GET /search/movie", "GET /movie/{movie_id}/reviews"]},
  {"query": "Which movies did Sofia Coppola direct or act in?", "solution": ["GET /search/person", "GET /person/{person_id}/movie_credits"]}
]"#;

/// Cells by `docs/expansion`: (run id, resumed).
fn cells(report: &Value) -> Vec<(String, i64, bool)> {
    report["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                format!(
                    "{}/{}",
                    c["docs"].as_str().unwrap(),
                    c["expansion"].as_str().unwrap()
                ),
                c["run"].as_i64().unwrap(),
                c["resumed"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_matrix_runs_each_cell_once_and_resumes_finished_cells() {
    // Every agent turn finishes at once: the test reads what was offered, not the path.
    let (addr, seen) = finishing_agent().await;
    let ws = Workspace::bm25_with_llm(addr, "");
    ws.write("films.json", FILMS);
    let queries = ws.write("queries.json", QUERIES);
    let queries_text = queries.clone();
    let matrix = move |ws: &Workspace| {
        json_of(&ws.ok(&[
            "bench",
            "matrix",
            "--dataset",
            &queries,
            "--tools",
            "retrieve:1",
            "--solvers",
            "react",
            // No LLM cache: the model's count is then the queries actually run.
            "--cache",
            "off",
            "--json",
        ]))
    };
    let (ws, first, matrix) = tokio::task::spawn_blocking(move || {
        ws.ok(&["import", "films.json"]);
        ws.ok(&["graph", "build", "--no-similarity"]);
        ws.ok(&[
            "docs",
            "add",
            "films/search_movie",
            "--description",
            "Find a movie's id from its title",
            "--label",
            "easytool",
        ]);
        let first = matrix(&ws);
        (ws, first, matrix)
    })
    .await
    .unwrap();
    // Default docs: original and the easytool label the catalog has; expansion off and on.
    let first_cells = cells(&first);
    let names: Vec<&str> = first_cells.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        names,
        ["original/off", "original/on", "easytool/off", "easytool/on"],
        "{first:#}"
    );
    assert!(first_cells.iter().all(|c| !c.2), "every cell is new");
    for cell in first["cells"].as_array().unwrap() {
        assert_eq!(cell["summary"]["queries"], 3, "{cell:#}");
        assert_eq!(cell["solver"], "react");
        assert_eq!(cell["summary"]["llm_calls"], 3, "{cell:#}");
    }
    assert_eq!(
        *seen.lock().unwrap(),
        4 * 3,
        "one Finish per query per cell"
    );
    let factors: BTreeSet<&str> = first["shares"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["factor"].as_str().unwrap())
        .collect();
    assert_eq!(factors, BTreeSet::from(["docs", "expansion"]));
    let expansion = first["shares"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["factor"] == "expansion")
        .unwrap();
    assert_eq!(expansion["pairs"], 2);
    assert_eq!(
        (&expansion["level"], &expansion["baseline"]),
        (&json!("on"), &json!("off"))
    );

    let ws = tokio::task::spawn_blocking(move || {
        // The second invocation finds every cell finished: no model call, the same runs.
        let second = matrix(&ws);
        let again = cells(&second);
        assert!(again.iter().all(|c| c.2), "every cell resumed: {second:#}");
        let ids = |cells: &[(String, i64, bool)]| cells.iter().map(|c| c.1).collect::<Vec<_>>();
        assert_eq!(ids(&again), ids(&first_cells));
        // The text report: one row per cell, then the shares.
        let text = ws.ok(&[
            "bench",
            "matrix",
            "--dataset",
            &queries_text,
            "--tools",
            "retrieve:1",
            "--solvers",
            "react",
        ]);
        assert_eq!(
            text.lines().filter(|l| l.contains("react")).count(),
            4,
            "{text}"
        );
        assert!(
            text.contains("on vs off") && text.contains("easytool vs original"),
            "{text}"
        );
        let list = json_of(&ws.ok(&["bench", "list", "--json"]));
        assert_eq!(list.as_array().unwrap().len(), 4, "no run was added");
        // Expansion changes what is offered: off offers the top 1, on adds producers.
        let offered = |run: i64, query: usize| -> usize {
            let one = json_of(&ws.ok(&[
                "bench",
                "show",
                &run.to_string(),
                &query.to_string(),
                "--json",
            ]));
            one["offered"].as_array().unwrap().len()
        };
        let (off, on) = (first_cells[0].1, first_cells[1].1);
        let show = json_of(&ws.ok(&["bench", "show", &on.to_string(), "--json"]));
        assert_eq!(show["spec"]["expansion"], "on");
        for query in 0..3 {
            assert_eq!(offered(off, query), 1, "query {query} without expansion");
        }
        assert!(
            (0..3).any(|q| offered(on, q) > 1),
            "expansion added a producer to some query"
        );
        ws
    })
    .await
    .unwrap();
    drop(ws);
    assert_eq!(
        *seen.lock().unwrap(),
        4 * 3,
        "the resumed matrix asked the model nothing"
    );
}
