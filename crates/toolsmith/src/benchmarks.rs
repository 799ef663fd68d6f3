//! The catalogs benchmarks run on (`bench retrieval`, `bench search-speed`, `bench run`): their
//! tool sources imported into a store, with a spinner per source.

use std::path::PathBuf;

use anyhow::Context as _;
use toolsmith_catalog::{ImportOptions, Store, read_source};

use crate::progress::Progress;

/// Imports `sources` in order into `store` (refined docs without activating them, so the
/// original docs stay the active ones).
pub(crate) fn import_all(
    store: &mut Store,
    sources: &[PathBuf],
    progress: Progress,
) -> anyhow::Result<()> {
    for source in sources {
        let spinner = progress.spinner(format!("importing {}", source.display()));
        let imported = read_source(source, &ImportOptions::default())
            .with_context(|| format!("reading {}", source.display()))
            .and_then(|batch| {
                store
                    .import(&batch, false)
                    .with_context(|| format!("importing {}", source.display()))
            });
        spinner.finish_and_clear();
        imported?;
    }
    Ok(())
}
