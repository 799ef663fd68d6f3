//! `toolsmith tools`: list the catalog's APIs.

use std::fmt;
use std::process::ExitCode;

use serde::Serialize;
use toolsmith_catalog::Endpoint;

use crate::cli::ToolsArgs;
use crate::context::Context;
use crate::{printer, table};

/// One API in `tools --json`. Stable: fields are only ever added.
#[derive(Debug, Serialize)]
pub(super) struct ApiRow<'a> {
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
pub(super) fn run(ctx: &Context, args: &ToolsArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    let catalog = store.catalog(&args.docs.selector(), &args.scope.scope())?;
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
    let report = Report(rows);
    if args.json.json {
        printer::report(&report, true)?;
        return Ok(ExitCode::SUCCESS);
    }
    // No table at all for no APIs: the note says so.
    if !report.0.is_empty() {
        printer::report(&report, false)?;
    }
    printer::note(format!(
        "{} APIs in {} tools",
        report.0.len(),
        catalog.tools.len()
    ));
    Ok(ExitCode::SUCCESS)
}

/// `toolsmith tools`' report: one row per API.
#[derive(Serialize)]
#[serde(transparent)]
struct Report<'a>(Vec<ApiRow<'a>>);

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = table::new(["API", "call", "description"]);
        for row in &self.0 {
            let call = match (row.method, row.path, row.function) {
                (_, _, Some(f)) => format!("fn {f}"),
                (Some(m), Some(p), _) => format!("{m} {p}"),
                (Some(m), None, _) => m.to_owned(),
                _ => String::new(),
            };
            out.add_row(vec![
                row.id.clone(),
                call,
                table::first_line(row.description, 80),
            ]);
        }
        f.write_str(&out.trim_fmt())
    }
}
