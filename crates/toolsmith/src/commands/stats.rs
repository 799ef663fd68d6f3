//! `toolsmith stats`: counts and token statistics of the docs, per doc version.

use std::process::ExitCode;

use serde::Serialize;
use toolsmith_catalog::{DocLabel, DocSelector, Encoding, Scope, TokenStats, ToolId};

use crate::cli::Global;
use crate::commands::open_store;
use crate::printer;

/// Counts and token statistics of the docs.
#[derive(Debug, clap::Args)]
pub struct StatsArgs {
    /// Only this doc label (default: the active docs and every label in the store).
    #[arg(long = "doc-version")]
    pub doc_version: Option<DocLabel>,
    /// Only this category.
    #[arg(long)]
    pub category: Option<String>,
    /// Only this tool.
    #[arg(long)]
    pub tool: Option<ToolId>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Serialize)]
struct Report {
    tools: usize,
    apis: usize,
    categories: usize,
    doc_labels: Vec<(String, usize)>,
    tokens: Vec<VersionTokens>,
}

#[derive(Debug, Serialize)]
struct VersionTokens {
    /// `active` or a label.
    doc_version: String,
    /// APIs whose shown doc carries this label (the rest fall back to their active doc).
    apis_with_label: usize,
    cl100k_base: Summary,
    o200k_base: Summary,
}

#[derive(Debug, Serialize)]
struct Summary {
    total: usize,
    mean_per_tool: f64,
    mean_per_api: f64,
    max_per_api: usize,
    spec_mean_per_api: f64,
}

impl From<&TokenStats> for Summary {
    fn from(s: &TokenStats) -> Self {
        Self {
            total: s.total,
            mean_per_tool: s.mean_per_tool,
            mean_per_api: s.mean_per_api,
            max_per_api: s.max_per_api,
            spec_mean_per_api: s.spec_mean_per_api,
        }
    }
}

/// Runs `toolsmith stats`.
pub fn run(global: &Global, args: &StatsArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(global)?;
    let scope = Scope {
        category: args.category.clone(),
        tool: args.tool.clone(),
    };
    let active = store.catalog(&DocSelector::Active, &scope)?;
    let mut categories: Vec<&str> = active
        .tools
        .iter()
        .map(|t| t.tool.category.as_str())
        .collect();
    categories.sort_unstable();
    categories.dedup();
    let labels = store.doc_labels()?;
    let mut selectors: Vec<(String, DocSelector)> = Vec::new();
    match &args.doc_version {
        Some(label) => selectors.push((label.to_string(), DocSelector::Label(label.clone()))),
        None => {
            selectors.push(("active".to_owned(), DocSelector::Active));
            selectors.extend(
                labels
                    .iter()
                    .map(|(l, _)| (l.to_string(), DocSelector::Label(l.clone()))),
            );
        }
    }
    let mut tokens = Vec::new();
    for (name, selector) in selectors {
        let catalog = if selector == DocSelector::Active {
            active.clone()
        } else {
            store.catalog(&selector, &scope)?
        };
        let apis_with_label = catalog
            .apis()
            .filter(|(_, a)| {
                name == "active" || a.doc.as_ref().is_some_and(|d| d.label.as_str() == name)
            })
            .count();
        let cl = TokenStats::compute(&catalog, Encoding::Cl100kBase)?;
        let o2 = TokenStats::compute(&catalog, Encoding::O200kBase)?;
        tokens.push(VersionTokens {
            doc_version: name,
            apis_with_label,
            cl100k_base: (&cl).into(),
            o200k_base: (&o2).into(),
        });
    }
    let report = Report {
        tools: active.tools.len(),
        apis: active.api_count(),
        categories: categories.len(),
        doc_labels: labels.iter().map(|(l, n)| (l.to_string(), *n)).collect(),
        tokens,
    };
    if args.json {
        printer::json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    printer::line(format!(
        "{} tools, {} APIs, {} categories",
        report.tools, report.apis, report.categories
    ));
    let labels: Vec<String> = report
        .doc_labels
        .iter()
        .map(|(l, n)| format!("{l} ({n})"))
        .collect();
    printer::line(format!(
        "doc labels (tools and APIs carrying each): {}",
        labels.join(", ")
    ));
    printer::line("");
    printer::line(
        "tokens of the docs as shown to a model (tool description + each API's name, call, description, parameters, examples);",
    );
    printer::line(
        "spec/API: tokens of each API's full spec record (parameters and response schemas as JSON), the raw docs before any rewriting",
    );
    printer::line(format!(
        "{:<14} {:>9} | {:>10} {:>9} {:>8} {:>7} {:>9} | {:>10} {:>9} {:>8}",
        "doc version",
        "APIs",
        "cl100k",
        "per tool",
        "per API",
        "max",
        "spec/API",
        "o200k",
        "per tool",
        "per API"
    ));
    for t in &report.tokens {
        printer::line(format!(
            "{:<14} {:>9} | {:>10} {:>9.1} {:>8.1} {:>7} {:>9.1} | {:>10} {:>9.1} {:>8.1}",
            t.doc_version,
            t.apis_with_label,
            t.cl100k_base.total,
            t.cl100k_base.mean_per_tool,
            t.cl100k_base.mean_per_api,
            t.cl100k_base.max_per_api,
            t.cl100k_base.spec_mean_per_api,
            t.o200k_base.total,
            t.o200k_base.mean_per_tool,
            t.o200k_base.mean_per_api,
        ));
    }
    Ok(ExitCode::SUCCESS)
}
