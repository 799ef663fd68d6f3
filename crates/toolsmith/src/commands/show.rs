//! `toolsmith show`: one API (or tool) with its docs.

use std::process::ExitCode;

use serde_json::json;
use toolsmith_catalog::{DocSelector, DocTarget, Scope, render};

use crate::cli::ShowArgs;
use crate::context::Context;
use crate::printer;

/// Runs `toolsmith show`.
pub(super) fn run(ctx: &Context, args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let store = ctx.store()?;
    if let DocTarget::Api(id) = &args.id
        && let Err(toolsmith_catalog::Error::UnknownApi(_)) = store.api(id)
    {
        return Err(crate::suggest::unknown_api(ctx, &store, id));
    }
    let history = if args.all_versions {
        Some(store.doc_history(&args.id)?)
    } else {
        None
    };
    match &args.id {
        DocTarget::Api(id) => {
            let entry = store.api(id)?;
            if args.json.json {
                let mut value = serde_json::to_value(&entry)?;
                if let Some(history) = &history {
                    value["versions"] = serde_json::to_value(history)?;
                }
                printer::json(&value)?;
            } else {
                printer::line(render::api_markdown(&entry))?;
                if let Some(schema) = &entry.api.response_schema {
                    let text = serde_json::to_string(schema)?;
                    printer::line(format!(
                        "Response schema: {} characters; {} example(s)",
                        text.len(),
                        entry.api.response_examples.len()
                    ))?;
                }
                print_history(history.as_deref())?;
            }
        }
        DocTarget::Tool(id) => {
            let scope = Scope {
                tool: Some(id.clone()),
                ..Scope::default()
            };
            let catalog = store.catalog(&DocSelector::Active, &scope)?;
            let Some(tool) = catalog.tools.first() else {
                return Err(toolsmith_catalog::Error::UnknownTool(id.clone()).into());
            };
            if args.json.json {
                let mut value = json!({ "tool": tool.tool, "doc": tool.doc, "apis": tool.apis.iter().map(|a| a.api.id.to_string()).collect::<Vec<_>>() });
                if let Some(history) = &history {
                    value["versions"] = serde_json::to_value(history)?;
                }
                printer::json(&value)?;
            } else {
                printer::line(render::tool_markdown(tool))?;
                print_history(history.as_deref())?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_history(history: Option<&[toolsmith_catalog::DocVersion]>) -> anyhow::Result<()> {
    let Some(history) = history else {
        return Ok(());
    };
    printer::line("Doc versions:")?;
    for v in history {
        let first: String = v
            .doc
            .description
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(70)
            .collect();
        printer::line(format!(
            "  {}{:>3}  {:<14} {:<3} examples  {}  ({})",
            if v.active { "*" } else { " " },
            v.version,
            v.label,
            v.doc.examples.len(),
            first,
            v.source
        ))?;
    }
    Ok(())
}
