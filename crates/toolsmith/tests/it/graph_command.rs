//! `toolsmith graph build|show|stats|export` on RestBench's TMDB spec, and `search` with
//! dependency expansion once the graph exists.

use serde_json::Value;

use crate::support::{Workspace, shared};

#[test]
fn graph_build_show_stats_export_and_expanded_search() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    // Before a build: a clear error, and search runs without expansion.
    let out = ws.run(&["graph", "stats"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("graph build"));
    let query = "Get the cast and crew for a movie";
    let plain: Value =
        serde_json::from_str(&ws.ok(&["search", query, "-k", "1", "--method", "bm25", "--json"]))
            .unwrap();
    assert_eq!(plain.as_array().unwrap().len(), 1);

    let stats: Value =
        serde_json::from_str(&ws.ok(&["graph", "build", "--no-similarity", "--json"])).unwrap();
    assert_eq!(stats["nodes"], 54);
    assert_eq!(stats["similarity"], 0);
    assert!(stats["dependency"].as_u64().unwrap() > 50, "{stats}");
    assert_eq!(stats["build"]["phi"], Value::Null);
    let again: Value = serde_json::from_str(&ws.ok(&["graph", "stats", "--json"])).unwrap();
    assert_eq!(again["dependency"], stats["dependency"]);

    // show: by the RestGPT name; the search feeds movie_id, with its evidence.
    let node: Value =
        serde_json::from_str(&ws.ok(&["graph", "show", "GET /movie/{movie_id}/credits", "--json"]))
            .unwrap();
    assert_eq!(node["node"]["api"], "tmdb/get_movie_movie_id_credits");
    let edges = node["edges"].as_array().unwrap();
    let from_search = edges
        .iter()
        .find(|e| e["from"] == "tmdb/get_search_movie" && e["kind"] == "dependency")
        .expect("search/movie -> credits");
    assert_eq!(from_search["evidence"]["feeds"][0]["field"], "results[].id");
    assert_eq!(from_search["evidence"]["feeds"][0]["param"], "movie_id");
    assert_eq!(from_search["weight"], 1.0);
    assert!(node["experiences"].as_array().unwrap().is_empty());
    let text = ws.ok(&["graph", "show", "tmdb/get_movie_movie_id_credits"]);
    assert!(text.contains("<- tmdb/get_search_movie"), "{text}");
    assert!(!ws.run(&["graph", "show", "GET /nowhere"]).status.success());

    // export: DOT to a file, JSON to stdout.
    let dot = ws.dir.path().join("g.dot");
    ws.ok(&[
        "graph",
        "export",
        "--format",
        "dot",
        "--out",
        dot.to_str().unwrap(),
    ]);
    let dot = std::fs::read_to_string(dot).unwrap();
    assert!(dot.starts_with("digraph"));
    assert!(dot.contains("\"tmdb/get_search_movie\" -> \"tmdb/get_movie_movie_id_credits\""));
    let json: Value = serde_json::from_str(&ws.ok(&["graph", "export"])).unwrap();
    assert_eq!(json["nodes"].as_array().unwrap().len(), 54);

    // search now adds the producer of movie_id, and says why; --no-expand does not.
    let hits: Value =
        serde_json::from_str(&ws.ok(&["search", query, "-k", "1", "--method", "bm25", "--json"]))
            .unwrap();
    let hits = hits.as_array().unwrap();
    assert_eq!(hits[0]["api"], "tmdb/get_movie_movie_id_credits");
    let added = hits
        .iter()
        .find(|h| h["api"] == "tmdb/get_search_movie")
        .expect("the movie search is added");
    assert_eq!(added["added_for"]["param"], "movie_id");
    assert_eq!(added["added_for"]["api"], "tmdb/get_movie_movie_id_credits");
    let table = ws.ok(&["search", query, "-k", "1", "--method", "bm25"]);
    assert!(table.contains("produces movie_id"), "{table}");
    let off: Value = serde_json::from_str(&ws.ok(&[
        "search",
        query,
        "-k",
        "1",
        "--method",
        "bm25",
        "--no-expand",
        "--json",
    ]))
    .unwrap();
    assert_eq!(off.as_array().unwrap().len(), 1);
}

#[test]
fn graph_stats_against_restbench_gold_paths() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    ws.ok(&["graph", "build", "--no-similarity"]);
    let gold = shared("restbench-tmdb/restgpt/tmdb.json");
    let report: Value =
        serde_json::from_str(&ws.ok(&["graph", "stats", "--gold", &gold, "--json"])).unwrap();
    let g = &report["gold"];
    assert_eq!(g["paths"], 100);
    assert_eq!(g["edges"], report["stats"]["dependency"]);
    let pairs = g["pairs"].as_u64().unwrap();
    let linked = g["pairs_linked"].as_u64().unwrap();
    assert!(pairs > 50 && linked <= pairs, "{g}");
    assert!(g["recall"].as_f64().unwrap() >= 0.6, "{g}");
    // Ordered pairs within a path include the consecutive ones.
    assert!(
        g["edges_ordered"].as_u64() >= g["edges_consecutive"].as_u64(),
        "{g}"
    );
    assert_eq!(g["edges_consecutive"], g["pairs_linked"]);
    // RestBench's one misspelt gold name is reported, not guessed.
    assert_eq!(
        report["unknown_names"],
        serde_json::json!(["GET /person/{movie_id}/movie_credits"])
    );
    let text = ws.ok(&["graph", "stats", "--gold", &gold]);
    assert!(text.contains("consecutive gold pairs (recall)"), "{text}");

    // A file of another shape: a clear error naming it.
    let bad = ws.dir.path().join("bad.json");
    std::fs::write(&bad, r#"[{"query": "q"}]"#).unwrap();
    let out = ws.run(&["graph", "stats", "--gold", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("solution"),
        "{err}"
    );
}
