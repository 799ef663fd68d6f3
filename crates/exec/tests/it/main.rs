//! Integration tests of toolsmith-exec. Real data is read from the shared
//! data folder (`TOOLSMITH_SHARED_DATA`, by default `../../../shared/data`
//! from this crate); servers are started on loopback by the tests.

// clippy.toml allows these inside #[test] functions; the helpers here are test code too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod funcqa;
mod http;
mod mcp;
mod replay;
mod sandbox;
mod simulate;

use std::path::PathBuf;
use std::sync::Arc;

use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_source};
use toolsmith_exec::ApiBook;

/// The shared benchmark data folder.
pub fn data_dir() -> PathBuf {
    std::env::var_os("TOOLSMITH_SHARED_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        PathBuf::from,
    )
}

/// A catalog holding the sources at these paths, as an API book.
pub fn book_of(paths: &[PathBuf]) -> (Store, Arc<ApiBook>) {
    let mut store = Store::in_memory().unwrap();
    for path in paths {
        let batch = read_source(path, &ImportOptions::default()).unwrap();
        store.import(&batch, false).unwrap();
    }
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    (store, Arc::new(ApiBook::from_catalog(&catalog)))
}

/// The TMDB spec as an API book.
pub fn tmdb() -> Arc<ApiBook> {
    book_of(&[data_dir().join("restbench-tmdb/restgpt/tmdb_oas.json")]).1
}
