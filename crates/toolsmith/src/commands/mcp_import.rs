//! `toolsmith import` from a live MCP server: connect, list its tools (every
//! page), and import the list as one tool (format `mcp-tools`) whose base URL
//! is the server's address, so that `call` and `solve` reach it again. With
//! `--watch`, stay connected and import again on each `tools/list_changed`.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::Value;
use toolsmith_catalog::{Format, ImportBatch, ImportOptions, Store, read_bytes};
use toolsmith_exec::{McpAddress, McpClient, McpServer, ToolListChange};

use crate::commands::import::{ImportArgs, print_report};
use crate::mcp_settings::mcp_servers;
use crate::printer;

/// How often `--watch` checks that the server is still there.
const LIVENESS_CHECK: Duration = Duration::from_millis(500);
/// Changes `--watch` holds while an import runs.
const PENDING_CHANGES: usize = 16;

/// A parsed address and the server it resolves to.
struct Source {
    address: McpAddress,
    server: McpServer,
}

fn source(raw: &str) -> anyhow::Result<Source> {
    let address: McpAddress = raw.parse()?;
    let server = mcp_servers()?.resolve(&address)?;
    Ok(Source { address, server })
}

/// The options for one server's list: `mcp-tools`, the tool named by
/// `--tool` or after the server, and the address as its base URL.
fn options_for(source: &Source, base: &ImportOptions) -> ImportOptions {
    ImportOptions {
        format: Some(Format::McpTools),
        tool: base
            .tool
            .clone()
            .or_else(|| Some(source.address.default_name())),
        base_url: Some(source.address.to_string()),
        ..base.clone()
    }
}

fn batch_of(source: &Source, list: &Value, options: &ImportOptions) -> anyhow::Result<ImportBatch> {
    let bytes = serde_json::to_vec(list)?;
    let address = source.address.to_string();
    Ok(read_bytes(Path::new(&address), &bytes, options)?)
}

/// Connects to the server at `raw`, lists its tools and reads them into a batch.
pub(crate) fn read(raw: &str, base: &ImportOptions) -> anyhow::Result<ImportBatch> {
    let source = source(raw)?;
    let options = options_for(&source, base);
    let settings = crate::mcp_settings::mcp_config()?.client_settings();
    let runtime = toolsmith_exec::runtime()?;
    let list = runtime.block_on(async {
        let client = McpClient::connect(&source.server, &settings).await?;
        let listed = client.list_tools().await;
        client.close().await;
        listed
    })?;
    batch_of(&source, &list, &options)
}

/// Imports the server's tools, then again on every change, until the server goes away.
pub(crate) fn watch(
    store: &mut Store,
    raw: &str,
    base: &ImportOptions,
    args: &ImportArgs,
) -> anyhow::Result<ExitCode> {
    let source = source(raw)?;
    let options = options_for(&source, base);
    let settings = crate::mcp_settings::mcp_config()?.client_settings();
    let runtime = toolsmith_exec::runtime()?;
    let (changes, mut received) = tokio::sync::mpsc::channel(PENDING_CHANGES);
    let (client, list) = runtime.block_on(async {
        let client =
            McpClient::connect_watching(&source.server, &settings, Arc::new(changes)).await?;
        let list = client.list_tools().await?;
        anyhow::Ok((client, list))
    })?;
    let mut import = |list: &Value, why: &str| -> anyhow::Result<()> {
        let started = Instant::now();
        let batch = batch_of(&source, list, &options)?;
        let report = store
            .import(&batch, args.activate)
            .with_context(|| format!("storing {raw}"))?;
        if args.json {
            printer::json(&report)?;
        } else {
            print_report(&batch.source, why, &report, started.elapsed());
        }
        Ok(())
    };
    import(&list, "mcp-tools")?;
    printer::note(format!(
        "watching MCP server `{}` for tool list changes (Ctrl-C to stop)",
        source.server.name
    ));
    loop {
        // The connection runs only inside `block_on`; notifications that
        // arrive during an import wait in the pipe until the next wait.
        let next = runtime.block_on(async {
            tokio::select! {
                change = received.recv() => change,
                () = gone(&client) => None,
            }
        });
        match next {
            Some(ToolListChange::Listed(list)) => import(&list, "mcp-tools, tools/list_changed")?,
            Some(ToolListChange::Failed(err)) => {
                printer::note(format!("listing the tools again failed: {err}"));
            }
            None => break,
        }
    }
    printer::note(format!(
        "MCP server `{}` closed the connection; stopped watching",
        source.server.name
    ));
    runtime.block_on(client.close());
    Ok(ExitCode::SUCCESS)
}

/// Resolves when the connection has closed.
async fn gone(client: &McpClient) {
    while !client.is_closed() {
        tokio::time::sleep(LIVENESS_CHECK).await;
    }
}
