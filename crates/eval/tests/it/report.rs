//! The report writer on harness runs: two stored runs of ReAct on 5 TMDB queries, a stored
//! retrieval result and a doc diff become the index, one page per query, the plots and the
//! doc page; user text is escaped everywhere.

use std::sync::Arc;

use toolsmith_catalog::{ApiId, DocLabel};
use toolsmith_eval::report::{DocDiff, ReportInput, ReportRun, write_report};
use toolsmith_eval::{BenchSpec, BenchStore, Quiet, RetrievalResult};
use toolsmith_retrieve::Method;

use crate::harness::{harness, model, spec, tmdb};

async fn stored_run(store: &BenchStore, spec: &BenchSpec) -> toolsmith_eval::RunId {
    let tmdb = tmdb();
    let llm = Arc::new(model(&tmdb.queries, None));
    let run = store.create_run(spec).unwrap();
    harness(&tmdb.book, llm)
        .run(store, run, spec, &tmdb.queries, &Quiet)
        .await
        .unwrap();
    run
}

#[tokio::test]
async fn two_runs_become_an_index_query_pages_plots_and_doc_diffs() {
    let store = BenchStore::in_memory().unwrap();
    let first = stored_run(&store, &spec(None)).await;
    let mut refined = spec(None);
    refined.name = "refined <script>".into();
    refined.doc_version = Some(DocLabel::try_from("draft-ref".to_owned()).unwrap());
    let second = stored_run(&store, &refined).await;

    let curve = vec![40.0, 50.0, 55.0];
    let id = store
        .save_retrieval(&RetrievalResult {
            dataset: "restbench-tmdb".into(),
            method: Method::Bm25,
            doc_version: None,
            queries: 100,
            ndcg: curve.clone(),
            recall_5: 60.0,
            recall_10: 70.0,
        })
        .unwrap();
    let retrieval = store.retrieval_results().unwrap();
    assert_eq!(retrieval.len(), 1);
    assert_eq!((retrieval[0].id, &retrieval[0].result.ndcg), (id, &curve));

    let results = store.results(first).unwrap();
    assert_eq!(results.len(), 5);
    let api: ApiId = results[0].record.api_path()[0].clone();
    let input = ReportInput {
        runs: vec![
            ReportRun {
                run: store.run(first).unwrap(),
                results,
            },
            ReportRun {
                run: store.run(second).unwrap(),
                results: store.results(second).unwrap(),
            },
        ],
        retrieval,
        doc_diffs: vec![DocDiff {
            api,
            from: None,
            to: refined.doc_version.clone(),
            old: "Search for movies by title.".into(),
            new: "Search <b>movies</b> by their original title.".into(),
        }],
        gate_decisions: Vec::new(),
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let written = write_report(&input, &out).unwrap();
    assert_eq!(written.index, out.join("index.html"));
    for file in &written.files {
        assert!(file.is_file(), "{}", file.display());
    }
    // Index, docs, 10 query pages; 10 metric charts (ΔSL defined), tokens, NDCG@k.
    let count = |ext: &str| {
        written
            .files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == ext))
            .count()
    };
    assert_eq!(count("html"), 12);
    assert_eq!(count("svg"), 12);
    for f in written
        .files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "svg"))
    {
        let text = std::fs::read_to_string(f).unwrap();
        roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
    }

    let index = std::fs::read_to_string(&written.index).unwrap();
    assert!(
        index.contains("refined &lt;script&gt;"),
        "names are escaped"
    );
    assert!(!index.contains("<script>"));
    assert!(index.contains("href=\"queries/run1-1.html\""));
    assert!(index.contains("href=\"queries/run2-5.html\""));
    assert!(index.contains("href=\"docs.html\""));
    assert!(index.contains("src=\"plots/retrieval-ndcg.svg\""));
    assert!(index.contains("incomplete_invocation"), "the taxonomy");

    let docs = std::fs::read_to_string(out.join("docs.html")).unwrap();
    assert!(
        docs.contains("&lt;b&gt;movies&lt;/b&gt;") && !docs.contains("<b>"),
        "{docs}"
    );
    assert!(
        docs.contains("<del>for") && docs.contains("original"),
        "{docs}"
    );
    assert!(docs.contains("active → draft-ref"));

    let query = std::fs::read_to_string(out.join("queries/run1-1.html")).unwrap();
    let q0 = &tmdb().queries[0];
    assert!(query.contains(&q0.id));
    for gold in &q0.gold {
        assert!(query.contains(&gold.to_string()), "the called API {gold}");
    }
}

#[tokio::test]
async fn a_wrong_answer_is_never_ticked_and_accuracy_is_shown() {
    let store = BenchStore::in_memory().unwrap();
    let first = stored_run(&store, &spec(None)).await;
    let mut results = store.results(first).unwrap();
    let ticked_before = results.iter().filter(|r| r.scores.success).count();
    assert!(ticked_before > 0);
    // As on FuncQA: the gold call was made and the run answered (success), but the answer's
    // number is wrong. The other queries' answers match.
    for (i, r) in results.iter_mut().enumerate() {
        r.scores.gold_answer = Some(92.256);
        r.scores.answer_correct = Some(i != 0 && r.scores.success);
    }
    assert!(results[0].scores.success);
    let input = ReportInput {
        runs: vec![ReportRun {
            run: store.run(first).unwrap(),
            results,
        }],
        retrieval: Vec::new(),
        doc_diffs: Vec::new(),
        gate_decisions: Vec::new(),
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    write_report(&input, &out).unwrap();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    // Every successful query but the wrong one is ticked.
    assert_eq!(
        index.matches(r#"class="ok""#).count(),
        ticked_before - 1,
        "{index}"
    );
    assert!(index.contains("Answer accuracy"));
}
