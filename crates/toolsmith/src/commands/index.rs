//! `toolsmith index`: embed every API's doc once and keep the vectors in the catalog
//! database, so dense and hybrid searches start at once.

use std::process::ExitCode;
use std::time::Instant;

use toolsmith_catalog::DocLabel;
use toolsmith_llm::CacheMode;
use toolsmith_retrieve::DenseIndex;

use crate::cli::Global;
use crate::commands::search::{corpus, embedder, runtime};
use crate::commands::{open_store, selector};
use crate::printer;
use crate::settings::retrieve_config;

/// Precompute the embeddings dense and hybrid search use.
#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// Embed the docs of this label instead of the active ones.
    #[arg(long = "doc-version")]
    pub doc_version: Option<DocLabel>,
    /// Embed every API again, ignoring the vectors already stored (they are left as they
    /// are); shows what a cold build costs.
    #[arg(long)]
    pub rebuild: bool,
}

/// Runs `toolsmith index`.
pub fn run(global: &Global, args: &IndexArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(global)?;
    let corpus = corpus(&store, &selector(args.doc_version.as_ref()))?;
    let mode = if args.rebuild {
        CacheMode::Off
    } else {
        CacheMode::ReadWrite
    };
    let config = retrieve_config()?;
    let embedder = embedder(&global.db, &config, mode)?;
    let total = corpus.len();
    printer::note(format!(
        "embedding {total} APIs with {} (cached vectors are reused)",
        embedder.model_id()
    ));
    let started = Instant::now();
    let rt = runtime()?;
    let index = rt.block_on(async {
        let mut last = Instant::now();
        DenseIndex::build_with_progress(corpus, embedder.as_ref(), config.dense, &mut |done, of| {
            if last.elapsed().as_secs() >= 5 || done == of {
                printer::note(format!("  {done}/{of} batch texts looked up"));
                last = Instant::now();
            }
        })
        .await
    })?;
    printer::line(format!(
        "indexed {} APIs ({} dimensions, {}) in {:.1}s",
        index.corpus().len(),
        index.dimensions(),
        index.model(),
        started.elapsed().as_secs_f64()
    ));
    Ok(ExitCode::SUCCESS)
}
