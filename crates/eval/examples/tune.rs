//! The measurements behind the defaults: BM25 field weights and stemming, dense text fields,
//! and the hybrid fusion, on restbench-tmdb and toolbench-draft282 (original, DRAFT and
//! EasyTool docs). `cargo run --release -p toolsmith-eval --example tune [-- dense]`;
//! `dense` also embeds with the local MiniLM (about a minute). `-- fusion` grids the hybrid's
//! fusions (RRF and z-scores) on all four datasets, toolbench-g1/g2 over the whole ToolEnv2404
//! catalog (embedding its 46,803 APIs takes most of an hour the first time; point `$TUNE_CACHE` at a
//! database that already holds them, e.g. one `toolsmith bench retrieval` filled). Reads
//! `$TOOLSMITH_DATA`, else `../shared/data` (`toolsmith_plumbing::data::data_dir`).
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;

use toolsmith_catalog::{ApiId, DocSelector, ImportOptions, Scope, Store, read_source};
use toolsmith_eval::{Benchmark, ResolvedQuery, RetrievalScores};
use toolsmith_llm::{CacheDb, CacheMode, CachedEmbedder, Embedder, LocalEmbedder};
use toolsmith_retrieve::{
    Bm25Index, Bm25Settings, Corpus, DenseIndex, DenseSettings, FieldWeights, Filter, Fusion,
    RRF_K, fuse,
};

struct Bench {
    name: &'static str,
    queries: Vec<ResolvedQuery>,
    corpora: Vec<(&'static str, Arc<Corpus>)>,
}

fn load(benchmark: Benchmark, name: &'static str, data: &std::path::Path) -> Bench {
    let labels: &[&'static str] = match benchmark {
        Benchmark::ToolbenchG1 | Benchmark::ToolbenchG2 => &["original"],
        _ => &["original", "draft", "easytool"],
    };
    let mut store = Store::in_memory().unwrap();
    for source in benchmark.corpus_sources(data) {
        store
            .import(
                &read_source(&source, &ImportOptions::default()).unwrap(),
                toolsmith_catalog::Activate::IfNoneActive,
            )
            .unwrap();
    }
    let queries = benchmark
        .load(data)
        .unwrap()
        .resolve(&store)
        .unwrap()
        .queries;
    let corpora = [
        ("original", DocSelector::Active),
        ("draft", DocSelector::Label("draft-ref".parse().unwrap())),
        (
            "easytool",
            DocSelector::Label("easytool-ref".parse().unwrap()),
        ),
    ]
    .into_iter()
    .filter(|(n, _)| labels.contains(n))
    .map(|(n, sel)| {
        (
            n,
            Arc::new(Corpus::from_catalog(
                &store.catalog(&sel, &Scope::default()).unwrap(),
            )),
        )
    })
    .collect();
    Bench {
        name,
        queries,
        corpora,
    }
}

fn score(
    queries: &[ResolvedQuery],
    ranked: &[Vec<(u32, f32)>],
    corpus: &Corpus,
) -> RetrievalScores {
    let runs: Vec<(Vec<ApiId>, Vec<ApiId>)> = queries
        .iter()
        .zip(ranked)
        .map(|(q, r)| {
            (
                r.iter()
                    .filter_map(|(d, _)| corpus.doc(*d as usize).map(|x| x.api.clone()))
                    .collect(),
                q.gold.clone(),
            )
        })
        .collect();
    RetrievalScores::mean(runs.iter().map(|(r, g)| (r.as_slice(), g.as_slice()))).percent()
}

fn header() {
    println!(
        "{:<44} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5}",
        "setting", "N@1", "N@3", "N@5", "N@10", "R@5", "R@10"
    );
}

fn section(b: &Bench, doc: &str, corpus: &Corpus) {
    println!(
        "== {} / {doc} docs ({} queries, {} APIs)",
        b.name,
        b.queries.len(),
        corpus.len()
    );
}

fn row(label: &str, s: &RetrievalScores) {
    println!(
        "{label:<44} {:>5.1} {:>5.1} {:>5.1} {:>5.1} {:>5.1} {:>5.1}",
        s.ndcg_1, s.ndcg_3, s.ndcg_5, s.ndcg_10, s.recall_5, s.recall_10
    );
}

fn bm25_runs(
    b: &Bench,
    corpus: &Arc<Corpus>,
    settings: Bm25Settings,
    depth: usize,
) -> Vec<Vec<(u32, f32)>> {
    let index = Bm25Index::build(corpus.clone(), settings);
    b.queries
        .iter()
        .map(|q| index.scores(&q.text, depth, &Filter::default()))
        .collect()
}

fn main() {
    let data = toolsmith_plumbing::data::data_dir().expect("the benchmark data folder");
    if std::env::args().any(|a| a == "fusion") {
        fusion_grid(&data);
        return;
    }
    let dense = std::env::args().any(|a| a == "dense");
    let bm25_grid = !std::env::args().any(|a| a == "skip-bm25");
    let benches = [
        load(Benchmark::RestbenchTmdb, "restbench-tmdb", &data),
        load(Benchmark::ToolbenchDraft282, "toolbench-draft282", &data),
    ];
    let w = |t, a, td, ad, p, e| FieldWeights {
        tool_name: t,
        api_name: a,
        tool_description: td,
        api_description: ad,
        params: p,
        examples: e,
        returns: Bm25Settings::DEFAULT_WEIGHTS.returns,
        queries: Bm25Settings::DEFAULT_WEIGHTS.queries,
        source: Bm25Settings::DEFAULT_WEIGHTS.source,
    };
    let grid: Vec<(&str, FieldWeights)> = vec![
        ("all 1", FieldWeights::ALL),
        ("default 2,2,0,1,.5,1", Bm25Settings::DEFAULT_WEIGHTS),
        ("names+desc only", w(1.0, 1.0, 1.0, 1.0, 0.0, 0.0)),
        ("no tool desc", w(1.0, 1.0, 0.0, 1.0, 1.0, 1.0)),
        ("no params", w(1.0, 1.0, 1.0, 1.0, 0.0, 1.0)),
        ("names 2", w(2.0, 2.0, 1.0, 1.0, 1.0, 1.0)),
        ("names 3", w(3.0, 3.0, 1.0, 1.0, 1.0, 1.0)),
        ("api desc 2", w(1.0, 1.0, 1.0, 2.0, 1.0, 1.0)),
        ("names 2, params .5", w(2.0, 2.0, 1.0, 1.0, 0.5, 1.0)),
        (
            "names 2, params .5, tool desc .5",
            w(2.0, 2.0, 0.5, 1.0, 0.5, 1.0),
        ),
        (
            "names 2, api desc 2, params .5",
            w(2.0, 2.0, 1.0, 2.0, 0.5, 1.0),
        ),
        ("api name 2 only", w(1.0, 2.0, 1.0, 1.0, 1.0, 1.0)),
        ("no tool desc, no params", w(1.0, 1.0, 0.0, 1.0, 0.0, 1.0)),
        ("no tool desc, params .5", w(1.0, 1.0, 0.0, 1.0, 0.5, 1.0)),
        (
            "names 2, params .5, tool desc 0",
            w(2.0, 2.0, 0.0, 1.0, 0.5, 1.0),
        ),
        (
            "names 2, params .5, tool desc .25",
            w(2.0, 2.0, 0.25, 1.0, 0.5, 1.0),
        ),
        (
            "names 2, params .25, tool desc .25",
            w(2.0, 2.0, 0.25, 1.0, 0.25, 1.0),
        ),
        (
            "tool name 1, api name 2, tool desc .25, params .5",
            w(1.0, 2.0, 0.25, 1.0, 0.5, 1.0),
        ),
    ];
    let only = std::env::args().any(|a| a == "new");
    let grid: Vec<_> = if only {
        grid.into_iter()
            .skip(11)
            .chain([("all 1", FieldWeights::ALL)])
            .collect()
    } else {
        grid
    };
    header();
    for b in benches.iter().filter(|_| bm25_grid) {
        for (doc, corpus) in &b.corpora {
            section(b, doc, corpus);
            for stem in if only { vec![true] } else { vec![false, true] } {
                for (name, weights) in &grid {
                    let settings = Bm25Settings {
                        stem,
                        weights: *weights,
                        ..Bm25Settings::default()
                    };
                    let t = std::time::Instant::now();
                    let runs = bm25_runs(b, corpus, settings, 10);
                    let _ = t;
                    row(
                        &format!("bm25 stem={stem} {name}"),
                        &score(&b.queries, &runs, corpus),
                    );
                }
            }
        }
    }
    if !dense {
        return;
    }
    let embedder = embedder();
    let rt = runtime();
    let dense_grid: Vec<(&str, FieldWeights)> = vec![
        ("names+api desc", w(1.0, 1.0, 0.0, 1.0, 0.0, 0.0)),
        ("names+both desc", w(1.0, 1.0, 1.0, 1.0, 0.0, 0.0)),
        (
            "names+both desc+examples (default)",
            DenseSettings::DEFAULT_FIELDS,
        ),
        ("all fields", FieldWeights::ALL),
    ];
    for b in &benches {
        let qtexts: Vec<String> = b.queries.iter().map(|q| q.text.clone()).collect();
        let qvecs = rt.block_on(embedder.embed(&qtexts)).unwrap();
        for (doc, corpus) in &b.corpora {
            println!("== {} / {doc} docs: dense and hybrid", b.name);
            for (name, fields) in &dense_grid {
                let settings = DenseSettings {
                    fields: *fields,
                    ..DenseSettings::default()
                };
                let index = rt
                    .block_on(DenseIndex::build(corpus.clone(), &embedder, settings))
                    .unwrap();
                let druns: Vec<_> = qvecs
                    .iter()
                    .map(|v| index.scores(v, 100, &Filter::default()).unwrap())
                    .collect();
                let top10: Vec<Vec<(u32, f32)>> = druns
                    .iter()
                    .map(|r| r.iter().take(10).copied().collect())
                    .collect();
                row(&format!("dense {name}"), &score(&b.queries, &top10, corpus));
                if *fields != DenseSettings::DEFAULT_FIELDS {
                    continue;
                }
                let bruns = bm25_runs(b, corpus, Bm25Settings::default(), 100);
                let mut fusions = vec![
                    (
                        "rrf k=60".to_owned(),
                        Fusion::Rrf {
                            k: RRF_K,
                            dense_weight: 1.0,
                        },
                    ),
                    (
                        "rrf k=10".to_owned(),
                        Fusion::Rrf {
                            k: 10.0,
                            dense_weight: 1.0,
                        },
                    ),
                ];
                for wgt in [0.2f32, 0.3, 0.4, 0.5, 0.6, 0.7] {
                    fusions.push((
                        format!("weighted bm25={wgt}"),
                        Fusion::Weighted { bm25: wgt },
                    ));
                }
                for (fname, fusion) in fusions {
                    for depth in [20usize, 100] {
                        let fused: Vec<_> = bruns
                            .iter()
                            .zip(&druns)
                            .map(|(l, d)| {
                                let l: Vec<_> = l.iter().take(depth).copied().collect();
                                let d: Vec<_> = d.iter().take(depth).copied().collect();
                                fuse(fusion, &l, &d, 10)
                            })
                            .collect();
                        row(
                            &format!("hybrid {fname} depth={depth}"),
                            &score(&b.queries, &fused, corpus),
                        );
                    }
                }
            }
        }
    }
}

fn embedder() -> CachedEmbedder<LocalEmbedder> {
    let model =
        LocalEmbedder::load_default().expect("install the model with scripts/install-model.sh");
    let cache_path = std::env::var_os("TUNE_CACHE").map_or_else(
        || std::env::temp_dir().join("toolsmith-tune-embeddings.db"),
        PathBuf::from,
    );
    CachedEmbedder::new(
        model,
        CacheDb::open(&cache_path).unwrap(),
        CacheMode::ReadWrite,
    )
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// RRF's dense weight and rank constant, and the z-score fusion's BM25 weight, on every dataset
/// and doc version: the grid behind [`toolsmith_retrieve::HybridSettings::DEFAULT_FUSION`].
fn fusion_grid(data: &std::path::Path) {
    let embedder = embedder();
    let rt = runtime();
    let benches = [
        (Benchmark::RestbenchTmdb, "restbench-tmdb"),
        (Benchmark::ToolbenchDraft282, "toolbench-draft282"),
        (Benchmark::ToolbenchG1, "toolbench-g1"),
        (Benchmark::ToolbenchG2, "toolbench-g2"),
    ];
    header();
    for (benchmark, name) in benches {
        let b = load(benchmark, name, data);
        let qtexts: Vec<String> = b.queries.iter().map(|q| q.text.clone()).collect();
        let qvecs = rt.block_on(embedder.embed(&qtexts)).unwrap();
        for (doc, corpus) in &b.corpora {
            section(&b, doc, corpus);
            let index = rt
                .block_on(DenseIndex::build(
                    corpus.clone(),
                    &embedder,
                    DenseSettings::default(),
                ))
                .unwrap();
            let druns: Vec<_> = qvecs
                .iter()
                .map(|v| index.scores(v, 100, &Filter::default()).unwrap())
                .collect();
            let bruns = bm25_runs(&b, corpus, Bm25Settings::default(), 100);
            let top10 = |runs: &[Vec<(u32, f32)>]| -> Vec<Vec<(u32, f32)>> {
                runs.iter()
                    .map(|r| r.iter().take(10).copied().collect())
                    .collect()
            };
            row("bm25", &score(&b.queries, &top10(&bruns), corpus));
            row("dense", &score(&b.queries, &top10(&druns), corpus));
            let mut fusions: Vec<(String, Fusion)> = Vec::new();
            for k in [RRF_K, 20.0] {
                for dense_weight in [1.0f32, 0.75, 0.5, 0.35, 0.25] {
                    fusions.push((
                        format!("rrf k={k} dense weight {dense_weight}"),
                        Fusion::Rrf { k, dense_weight },
                    ));
                }
            }
            for bm25 in [0.4f32, 0.5, 0.6, 0.7] {
                fusions.push((format!("zscore bm25={bm25}"), Fusion::ZScore { bm25 }));
            }
            for (label, fusion) in fusions {
                let fused: Vec<_> = bruns
                    .iter()
                    .zip(&druns)
                    .map(|(l, d)| fuse(fusion, l, d, 10))
                    .collect();
                row(&label, &score(&b.queries, &fused, corpus));
            }
        }
    }
}
