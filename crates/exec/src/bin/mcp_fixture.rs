//! The MCP test server of toolsmith-testbed over stdio, built as this
//! package's binary so that this crate's tests can start it.

fn main() -> std::process::ExitCode {
    toolsmith_testbed::McpFixture::main_with_args(std::env::args().skip(1))
}
