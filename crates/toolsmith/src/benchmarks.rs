//! The catalogs benchmarks run on (`bench retrieval`, `bench search-speed`, `bench run`, and
//! `report` reading a run's docs): their tool sources imported into a store, with a spinner
//! per source.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use toolsmith_catalog::{ImportOptions, Store, read_source};
use toolsmith_eval::{BenchSpec, Benchmark};
use toolsmith_exec::NativeTools;

use crate::context::Context;
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
                    .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
                    .with_context(|| format!("importing {}", source.display()))
            });
        spinner.finish_and_clear();
        imported?;
    }
    Ok(())
}

/// The catalog a benchmark run's spec runs on: a named benchmark's sources or the spec's
/// `--catalog` imported in memory, else the `--db` catalog. `funcqa`: the dataset is FuncQA's
/// (named or a file like it), which runs on the built-in arithmetic tools.
pub(crate) fn spec_catalog(
    ctx: &Context,
    spec: &BenchSpec,
    benchmark: &Benchmark,
    data: &Path,
    funcqa: bool,
) -> anyhow::Result<Store> {
    let sources = match (&spec.catalog, benchmark) {
        (Some(path), _) => vec![path.clone()],
        (None, _) if funcqa => Vec::new(),
        (None, Benchmark::File(_)) => return ctx.store(),
        (None, named) => named.corpus_sources(data),
    };
    let mut store = Store::in_memory()?;
    if funcqa {
        store.import(
            &NativeTools::funcqa().import_batch(),
            toolsmith_catalog::Activate::IfNoneActive,
        )?;
    }
    import_all(&mut store, &sources, *ctx.progress())?;
    Ok(store)
}
