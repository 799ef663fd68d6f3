//! The MCP test server over stdio ([`toolsmith_testbed::McpFixture`]), built only
//! with feature `mcp-fixture` for the command line's tests.

fn main() -> std::process::ExitCode {
    toolsmith_testbed::McpFixture::main_with_args(std::env::args().skip(1))
}
