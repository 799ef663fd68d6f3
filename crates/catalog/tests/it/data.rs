//! Where the shared benchmark data lives.

use std::path::PathBuf;

use toolsmith_catalog::{Catalog, DocSelector, ImportOptions, Scope, Store, read_source};

/// `../shared/data` beside the repository (or `TOOLSMITH_SHARED_DATA`).
pub fn shared(relative: &str) -> PathBuf {
    let root = std::env::var_os("TOOLSMITH_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let path = root.join(relative);
    assert!(
        path.exists(),
        "benchmark data missing: {} (set TOOLSMITH_SHARED_DATA)",
        path.display()
    );
    path
}

/// Writes `text` to a file named `name` in a fresh temporary folder.
pub fn write_temp(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// RestBench's TMDB spec imported into a fresh in-memory store: its active view.
pub fn tmdb_catalog() -> Catalog {
    let path = shared("restbench-tmdb/restgpt/tmdb_oas.json");
    let mut store = Store::in_memory().unwrap();
    store
        .import(
            &read_source(&path, &ImportOptions::default()).unwrap(),
            false,
        )
        .unwrap();
    store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap()
}
