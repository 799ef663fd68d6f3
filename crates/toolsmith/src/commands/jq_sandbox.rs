//! `toolsmith __jq-sandbox` (hidden): the child process of the jq sandbox.
//! toolsmith spawns itself with this subcommand to run an extraction filter
//! under time, memory and output limits; see `toolsmith_exec::JqSandbox`.

use std::process::ExitCode;

use crate::cli::JqSandboxArgs;

/// Runs the child: reads `{"filter", "input"}` from stdin, writes JSON lines.
pub(super) fn run(args: &JqSandboxArgs) -> ExitCode {
    toolsmith_exec::sandbox::child_main(args.max_memory_bytes)
}
