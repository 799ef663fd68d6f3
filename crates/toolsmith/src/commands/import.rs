//! `toolsmith import`: read sources into the catalog, each in one transaction.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use toolsmith_catalog::{DocLabel, Format, ImportOptions, read_source};

use crate::cli::Global;
use crate::commands::open_store;
use crate::printer;

/// Import tools or docs into the catalog.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Spec files, tool files, folders of `<Category>/<tool>.json`, or `.tar.gz` archives.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The format, when detection should not guess: openapi, rapidapi,
    /// toolbench-queries, toolbench-toolset, openai-functions, mcp-tools, draft-docs,
    /// easytool-docs.
    #[arg(long)]
    pub format: Option<Format>,
    /// Tool name for single-tool sources (OpenAPI specs, OpenAI function lists).
    #[arg(long)]
    pub tool: Option<String>,
    /// Category for single-tool sources.
    #[arg(long)]
    pub category: Option<String>,
    /// Label for refined-doc files (default: draft-ref or easytool-ref).
    #[arg(long)]
    pub label: Option<DocLabel>,
    /// Make imported refined docs the active ones.
    #[arg(long)]
    pub activate: bool,
    /// Import the good files of a folder or archive and report the bad ones.
    #[arg(long)]
    pub keep_going: bool,
    /// Print the import reports as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `toolsmith import`.
pub fn run(global: &Global, args: &ImportArgs) -> anyhow::Result<ExitCode> {
    let mut store = open_store(global)?;
    let options = ImportOptions {
        format: args.format,
        tool: args.tool.clone(),
        category: args.category.clone(),
        label: args.label.clone(),
        base_url: None,
        keep_going: args.keep_going,
    };
    let mut reports = Vec::new();
    for path in &args.paths {
        let started = std::time::Instant::now();
        let batch =
            read_source(path, &options).with_context(|| format!("importing {}", path.display()))?;
        let report = store
            .import(&batch, args.activate)
            .with_context(|| format!("storing {}", path.display()))?;
        if !args.json {
            let format = batch.format.map_or("rapidapi", |f| f.as_str());
            printer::line(format!(
                "{} ({format}): {} tools added, {} updated; {} APIs added, {} updated; {} doc versions added, {} unchanged ({:.1} s)",
                path.display(),
                report.tools_added,
                report.tools_updated,
                report.apis_added,
                report.apis_updated,
                report.docs_added,
                report.docs_unchanged,
                started.elapsed().as_secs_f64(),
            ));
            if report.refs_matched > 0 || !report.refs_unmatched.is_empty() {
                printer::line(format!(
                    "  refined docs: {} matched, {} unmatched",
                    report.refs_matched,
                    report.refs_unmatched.len()
                ));
                for name in report.refs_unmatched.iter().take(10) {
                    printer::line(format!("    unmatched: {name}"));
                }
            }
            for failure in &report.failures {
                printer::note(format!("  skipped: {failure}"));
            }
        }
        reports.push(report);
    }
    if args.json {
        printer::json(&reports)?;
    }
    Ok(ExitCode::SUCCESS)
}
