//! `toolsmith import`: read sources into the catalog, each in one transaction.
//! A source is a file, a folder, an archive, or the address of an MCP server
//! whose `tools/list` is imported (see `mcp_import`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use toolsmith_catalog::{DocLabel, Format, ImportOptions, ImportReport, read_source};
use toolsmith_exec::McpAddress;

use crate::cli::Global;
use crate::commands::{mcp_import, open_store};
use crate::printer;

/// Import tools or docs into the catalog.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Spec files, tool files, folders of `<Category>/<tool>.json`, `.tar.gz`
    /// archives, or MCP servers: `mcp://NAME` (a `[mcp.servers.NAME]` of
    /// toolsmith.toml), `mcp+http://URL`, `mcp+https://URL` or
    /// `'mcp+stdio:COMMAND ARGS...'`, whose tools become one tool's APIs.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The format, when detection should not guess: openapi, rapidapi,
    /// toolbench-queries, toolbench-toolset, openai-functions, mcp-tools, draft-docs,
    /// easytool-docs.
    #[arg(long)]
    pub format: Option<Format>,
    /// Tool name for single-tool sources (OpenAPI specs, OpenAI function lists,
    /// MCP servers; by default an MCP server's name or host).
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
    /// Stay connected to the (one) MCP server and import its tools again each
    /// time it says they changed (`tools/list_changed`), until it goes away.
    #[arg(long)]
    pub watch: bool,
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
    if args.watch {
        let [source] = args.paths.as_slice() else {
            anyhow::bail!("--watch follows one MCP server; give exactly one address");
        };
        let source = source.to_string_lossy();
        if !McpAddress::is_mcp(&source) {
            anyhow::bail!("--watch follows an MCP server; `{source}` is not an MCP address");
        }
        return mcp_import::watch(&mut store, &source, &options, args);
    }
    let mut reports = Vec::new();
    for path in &args.paths {
        let started = std::time::Instant::now();
        let source = path.to_string_lossy();
        let batch = if McpAddress::is_mcp(&source) {
            mcp_import::read(&source, &options)
        } else {
            read_source(path, &options).map_err(anyhow::Error::from)
        }
        .with_context(|| format!("importing {}", path.display()))?;
        let report = store
            .import(&batch, args.activate)
            .with_context(|| format!("storing {}", path.display()))?;
        if !args.json {
            let format = batch.format.map_or("rapidapi", |f| f.as_str());
            print_report(&batch.source, format, &report, started.elapsed());
        }
        reports.push(report);
    }
    if args.json {
        printer::json(&reports)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One source's import, in a line (and the refined docs and failures under it).
pub(crate) fn print_report(
    source: &str,
    format: &str,
    report: &ImportReport,
    elapsed: std::time::Duration,
) {
    printer::line(format!(
        "{source} ({format}): {} tools added, {} updated; {} APIs added, {} updated; {} doc versions added, {} unchanged ({:.1} s)",
        report.tools_added,
        report.tools_updated,
        report.apis_added,
        report.apis_updated,
        report.docs_added,
        report.docs_unchanged,
        elapsed.as_secs_f64(),
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
