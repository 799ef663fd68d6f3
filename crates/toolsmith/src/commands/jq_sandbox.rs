//! `toolsmith __jq-sandbox` (hidden): the child process of the jq sandbox.
//! toolsmith spawns itself with this subcommand to run an extraction filter
//! under time, memory and output limits; see `toolsmith_exec::JqSandbox`.

use std::process::ExitCode;

use crate::cli::Global;

/// Run one jq filter read from stdin (internal: the jq sandbox's child).
#[derive(Debug, clap::Args)]
pub struct JqSandboxArgs {
    /// Address-space limit the child sets on itself, in bytes.
    #[arg(long)]
    pub max_memory_bytes: Option<u64>,
}

/// Runs the child: reads `{"filter", "input"}` from stdin, writes JSON lines.
pub fn run(_global: &Global, args: &JqSandboxArgs) -> anyhow::Result<ExitCode> {
    Ok(toolsmith_exec::sandbox::child_main(args.max_memory_bytes))
}
