//! `bench agreement` on the five-API cinema catalog of the gate tests: two query sets that
//! prefer opposite doc versions rank the configurations in reverse order.

use crate::docs_gate_command::{SOURCE_WEIGHED, workspace};
use crate::support::Workspace;

/// Five queries the `easytool` docs serve better (the person's), five the original docs serve
/// better (the movie search's), written as two query files.
fn with_sets(ws: &Workspace) {
    let eval = std::fs::read_to_string(ws.dir.path().join("eval.json")).unwrap();
    let all: Vec<serde_json::Value> = serde_json::from_str(&eval).unwrap();
    let (movie, person): (Vec<_>, Vec<_>) = all
        .into_iter()
        .partition(|q| q["solution"][0] == "GET /search/movie");
    for (file, set) in [("movie.json", movie), ("person.json", person)] {
        std::fs::write(
            ws.dir.path().join(file),
            serde_json::to_string(&set).unwrap(),
        )
        .unwrap();
    }
}

fn agreement(ws: &Workspace, reference: &str, dataset: &str) -> serde_json::Value {
    let out = ws.ok(&[
        "bench",
        "agreement",
        "--reference",
        reference,
        "--dataset",
        dataset,
        "--methods",
        "bm25",
        "--doc-versions",
        "original,easytool",
        "--json",
    ]);
    serde_json::from_str(&out).unwrap()
}

#[test]
fn sets_preferring_opposite_docs_disagree_and_a_set_agrees_with_itself() {
    let ws = workspace();
    with_sets(&ws);
    let report = agreement(&ws, "person.json", "movie.json");
    // bm25 x {original, easytool} x expansion {off, on}.
    let configs = report["configs"].as_array().unwrap();
    assert_eq!(configs.len(), 4);
    let easytool_off = configs
        .iter()
        .find(|c| c["docs"] == "easytool" && c["expansion"] == "off")
        .unwrap();
    assert_eq!(easytool_off["scores"][0]["ndcg_10"], 100.0);
    assert_eq!(easytool_off["scores"][1]["ndcg_10"], 0.0);
    assert_eq!(report["tau_ndcg_10"], -1.0);
    assert_eq!(report["tau_coverage"], -1.0);
    assert_eq!(easytool_off["scores"][0]["recall_10"], 100.0);
    assert_eq!(easytool_off["scores"][1]["recall_10"], 0.0);
    assert_eq!(report["tau_recall_10"], -1.0);
    assert_eq!(report["sets"][0]["path_lengths"]["1"], 5);
    assert_eq!(report["sets"][1]["apis"], 1);
    assert_eq!(report["shared_apis"], 0);

    // Every person query prefers easytool's docs, so no resample of them reorders the
    // configurations: the reference is stable, and the four pairs across doc versions (of six)
    // are separated beyond its noise, all ordered the other way by the movie set.
    let noise = &report["noise"]["ndcg_10"];
    eprintln!("{noise}");
    assert_eq!(report["noise"]["resamples"], 200);
    assert_eq!(noise["self_tau"][0]["p5"], 1.0, "{noise}");
    assert_eq!(noise["self_tau"][0]["resamples"], 200, "{noise}");
    assert_eq!(noise["pairs"], 6);
    assert_eq!(noise["separated_pairs"], 4, "{noise}");
    assert_eq!(noise["tau_separated"], -1.0, "{noise}");

    let same = agreement(&ws, "movie.json", "movie.json");
    assert_eq!(same["tau_ndcg_10"], 1.0);
    assert_eq!(same["shared_apis"], 1);
    assert_eq!(same["noise"]["ndcg_10"]["tau_separated"], 1.0);
    assert_eq!(same["tau_recall_10"], 1.0);

    let text = ws.ok(&[
        "bench",
        "agreement",
        "--reference",
        "person.json",
        "--dataset",
        "movie.json",
        "--methods",
        "bm25",
        "--doc-versions",
        "original,easytool",
    ]);
    assert!(text.contains("Kendall's tau-b, NDCG@10: -1.000"), "{text}");
    assert!(
        text.contains("NDCG@10: -1.000 over 4 of 6 pairs"),
        "the secondary figure is labelled: {text}"
    );
    assert!(
        text.contains("Noise, secondary (200 bootstrap resamples"),
        "{text}"
    );
}

/// With the source field weighed in `[retrieve]`, the movie search's `easytool` doc would
/// carry its imported words and serve the movie set as well as the original: the grid ranks
/// doc versions without it.
#[test]
fn the_grid_ranks_doc_versions_without_the_configured_source_field() {
    let ws = workspace();
    with_sets(&ws);
    std::fs::write(ws.dir.path().join("toolsmith.toml"), SOURCE_WEIGHED).unwrap();
    let report = agreement(&ws, "person.json", "movie.json");
    let easytool_off = report["configs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["docs"] == "easytool" && c["expansion"] == "off")
        .unwrap();
    assert_eq!(easytool_off["scores"][1]["ndcg_10"], 0.0, "{report}");
    assert_eq!(report["tau_ndcg_10"], -1.0, "{report}");
}
