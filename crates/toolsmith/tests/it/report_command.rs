//! `toolsmith report`: two scripted runs of ReAct on 3 RestBench TMDB queries (original docs,
//! then DRAFT's refined docs) and a stored `bench retrieval` result become a static HTML
//! report. Every page is well-formed HTML, every local link and image resolves to a written
//! file, every plot is valid SVG, and user text is escaped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use scraper::{Html, Selector};
use serde_json::Value;

use crate::bench_command::tmdb_agent;
use crate::support::{Workspace, shared};

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn select<'a>(html: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    html.select(&Selector::parse(css).unwrap()).collect()
}

/// Parses a page, asserting the HTML parser met no error.
fn parse(path: &Path) -> Html {
    let text = std::fs::read_to_string(path).unwrap();
    let html = Html::parse_document(&text);
    assert!(
        html.errors.is_empty(),
        "{} is not well-formed: {:?}",
        path.display(),
        html.errors
    );
    html
}

#[tokio::test(flavor = "multi_thread")]
async fn a_report_of_two_runs_is_well_formed_and_every_link_resolves() {
    let (ws, _) = tmdb_agent().await;
    let data = shared("restbench-tmdb/..");
    let out = ws.dir.path().join("report");
    let (ws, written) = tokio::task::spawn_blocking({
        let out = out.clone();
        move || {
            let bench = |extra: &[&str]| {
                ws.bench_run("restbench-tmdb", &data, extra);
            };
            bench(&["--name", "original"]);
            bench(&["--name", "draft <b>&</b>", "--doc-version", "draft-ref"]);
            ws.ok(&[
                "bench",
                "retrieval",
                "--dataset",
                "restbench-tmdb",
                "--method",
                "bm25",
                "--data-dir",
                &data,
            ]);
            let written: Value = serde_json::from_str(&ws.ok(&[
                "report",
                "--out",
                out.to_str().unwrap(),
                "--data-dir",
                &data,
                "--json",
            ]))
            .unwrap();
            (ws, written)
        }
    })
    .await
    .unwrap();
    assert_eq!(written["runs"], serde_json::json!([1, 2]), "{written}");
    let index = out.join("index.html");
    assert_eq!(written["index"], index.to_str().unwrap());

    let all = files(&out);
    assert_eq!(written["files"], all.len());
    let pages: Vec<&PathBuf> = all
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .collect();
    // The index, the doc diffs, and one page per query of each run.
    assert_eq!(pages.len(), 1 + 1 + 3 * 2, "{all:?}");
    let mut linked = BTreeSet::new();
    for page in &pages {
        let html = parse(page);
        assert_eq!(select(&html, "html > head > title").len(), 1);
        let dir = page.parent().unwrap();
        for (css, attr) in [("a[href]", "href"), ("img[src]", "src")] {
            for element in select(&html, css) {
                let target = element.value().attr(attr).unwrap();
                assert!(
                    !target.contains("://"),
                    "a local report links nothing remote"
                );
                let file = dir.join(target);
                assert!(
                    file.is_file(),
                    "{}: {target} does not resolve",
                    page.display()
                );
                linked.insert(file.canonicalize().unwrap());
            }
        }
    }
    for file in &all {
        assert!(
            linked.contains(&file.canonicalize().unwrap()) || file == &index,
            "{} is written but not linked",
            file.display()
        );
    }

    let svgs: Vec<&PathBuf> = all
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .collect();
    assert!(
        svgs.len() >= 10,
        "a bar chart per metric, tokens, NDCG@k: {svgs:?}"
    );
    for svg in &svgs {
        let text = std::fs::read_to_string(svg).unwrap();
        let doc = roxmltree::Document::parse(&text)
            .unwrap_or_else(|e| panic!("{} is not XML: {e}", svg.display()));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
    }
    for plot in ["metric-cp.svg", "tokens.svg", "retrieval-ndcg.svg"] {
        assert!(out.join("plots").join(plot).is_file(), "{plot}");
    }
    let ndcg = std::fs::read_to_string(out.join("plots/retrieval-ndcg.svg")).unwrap();
    assert!(
        ndcg.contains("restbench-tmdb / bm25 / original"),
        "the curve's legend"
    );
    // The run name is escaped in the plots too.
    let cp = std::fs::read_to_string(out.join("plots/metric-cp.svg")).unwrap();
    assert!(cp.contains("draft &lt;b&gt;&amp;&lt;/b&gt;"), "{cp}");

    // The index: the comparison (both runs, the second with deltas), every query linked.
    let html = parse(&index);
    let text = html.root_element().text().collect::<String>();
    assert!(
        text.contains("draft <b>&</b>"),
        "the run's name is shown as text"
    );
    assert!(select(&html, "td b").is_empty(), "and never as markup");
    let headers: Vec<String> = select(&html, "th")
        .iter()
        .map(|th| th.text().collect())
        .collect();
    for metric in ["CP %", "Path F1", "Success %", "Tokens"] {
        assert!(headers.iter().any(|h| h == metric), "{metric}: {headers:?}");
    }
    assert_eq!(
        select(&html, "a[href^='queries/']").len(),
        6,
        "each query of each run is linked"
    );
    assert!(!select(&html, "span.delta").is_empty(), "deltas vs run 1");
    assert!(text.contains("incomplete_invocation"), "the error taxonomy");

    // A query page: the trace with the calls the script made, their observations, the answer.
    let coppola = pages
        .iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("run1-")
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .find(|t| t.contains("Sofia Coppola"))
        .expect("the Coppola query's page of run 1");
    let page = Html::parse_document(&coppola);
    let trace = select(&page, "ol.trace > li");
    assert!(trace.len() >= 6, "start, 3 LLM calls, 2 tool calls, finish");
    let tools: Vec<String> = select(&page, "ol.trace > li code")
        .iter()
        .map(|c| c.text().collect())
        .collect();
    assert!(
        tools.iter().any(|t| t == "get_search_person_for_tmdb"),
        "{tools:?}"
    );
    assert!(coppola.contains("an answer"));

    // The doc diffs: the called APIs' original docs against DRAFT's.
    let docs = parse(&out.join("docs.html"));
    let headings: Vec<String> = select(&docs, "h3")
        .iter()
        .map(|h| h.text().collect())
        .collect();
    assert!(
        headings.iter().any(|h| h.contains("active → draft-ref")),
        "{headings:?}"
    );
    assert!(!select(&docs, "div.diff ins").is_empty(), "words added");
    assert!(!select(&docs, "div.diff del").is_empty(), "words removed");
    drop(ws);
}

/// With no agent run stored, `report` renders the stored retrieval results alone.
#[test]
fn a_report_with_no_agent_run_shows_the_retrieval_results() {
    let ws = Workspace::new();
    let data = shared("restbench-tmdb/..");
    let out = ws.dir.path().join("report");
    let refused = ws.run(&["report", "--out", out.to_str().unwrap()]);
    assert!(!refused.status.success(), "nothing to report yet");
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(error.contains("toolsmith bench retrieval"), "{error}");

    ws.ok(&[
        "bench",
        "retrieval",
        "--dataset",
        "restbench-tmdb",
        "--method",
        "bm25",
        "--data-dir",
        &data,
    ]);
    let written: Value =
        serde_json::from_str(&ws.ok(&["report", "--out", out.to_str().unwrap(), "--json"]))
            .unwrap();
    assert_eq!(written["runs"], serde_json::json!([]), "{written}");
    assert_eq!(written["retrieval_results"], 1, "{written}");
    let html = parse(&out.join("index.html"));
    let headings: Vec<String> = select(&html, "h2")
        .iter()
        .map(|h| h.text().collect())
        .collect();
    assert!(headings.contains(&"Retrieval".to_owned()), "{headings:?}");
    assert!(!headings.contains(&"Runs".to_owned()), "{headings:?}");
    let rows = select(&html, "table tr");
    // The header and the one stored result.
    assert_eq!(rows.len(), 2);
    assert!(std::fs::metadata(out.join("plots/retrieval-ndcg.svg")).is_ok());
}
