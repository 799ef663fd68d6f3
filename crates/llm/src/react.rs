//! Text-mode tool calling for models without native tools: the ReAct format
//!
//! ```text
//! Thought: I should look the movie up.
//! Action: search_movie
//! Action Input: {"query": "Dune"}
//! ```
//!
//! or `Final Answer: …`. Send [`REACT_STOP`] as stop sequences so the model does not invent the
//! observation, and turn its reply into a [`ReactStep`] with [`parse_react`], which tolerates
//! markdown bold, any label case, fenced or Python-style inputs, backticked tool names and a
//! made-up `Observation:` tail. This is the one place the ReAct labels are matched.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_plumbing::text::truncate_chars;

use crate::structured::extract_json;

/// Stop sequences for ReAct prompts: the model must stop before writing an observation.
pub const REACT_STOP: &[&str] = &["\nObservation:", "\nObservation"];

/// One parsed ReAct turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ReactStep {
    /// Call a tool.
    Act {
        /// The reasoning before the action, if any.
        thought: Option<String>,
        /// The tool's name, as written (it may not exist; the agent decides).
        tool: String,
        /// The arguments (`{}` when the input was empty).
        input: Value,
    },
    /// Answer the task.
    Finish {
        /// The reasoning before the answer, if any.
        thought: Option<String>,
        /// The final answer.
        answer: String,
    },
}

/// Why a reply is not a usable ReAct step; its `Display` is written to be shown to the model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReactParseError {
    /// Nothing was written.
    #[error(
        "the reply is empty; write `Thought:`, then `Action:` and `Action Input:`, or `Final Answer:`"
    )]
    Empty,
    /// No `Action:` and no `Final Answer:`.
    #[error(
        "expected `Action:` with `Action Input:`, or `Final Answer:`, but found neither in {reply_start:?}"
    )]
    NoAction {
        /// The start of the reply.
        reply_start: String,
    },
    /// `Action:` with nothing after it.
    #[error("`Action:` names no tool")]
    EmptyToolName,
    /// `Action:` without `Action Input:`.
    #[error("`Action: {tool}` has no `Action Input:` line")]
    MissingInput {
        /// The tool named.
        tool: String,
    },
    /// The input is not a JSON object.
    #[error("`Action Input` for `{tool}` is not a JSON object ({reason}): {raw}")]
    BadInput {
        /// The tool named.
        tool: String,
        /// The input as written.
        raw: String,
        /// What is wrong with it.
        reason: String,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Label {
    Thought,
    Action,
    ActionInput,
    FinalAnswer,
    Observation,
}

/// Splits a line into a label and the text after it, if it starts with one.
fn label_of(line: &str) -> Option<(Label, &str)> {
    let stripped = line
        .trim_start()
        .trim_start_matches(['*', '#', '-', '>', ' ', '_']);
    let lower = stripped.to_ascii_lowercase();
    const LABELS: &[(&str, Label)] = &[
        ("action input", Label::ActionInput),
        ("action_input", Label::ActionInput),
        ("final answer", Label::FinalAnswer),
        ("final_answer", Label::FinalAnswer),
        ("thought", Label::Thought),
        ("action", Label::Action),
        ("observation", Label::Observation),
    ];
    for (name, label) in LABELS {
        if let Some(rest) = lower.strip_prefix(name) {
            // Allow `**Action:**`, `Action :`, `Action 1:`.
            let rest_trim = rest.trim_start_matches(|c: char| {
                c == '*' || c == '_' || c == ' ' || c.is_ascii_digit()
            });
            if let Some(after) = rest_trim.strip_prefix(':') {
                let consumed = stripped.len() - after.len();
                let value = stripped[consumed..].trim_start_matches(['*', '_']).trim();
                return Some((*label, value));
            }
        }
    }
    None
}

/// Parses a ReAct reply. The first of `Action` and `Final Answer` wins; text after a made-up
/// `Observation:` is ignored.
pub fn parse_react(reply: &str) -> Result<ReactStep, ReactParseError> {
    if reply.trim().is_empty() {
        return Err(ReactParseError::Empty);
    }
    let mut fields: Vec<(Label, String)> = Vec::new();
    for line in reply.lines() {
        match label_of(line) {
            Some((Label::Observation, _)) => break,
            Some((label, value)) => fields.push((label, value.to_owned())),
            None => match fields.last_mut() {
                Some((_, text)) => {
                    text.push('\n');
                    text.push_str(line);
                }
                // Text before any label is an unlabelled thought.
                None => fields.push((Label::Thought, line.to_owned())),
            },
        }
    }
    let thought = fields
        .iter()
        .filter(|(l, _)| *l == Label::Thought)
        .map(|(_, t)| t.trim())
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    let thought = (!thought.is_empty()).then_some(thought);
    let decisive = fields
        .iter()
        .position(|(l, _)| matches!(l, Label::Action | Label::FinalAnswer));
    let Some(at) = decisive else {
        return Err(ReactParseError::NoAction {
            reply_start: truncate_chars(reply.trim(), 80),
        });
    };
    let (label, value) = &fields[at];
    if *label == Label::FinalAnswer {
        return Ok(ReactStep::Finish {
            thought,
            answer: value.trim().to_owned(),
        });
    }
    let tool = tool_name(value);
    if tool.is_empty() {
        return Err(ReactParseError::EmptyToolName);
    }
    let input = fields[at + 1..]
        .iter()
        .find(|(l, _)| *l == Label::ActionInput)
        .map(|(_, v)| v.trim().to_owned());
    let Some(raw) = input else {
        return Err(ReactParseError::MissingInput { tool });
    };
    let input = parse_input(&tool, &raw)?;
    Ok(ReactStep::Act {
        thought,
        tool,
        input,
    })
}

/// The tool name from an `Action:` value: first line, without backticks, quotes, or a call's
/// parentheses.
fn tool_name(value: &str) -> String {
    let first = value.lines().next().unwrap_or("").trim();
    let first = first.trim_matches(['`', '"', '\'', '*', ' ', '.']);
    let name = first.split(['(', ' ', '\t']).next().unwrap_or("");
    name.trim_matches(['`', '"', '\'']).to_owned()
}

fn parse_input(tool: &str, raw: &str) -> Result<Value, ReactParseError> {
    let stripped = raw.trim().trim_matches('`').trim();
    if stripped.is_empty() || stripped == "{}" || stripped.eq_ignore_ascii_case("none") {
        return Ok(Value::Object(serde_json::Map::new()));
    }
    let bad = |reason: String| ReactParseError::BadInput {
        tool: tool.to_owned(),
        raw: truncate_chars(raw, 500),
        reason,
    };
    match extract_json(raw) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(other) => Err(bad(format!(
            "found {} instead of an object",
            json_kind(&other)
        ))),
        Err(reason) => Err(bad(reason)),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn act(tool: &str, input: Value) -> ReactStep {
        ReactStep::Act {
            thought: None,
            tool: tool.into(),
            input,
        }
    }

    fn strip_thought(step: ReactStep) -> ReactStep {
        match step {
            ReactStep::Act { tool, input, .. } => act(&tool, input),
            ReactStep::Finish { answer, .. } => ReactStep::Finish {
                thought: None,
                answer,
            },
        }
    }

    #[test]
    fn canonical_action() {
        let step = parse_react(
            "Thought: look it up\nAction: search_movie\nAction Input: {\"query\": \"Dune\"}",
        )
        .unwrap();
        assert_eq!(
            step,
            ReactStep::Act {
                thought: Some("look it up".into()),
                tool: "search_movie".into(),
                input: json!({"query": "Dune"})
            }
        );
    }

    #[test]
    fn tolerated_variants() {
        let cases = [
            "**Thought:** hmm\n**Action:** `search_movie`\n**Action Input:** ```json\n{\"query\": \"Dune\"}\n```",
            "thought: hmm\naction: search_movie()\naction input: {'query': 'Dune',}",
            "I need to search.\nAction: \"search_movie\"\nAction Input:\n{\n  \"query\": \"Dune\"\n}\nObservation: {\"made\": \"up\"}\nFinal Answer: wrong",
            "Action 1: search_movie\nAction Input 1: {\"query\": \"Dune\"}",
        ];
        for case in cases {
            let step = parse_react(case).unwrap_or_else(|e| panic!("{case:?}: {e}"));
            assert_eq!(
                strip_thought(step),
                act("search_movie", json!({"query": "Dune"})),
                "{case:?}"
            );
        }
    }

    #[test]
    fn final_answer_and_first_decision_wins() {
        let step = parse_react("Thought: done\nFinal Answer: Denis Villeneuve").unwrap();
        assert_eq!(
            step,
            ReactStep::Finish {
                thought: Some("done".into()),
                answer: "Denis Villeneuve".into()
            }
        );
        let both = parse_react("Final Answer: 42\nAction: x\nAction Input: {}").unwrap();
        assert!(matches!(both, ReactStep::Finish { answer, .. } if answer == "42"));
        let empty_input = parse_react("Action: list_all\nAction Input:").unwrap();
        assert_eq!(empty_input, act("list_all", json!({})));
    }

    #[test]
    fn malformed_replies_are_typed_errors() {
        assert_eq!(parse_react("  "), Err(ReactParseError::Empty));
        assert!(matches!(
            parse_react("I will now think deeply."),
            Err(ReactParseError::NoAction { .. })
        ));
        assert_eq!(
            parse_react("Action: search_movie"),
            Err(ReactParseError::MissingInput {
                tool: "search_movie".into()
            })
        );
        assert_eq!(
            parse_react("Action:\nAction Input: {}"),
            Err(ReactParseError::EmptyToolName)
        );
        let bad = parse_react("Action: search_movie\nAction Input: {\"query\": ").unwrap_err();
        assert!(
            matches!(bad, ReactParseError::BadInput { ref tool, .. } if tool == "search_movie")
        );
        let not_object = parse_react("Action: search_movie\nAction Input: [1, 2]").unwrap_err();
        assert!(not_object.to_string().contains("an array"), "{not_object}");
        let plain = parse_react("Action: search_movie\nAction Input: Dune").unwrap_err();
        assert!(matches!(plain, ReactParseError::BadInput { .. }));
    }
}
