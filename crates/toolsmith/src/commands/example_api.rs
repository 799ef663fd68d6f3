//! `toolsmith example-api`: serve the example library API.

use std::net::SocketAddr;
use std::process::ExitCode;

use crate::cli::ExampleApiArgs;
use crate::printer;

/// Runs `toolsmith example-api` until interrupted.
pub(super) fn run(args: &ExampleApiArgs) -> anyhow::Result<ExitCode> {
    let runtime = toolsmith_testbed::runtime()?;
    runtime.block_on(async {
        let api =
            toolsmith_testbed::ExampleApi::start(SocketAddr::new(args.host, args.port)).await?;
        printer::note(format!(
            "example API at {url} (OpenAPI spec at {url}/openapi.json); Ctrl-C stops it",
            url = api.base_url()
        ));
        api.wait().await
    })?;
    Ok(ExitCode::SUCCESS)
}
