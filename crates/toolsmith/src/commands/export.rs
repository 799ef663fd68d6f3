//! `toolsmith export`: the docs as OpenAPI 3.1, OpenAI tools, MCP tools or Markdown.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use toolsmith_catalog::{DocLabel, Scope, ToolId, export};

use crate::cli::Global;
use crate::commands::{open_store, selector};
use crate::printer;

/// Export formats.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum ExportFormat {
    /// OpenAPI 3.1, one document per tool.
    Openapi,
    /// OpenAI tools JSON (`[{type: function, function: {...}}]`).
    Openai,
    /// An MCP `tools/list` result (`{tools: [{name, description, inputSchema}]}`).
    Mcp,
    /// Markdown for people and prompts.
    Markdown,
}

/// Export docs (the active ones unless `--doc-version` says otherwise).
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// Output format.
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Output file (or, for OpenAPI with several tools, a folder); stdout when absent.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Export the docs of this label (where an API has none, its active doc).
    #[arg(long = "doc-version")]
    pub doc_version: Option<DocLabel>,
    /// Only this tool.
    #[arg(long)]
    pub tool: Option<ToolId>,
    /// Only this category.
    #[arg(long)]
    pub category: Option<String>,
}

/// Runs `toolsmith export`.
pub fn run(global: &Global, args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(global)?;
    let scope = Scope {
        category: args.category.clone(),
        tool: args.tool.clone(),
    };
    let catalog = store.catalog(&selector(args.doc_version.as_ref()), &scope)?;
    if catalog.tools.is_empty() {
        bail!("nothing to export: no tools match");
    }
    let text = match args.format {
        ExportFormat::Openai => serde_json::to_string_pretty(&export::openai_tools(&catalog))?,
        ExportFormat::Mcp => serde_json::to_string_pretty(&export::mcp_tools(&catalog))?,
        ExportFormat::Markdown => export::markdown(&catalog),
        ExportFormat::Openapi => {
            if let [tool] = catalog.tools.as_slice() {
                serde_json::to_string_pretty(&export::openapi(tool)?)?
            } else {
                let Some(dir) = args
                    .out
                    .as_deref()
                    .filter(|p| p.is_dir() || p.to_string_lossy().ends_with('/'))
                else {
                    bail!(
                        "{} tools match: name one with --tool, or give --out a folder for one OpenAPI file per tool",
                        catalog.tools.len()
                    );
                };
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
                for tool in &catalog.tools {
                    let path = dir.join(format!("{}.openapi.json", tool.tool.id));
                    write(
                        &path,
                        &serde_json::to_string_pretty(&export::openapi(tool)?)?,
                    )?;
                }
                printer::note(format!(
                    "wrote {} OpenAPI files to {}",
                    catalog.tools.len(),
                    dir.display()
                ));
                return Ok(ExitCode::SUCCESS);
            }
        }
    };
    match &args.out {
        Some(path) => {
            write(path, &text)?;
            printer::note(format!(
                "wrote {} APIs to {}",
                catalog.api_count(),
                path.display()
            ));
        }
        None => printer::line(text),
    }
    Ok(ExitCode::SUCCESS)
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}
