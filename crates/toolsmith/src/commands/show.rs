//! `toolsmith show`: one API (or tool) with its docs.

use std::process::ExitCode;

use serde_json::{Value, json};
use toolsmith_catalog::{
    DocSelector, DocTarget, Scope, SecurityRequirement, SecurityScheme, Tool, render,
};
use toolsmith_exec::{requirement_of, variables};

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
            let tool = store.tool(id.tool())?;
            let security = entry.api.access.security.as_ref();
            if args.json.json {
                let mut value = serde_json::to_value(&entry)?;
                value["credentials"] = credentials_json(&tool, security);
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
                credential_lines(&tool, security)
                    .into_iter()
                    .try_for_each(printer::line)?;
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
                value["credentials"] = credentials_json(&tool.tool, None);
                if let Some(history) = &history {
                    value["versions"] = serde_json::to_value(history)?;
                }
                printer::json(&value)?;
            } else {
                printer::line(render::tool_markdown(tool))?;
                credential_lines(&tool.tool, None)
                    .into_iter()
                    .try_for_each(printer::line)?;
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

/// What a call of an API (or, with `security` `None`, any API of `tool`) needs, and the
/// variables to set for it; nothing when it needs no credential.
fn credential_lines(tool: &Tool, security: Option<&SecurityRequirement>) -> Vec<String> {
    let Some(requirement) = requirement_of(tool, security) else {
        return Vec::new();
    };
    if requirement.alternatives.is_empty() {
        return vec!["Credentials: none needed".to_owned()];
    }
    let mut lines = vec![if requirement.alternatives.len() > 1 {
        "Credentials (any one of):".to_owned()
    } else {
        "Credentials:".to_owned()
    }];
    for alternative in &requirement.alternatives {
        let parts: Vec<String> = alternative
            .iter()
            .map(|scheme| {
                let groups: Vec<String> = variables(&tool.id, scheme)
                    .iter()
                    .map(|names| names.join(" or "))
                    .collect();
                format!("{}: set {}", scheme_text(scheme), groups.join(", and "))
            })
            .collect();
        lines.push(if parts.is_empty() {
            "  - none (credentials are optional)".to_owned()
        } else {
            format!("  - {}", parts.join("; with "))
        });
    }
    lines
}

/// [`credential_lines`] as JSON: alternatives of schemes, each with its variables.
fn credentials_json(tool: &Tool, security: Option<&SecurityRequirement>) -> Value {
    let Some(requirement) = requirement_of(tool, security) else {
        return Value::Null;
    };
    requirement
        .alternatives
        .iter()
        .map(|alternative| {
            alternative
                .iter()
                .map(|scheme| json!({"scheme": scheme, "variables": variables(&tool.id, scheme)}))
                .collect::<Value>()
        })
        .collect()
}

/// A scheme as the user reads it.
fn scheme_text(scheme: &SecurityScheme) -> String {
    match scheme {
        SecurityScheme::ApiKey {
            scheme,
            name,
            location,
        } => format!("API key `{scheme}` in {} `{name}`", location.as_str()),
        SecurityScheme::Bearer { scheme } => format!("bearer token `{scheme}`"),
        SecurityScheme::Basic { scheme } => format!("HTTP basic `{scheme}`"),
        SecurityScheme::RapidApi { host } => format!("RapidAPI key for `{host}`"),
    }
}
