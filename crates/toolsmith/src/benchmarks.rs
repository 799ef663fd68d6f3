//! The catalogs benchmarks run on (`bench retrieval`, `bench search-speed`, `bench run`, and
//! `report` reading a run's docs): their tool sources imported into a store, with a spinner
//! per source.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use toolsmith_catalog::{
    DocLabel, DocSelector, DocTarget, ImportOptions, NewDoc, Scope, Store, read_source,
};
use toolsmith_eval::{BenchSpec, Benchmark, Dataset};
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

/// The newest finished synthesized set's eval split as a dataset name (`synth:NAME`), when the
/// catalog database holds one: what `docs gate`, `refine` (its gate) and `bench agreement` read
/// when no dataset is named.
pub(crate) fn newest_synth_eval_split(ctx: &Context) -> anyhow::Result<Option<String>> {
    let sets = toolsmith_eval::synth::SynthStore::open(ctx.db())?;
    Ok(sets
        .sets()?
        .into_iter()
        .rev()
        .find(|set| set.finished_ms.is_some())
        .map(|set| format!("synth:{}", set.name)))
}

/// The queries of `benchmark`: a synthesized set's eval split (`synth:NAME`) from the catalog
/// database, else its files under `data`.
pub(crate) fn load_dataset(
    ctx: &Context,
    benchmark: &Benchmark,
    data: &Path,
) -> anyhow::Result<Dataset> {
    if let Benchmark::Synth(name) = benchmark {
        let sets = toolsmith_eval::synth::SynthStore::open(ctx.db())?;
        return Ok(toolsmith_eval::synth::eval_dataset(&sets, name)?);
    }
    Ok(benchmark.load(data)?)
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
        (None, b) if b.uses_own_catalog() => return ctx.store(),
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
    if let Some(label) = &spec.doc_version {
        with_docs_from_db(ctx, &mut store, label)?;
    }
    Ok(store)
}

/// Copies into a benchmark's in-memory catalog the `label` docs that the `--db` catalog holds
/// for the same tools and APIs, so that `--doc-version easytool` measures the docs a user
/// refined there (`refine --method easytool --apis tmdb`), not the original ones. Fails when
/// no tool or API of the benchmark has a doc of that label in either catalog: a silent fall
/// back to the active docs would measure the wrong docs.
pub(crate) fn with_docs_from_db(
    ctx: &Context,
    store: &mut Store,
    label: &DocLabel,
) -> anyhow::Result<usize> {
    let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
    let targets: Vec<DocTarget> = catalog
        .tools
        .iter()
        .flat_map(|t| {
            std::iter::once(DocTarget::Tool(t.tool.id.clone()))
                .chain(t.apis.iter().map(|a| DocTarget::Api(a.api.id.clone())))
        })
        .collect();
    let db = ctx.db().exists().then(|| ctx.store()).transpose()?;
    let (mut copied, mut present) = (0, 0);
    for target in &targets {
        if store.doc_history(target)?.iter().any(|d| &d.label == label) {
            present += 1;
            continue;
        }
        let Some(db) = &db else { continue };
        let history = db.doc_history(target).unwrap_or_default();
        if let Some(doc) = history.into_iter().rev().find(|d| &d.label == label) {
            let new = NewDoc {
                label: doc.label,
                source: doc.source,
                doc: doc.doc,
            };
            store.add_doc(target, new, toolsmith_catalog::Activate::IfNoneActive)?;
            copied += 1;
        }
    }
    if copied + present == 0 {
        anyhow::bail!(
            "no tool or API of this benchmark has a `{label}` doc, in its own sources or in {}: \
             refine them there first (e.g. `toolsmith refine --method easytool --apis TOOL`), \
             or see `toolsmith docs` for the labels there are",
            ctx.db().display()
        );
    }
    if copied > 0 {
        crate::printer::note(format!(
            "{copied} `{label}` docs read from {}",
            ctx.db().display()
        ));
    }
    Ok(copied)
}
