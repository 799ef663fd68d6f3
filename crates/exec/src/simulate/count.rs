//! Which argument asks for a number of list items (`limit=20`, `cnt=40`), and
//! whether it is a quota or only a cap.
//!
//! An argument counts items when its name is a count's (`limit`, `count`, `cnt`,
//! `per_page`, `page_size`, `num_results`, `n`, `max_results`, `top`, ...), its
//! description speaks of no unit (pixels, bytes, characters, seconds: `size=300`
//! of a QR code is its width), and the response holds a list to size. Names of
//! a measure (`size`, `width`, `length`, `zoom`, ...) never count items.
//!
//! A count is a cap when its name or description says so (`limit`, `max_results`,
//! "the maximum number of results"): the list then holds at most that many, and
//! fewer where the API's examples show fewer ([`Asked::shown`]).
//!
//! A response holding several lists has the one the count's description names sized
//! (Spotify's recommendations: `limit` counts the `tracks`, not the `seeds` beside them),
//! else the one of the API's own kind, else the first ([`sized_list`]).

use serde_json::Value;

use super::rng::Rng;
use crate::executor::BookEntry;

/// Names (lowercase, without `_`, `-` or a leading `$`) of arguments that count
/// list items, in the order they are looked for.
const COUNT_NAMES: &[&str] = &[
    "limit",
    "pagesize",
    "perpage",
    "cnt",
    "count",
    "maxresults",
    "numresults",
    "top",
    "num",
    "rows",
    "n",
];

/// Of [`COUNT_NAMES`], those that bound a list rather than fix its length.
const CAP_NAMES: &[&str] = &["limit", "maxresults", "top"];

/// Words of a description that make a count a cap.
const CAP_WORDS: &[&str] = &["maximum", "at most", "up to", "upper bound", "no more than"];

/// Words of a description that give a parameter a unit: it measures something, it
/// does not count list items.
const UNIT_WORDS: &[&str] = &[
    "pixel",
    "pixels",
    "px",
    "byte",
    "bytes",
    "kilobytes",
    "megabytes",
    "kb",
    "mb",
    "character",
    "characters",
    "chars",
    "seconds",
    "secs",
    "milliseconds",
    "ms",
    "minutes",
    "dpi",
];

/// How deep in a response schema or example a list is looked for.
const LIST_DEPTH: usize = 3;

/// A number of items a call asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Asked {
    /// The number asked (already capped at the simulator's most).
    pub(crate) n: usize,
    /// Whether it only bounds the list (`limit`), else the list holds exactly `n`.
    pub(crate) cap: bool,
}

impl Asked {
    /// The number of items a list answering the call holds: `n`, except that a cap
    /// over a list whose examples show `example` < `n` items draws, from `seed`, a
    /// length about the example's (up to `usual` items, the simulator's most of a
    /// list nobody sized).
    pub(crate) fn shown(self, example: Option<usize>, usual: usize, seed: u64) -> usize {
        match example {
            Some(k) if self.cap && k < self.n => {
                let lo = k.max(1);
                let hi = self.n.min(k.max(usual)).max(lo);
                lo + Rng::new(seed).index(hi - lo + 1)
            }
            _ => self.n,
        }
    }
}

/// The number of list items the call's arguments ask for, up to `most`: `None` when
/// no argument counts items of a list the response holds.
pub(crate) fn asked(
    entry: &BookEntry,
    args: &serde_json::Map<String, Value>,
    most: usize,
) -> Option<Asked> {
    if !holds_list(entry) {
        return None;
    }
    let (count, n, description) = counting(entry, args)?;
    let cap = CAP_NAMES.contains(&count) || CAP_WORDS.iter().any(|w| description.contains(w));
    Some(Asked {
        n: n.min(most.max(1)),
        cap,
    })
}

/// The description (lowercase) of the argument that counts list items, if the call
/// gives one: what names the list it sizes ([`sized_list`]).
pub(crate) fn counting_description(
    entry: &BookEntry,
    args: &serde_json::Map<String, Value>,
) -> Option<String> {
    counting(entry, args).map(|(_, _, description)| description)
}

/// The argument that counts list items, the first of [`COUNT_NAMES`] the call gives as a
/// whole number of at least 1 and whose description speaks of no unit: the name as
/// [`COUNT_NAMES`] spells it, the number, and the parameter's description (lowercase).
fn counting(
    entry: &BookEntry,
    args: &serde_json::Map<String, Value>,
) -> Option<(&'static str, usize, String)> {
    COUNT_NAMES.iter().find_map(|count| {
        let (name, value) = args.iter().find(|(k, _)| normal(k) == *count)?;
        let description = entry
            .api
            .api
            .params
            .iter()
            .find(|p| &p.name == name)
            .map(|p| p.description.to_ascii_lowercase())
            .unwrap_or_default();
        if has_unit(&description) {
            return None;
        }
        let n = whole_number(value)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n >= 1)?;
        Some((*count, n, description))
    })
}

/// Of the lists an object holds (`keys`, in the schema's order), the one a count sizes:
/// the one the count's `description` names first (`limit`, "the target size of the list of
/// recommended tracks", sizes the `tracks` of recommendations, not their `seeds`), else
/// the one of the API's own kind (`entity`), else the first.
pub(crate) fn sized_list<'k>(description: &str, entity: &str, keys: &[&'k str]) -> Option<&'k str> {
    let named = description
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|word| !word.is_empty())
        .find_map(|word| keys.iter().find(|k| singular(k) == singular(word)));
    let own = || keys.iter().find(|k| singular(k) == singular(entity));
    named.or_else(own).or(keys.first()).copied()
}

/// A word lowercase, without a plural `s` (`tracks` and `Track` are one).
fn singular(word: &str) -> String {
    let lower = word.to_ascii_lowercase();
    match lower.strip_suffix('s') {
        Some(stem) if !stem.is_empty() => stem.to_owned(),
        _ => lower,
    }
}

/// The name of the API's parameter that counts list items (`limit`), if it has one.
pub(crate) fn size_param(entry: &BookEntry) -> Option<String> {
    let params = &entry.api.api.params;
    COUNT_NAMES.iter().find_map(|count| {
        params
            .iter()
            .find(|p| normal(&p.name) == *count && !has_unit(&p.description.to_ascii_lowercase()))
            .map(|p| p.name.clone())
    })
}

/// Most items a list of the API's recorded examples holds, where they hold one.
pub(crate) fn example_len(entry: &BookEntry) -> Option<usize> {
    entry
        .api
        .api
        .response_examples
        .iter()
        .filter_map(|e| longest_list(e, 0))
        .max()
}

/// A name as [`COUNT_NAMES`] spells it.
fn normal(name: &str) -> String {
    name.trim_start_matches('$')
        .chars()
        .filter(|c| *c != '_' && *c != '-')
        .collect::<String>()
        .to_ascii_lowercase()
}

/// Whether a description gives a unit of measure.
fn has_unit(description: &str) -> bool {
    description
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| UNIT_WORDS.contains(&word))
}

/// Whether the response holds a list to size: its schema has one near its top, or,
/// without a schema, its examples do; an API documenting neither may (the oracle
/// answering it is told the count).
fn holds_list(entry: &BookEntry) -> bool {
    let api = &entry.api.api;
    match &api.response_schema {
        Some(schema) => schema_list(schema, schema, 0),
        None if api.response_examples.is_empty() => true,
        None => example_len(entry).is_some(),
    }
}

/// Whether `schema` (resolved against `root`) is or holds, within [`LIST_DEPTH`]
/// levels of objects, a list.
fn schema_list(root: &Value, schema: &Value, depth: usize) -> bool {
    if depth > LIST_DEPTH {
        return false;
    }
    let schema = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
        .unwrap_or(schema);
    if schema.get("type").and_then(Value::as_str) == Some("array") || schema.get("items").is_some()
    {
        return true;
    }
    let inside = |key: &str| match schema.get(key) {
        Some(Value::Object(props)) => props.values().any(|s| schema_list(root, s, depth + 1)),
        Some(Value::Array(parts)) => parts.iter().any(|s| schema_list(root, s, depth + 1)),
        _ => false,
    };
    ["properties", "allOf", "oneOf", "anyOf"]
        .iter()
        .any(|k| inside(k))
}

/// The length of the longest list of objects in `value`, within [`LIST_DEPTH`] levels.
fn longest_list(value: &Value, depth: usize) -> Option<usize> {
    if depth > LIST_DEPTH {
        return None;
    }
    match value {
        Value::Array(items) if items.iter().any(Value::is_object) => Some(items.len()),
        Value::Object(map) => map
            .values()
            .filter_map(|v| longest_list(v, depth + 1))
            .max(),
        _ => None,
    }
}

/// A whole number given as a number or as text.
pub(crate) fn whole_number(value: &Value) -> Option<u64> {
    value
        .as_u64()
        .or_else(|| value.as_str()?.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_sizes_the_list_it_names_else_the_apis_own_else_the_first() {
        let keys = ["seeds", "tracks"];
        let limit = "the target size of the list of recommended tracks. for seeds with \
                     small pools it may fall short.";
        assert_eq!(sized_list(limit, "recommendations", &keys), Some("tracks"));
        assert_eq!(sized_list("", "track", &keys), Some("tracks"));
        assert_eq!(
            sized_list("how many to return", "recommendations", &keys),
            Some("seeds")
        );
        assert_eq!(sized_list(limit, "x", &[]), None);
    }

    #[test]
    fn a_measure_is_no_count_and_a_limit_is_a_cap() {
        assert!(has_unit("the width of the image in pixels"));
        assert!(has_unit("timeout (seconds)"));
        assert!(has_unit("max length in characters"));
        assert!(!has_unit("number of results to return"));
        assert!(!has_unit("the second page of results, charted"));
        assert_eq!(normal("$top"), "top");
        assert_eq!(normal("page_size"), "pagesize");
        assert_eq!(normal("maxResults"), "maxresults");
        for measure in [
            "size", "width", "height", "length", "zoom", "dpi", "quality",
        ] {
            assert!(
                !COUNT_NAMES.contains(&normal(measure).as_str()),
                "{measure}"
            );
        }
        let cap = Asked { n: 100, cap: true };
        let shown = cap.shown(Some(3), 5, 9);
        assert!((3..=5).contains(&shown), "{shown}");
        assert_eq!(
            cap.shown(Some(3), 5, 9),
            shown,
            "the same seed, the same length"
        );
        assert_eq!(cap.shown(None, 5, 9), 100);
        assert_eq!(cap.shown(Some(200), 5, 9), 100);
        assert_eq!(Asked { n: 100, cap: false }.shown(Some(3), 5, 9), 100);
    }
}
