//! The MCP test server over stdio ([`toolsmith_testbed::McpFixture`]).

fn main() -> std::process::ExitCode {
    toolsmith_testbed::McpFixture::main_with_args(std::env::args().skip(1))
}
