//! A tool's description rewritten from its APIs' (refined) docs, shared by every method:
//! DRAFT rewrites it once a tool's APIs are done (§3.5), EasyTool writes its concise
//! "what it can do and its N functions" summary. Every API of the tool is listed by name;
//! their descriptions share [`LIST_BUDGET_CHARS`], so a long list cuts them shorter rather
//! than losing APIs (issue 31: Aspose's 69 functions lost numbers 17 to 55).

use serde::{Deserialize, Serialize};
use toolsmith_catalog::ToolEntry;
use toolsmith_llm::{ChatModel, Role};
use toolsmith_plumbing::text::truncate_chars;

use crate::ask::{At, ask, first_message};
use crate::error::Result;
use crate::guard::check_description;
use crate::prompts::TOOL;

/// Characters the list of a tool's functions may take in the prompt (about 2,000 tokens):
/// room for 70 names with some 80 characters of description each, while a tool of a dozen
/// APIs keeps descriptions of 500 characters and more whole. Not a paper's (neither DRAFT nor
/// EasyTool says how a tool's APIs are shown); a constant, since only a model with a small
/// window would want it otherwise.
pub(crate) const LIST_BUDGET_CHARS: usize = 8_000;

/// Characters each listed function takes besides its name and description (`12. `, `: `,
/// the line break).
const LINE_OVERHEAD_CHARS: usize = 7;

#[derive(Serialize)]
struct ApiLine<'a> {
    name: &'a str,
    description: String,
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
    let apis = api_lines(tool);
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

/// Every API of `tool` with its description cut to the longest length `c` at which all of
/// them fit [`LIST_BUDGET_CHARS`] beside the names (a description shorter than `c` is kept
/// whole and leaves its room to the others). When the names alone fill the budget, only
/// names are shown: an API is never dropped.
fn api_lines(tool: &ToolEntry) -> Vec<ApiLine<'_>> {
    let names: usize = tool
        .apis
        .iter()
        .map(|a| a.api.name.chars().count() + LINE_OVERHEAD_CHARS)
        .sum();
    let lengths: Vec<usize> = tool
        .apis
        .iter()
        .map(|a| a.description().trim().chars().count())
        .collect();
    let cap = description_cap(&lengths, LIST_BUDGET_CHARS.saturating_sub(names));
    tool.apis
        .iter()
        .map(|a| {
            let text = a.description().trim();
            let description = match cap {
                0 => String::new(),
                c if text.chars().count() > c => truncate_chars(text, c - 1),
                _ => text.to_owned(),
            };
            ApiLine {
                name: a.api.name.as_str(),
                description,
            }
        })
        .collect()
}

/// The largest `c` with `sum(min(length, c)) <= room`: each description gets at most `c`
/// characters (its own length when shorter).
fn description_cap(lengths: &[usize], room: usize) -> usize {
    let mut sorted = lengths.to_vec();
    sorted.sort_unstable();
    let mut left = room;
    for (i, &len) in sorted.iter().enumerate() {
        let sharing = sorted.len() - i;
        if len * sharing <= left {
            left -= len;
        } else {
            return left / sharing;
        }
    }
    sorted.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use toolsmith_catalog::{Api, ApiEntry, Doc, DocLabel, DocVersion, Endpoint, Tool, ToolEntry};
    use toolsmith_llm::testing::{Reply, ScriptedLlm};

    use super::*;

    /// A tool of `n` APIs `Function <i>`, each described in `chars` characters that open
    /// with `Does <i>`.
    fn tool(n: usize, chars: usize) -> ToolEntry {
        let apis = (1..=n)
            .map(|i| {
                let mut description = format!("Does {i} ");
                while description.len() < chars {
                    description.push_str("and more ");
                }
                description.truncate(chars);
                ApiEntry {
                    api: Api {
                        id: format!("aspose/f{i}").parse().unwrap(),
                        name: format!("Function {i}"),
                        source_name: format!("f{i}"),
                        endpoint: Endpoint::Function {
                            name: format!("f{i}"),
                        },
                        params: Vec::new(),
                        request_body: None,
                        response_schema: None,
                        response_examples: Vec::new(),
                        access: Default::default(),
                    },
                    doc: Some(DocVersion {
                        version: 1,
                        label: DocLabel::original(),
                        source: String::new(),
                        created_at_ms: 0,
                        active: true,
                        doc: Doc::text(description),
                    }),
                }
            })
            .collect();
        ToolEntry {
            tool: Tool {
                id: "aspose".parse().unwrap(),
                name: "Aspose".into(),
                category: "Data".into(),
                base_url: None,
                security: Vec::new(),
            },
            doc: None,
            apis,
        }
    }

    /// The tool prompt `describe` sends for `tool`.
    async fn prompt(tool: &ToolEntry) -> String {
        let llm = ScriptedLlm::new([Reply::text(r#"{"description": "Converts files."}"#)]);
        let described = describe(&llm, tool, "", 0.2, 10.0).await.unwrap();
        assert_eq!(described.as_deref(), Some("Converts files."));
        llm.requests()[0].last_message().to_owned()
    }

    /// The prompt's list of functions: its numbered lines.
    fn listed(prompt: &str) -> Vec<&str> {
        prompt
            .lines()
            .filter(|l| l.split_once(". Function ").is_some())
            .collect()
    }

    #[tokio::test]
    async fn a_tool_of_70_apis_lists_every_one_with_a_shorter_description_within_the_budget() {
        let prompt = prompt(&tool(70, 400)).await;
        let lines = listed(&prompt);
        assert_eq!(lines.len(), 70, "{prompt}");
        for (i, line) in lines.iter().enumerate() {
            let n = i + 1;
            assert!(
                line.starts_with(&format!("{n}. Function {n}: Does {n} ")),
                "{line}"
            );
            assert!(line.ends_with('…'), "cut: {line}");
        }
        let chars: usize = lines.iter().map(|l| l.chars().count() + 1).sum();
        assert!(chars <= LIST_BUDGET_CHARS, "{chars}");
        assert!(
            chars > LIST_BUDGET_CHARS * 9 / 10,
            "the budget is used: {chars}"
        );
    }

    #[tokio::test]
    async fn a_small_tool_keeps_its_descriptions_whole_and_names_outlast_any_budget() {
        let small = prompt(&tool(5, 400)).await;
        let lines = listed(&small);
        assert_eq!(lines.len(), 5);
        assert!(lines.iter().all(|l| !l.ends_with('…')), "{small}");
        assert!(lines[0].len() > 400);
        // So many APIs that their names fill the budget: names only, none dropped.
        let huge = prompt(&tool(800, 50)).await;
        let lines = listed(&huge);
        assert_eq!(lines.len(), 800);
        assert_eq!(lines[799], "800. Function 800");
    }

    #[test]
    fn the_cap_leaves_short_descriptions_whole_and_shares_the_rest() {
        assert_eq!(description_cap(&[10, 10, 100], 1_000), 100);
        assert_eq!(description_cap(&[10, 100, 100], 110), 50);
        assert_eq!(description_cap(&[10, 20], 0), 0);
        assert_eq!(description_cap(&[], 50), 0);
    }
}
