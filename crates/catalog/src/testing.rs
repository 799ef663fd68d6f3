//! Test fixtures for every crate's tests (feature `test-utils`): the RestBench TMDB catalog,
//! imported from the shared benchmark data ([`toolsmith_plumbing::data`]).

use std::path::PathBuf;

use crate::{Catalog, DocSelector, ImportOptions, Scope, Store, read_source};

/// RestBench's TMDB OpenAPI spec, relative to the benchmark data folder.
pub const TMDB_SPEC: &str = "restbench-tmdb/restgpt/tmdb_oas.json";

/// The shared benchmark data folder ([`toolsmith_plumbing::data::data_dir`]).
///
/// # Panics
/// When the folder cannot be found: a fixture that cannot load must stop the test with a
/// message saying what to set.
#[allow(clippy::panic)]
pub fn data_dir() -> PathBuf {
    toolsmith_plumbing::data::data_dir().unwrap_or_else(|e| panic!("{e}"))
}

/// The path of a file in the shared benchmark data folder.
///
/// # Panics
/// When the data folder cannot be found or the file is missing.
#[allow(clippy::panic)]
pub fn data_path(relative: &str) -> PathBuf {
    let path = data_dir().join(relative);
    if !path.exists() {
        panic!(
            "benchmark data missing: {} (set {})",
            path.display(),
            toolsmith_plumbing::data::ENV
        );
    }
    path
}

/// RestBench's TMDB spec (54 APIs) imported into a fresh in-memory store.
///
/// # Panics
/// When the data is missing or does not import (see [`data_path`]).
#[allow(clippy::panic)]
pub fn tmdb_store() -> Store {
    let path = data_path(TMDB_SPEC);
    let load = || -> crate::Result<Store> {
        let mut store = Store::in_memory()?;
        store.import(&read_source(&path, &ImportOptions::default())?, false)?;
        Ok(store)
    };
    load().unwrap_or_else(|e| panic!("importing {}: {e}", path.display()))
}

/// The active view of [`tmdb_store`]: the TMDB catalog as every stage reads it.
///
/// # Panics
/// When the data is missing or does not import (see [`data_path`]).
#[allow(clippy::panic)]
pub fn tmdb_catalog() -> Catalog {
    tmdb_store()
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap_or_else(|e| panic!("reading the TMDB catalog: {e}"))
}
