//! `toolsmith export`: the docs as OpenAPI 3.1, OpenAI tools, MCP tools or Markdown.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use toolsmith_catalog::export;

use crate::cli::{ExportArgs, ExportFormat};
use crate::context::Context;
use crate::printer;

/// Runs `toolsmith export`.
pub(super) fn run(ctx: &Context, args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    let catalog = store.catalog(&args.docs.selector(), &args.scope.scope())?;
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
        None => printer::line(text)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}
