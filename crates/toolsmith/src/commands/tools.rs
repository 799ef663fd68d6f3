//! `toolsmith tools`: list the catalog's APIs.

use std::process::ExitCode;

use serde::Serialize;
use toolsmith_catalog::{DocLabel, Endpoint, Scope, ToolId};

use crate::cli::Global;
use crate::commands::{open_store, selector};
use crate::printer;

/// List the catalog's APIs.
#[derive(Debug, clap::Args)]
pub struct ToolsArgs {
    /// Only this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Only this tool (its id).
    #[arg(long)]
    pub tool: Option<ToolId>,
    /// Show the docs of this label instead of the active ones.
    #[arg(long = "doc-version")]
    pub doc_version: Option<DocLabel>,
    /// Print a JSON array, one object per API (the stable, scriptable form).
    #[arg(long)]
    pub json: bool,
}

/// One API in `tools --json`. Stable: fields are only ever added.
#[derive(Debug, Serialize)]
pub struct ApiRow<'a> {
    /// `tool/api`.
    pub id: String,
    /// Category of its tool.
    pub category: &'a str,
    /// Tool id.
    pub tool: &'a str,
    /// HTTP method, for HTTP APIs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<&'static str>,
    /// Path template, for located HTTP APIs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<&'a str>,
    /// Function name, for function APIs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function: Option<&'a str>,
    /// The source's own name of the API.
    pub source_name: &'a str,
    /// Description of the shown doc version.
    pub description: &'a str,
    /// Label of the shown doc version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc_label: Option<&'a str>,
}

/// Runs `toolsmith tools`.
pub fn run(global: &Global, args: &ToolsArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(global)?;
    let scope = Scope {
        category: args.category.clone(),
        tool: args.tool.clone(),
    };
    let catalog = store.catalog(&selector(args.doc_version.as_ref()), &scope)?;
    let rows: Vec<ApiRow<'_>> = catalog
        .apis()
        .map(|(tool, api)| ApiRow {
            id: api.api.id.to_string(),
            category: &tool.tool.category,
            tool: tool.tool.id.as_str(),
            method: api.api.endpoint.method().map(|m| m.as_str()),
            path: api.api.endpoint.path(),
            function: match &api.api.endpoint {
                Endpoint::Function { name } => Some(name.as_str()),
                _ => None,
            },
            source_name: &api.api.source_name,
            description: api.description(),
            doc_label: api.doc.as_ref().map(|d| d.label.as_str()),
        })
        .collect();
    if args.json {
        printer::json(&rows)?;
        return Ok(ExitCode::SUCCESS);
    }
    for row in &rows {
        let call = match (row.method, row.path, row.function) {
            (_, _, Some(f)) => format!("fn {f}"),
            (Some(m), Some(p), _) => format!("{m} {p}"),
            (Some(m), None, _) => m.to_owned(),
            _ => String::new(),
        };
        let first_line = row.description.lines().next().unwrap_or("");
        let short: String = first_line.chars().take(80).collect();
        printer::line(format!("{:<48} {:<40} {short}", row.id, call));
    }
    printer::note(format!(
        "{} APIs in {} tools",
        rows.len(),
        catalog.tools.len()
    ));
    Ok(ExitCode::SUCCESS)
}
