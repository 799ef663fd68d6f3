//! toolsmith's command line: each command in `commands/`, its flags in `cli`,
//! all output through `printer`.

mod cli;
mod commands;
mod env;
mod mcp_settings;
mod printer;
mod settings;

use std::process::ExitCode;

use clap::Parser;

pub use crate::cli::Cli;

/// Runs the command line and returns the process exit code: 0 done, 1 ran
/// fine but the answer is no (a gate failed), 2 error.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            printer::error(&err);
            ExitCode::from(2)
        }
    }
}
