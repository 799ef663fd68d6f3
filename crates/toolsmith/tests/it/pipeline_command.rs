//! One retrieval pipeline: over a stored tool graph, the tools `bench run --tools retrieve:K`
//! offers each query are the expanded offer `bench retrieval --coverage-k K` counts for it,
//! query by query.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::model::finishing_agent;
use crate::support::{Workspace, json_of};

/// A small film API: two searches produce the ids the other APIs take.
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
      "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object",
        "properties": {"crew": {"type": "array", "items": {"type": "object",
          "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "job": {"type": "string"}}}}}}}}}}}},
    "/movie/{movie_id}/reviews": {"get": {"operationId": "movie_reviews", "summary": "What reviewers wrote about a movie",
      "parameters": [{"name": "movie_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
      "responses": {"200": {"description": "ok"}}}},
    "/person/{person_id}/movie_credits": {"get": {"operationId": "person_movie_credits", "summary": "The movies a person directed or acted in",
      "parameters": [{"name": "person_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
      "responses": {"200": {"description": "ok"}}}},
    "/person/{person_id}": {"get": {"operationId": "person_details", "summary": "A person's birthday and biography",
      "parameters": [{"name": "person_id", "in": "path", "required": true, "schema": {"type": "integer"}}],
      "responses": {"200": {"description": "ok"}}}},
    "/movie/top_rated": {"get": {"operationId": "top_rated", "summary": "The top rated movies",
      "responses": {"200": {"description": "ok"}}}},
    "/genre/movie/list": {"get": {"operationId": "genres", "summary": "The list of movie genres",
      "responses": {"200": {"description": "ok"}}}}
  }}"#;

/// RestGPT's query format: each query with its gold path.
const QUERIES: &str = r#"[
  {"query": "Who directed the movie Titanic? Give the director from its credits", "solution": ["GET /search/movie", "GET /movie/{movie_id}/credits"]},
  {"query": "What do reviewers say about the movie Dune?", "solution": ["GET /search/movie", "GET /movie/{movie_id}/reviews"]},
  {"query": "Which movies did Sofia Coppola direct or act in?", "solution": ["GET /search/person", "GET /person/{person_id}/movie_credits"]},
  {"query": "When is the birthday of the director of Alien?", "solution": ["GET /search/movie", "GET /movie/{movie_id}/credits", "GET /person/{person_id}"]}
]"#;

fn apis(value: &Value) -> Vec<String> {
    let mut out: Vec<String> = value
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn bench_run_offers_each_query_what_bench_retrieval_counts_as_the_expanded_offer() {
    // Every agent turn finishes at once: the test reads what was offered, not the path.
    let (addr, seen) = finishing_agent().await;
    let ws = Workspace::bm25_with_llm(addr, "");
    ws.write("films.json", FILMS);
    let queries = ws.write("queries.json", QUERIES);
    let ws = tokio::task::spawn_blocking(move || {
        ws.ok(&["import", "films.json"]);
        ws.ok(&["graph", "build", "--no-similarity"]);
        let k = "2";
        let report = json_of(&ws.ok(&[
            "bench",
            "retrieval",
            "--dataset",
            &queries,
            "--coverage-k",
            k,
            "--offers",
            "--json",
        ]));
        let counted: BTreeMap<String, Vec<String>> = report["offers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| (o["query"].as_str().unwrap().to_owned(), apis(&o["apis"])))
            .collect();
        assert_eq!(counted.len(), 4, "{report:#}");
        // Expansion is on and added producers beyond the top 2 for some query.
        assert!(report["expanded"].is_object(), "{report:#}");
        assert!(counted.values().any(|a| a.len() > 2), "{counted:?}");

        let run = json_of(&ws.ok(&[
            "bench",
            "run",
            "--dataset",
            &queries,
            "--tools",
            &format!("retrieve:{k}"),
            "--json",
        ]));
        assert_eq!(run["summary"]["queries"], 4, "{run:#}");
        for id in 0..4 {
            let one = json_of(&ws.ok(&["bench", "show", "1", &id.to_string(), "--json"]));
            let query = one["run"]["query"].as_str().unwrap();
            assert_eq!(apis(&one["offered"]), counted[query], "query {id}: {query}");
        }
        ws
    })
    .await
    .unwrap();
    drop(ws);
    assert_eq!(*seen.lock().unwrap(), 4, "one Finish per query");
}
