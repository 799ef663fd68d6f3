//! ToolEval's default evaluation sets (`toolbench/tooleval_default_evalset/G1_*.json`, ...):
//! 100 queries per group, each with the functions offered to the solver and a reference run
//! (ChatGPT with CoT) to compare against. Unlike the StableToolBench query files they have no
//! gold APIs: pass rate and win rate judge them.
//!
//! File format: a JSON object keyed by query id, each value
//! `{query, available_tools: [OpenAI function schema], answer: {method, total_steps,
//! final_answer, answer_details}}`. `final_answer` is the raw argument text of the run's
//! `Finish` call (empty when it never called it, sometimes cut short); `answer_details` is the
//! run as a tree of `{role, message, next: [...]}` nodes whose tool messages start with
//! `{'name': '<function>', ...` and are cut to 100 characters.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dataset::read::{bad, file_stem, read_json};
use crate::error::{Error, Result};

/// The function every ToolBench solver ends with; not a tool of the query.
const FINISH: &str = "Finish";

/// One ToolEval evaluation set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolEvalSet {
    /// The file's stem (`G1_instruction`).
    pub name: String,
    /// The queries, in file order.
    pub queries: Vec<ToolEvalQuery>,
}

/// One query of a ToolEval set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolEvalQuery {
    /// The query id (the file's key).
    pub id: String,
    /// What the user asks.
    pub query: String,
    /// The functions offered, `Finish` left out.
    pub offered: Vec<OfferedFunction>,
    /// The reference run.
    pub reference: ReferenceRun,
}

/// A function offered to the solver, as an OpenAI function schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OfferedFunction {
    /// ToolBench's function name (`<api>_for_<tool>`, standardized, at most 64 characters).
    pub name: String,
    /// Its description.
    #[serde(default)]
    pub description: String,
    /// Its parameters' JSON Schema.
    #[serde(default)]
    pub parameters: Value,
}

/// The reference run of a query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReferenceRun {
    /// The solver that produced it (`chatgpt_CoT`).
    pub method: String,
    /// Its steps, as the file counts them.
    pub total_steps: u64,
    /// How it ended.
    pub finish: ReferenceFinish,
    /// The functions it called, in the order of a depth-first walk of its tree (a single chain
    /// for CoT), `Finish` left out.
    pub calls: Vec<String>,
}

/// How a reference run ended, read from its `Finish` arguments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceFinish {
    /// It answered (`give_answer`) with this text.
    Answer(String),
    /// It gave up (`give_up_and_restart`).
    GaveUp,
    /// It never called `Finish`.
    Unfinished,
}

impl ReferenceFinish {
    /// Reads the recorded `Finish` arguments: JSON when they parse, else (the text was cut
    /// short) the `return_type` found in the text and everything after `"final_answer": "` as
    /// the answer, the way ToolBench reads malformed `Finish` calls.
    pub fn parse(raw: &str) -> Self {
        let raw = raw.trim();
        if raw.is_empty() {
            return Self::Unfinished;
        }
        if let Ok(Value::Object(args)) = serde_json::from_str::<Value>(raw) {
            let text = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or_default();
            return match text("return_type") {
                "give_up_and_restart" => Self::GaveUp,
                _ => Self::Answer(text("final_answer").to_owned()),
            };
        }
        if raw.contains("give_up_and_restart") {
            return Self::GaveUp;
        }
        const KEY: &str = "\"final_answer\": \"";
        match raw.split_once(KEY) {
            Some((_, answer)) => {
                let answer = answer.trim_end_matches(['}', '\n', ' ', ',', '"']);
                Self::Answer(answer.replace("\\n", "\n"))
            }
            None => Self::Answer(raw.to_owned()),
        }
    }
}

#[derive(Deserialize)]
struct RawQuery {
    query: String,
    #[serde(default)]
    available_tools: Vec<OfferedFunction>,
    answer: RawAnswer,
}

#[derive(Deserialize)]
struct RawAnswer {
    #[serde(default)]
    method: String,
    #[serde(default)]
    total_steps: u64,
    #[serde(default)]
    final_answer: String,
    #[serde(default)]
    answer_details: Vec<Node>,
}

#[derive(Deserialize)]
struct Node {
    role: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    next: Vec<Node>,
}

/// The function name a tool node's message starts with, when not cut off.
fn called_name(message: &str) -> Option<&str> {
    let rest = message.split_once("'name': '")?.1;
    let (name, _) = rest.split_once('\'')?;
    (!name.is_empty()).then_some(name)
}

fn collect_calls(nodes: &[Node], out: &mut Vec<String>) {
    for node in nodes {
        if node.role == "tool"
            && let Some(name) = called_name(&node.message).filter(|n| *n != FINISH)
        {
            out.push(name.to_owned());
        }
        collect_calls(&node.next, out);
    }
}

/// Reads a ToolEval evaluation set.
pub fn load_tooleval(path: &Path) -> Result<ToolEvalSet> {
    let Value::Object(entries) = read_json(path)? else {
        return Err(bad(path, "expected a JSON object keyed by query id"));
    };
    let queries = entries
        .into_iter()
        .map(|(id, value)| {
            let raw: RawQuery = serde_json::from_value(value).map_err(|source| Error::Json {
                path: path.to_owned(),
                source,
            })?;
            let mut calls = Vec::new();
            collect_calls(&raw.answer.answer_details, &mut calls);
            Ok(ToolEvalQuery {
                id,
                query: raw.query.trim().to_owned(),
                offered: raw
                    .available_tools
                    .into_iter()
                    .filter(|f| f.name != FINISH)
                    .collect(),
                reference: ReferenceRun {
                    method: raw.answer.method,
                    total_steps: raw.answer.total_steps,
                    finish: ReferenceFinish::parse(&raw.answer.final_answer),
                    calls,
                },
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(ToolEvalSet {
        name: file_stem(path),
        queries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finish_arguments_whole_cut_or_missing() {
        assert_eq!(
            ReferenceFinish::parse(r#"{"return_type": "give_answer", "final_answer": "42"}"#),
            ReferenceFinish::Answer("42".into())
        );
        assert_eq!(
            ReferenceFinish::parse(r#"{"return_type": "give_up_and_restart"}"#),
            ReferenceFinish::GaveUp
        );
        assert_eq!(ReferenceFinish::parse(""), ReferenceFinish::Unfinished);
        // Cut short: not JSON any more.
        assert_eq!(
            ReferenceFinish::parse(
                "{\n  \"return_type\": \"give_answer\",\n  \"final_answer\": \"Jobs:\\n1. Dev\"\n,"
            ),
            ReferenceFinish::Answer("Jobs:\n1. Dev".into())
        );
        assert_eq!(
            ReferenceFinish::parse("{\"return_type\": \"give_up_and_restart\", \"rea"),
            ReferenceFinish::GaveUp
        );
    }

    #[test]
    fn called_names_come_from_tool_messages() {
        assert_eq!(
            called_name("{'name': 'vin_decode_for_vin_decoder_v4', 'arguments': '{\\n"),
            Some("vin_decode_for_vin_decoder_v4")
        );
        // Cut inside the name: unknown, not a wrong name.
        assert_eq!(called_name("{'name': 'vin_dec"), None);
        assert_eq!(called_name("plain text"), None);
    }
}
