//! `toolsmith bench embed`: the packed encoder and candle's BERT timed on the same queries, and
//! their vectors compared (needs the installed MiniLM; `TOOLSMITH_SKIP_MODEL_TESTS=1` skips).

use serde_json::Value;

use crate::support::{Workspace, shared};

#[test]
fn bench_embed_times_both_paths_and_their_vectors_agree() {
    if std::env::var(toolsmith_llm::env::TOOLSMITH_SKIP_MODEL_TESTS).is_ok_and(|v| v == "1") {
        eprintln!(
            "skipped: TOOLSMITH_SKIP_MODEL_TESTS=1 skips `bench embed`, which needs the model"
        );
        return;
    }
    let ws = Workspace::new();
    let data = shared("");
    let out = ws.ok(&[
        "bench",
        "embed",
        "--queries",
        "4",
        "--docs",
        "0",
        "--reference",
        "--threads",
        "2",
        "--json",
        "--data-dir",
        &data,
    ]);
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["queries"], 4);
    assert_eq!(report["threads"], 2);
    let paths = report["paths"].as_array().unwrap();
    let names: Vec<&str> = paths.iter().filter_map(|p| p["path"].as_str()).collect();
    assert_eq!(names, ["packed", "reference (candle)"]);
    for p in paths {
        assert!(p["query_p50_ms"].as_f64().unwrap() > 0.0, "{p}");
        assert!(p["docs_per_second"].is_null(), "no docs were asked for");
    }
    assert!(report["query_tokens_mean"].as_f64().unwrap() > 5.0);
    let cosine = report["min_cosine_vs_reference"].as_f64().unwrap();
    assert!(cosine >= 0.9999, "lowest cosine {cosine}");
}
