//! toolsmith's command line (uv's shape): flags in `cli`, resolved once into a `context`,
//! one module per command in `commands`, all output through `printer`.
//!
//! Modules, each imported only by the ones after it:
//! - `env`: names of the environment variables read;
//! - `cli`: every clap type (flags, shared flag groups, enumerated values);
//! - `printer`, `table`, `progress`, `logging`: stdout, tables, bars on stderr, the log;
//! - `settings`: `toolsmith.toml` and the environment as one typed `Config`;
//! - `context`: the global flags and the config, resolved once per command;
//! - `retrieval`, `executor`, `mcp_source`, `agents`, `benchmarks`: what several commands
//!   build from the context; `suggest`: the closest ids to an unknown one; `doc_gate`: the
//!   activation gate of refined docs (`docs gate`, `refine --gate`);
//! - `commands`: one module per command, none importing another.

mod agents;
mod bench_job;
mod benchmarks;
mod cli;
mod commands;
mod context;
mod doc_gate;
mod env;
mod executor;
mod llm;
mod logging;
mod mcp_source;
mod printer;
mod progress;
mod retrieval;
mod serving;
mod settings;
mod shared_writer;
mod suggest;
mod table;

use std::process::ExitCode;

use clap::Parser;

pub use crate::cli::Cli;

/// Runs the command line and returns the process exit code: 0 done, 1 ran
/// fine but the answer is no (a gate failed), 2 error. A closed stdout
/// (`toolsmith tools | head`) ends the run quietly with 0.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    logging::install(cli.global.verbose, cli.global.color);
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) if printer::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            printer::error(&err);
            ExitCode::from(2)
        }
    }
}
