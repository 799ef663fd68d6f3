//! A tool's description rewritten from its APIs' (refined) docs, shared by every method:
//! DRAFT rewrites it once a tool's APIs are done (§3.5), EasyTool writes its concise
//! "what it can do and its N functions" summary.

use serde::{Deserialize, Serialize};
use toolsmith_catalog::ToolEntry;
use toolsmith_llm::{ChatModel, Role};

use crate::ask::{At, ask, first_message};
use crate::error::Result;
use crate::guard::check_description;
use crate::prompts::TOOL;

#[derive(Serialize)]
struct ApiLine<'a> {
    name: &'a str,
    description: &'a str,
}

#[derive(Deserialize)]
struct Reply {
    description: String,
}

/// The new description, or `None` when the model's reply was unusable (the tool keeps its own).
pub(crate) async fn describe(
    llm: &dyn ChatModel,
    tool: &ToolEntry,
    current: &str,
    temperature: f32,
    max_growth: f32,
) -> Result<Option<String>> {
    let Some(first) = tool.apis.first() else {
        return Ok(None);
    };
    let apis: Vec<ApiLine<'_>> = tool
        .apis
        .iter()
        .map(|a| ApiLine {
            name: a.api.name.as_str(),
            description: a.description(),
        })
        .collect();
    let ctx = serde_json::json!({
        "name": tool.tool.name,
        "description": current,
        "apis": apis,
    });
    let at = At {
        api: &first.api.id,
        round: 0,
        what: "tool description",
    };
    let reply = ask::<Reply>(
        llm,
        Role::REWRITER,
        &TOOL,
        vec![first_message(&TOOL, &ctx)?],
        temperature,
        at,
    )
    .await?;
    // A tool with no description yet is measured against its APIs' docs together.
    let base = match current.chars().count() {
        0 => tool
            .apis
            .iter()
            .map(|a| a.description().chars().count())
            .sum(),
        n => n,
    };
    Ok(reply
        .ok()
        .and_then(|r| check_description(&r.value.description, base, max_growth).ok()))
}
