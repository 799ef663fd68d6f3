//! The MCP test server over stdio ([`toolsmith_exec::McpFixture`]), for this
//! crate's tests and the command line's.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let served = toolsmith_exec::runtime()
        .map_err(|e| e.to_string())
        .and_then(|rt| {
            rt.block_on(toolsmith_exec::McpFixture::new().serve_stdio())
                .map_err(|e| e.to_string())
        });
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "toolsmith MCP fixture: {err}");
            ExitCode::FAILURE
        }
    }
}
