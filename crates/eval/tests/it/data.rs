//! Where the shared benchmark data lives, and catalogs built from a benchmark's sources.

pub(crate) use toolsmith_catalog::testing::data_dir;
use toolsmith_catalog::{ImportOptions, Store, read_source};
use toolsmith_eval::Benchmark;

/// A store with a benchmark's corpus sources imported (refined docs not activated).
pub(crate) fn benchmark_store(benchmark: &Benchmark) -> Store {
    let mut store = Store::in_memory().unwrap();
    for source in benchmark.corpus_sources(&data_dir()) {
        let batch = read_source(&source, &ImportOptions::default()).unwrap();
        store
            .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
            .unwrap();
    }
    store
}
