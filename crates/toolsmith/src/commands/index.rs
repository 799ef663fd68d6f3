//! `toolsmith index`: embed every API's doc once and keep the vectors in the catalog
//! database, so dense and hybrid searches start at once.

use std::process::ExitCode;
use std::time::Instant;

use toolsmith_llm::CacheMode;
use toolsmith_retrieve::DenseIndex;

use crate::cli::IndexArgs;
use crate::context::Context;
use crate::{printer, retrieval};

/// Runs `toolsmith index`.
pub(super) fn run(ctx: &Context, args: &IndexArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    let corpus = retrieval::corpus(
        &store,
        &args.docs.selector(),
        retrieval::SourceField::configured(ctx)?,
    )?;
    let mode = if args.rebuild {
        CacheMode::Off
    } else {
        CacheMode::ReadWrite
    };
    let embedder = retrieval::embedder(ctx, mode)?;
    let settings = ctx.config()?.retrieve.dense;
    printer::note(format!(
        "embedding {} APIs with {} (cached vectors are reused)",
        corpus.len(),
        embedder.model_id()
    ));
    let started = Instant::now();
    let bar = ctx.progress().bar(corpus.len(), "embedding");
    let rt = ctx.runtime()?;
    let index = rt.block_on(async {
        DenseIndex::build_with_progress(corpus, embedder.as_ref(), settings, &mut |done, of| {
            bar.set_length(of as u64);
            bar.set_position(done as u64);
        })
        .await
    });
    bar.finish_and_clear();
    let index = index?;
    printer::line(format!(
        "indexed {} APIs ({} dimensions, {}) in {:.1}s",
        index.corpus().len(),
        index.dimensions(),
        index.model(),
        started.elapsed().as_secs_f64()
    ))?;
    Ok(ExitCode::SUCCESS)
}
