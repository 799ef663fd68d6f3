//! `toolsmith bench search-speed` with the HNSW rows: a small size, the graph's settings read
//! from `[retrieve.dense.hnsw]`, recall measured against the exact scan.

use serde_json::Value;

use crate::support::{Workspace, shared};

#[test]
fn search_speed_reports_an_hnsw_row_built_with_the_configured_settings() {
    let ws = Workspace::new();
    std::fs::write(
        ws.dir.path().join("toolsmith.toml"),
        "[retrieve.dense.hnsw]\nm = 8\nef_construction = 40\nef_search = 64\n",
    )
    .unwrap();
    let data = shared("restbench-tmdb/..");
    let out = ws.ok(&[
        "bench",
        "search-speed",
        "--sizes",
        "400",
        "--queries",
        "5",
        "--json",
        "--data-dir",
        &data,
    ]);
    let report: Value = serde_json::from_str(&out).unwrap();
    let backends = report["backends"].as_array().unwrap();
    let names: Vec<&str> = backends
        .iter()
        .map(|b| b["backend"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["exact f32", "int8+rescore", "hnsw"]);
    let hnsw = &backends[2];
    assert_eq!(hnsw["apis"], 400);
    assert!(hnsw["skipped"].is_null(), "{hnsw}");
    // Measured (a number), whatever the machine's load made it.
    assert!(
        hnsw["build_ms"].as_f64().is_some_and(|ms| ms >= 0.0),
        "{hnsw}"
    );
    // The graph holds its own copy of the vectors: more than the exact scan's matrix.
    assert!(hnsw["mib"].as_f64().unwrap() > backends[0]["mib"].as_f64().unwrap());
    assert!(hnsw["scanned_mib"].is_null());
    let recall = hnsw["recall_at_10"].as_f64().unwrap();
    assert!((0.5..=1.0).contains(&recall), "recall@10 {recall}");
    assert_eq!(backends[0]["recall_at_10"], 1.0);
}
