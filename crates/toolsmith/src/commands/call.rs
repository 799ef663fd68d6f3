//! `toolsmith call`: call one API and print the observation as JSON.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use toolsmith_catalog::{DocSelector, Scope, Store};
use toolsmith_exec::{ApiBook, NativeTools};
use toolsmith_llm::CacheMode;

use crate::cli::CallArgs;
use crate::context::Context;
use crate::{executor, printer, suggest};

/// Runs `toolsmith call`. Exit 0 when the tool succeeded, 1 when it answered
/// with a failure, 2 on toolsmith's own errors.
pub(super) fn run(ctx: &Context, args: &CallArgs) -> anyhow::Result<ExitCode> {
    let call_args: serde_json::Value =
        serde_json::from_str(&args.args).context("--args is not valid JSON")?;
    let store = ctx.store()?;
    let native = NativeTools::funcqa();
    // The whole tool, so that the simulator draws from every example of it.
    let scope = Scope {
        tool: Some(args.api.tool().clone()),
        ..Scope::default()
    };
    let mut book = ApiBook::from_catalog(&store.catalog(&DocSelector::Active, &scope)?);
    if book.get(&args.api).is_none() && args.api.tool() == native.tool_id() {
        // The built-in tools answer even before they are imported.
        let mut scratch = Store::in_memory()?;
        scratch.import(
            &native.import_batch(),
            toolsmith_catalog::Activate::IfNoneActive,
        )?;
        book = ApiBook::from_catalog(&scratch.catalog(&DocSelector::Active, &scope)?);
    }
    if book.get(&args.api).is_none() {
        return Err(suggest::unknown_api(ctx, &store, &args.api));
    }
    let executor = executor::build(
        ctx,
        Arc::new(book),
        args.mode.mode.into(),
        CacheMode::ReadWrite,
        executor::Writes::User,
    )?;
    let runtime = ctx.runtime()?;
    let observation = runtime.block_on(executor.call(&args.api, &call_args))?;
    printer::json(&observation)?;
    Ok(if observation.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
