//! Plain-text renderings of docs: what an LLM reads about a tool or an API.
//! The Markdown exporter and the token statistics use the same text, so the
//! counted tokens are the tokens a model is shown.

use std::fmt::Write;

use serde_json::Value;

use crate::model::{Doc, Param};
use crate::store::{ApiEntry, ToolEntry};

/// Markdown for one API: heading, call line, description, parameters (one line per argument
/// name: [`crate::Api::arguments`]), examples.
pub fn api_markdown(api: &ApiEntry) -> String {
    let mut out = String::new();
    let a = &api.api;
    let _ = writeln!(out, "### {}", a.id);
    let call = match (a.endpoint.method(), a.endpoint.path()) {
        (Some(m), Some(p)) => format!("{m} {p}"),
        (Some(m), None) => format!("{m} ({})", a.source_name),
        _ => format!("function {}", a.source_name),
    };
    let _ = writeln!(out, "`{call}` ({})\n", a.name);
    if let Some(doc) = &api.doc {
        write_doc(&mut out, &doc.doc);
    }
    if !a.params.is_empty() {
        let _ = writeln!(out, "Parameters:");
        for p in a.arguments() {
            let _ = writeln!(out, "{}", param_line(p));
        }
        out.push('\n');
    }
    out
}

/// Markdown for a tool and all its APIs.
pub fn tool_markdown(tool: &ToolEntry) -> String {
    let mut out = tool_header(tool);
    for api in &tool.apis {
        out.push_str(&api_markdown(api));
    }
    out
}

/// Markdown for a tool without its APIs: name, category, base URL, description.
pub fn tool_header(tool: &ToolEntry) -> String {
    let mut out = String::new();
    let t = &tool.tool;
    let _ = writeln!(out, "## {} (`{}`)", t.name, t.id);
    let _ = writeln!(out, "Category: {}", t.category);
    if let Some(base) = &t.base_url {
        let _ = writeln!(out, "Base URL: {base}");
    }
    out.push('\n');
    if let Some(doc) = &tool.doc {
        write_doc(&mut out, &doc.doc);
    }
    out
}

fn write_doc(out: &mut String, doc: &Doc) {
    if !doc.description.is_empty() {
        let _ = writeln!(out, "{}\n", doc.description);
    }
    for example in &doc.examples {
        let _ = writeln!(out, "Example: {}", example.query);
        let _ = writeln!(out, "  arguments: {}", example.arguments);
        if let Some(call) = &example.call {
            let _ = writeln!(out, "  call: {call}");
        }
    }
    if !doc.examples.is_empty() {
        out.push('\n');
    }
}

/// `- name (query, string, required): description [default: x] [one of: a, b]`,
/// with the type an enum's values have ([`crate::lint::effective_schema`]).
pub fn param_line(p: &Param) -> String {
    let schema = crate::lint::effective_schema(&p.schema);
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or("any");
    let mut line = format!(
        "- {} ({}, {kind}{})",
        p.name,
        p.location.as_str(),
        if p.required { ", required" } else { "" }
    );
    if !p.description.is_empty() {
        let _ = write!(line, ": {}", p.description.replace('\n', " "));
    }
    if let Some(default) = schema.get("default") {
        let _ = write!(line, " [default: {default}]");
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect();
        let _ = write!(line, " [one of: {}]", values.join(", "));
    }
    line
}
