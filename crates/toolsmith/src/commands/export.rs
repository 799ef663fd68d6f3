//! `toolsmith export`: the docs as OpenAPI 3.1, OpenAI tools, MCP tools or Markdown. An export
//! never stops at a tool it has to change to keep the output valid: it says what it changed.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use toolsmith_catalog::export::{self, Change};

use crate::cli::{ExportArgs, ExportFormat};
use crate::context::Context;
use crate::printer;

/// How many tools' changes are listed before the rest is summed up.
const CHANGED_TOOLS_SHOWN: usize = 20;

/// Runs `toolsmith export`.
pub(super) fn run(ctx: &Context, args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    let catalog = store.catalog(&args.docs.selector(), &args.scope.scope())?;
    if catalog.tools.is_empty() {
        bail!("nothing to export: no tools match");
    }
    let (text, changes) = match args.format {
        ExportFormat::Openai => {
            let out = export::openai_tools_exported(&catalog);
            (serde_json::to_string_pretty(&out.value)?, out.changes)
        }
        ExportFormat::Mcp => {
            let out = export::mcp_tools_exported(&catalog);
            (serde_json::to_string_pretty(&out.value)?, out.changes)
        }
        ExportFormat::Markdown => (export::markdown(&catalog), Vec::new()),
        ExportFormat::Openapi => {
            if let [tool] = catalog.tools.as_slice() {
                let out = export::openapi_exported(tool);
                (serde_json::to_string_pretty(&out.value)?, out.changes)
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
                let mut changes = Vec::new();
                for tool in &catalog.tools {
                    let path = dir.join(format!("{}.openapi.json", tool.tool.id));
                    let out = export::openapi_exported(tool);
                    write(&path, &serde_json::to_string_pretty(&out.value)?)?;
                    changes.extend(out.changes);
                }
                report_changes(&changes);
                printer::note(format!(
                    "wrote {} OpenAPI files to {}",
                    catalog.tools.len(),
                    dir.display()
                ));
                return Ok(ExitCode::SUCCESS);
            }
        }
    };
    report_changes(&changes);
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

/// The changes on stderr, grouped by tool: every change of the first tools, then a count.
fn report_changes(changes: &[Change]) {
    if changes.is_empty() {
        return;
    }
    let mut by_tool: BTreeMap<&str, Vec<&Change>> = BTreeMap::new();
    for change in changes {
        by_tool
            .entry(change.tool.as_str())
            .or_default()
            .push(change);
    }
    for (tool, list) in by_tool.iter().take(CHANGED_TOOLS_SHOWN) {
        printer::note(format!("{tool}: {} change(s)", list.len()));
        for change in list {
            match &change.api {
                Some(api) => printer::note(format!("  {api}: {}", change.what)),
                None => printer::note(format!("  {}", change.what)),
            }
        }
    }
    if by_tool.len() > CHANGED_TOOLS_SHOWN {
        printer::note(format!(
            "... and {} more tools changed",
            by_tool.len() - CHANGED_TOOLS_SHOWN
        ));
    }
    printer::note(format!(
        "{} change(s) in {} tool(s) to keep the export valid",
        changes.len(),
        by_tool.len()
    ));
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}
