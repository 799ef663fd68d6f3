//! The MCP test server over stdio ([`toolsmith_exec::McpFixture`]), for this
//! crate's tests and the command line's.

fn main() -> std::process::ExitCode {
    toolsmith_exec::McpFixture::main_with_args(std::env::args().skip(1))
}
