//! Tools read from a live MCP server: connect, list its tools (every page), and read the
//! list as one tool (format `mcp-tools`) whose base URL is the server's address, so that
//! `call` and `solve` reach it again. [`watch`] stays connected and hands over a new list
//! on each `tools/list_changed`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use toolsmith_catalog::{Format, ImportBatch, ImportOptions, read_bytes};
use toolsmith_exec::{McpAddress, McpClient, McpServer, ToolListChange};

use crate::printer;
use crate::settings::McpConfig;

/// How often [`watch`] checks that the server is still there.
const LIVENESS_CHECK: Duration = Duration::from_millis(500);
/// Changes [`watch`] holds while an import runs.
const PENDING_CHANGES: usize = 16;

/// A parsed address and the server it resolves to.
struct Source {
    address: McpAddress,
    server: McpServer,
}

impl Source {
    fn resolve(raw: &str, config: &McpConfig) -> anyhow::Result<Self> {
        let address: McpAddress = raw.parse()?;
        let server = config.servers_from_env()?.resolve(&address)?;
        Ok(Self { address, server })
    }

    /// The options for the server's list: `mcp-tools`, the tool named by `--tool` or
    /// after the server, and the address as its base URL.
    fn options(&self, base: &ImportOptions) -> ImportOptions {
        ImportOptions {
            format: Some(Format::McpTools),
            tool: base
                .tool
                .clone()
                .or_else(|| Some(self.address.default_name())),
            base_url: Some(self.address.to_string()),
            ..base.clone()
        }
    }

    fn batch(&self, list: &Value, options: &ImportOptions) -> anyhow::Result<ImportBatch> {
        let bytes = serde_json::to_vec(list)?;
        let address = self.address.to_string();
        Ok(read_bytes(Path::new(&address), &bytes, options)?)
    }
}

/// Connects to the server at `raw`, lists its tools and reads them into a batch.
pub(crate) fn read(
    raw: &str,
    base: &ImportOptions,
    config: &McpConfig,
) -> anyhow::Result<ImportBatch> {
    let source = Source::resolve(raw, config)?;
    let options = source.options(base);
    let settings = config.client_settings();
    let runtime = toolsmith_exec::runtime()?;
    let list = runtime.block_on(async {
        let client = McpClient::connect(&source.server, &settings).await?;
        let listed = client.list_tools().await;
        client.close().await;
        listed
    })?;
    source.batch(&list, &options)
}

/// Reads the server's tools and hands them to `import` with why (`mcp-tools`, then
/// `mcp-tools, tools/list_changed`), again on every change, until the server goes away.
pub(crate) fn watch(
    raw: &str,
    base: &ImportOptions,
    config: &McpConfig,
    mut import: impl FnMut(ImportBatch, &str) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let source = Source::resolve(raw, config)?;
    let options = source.options(base);
    let settings = config.client_settings();
    let runtime = toolsmith_exec::runtime()?;
    let (changes, mut received) = tokio::sync::mpsc::channel(PENDING_CHANGES);
    let (client, list) = runtime.block_on(async {
        let client =
            McpClient::connect_watching(&source.server, &settings, Arc::new(changes)).await?;
        let list = client.list_tools().await?;
        anyhow::Ok((client, list))
    })?;
    import(source.batch(&list, &options)?, "mcp-tools")?;
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
            Some(ToolListChange::Listed(list)) => import(
                source.batch(&list, &options)?,
                "mcp-tools, tools/list_changed",
            )?,
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
    Ok(())
}

/// Resolves when the connection has closed.
async fn gone(client: &McpClient) {
    while !client.is_closed() {
        tokio::time::sleep(LIVENESS_CHECK).await;
    }
}
