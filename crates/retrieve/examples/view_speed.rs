//! Search latency with and without synthetic-query views, over ToolEnv2404's APIs (from the
//! benchmark data folder) and ToolBench G1/G2 query texts, dense vectors random (384
//! dimensions) as in `toolsmith bench search-speed`: BM25, the dense scan (int8, the
//! default, and f32) and hybrid search, each p50/p99, first with the docs' vectors only, then
//! with `VIEWS` random view vectors per API (Re-Invoke's ~10 synthetic requests).
//!
//! `cargo run --release -p toolsmith-retrieve --example view_speed [views]`

// An example: a missing data folder should stop it with its message; it prints its table.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::Path;
use std::sync::Arc;

use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_source};
use toolsmith_plumbing::measure::{Latency, SeededFloats, load_average};
use toolsmith_retrieve::timing::{Timed, time_bm25, time_dense, time_hybrid};
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Corpus, DenseBackend, DenseIndex, DenseSettings, HybridSettings,
    VectorFormat,
};

const DIMS: usize = 384;
const QUERIES: usize = 1_000;

fn main() {
    let views: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    let data = toolsmith_plumbing::data::data_dir().expect("the benchmark data folder");
    let corpus = toolenv(&data);
    let texts = queries(&data);
    let texts: Vec<&str> = texts
        .iter()
        .map(String::as_str)
        .cycle()
        .take(QUERIES)
        .collect();
    let mut rng = SeededFloats::new(7);
    let vectors: Vec<Vec<f32>> = (0..QUERIES).map(|_| rng.vector(DIMS)).collect();
    println!(
        "{} APIs, {} queries, load average {:?}",
        corpus.len(),
        texts.len(),
        load_average()
    );
    let bm25 = Bm25Index::build(corpus.clone(), Bm25Settings::default());
    report("bm25", &time_bm25(&bm25, &texts, 10));
    for n in [0, views] {
        let corpus = if n == 0 {
            corpus.clone()
        } else {
            Arc::new(with_views(&corpus, n))
        };
        let bm25 = Bm25Index::build(corpus.clone(), Bm25Settings::default());
        let rows = corpus.len() * (1 + n);
        let index =
            DenseIndex::from_vectors(corpus, "random-unit", DIMS, rng.vector(rows * DIMS)).unwrap();
        assert_eq!(index.views(), corpus_views(&index));
        for format in [VectorFormat::Int8, VectorFormat::F32] {
            let dense = index.clone().with_search_settings(DenseSettings {
                vectors: format,
                backend: DenseBackend::Exact,
                ..DenseSettings::default()
            });
            dense.warm().unwrap();
            let label = format!("{n} views/API, {format:?}");
            report(
                &format!("dense  {label}"),
                &time_dense(&dense, &vectors, 10).unwrap(),
            );
            let hybrid = time_hybrid(
                &bm25,
                &dense,
                HybridSettings::default(),
                &texts,
                &vectors,
                10,
            );
            report(&format!("hybrid {label}"), &hybrid.unwrap());
        }
    }
}

fn corpus_views(index: &DenseIndex) -> usize {
    index
        .corpus()
        .docs()
        .iter()
        .map(|d| d.views().count())
        .sum()
}

fn report(what: &str, timed: &Timed) {
    let l = Latency::of(timed.samples.clone());
    println!(
        "{what:<32} p50 {:>8.3} ms  p99 {:>8.3} ms",
        l.p50_us / 1e3,
        l.p99_us / 1e3
    );
}

/// ToolEnv2404's APIs, original docs.
fn toolenv(data: &Path) -> Arc<Corpus> {
    let path = data.join("toolbench/toolenv2404/toolenv2404_filtered.tar.gz");
    let batch = read_source(&path, &ImportOptions::default()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    Arc::new(Corpus::from_catalog(&catalog))
}

/// The query texts of StableToolBench's G1 and G2 test sets.
fn queries(data: &Path) -> Vec<String> {
    let dir = data.join("toolbench/stabletoolbench/test_instruction");
    let mut out = Vec::new();
    for name in [
        "G1_instruction",
        "G1_category",
        "G1_tool",
        "G2_instruction",
        "G2_category",
    ] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let items: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        out.extend(
            items
                .iter()
                .filter_map(|q| q.get("query")?.as_str().map(str::to_owned)),
        );
    }
    out
}

/// `corpus` with `n` synthetic requests per API (the BM25 field and the dense views).
fn with_views(corpus: &Corpus, n: usize) -> Corpus {
    let words = [
        "weather", "movie", "price", "convert", "search", "latest", "user", "email",
    ];
    Corpus::from_docs(corpus.docs().iter().enumerate().map(|(i, d)| {
        let mut d = d.clone();
        d.fields[7] = (0..n)
            .map(|v| {
                let w = words[(i + v) % words.len()];
                format!("find the {w} for request {v} of api {i}")
            })
            .collect::<Vec<_>>()
            .join("\n");
        d
    }))
}
