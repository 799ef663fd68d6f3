//! The loaders on the real benchmark files: query counts as the data README states them,
//! and gold names resolving against a catalog built from the benchmark's own sources.

use toolsmith_catalog::testing::data_dir;
use toolsmith_catalog::{ImportOptions, Store, read_source};
use toolsmith_eval::{Benchmark, DatasetFormat, GoldApi, load, load_as};

#[test]
fn restgpt_tmdb_has_100_queries_with_trimmed_gold_names() {
    let d = load(&data_dir().join("restbench-tmdb/restgpt/tmdb.json")).unwrap();
    assert_eq!(d.len(), 100);
    assert_eq!(
        d.queries[0].gold,
        vec![
            GoldApi::Named("GET /search/person".into()),
            GoldApi::Named("GET /person/{person_id}/movie_credits".into()),
        ]
    );
    let names: Vec<String> = d
        .queries
        .iter()
        .flat_map(|q| &q.gold)
        .map(ToString::to_string)
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.trim() == n && n.starts_with("GET /")),
        "{names:?}"
    );
    let lengths: usize = d.queries.iter().map(|q| q.gold.len()).sum();
    assert_eq!(
        lengths,
        5 + 66 * 2 + 27 * 3 + 2 * 4,
        "README: lengths 1:5, 2:66, 3:27, 4:2"
    );
}

#[test]
fn draft_restbench_has_100_queries() {
    let path = data_dir().join("restbench-tmdb/draft/TMDB.json");
    let d = load(&path).unwrap();
    assert_eq!(d.len(), 100);
    assert_eq!(d.queries[0].id, "q0");
    assert_eq!(
        d.queries[0].gold[0],
        GoldApi::Named("GET_search_person".into())
    );
    assert_eq!(load_as(&path, DatasetFormat::DraftRestBench).unwrap(), d);
}

#[test]
fn toolbench_files_have_the_stated_counts() {
    let dir = data_dir();
    let g2 = load(&dir.join("toolbench/draft282/G2.json")).unwrap();
    assert_eq!(g2.len(), 199);
    assert_eq!(
        g2.queries[0].gold[0],
        GoldApi::ToolBench {
            tool: "Turkey Postal Codes".into(),
            api: "il".into()
        }
    );
    for (name, n) in [
        ("G1_instruction", 163),
        ("G1_category", 153),
        ("G1_tool", 158),
        ("G2_instruction", 106),
        ("G2_category", 124),
    ] {
        let path = dir.join(format!(
            "toolbench/stabletoolbench/test_instruction/{name}.json"
        ));
        assert_eq!(load(&path).unwrap().len(), n, "{name}");
    }
    let g1 = Benchmark::ToolbenchG1.load(&dir).unwrap();
    assert_eq!(g1.len(), 163 + 153 + 158);
    assert_eq!(g1.queries[0].id, "G1_instruction/588");
    assert_eq!(Benchmark::ToolbenchG2.load(&dir).unwrap().len(), 106 + 124);
}

#[test]
fn bad_files_are_errors_that_name_the_file() {
    let dir = std::env::temp_dir().join(format!("toolsmith-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("odd.json");
    std::fs::write(&path, r#"[{"query": "hi", "answer": 3}]"#).unwrap();
    let err = load(&path).unwrap_err().to_string();
    assert!(
        err.contains("odd.json") && err.contains("unknown query format"),
        "{err}"
    );
    std::fs::write(&path, r#"{"query": "hi"}"#).unwrap();
    assert!(load(&path).unwrap_err().to_string().contains("JSON array"));
    assert!(Benchmark::parse("no-such-benchmark").is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn corpus(benchmark: &Benchmark) -> Store {
    let mut store = Store::in_memory().unwrap();
    for source in benchmark.corpus_sources(&data_dir()) {
        let batch = read_source(&source, &ImportOptions::default()).unwrap();
        store.import(&batch, false).unwrap();
    }
    store
}

#[test]
fn restbench_gold_resolves_in_both_name_schemes() {
    let store = corpus(&Benchmark::RestbenchTmdb);
    let restgpt = Benchmark::RestbenchTmdb
        .load(&data_dir())
        .unwrap()
        .resolve(&store)
        .unwrap();
    assert_eq!(
        (restgpt.queries.len(), restgpt.skipped),
        (100, 0),
        "{:?}",
        restgpt.unresolved
    );
    // RestGPT's query 98 names `GET /person/{movie_id}/movie_credits`: repaired by shape.
    assert_eq!(restgpt.repaired.len(), 1, "{:?}", restgpt.repaired);
    assert_eq!(
        restgpt.repaired[0].2.to_string(),
        "tmdb/get_person_person_id_movie_credits"
    );
    let draft = load(&data_dir().join("restbench-tmdb/draft/TMDB.json"))
        .unwrap()
        .resolve(&store)
        .unwrap();
    assert_eq!(draft.queries.len(), 100, "{:?}", draft.unresolved);
    // The same query, the same gold ids, whichever file it came from.
    assert_eq!(restgpt.queries[0].gold, draft.queries[0].gold);
}

#[test]
fn draft282_gold_resolves() {
    let store = corpus(&Benchmark::ToolbenchDraft282);
    let r = Benchmark::ToolbenchDraft282
        .load(&data_dir())
        .unwrap()
        .resolve(&store)
        .unwrap();
    assert_eq!(r.queries.len() + r.skipped, 199);
    assert!(
        r.queries.len() >= 190,
        "resolved {} of 199: {:?}",
        r.queries.len(),
        r.unresolved
    );
}
