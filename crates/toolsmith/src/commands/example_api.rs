//! `toolsmith example-api`: serve the example library API.

use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;

use crate::cli::Global;
use crate::printer;

/// Serve the example library API (authors, books, members, loans) for the
/// quickstart, with its OpenAPI spec at `/openapi.json`.
#[derive(Debug, clap::Args)]
pub struct ExampleApiArgs {
    /// Port to listen on (0 for any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
}

/// Runs `toolsmith example-api` until interrupted.
pub fn run(_global: &Global, args: &ExampleApiArgs) -> anyhow::Result<ExitCode> {
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
