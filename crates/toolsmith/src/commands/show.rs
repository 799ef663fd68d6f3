//! `toolsmith show`: one API (or tool) with its docs.

use std::fmt;
use std::process::ExitCode;

use serde::Serialize;
use serde_json::{Value, json};
use toolsmith_catalog::{
    ApiEntry, DocSelector, DocTarget, DocVersion, Scope, SecurityRequirement, SecurityScheme, Tool,
    ToolEntry, render,
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
    let shown = match &args.id {
        DocTarget::Api(id) => Shown::Api {
            entry: Box::new(store.api(id)?),
            tool: store.tool(id.tool())?,
        },
        DocTarget::Tool(id) => {
            let scope = Scope {
                tool: Some(id.clone()),
                ..Scope::default()
            };
            let mut catalog = store.catalog(&DocSelector::Active, &scope)?;
            if catalog.tools.is_empty() {
                return Err(toolsmith_catalog::Error::UnknownTool(id.clone()).into());
            }
            Shown::Tool(Box::new(catalog.tools.swap_remove(0)))
        }
    };
    printer::report(&Report { shown, history }, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

/// What `show` shows: an API with its tool (for its credentials), or a tool.
enum Shown {
    Api { entry: Box<ApiEntry>, tool: Tool },
    Tool(Box<ToolEntry>),
}

/// `toolsmith show`'s report: the API or tool, what a call needs, and with
/// `--all-versions` its doc versions.
struct Report {
    shown: Shown,
    history: Option<Vec<DocVersion>>,
}

impl Report {
    /// The JSON form: the API entry (or the tool, its doc and API ids) with its credentials
    /// and versions.
    fn value(&self) -> serde_json::Result<Value> {
        let mut value = match &self.shown {
            Shown::Api { entry, tool } => {
                let mut value = serde_json::to_value(entry)?;
                value["credentials"] = credentials_json(tool, entry.api.access.security.as_ref());
                value
            }
            Shown::Tool(tool) => {
                let mut value = json!({ "tool": tool.tool, "doc": tool.doc, "apis": tool.apis.iter().map(|a| a.api.id.to_string()).collect::<Vec<_>>() });
                value["credentials"] = credentials_json(&tool.tool, None);
                value
            }
        };
        if let Some(history) = &self.history {
            value["versions"] = serde_json::to_value(history)?;
        }
        Ok(value)
    }
}

impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value()
            .map_err(serde::ser::Error::custom)?
            .serialize(serializer)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = Vec::new();
        match &self.shown {
            Shown::Api { entry, tool } => {
                lines.push(render::api_markdown(entry));
                if let Some(schema) = &entry.api.response_schema {
                    let text = serde_json::to_string(schema).map_err(|_| fmt::Error)?;
                    lines.push(format!(
                        "Response schema: {} characters; {} example(s)",
                        text.len(),
                        entry.api.response_examples.len()
                    ));
                }
                lines.extend(credential_lines(tool, entry.api.access.security.as_ref()));
            }
            Shown::Tool(tool) => {
                lines.push(render::tool_markdown(tool));
                lines.extend(credential_lines(&tool.tool, None));
            }
        }
        if let Some(history) = &self.history {
            lines.extend(history_lines(history));
        }
        f.write_str(&lines.join("\n"))
    }
}

/// `--all-versions`' lines: each version's number, label, examples and first line.
fn history_lines(history: &[DocVersion]) -> Vec<String> {
    let mut lines = vec!["Doc versions:".to_owned()];
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
        lines.push(format!(
            "  {}{:>3}  {:<14} {:<3} examples  {}  ({})",
            if v.active { "*" } else { " " },
            v.version,
            v.label,
            v.doc.examples.len(),
            first,
            v.source
        ));
    }
    lines
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
