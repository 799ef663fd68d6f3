//! `toolsmith call`: call one API and print the observation as JSON.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use toolsmith_catalog::{ApiId, DocSelector, Scope, Store};
use toolsmith_exec::{ApiBook, Mode, NativeTools};

use crate::cli::Global;
use crate::commands::{executor, open_store};
use crate::printer;

/// Call one API and print what came back (the observation) as JSON.
///
/// Credentials come from `TOOLSMITH_KEY_<TOOL>` (RapidAPI tools also read
/// `RAPIDAPI_KEY`); they never appear in the output or the cache.
#[derive(Debug, clap::Args)]
pub struct CallArgs {
    /// The API, `tool/api` (e.g. `tmdb/get_search_movie`, `funcqa/power`).
    pub api: ApiId,
    /// The arguments, a JSON object.
    #[arg(long, default_value = "{}")]
    pub args: String,
    /// Where the call goes: live, record (live and store), replay (stored
    /// only), replay-or-simulate, or simulate (offline, deterministic).
    #[arg(long, default_value = "simulate")]
    pub mode: Mode,
}

/// Runs `toolsmith call`. Exit 0 when the tool succeeded, 1 when it answered
/// with a failure, 2 on toolsmith's own errors.
pub fn run(global: &Global, args: &CallArgs) -> anyhow::Result<ExitCode> {
    let call_args: serde_json::Value =
        serde_json::from_str(&args.args).context("--args is not valid JSON")?;
    let store = open_store(global)?;
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
        scratch.import(&native.import_batch(), false)?;
        book = ApiBook::from_catalog(&scratch.catalog(&DocSelector::Active, &scope)?);
    }
    book.entry(&args.api)?;
    let book = Arc::new(book);
    let executor = executor::build(global, book, args.mode)?;
    let runtime = toolsmith_exec::runtime()?;
    let observation = runtime.block_on(executor.call(&args.api, &call_args))?;
    printer::json(&observation)?;
    Ok(if observation.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
