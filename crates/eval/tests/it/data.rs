//! Where the shared benchmark data lives, and catalogs built from a benchmark's sources.

use std::path::PathBuf;

use toolsmith_catalog::{ImportOptions, Store, read_source};
use toolsmith_eval::Benchmark;

/// `../shared/data` beside the repository (or `TOOLSMITH_DATA`).
pub fn data_dir() -> PathBuf {
    let root = std::env::var_os("TOOLSMITH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    assert!(
        root.join("restbench-tmdb").is_dir(),
        "benchmark data missing under {} (set TOOLSMITH_DATA)",
        root.display()
    );
    root
}

/// A store with a benchmark's corpus sources imported (refined docs not activated).
pub fn benchmark_store(benchmark: &Benchmark) -> Store {
    let mut store = Store::in_memory().unwrap();
    for source in benchmark.corpus_sources(&data_dir()) {
        let batch = read_source(&source, &ImportOptions::default()).unwrap();
        store.import(&batch, false).unwrap();
    }
    store
}
