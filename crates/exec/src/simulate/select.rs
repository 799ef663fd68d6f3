//! The parts of a response a call chooses by naming them: Spotify-like
//! `GET /search?type=track` answers `{"tracks": ...}`, not every result list
//! the schema allows. An argument whose values (an enum's, or a
//! comma-separated list) name top-level properties of the response object
//! (`track` names `tracks`) keeps those and drops the others it could have
//! named (its enum's other values, or for a free list the other lists and
//! objects); when its values name none, the response is left whole.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::request::EXPANSION_PARAMS;
use crate::executor::BookEntry;

/// Drops from the root object of `body` the properties an argument could choose
/// but did not. `schema` is the response schema, for what it requires (never dropped).
pub(crate) fn keep_chosen(
    entry: &BookEntry,
    args: &Map<String, Value>,
    schema: &Value,
    body: &mut Value,
) {
    let Value::Object(map) = body else {
        return;
    };
    let required = required_of(schema);
    for (name, value) in args {
        if EXPANSION_PARAMS.contains(&name.as_str()) {
            continue;
        }
        let allowed = entry
            .api
            .api
            .params
            .iter()
            .find(|p| p.name == *name)
            .map(|p| enum_values(&p.schema))
            .unwrap_or_default();
        let Some(choice) = Choice::of(value, &allowed) else {
            continue;
        };
        let chosen: HashSet<String> = map
            .keys()
            .filter(|key| choice.values.iter().any(|v| names(v, key)))
            .cloned()
            .collect();
        // A free list chooses only when each of its values names a part.
        let all_named = choice
            .values
            .iter()
            .all(|v| map.keys().any(|key| names(v, key)));
        if chosen.is_empty() || (!choice.enumerated && !all_named) {
            continue;
        }
        // What the argument could have chosen: the parts its enum names, or (a free
        // list) every list or object beside the chosen ones.
        let choosable = |key: &String, value: &Value| {
            if choice.enumerated {
                allowed.iter().any(|v| names(v, key))
            } else {
                value.is_object() || value.is_array()
            }
        };
        map.retain(|key, value| {
            chosen.contains(key) || required.contains(key.as_str()) || !choosable(key, value)
        });
    }
}

/// The values of one argument that may choose parts.
struct Choice {
    /// Lower-cased, trimmed, non-empty.
    values: Vec<String>,
    /// Whether the parameter enumerates its values (else a free comma-separated list).
    enumerated: bool,
}

impl Choice {
    /// The values of `value` when the parameter enumerates them (`allowed`), or when it
    /// is a list (a JSON array, or text with commas); `None` for a single free value
    /// (a search term), which names no part.
    fn of(value: &Value, allowed: &[String]) -> Option<Self> {
        let (values, listed): (Vec<String>, bool) = match value {
            Value::String(text) => (
                text.split(',')
                    .map(normal)
                    .filter(|v| !v.is_empty())
                    .collect(),
                text.contains(','),
            ),
            Value::Array(items) => (
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(normal)
                    .filter(|v| !v.is_empty())
                    .collect(),
                true,
            ),
            _ => return None,
        };
        let enumerated = !allowed.is_empty() && values.iter().all(|v| allowed.contains(v));
        (!values.is_empty() && (enumerated || listed)).then_some(Self { values, enumerated })
    }
}

/// The enum of a parameter's schema, or of its items, lower-cased.
fn enum_values(schema: &Value) -> Vec<String> {
    schema
        .get("enum")
        .or_else(|| schema.pointer("/items/enum"))
        .and_then(Value::as_array)
        .map(|values| {
            values
                .iter()
                .filter_map(Value::as_str)
                .map(normal)
                .collect()
        })
        .unwrap_or_default()
}

/// The properties the response schema's root requires (through a root `$ref`).
fn required_of(schema: &Value) -> HashSet<&str> {
    let root = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| schema.pointer(pointer))
        .unwrap_or(schema);
    root.get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn normal(text: &str) -> String {
    text.trim().to_ascii_lowercase()
}

/// Whether the value `v` names the property `key`, as is or in its plural
/// (`track` -> `tracks`, `match` -> `matches`, `category` -> `categories`).
fn names(v: &str, key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key == v
        || key.strip_suffix('s') == Some(v)
        || key.strip_suffix("es") == Some(v)
        || v.strip_suffix('y')
            .is_some_and(|stem| key.strip_suffix("ies") == Some(stem))
        || v.strip_suffix('s') == Some(key.as_str())
}
