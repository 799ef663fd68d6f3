//! import, tools, show, docs, export, stats.

use serde_json::Value;

use crate::support::{Workspace, shared};

fn tmdb(ws: &Workspace) {
    ws.ok(&[
        "import",
        &shared("restbench-tmdb/restgpt/tmdb_oas.json"),
        &shared("restbench-tmdb/draft/TMDB_DRAFT.json"),
    ]);
}

#[test]
fn tools_json_lists_every_api_with_the_documented_fields() {
    let ws = Workspace::new();
    tmdb(&ws);
    let rows: Vec<Value> = serde_json::from_str(&ws.ok(&["tools", "--json"])).unwrap();
    assert_eq!(rows.len(), 54);
    let search = rows
        .iter()
        .find(|r| r["id"] == "tmdb/get_search_person")
        .unwrap();
    for key in [
        "id",
        "category",
        "tool",
        "method",
        "path",
        "source_name",
        "description",
    ] {
        assert!(search.get(key).is_some(), "missing {key}: {search}");
    }
    assert_eq!(search["path"], "/search/person");
    assert_eq!(search["source_name"], "GET_search-person");
    let draft: Vec<Value> =
        serde_json::from_str(&ws.ok(&["tools", "--json", "--doc-version", "draft-ref"])).unwrap();
    assert!(draft.iter().all(|r| r["doc_label"] == "draft-ref"));
}

#[test]
fn docs_roll_back_and_forward_from_the_command_line() {
    let ws = Workspace::new();
    tmdb(&ws);
    ws.ok(&["docs", "activate", "tmdb/get_search_person", "2"]);
    let shown: Value = serde_json::from_str(&ws.ok(&[
        "show",
        "tmdb/get_search_person",
        "--json",
        "--all-versions",
    ]))
    .unwrap();
    assert_eq!(shown["doc"]["label"], "draft-ref");
    assert_eq!(shown["versions"].as_array().unwrap().len(), 2);
    ws.ok(&["docs", "activate", "tmdb/get_search_person", "1"]);
    let shown: Value =
        serde_json::from_str(&ws.ok(&["show", "tmdb/get_search_person", "--json"])).unwrap();
    assert_eq!(shown["doc"]["label"], "original");
    let out = ws.run(&["docs", "activate", "tmdb/get_search_person", "7"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no doc version 7"));
}

#[test]
fn export_formats_are_valid_json_of_the_right_shape() {
    let ws = Workspace::new();
    tmdb(&ws);
    let openapi: Value = serde_json::from_str(&ws.ok(&["export", "--format", "openapi"])).unwrap();
    assert_eq!(openapi["openapi"], "3.1.0");
    assert_eq!(openapi["servers"][0]["url"], "https://api.themoviedb.org/3");
    let openai: Value = serde_json::from_str(&ws.ok(&[
        "export",
        "--format",
        "openai",
        "--doc-version",
        "draft-ref",
    ]))
    .unwrap();
    assert_eq!(openai.as_array().unwrap().len(), 54);
    let mcp: Value = serde_json::from_str(&ws.ok(&["export", "--format", "mcp"])).unwrap();
    assert_eq!(mcp["tools"].as_array().unwrap().len(), 54);
    let markdown = ws.ok(&["export", "--format", "markdown"]);
    assert!(markdown.contains("### tmdb/get_search_person"));
    // The exported OpenAPI file imports again as the same tool.
    let out = ws.dir.path().join("tmdb.openapi.json");
    ws.ok(&[
        "export",
        "--format",
        "openapi",
        "--out",
        out.to_str().unwrap(),
    ]);
    let again = ws.ok(&["import", out.to_str().unwrap()]);
    // Every API comes back; those export repaired for validity (enum types, C1 characters)
    // count as updated, the rest as unchanged.
    assert!(
        again.contains("0 tools added, 1 updated; 0 APIs added, "),
        "{again}"
    );
    let count = |label: &str| -> usize {
        let at = again.find(label).unwrap();
        let digits: String = again[..at]
            .chars()
            .rev()
            .skip(1)
            .take_while(char::is_ascii_digit)
            .collect();
        digits.chars().rev().collect::<String>().parse().unwrap()
    };
    assert_eq!(count("updated, ") + count("unchanged; "), 54, "{again}");
}

#[test]
fn stats_report_tokens_per_doc_version() {
    let ws = Workspace::new();
    tmdb(&ws);
    let stats: Value = serde_json::from_str(&ws.ok(&["stats", "--json"])).unwrap();
    assert_eq!(stats["apis"], 54);
    let versions: Vec<&str> = stats["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["doc_version"].as_str().unwrap())
        .collect();
    assert_eq!(versions, ["active", "draft-ref", "original"]);
    let original = &stats["tokens"][2];
    assert!(original["cl100k_base"]["total"].as_u64().unwrap() > 1000);
    assert!(
        original["cl100k_base"]["spec_mean_per_api"]
            .as_f64()
            .unwrap()
            > original["cl100k_base"]["mean_per_api"].as_f64().unwrap()
    );
    // Token reduction per doc label, against the original docs.
    assert_eq!(original["reduction_vs_original_pct"].as_f64(), Some(0.0));
    assert!(stats["tokens"][1]["reduction_vs_original_pct"].is_f64());
}

#[test]
fn bad_input_exits_2_with_the_file_and_place() {
    let ws = Workspace::new();
    let bad = ws.dir.path().join("bad.json");
    std::fs::write(&bad, "{\"openapi\": \"3.0.0\",\n  \"paths\": [}").unwrap();
    let out = ws.run(&["import", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json:2:") && err.contains("malformed JSON"),
        "{err}"
    );
    // Nothing was stored.
    let rows: Vec<Value> = serde_json::from_str(&ws.ok(&["tools", "--json"])).unwrap();
    assert!(rows.is_empty());
    let out = ws.run(&["import", "--format", "nonsense", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn env_coverage_counts_calls_by_where_they_were_answered() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    ws.ok(&[
        "call",
        "tmdb/get_search_movie",
        "--args",
        r#"{"query": "Titanic"}"#,
        "--mode",
        "simulate",
    ]);
    ws.ok(&[
        "call",
        "tmdb/get_search_movie",
        "--args",
        r#"{"query": "Dune"}"#,
        "--mode",
        "replay-or-simulate",
    ]);
    let coverage: Value = serde_json::from_str(&ws.ok(&["env", "coverage", "--json"])).unwrap();
    assert_eq!(coverage["tools"][0]["tool"], "tmdb");
    assert_eq!(coverage["total"]["simulated"], 2);
    assert_eq!(coverage["total"]["live"], 0);
}

#[test]
fn simulated_pages_have_the_page_size_of_toolsmith_toml() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    let page = |ws: &Workspace| -> (u64, u64, usize) {
        let out: Value = serde_json::from_str(&ws.ok(&[
            "call",
            "tmdb/get_movie_top_rated",
            "--args",
            "{}",
            "--mode",
            "simulate",
        ]))
        .unwrap();
        let body = &out["body"]["value"];
        (
            body["total_results"].as_u64().unwrap(),
            body["total_pages"].as_u64().unwrap(),
            body["results"].as_array().unwrap().len(),
        )
    };
    let (total, pages, items) = page(&ws);
    assert_eq!(pages, total.div_ceil(10), "10 by default (`page_items`)");
    assert_eq!(items as u64, total.min(10));

    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        "[exec.simulate]\npage_size = 3\n",
    )
    .unwrap();
    let (total, pages, items) = page(&ws);
    assert_eq!(pages, total.div_ceil(3), "{total} results in pages of 3");
    assert_eq!(items as u64, total.min(3));

    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        "[exec.simulate]\npage_items = 0\n",
    )
    .unwrap();
    let out = ws.run(&["call", "tmdb/get_movie_top_rated", "--args", "{}"]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("page_items must be at least 1"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Off a terminal, work that can take seconds says what it is doing on stderr, one plain line
/// (a large catalog's `stats` or first search waited silently); `--quiet` silences it.
#[test]
fn slow_steps_say_what_they_do_on_stderr_off_a_terminal() {
    let ws = Workspace::new();
    tmdb(&ws);
    let stats = ws.run(&["stats"]);
    assert!(stats.status.success());
    let stderr = String::from_utf8_lossy(&stats.stderr);
    assert!(
        stderr.contains("counting the tokens of every doc version"),
        "{stderr}"
    );
    let search = ws.run(&["search", "movie credits", "--method", "bm25", "-k", "3"]);
    assert!(search.status.success());
    let stderr = String::from_utf8_lossy(&search.stderr);
    assert!(
        stderr.contains("building the bm25 index of 54 APIs ..."),
        "{stderr}"
    );
    let quiet = ws.run(&["--quiet", "stats"]);
    assert!(quiet.status.success());
    assert!(
        quiet.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
}

/// A query's filler words are BM25 stop words: "like" no longer ranks the images API (whose
/// doc says "like") above the movie APIs.
#[test]
fn the_readme_query_finds_movie_apis_not_images() {
    let ws = Workspace::new();
    tmdb(&ws);
    let hits: Vec<Value> = serde_json::from_str(&ws.ok(&[
        "search",
        "recommend movies like Titanic",
        "--method",
        "bm25",
        "-k",
        "3",
        "--json",
    ]))
    .unwrap();
    let apis: Vec<&str> = hits.iter().map(|h| h["api"].as_str().unwrap()).collect();
    assert!(!apis[0].ends_with("_images"), "{apis:?}");
    assert!(
        apis.contains(&"tmdb/get_movie_movie_id_recommendations"),
        "{apis:?}"
    );
}

/// `call` and `show` of an unknown id name the closest ids.
#[test]
fn call_and_show_suggest_close_ids_for_an_unknown_one() {
    let ws = Workspace::new();
    tmdb(&ws);
    for args in [
        &["show", "tmdb/search_movie"][..],
        &["call", "tmdb/search_movie", "--args", "{}"][..],
    ] {
        let out = ws.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no API `tmdb/search_movie` in the catalog; closest: "),
            "{args:?}: {stderr}"
        );
        let closest = stderr.split("closest: ").nth(1).unwrap();
        assert!(
            closest.starts_with("tmdb/get_search_movie,"),
            "{args:?}: {stderr}"
        );
    }
}
