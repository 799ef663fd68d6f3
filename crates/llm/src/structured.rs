//! Structured output: ask for a JSON value of a serde type, pull it out of whatever the model
//! wrote, and re-ask with the error when it does not fit.
//!
//! [`extract_json`] accepts a bare JSON value, a fenced ```json block, a value embedded in prose,
//! and Python-style literals (`True`/`False`/`None`, single-quoted strings, trailing commas).
//! [`ask_json`] is the one helper every method uses.

use std::any::type_name;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_plumbing::text::truncate_chars;

use crate::chat::{ChatModel, ChatRequest, Message, ResponseFormat};
use crate::error::{Error, Result};

/// Characters of a bad reply quoted back to the model in a repair request.
const QUOTED_REPLY_CHARS: usize = 2_000;

/// How [`ask_json`] asks and repairs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StructuredSettings {
    /// Re-asks after the first reply fails to parse. By default, 2.
    pub max_repairs: u32,
    /// Send `response_format: json_object` (only for servers that support it). By default, false.
    pub json_mode: bool,
}

impl Default for StructuredSettings {
    fn default() -> Self {
        Self {
            max_repairs: 2,
            json_mode: false,
        }
    }
}

/// A parsed value with the reply it came from.
#[derive(Clone, Debug)]
pub struct Structured<T> {
    /// The value.
    pub value: T,
    /// The raw reply it was extracted from.
    pub reply: String,
    /// Replies it took (1 = no repair).
    pub attempts: u32,
}

/// Asks `model` for a `T`, repairing up to `settings.max_repairs` times: each failed reply is
/// appended as an assistant message, followed by a user message with the parse error. Fails
/// with [`Error::Structured`] carrying the last raw reply.
pub async fn ask_json<T, M>(
    model: &M,
    mut req: ChatRequest,
    settings: &StructuredSettings,
) -> Result<Structured<T>>
where
    T: DeserializeOwned,
    M: ChatModel + ?Sized,
{
    if settings.json_mode && req.response_format.is_none() {
        req.response_format = Some(ResponseFormat::JsonObject);
    }
    let max_attempts = settings.max_repairs.saturating_add(1);
    let mut attempt = 0u32;
    loop {
        attempt = attempt.saturating_add(1);
        let response = model.chat(&req).await?;
        let reply = response.text().to_owned();
        let reason = match parse_as::<T>(&reply) {
            Ok(value) => {
                return Ok(Structured {
                    value,
                    reply,
                    attempts: attempt,
                });
            }
            Err(reason) => reason,
        };
        if attempt >= max_attempts {
            return Err(Error::Structured {
                type_name: type_name::<T>(),
                attempts: attempt,
                reason,
                last_reply: reply,
            });
        }
        req.messages.push(Message::assistant(truncate_chars(
            &reply,
            QUOTED_REPLY_CHARS,
        )));
        req.messages.push(Message::user(format!(
            "Your reply could not be used: {reason}. Reply again with only the JSON value, \
             following the requested format exactly."
        )));
    }
}

/// Extracts a JSON value from `text` and deserializes it into `T`; the error says why not.
pub(crate) fn parse_as<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let value = extract_json(text)?;
    serde_json::from_value(value)
        .map_err(|e| format!("the JSON does not have the expected shape: {e}"))
}

/// Finds the JSON value in a model's reply. Tries, in order: the whole text, each fenced code
/// block, and each balanced `{…}`/`[…]` span; each as JSON first, then after Python-literal
/// repair. Objects and arrays are preferred over bare scalars found in prose.
pub fn extract_json(text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("the reply is empty".into());
    }
    if let Some(v) = parse_lenient(trimmed) {
        return Ok(v);
    }
    for block in fenced_blocks(trimmed) {
        if let Some(v) = parse_lenient(block.trim()) {
            return Ok(v);
        }
    }
    for span in bracket_spans(trimmed) {
        if let Some(v) = parse_lenient(span) {
            return Ok(v);
        }
    }
    Err(format!(
        "no JSON value found in the reply (it starts {:?})",
        truncate_chars(trimmed, 60)
    ))
}

fn parse_lenient(candidate: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(candidate) {
        return Some(v);
    }
    let repaired = repair_python(candidate);
    serde_json::from_str::<Value>(&repaired).ok()
}

/// The contents of ``` fenced blocks (any info string), in order.
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        // Skip the info string (`json`, `python`, ...) up to the end of the line.
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let body = &after[body_start..];
        match body.find("```") {
            Some(end) => {
                blocks.push(&body[..end]);
                rest = &body[end + 3..];
            }
            None => {
                // An unclosed fence (a cut-off reply): take the rest.
                blocks.push(body);
                break;
            }
        }
    }
    blocks
}

/// Balanced `{…}` and `[…]` spans, outermost first, skipping brackets inside strings (either
/// quote style).
fn bracket_spans(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if matches!(bytes[i], b'{' | b'[')
            && let Some(end) = matching_close(bytes, i)
        {
            spans.push(&text[i..=end]);
            i = end + 1;
            continue;
        }
        i += 1;
    }
    spans
}

fn matching_close(bytes: &[u8], open_at: usize) -> Option<usize> {
    let mut stack: Vec<u8> = Vec::new();
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(open_at) {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == q {
                quote = None;
            }
            continue;
        }
        match b {
            b'"' | b'\'' => quote = Some(b),
            b'{' => stack.push(b'}'),
            b'[' => stack.push(b']'),
            b'}' | b']' => {
                if stack.pop() != Some(b) {
                    return None;
                }
                if stack.is_empty() {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Rewrites Python literal syntax into JSON: single-quoted strings become double-quoted,
/// `True`/`False`/`None` outside strings become `true`/`false`/`null`, and trailing commas
/// before `}` or `]` are dropped.
pub(crate) fn repair_python(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' | '\'' => {
                let quote = c;
                out.push('"');
                i += 1;
                while i < chars.len() {
                    let ch = chars[i];
                    if ch == '\\' && i + 1 < chars.len() {
                        let next = chars[i + 1];
                        if next == '\'' {
                            out.push('\''); // \' is not a JSON escape
                        } else {
                            out.push('\\');
                            out.push(next);
                        }
                        i += 2;
                        continue;
                    }
                    if ch == quote {
                        break;
                    }
                    if ch == '"' {
                        out.push_str("\\\"");
                    } else if ch == '\n' {
                        out.push_str("\\n");
                    } else {
                        out.push(ch);
                    }
                    i += 1;
                }
                out.push('"');
                i += 1;
            }
            ',' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j].is_whitespace() {
                    j += 1;
                }
                if j < chars.len() && matches!(chars[j], '}' | ']') {
                    i += 1; // trailing comma
                } else {
                    out.push(',');
                    i += 1;
                }
            }
            c if c.is_ascii_alphabetic() => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                out.push_str(match word.as_str() {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    other => other,
                });
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bare_json_and_fenced_blocks() {
        assert_eq!(extract_json(r#"{"a": 1}"#).unwrap(), json!({"a": 1}));
        let fenced = "Sure! Here it is:\n```json\n{\"a\": [1, 2]}\n```\nAnything else?";
        assert_eq!(extract_json(fenced).unwrap(), json!({"a": [1, 2]}));
        let unclosed = "```json\n{\"a\": 2}\n";
        assert_eq!(extract_json(unclosed).unwrap(), json!({"a": 2}));
    }

    #[test]
    fn json_inside_prose() {
        let text = "I think the answer is {\"name\": \"x}y\", \"n\": 3} because reasons.";
        assert_eq!(extract_json(text).unwrap(), json!({"name": "x}y", "n": 3}));
        assert_eq!(
            extract_json("The list: [1, 2, 3].").unwrap(),
            json!([1, 2, 3])
        );
    }

    #[test]
    fn python_literals() {
        let text =
            "{'ok': True, 'missing': None, 'no': False, 'name': 'it\\'s \"q\"', 'xs': [1, 2,],}";
        assert_eq!(
            extract_json(text).unwrap(),
            json!({"ok": true, "missing": null, "no": false, "name": "it's \"q\"", "xs": [1, 2]})
        );
        // A word that merely contains True stays as it is.
        assert_eq!(
            extract_json("{\"v\": \"Trueish\"}").unwrap(),
            json!({"v": "Trueish"})
        );
    }

    #[test]
    fn nothing_found_says_so() {
        let err = extract_json("I cannot help with that.").unwrap_err();
        assert!(err.contains("no JSON"), "{err}");
        assert!(extract_json("   ").unwrap_err().contains("empty"));
    }

    #[test]
    fn shape_errors_name_the_field() {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Want {
            score: u8,
        }
        let err = parse_as::<Want>("{\"grade\": 3}").unwrap_err();
        assert!(err.contains("score"), "{err}");
    }
}
