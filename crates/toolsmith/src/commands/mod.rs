//! One module per command. Each takes its parsed flags and returns an exit code.

pub mod bench;
pub mod call;
pub mod docs;
pub mod env;
pub mod example_api;
pub(crate) mod executor;
pub mod export;
pub mod import;
pub mod index;
pub mod jq_sandbox;
pub(crate) mod mcp_import;
pub mod search;
pub mod show;
pub mod solve;
pub mod stats;
pub mod tools;

use std::process::ExitCode;

use anyhow::Context;
use toolsmith_catalog::{DocLabel, DocSelector, Store};

use crate::cli::{Cli, Command, Global};

/// Runs the chosen command.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    let global = &cli.global;
    match cli.command {
        Command::Import(args) => import::run(global, &args),
        Command::Tools(args) => tools::run(global, &args),
        Command::Show(args) => show::run(global, &args),
        Command::Export(args) => export::run(global, &args),
        Command::Stats(args) => stats::run(global, &args),
        Command::Docs(args) => docs::run(global, &args),
        Command::Index(args) => index::run(global, &args),
        Command::Search(args) => search::run(global, &args),
        Command::Bench(args) => bench::run(global, &args),
        Command::Call(args) => call::run(global, &args),
        Command::ExampleApi(args) => example_api::run(global, &args),
        Command::Solve(args) => solve::run(global, &args),
        Command::Env(args) => env::run(global, &args),
        Command::JqSandbox(args) => jq_sandbox::run(global, &args),
    }
}

/// Opens the catalog named by `--db`.
pub fn open_store(global: &Global) -> anyhow::Result<Store> {
    Store::open(&global.db).with_context(|| format!("opening the catalog {}", global.db.display()))
}

/// `--doc-version LABEL` as a selector (the active docs when absent).
pub fn selector(label: Option<&DocLabel>) -> DocSelector {
    label.map_or(DocSelector::Active, |l| DocSelector::Label(l.clone()))
}
