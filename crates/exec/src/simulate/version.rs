//! A write's response names a new version of what it changed: Spotify's
//! add-tracks answers a new `snapshot_id`, an HTTP API a new `etag`. A model
//! filling the response copies the token a response showed before the write;
//! here such a stale token gets a fresh value, and a token the session has not
//! shown (a model's own new one) is kept.
//!
//! The heuristic, by field name (lowercase): a version token is named `etag`,
//! `snapshot`, `version`, `revision` or `rev`, or ends in `snapshot_id`, `_etag`,
//! `version_id` or `revision_id` (not `api_version` nor `snapshot_date`, which
//! name no version of the thing changed). A text token is redrawn in its own
//! shape (a digit for a digit, a letter of the same case for a letter, the rest
//! kept); an integer one counts up by one.

use std::collections::HashSet;

use serde_json::Value;

use super::rng::Rng;

/// How deep in a response version fields are looked for.
const MAX_DEPTH: usize = 3;
/// Characters of a fresh token where the old one has no letter or digit to redraw.
const FRESH_LEN: usize = 24;

/// Whether a field names a version of what the response shows.
pub(crate) fn is_version_field(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "etag" | "snapshot" | "version" | "revision" | "rev"
    ) || ["snapshot_id", "_etag", "version_id", "revision_id"]
        .iter()
        .any(|end| lower.ends_with(end))
}

/// Gives every version field of `body` (down to [`MAX_DEPTH`]) whose value is one of
/// `stale` a fresh value drawn from `seed`, never the one it had.
pub(crate) fn refresh(body: &mut Value, seed: u64, stale: &HashSet<String>) {
    walk(body, seed, 0, stale);
}

/// The values of `body`'s version fields (down to [`MAX_DEPTH`], as [`refresh`] reads
/// them), as text.
pub(crate) fn tokens(body: &Value, out: &mut HashSet<String>) {
    collect(body, out, 0);
}

fn collect(value: &Value, out: &mut HashSet<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, field) in map {
                if is_version_field(key) {
                    out.extend(token_text(field));
                } else {
                    collect(field, out, depth + 1);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, out, depth + 1)),
        _ => {}
    }
}

/// A token's text: a string as it is, a number written out.
fn token_text(token: &Value) -> Option<String> {
    match token {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn walk(value: &mut Value, seed: u64, depth: usize, stale: &HashSet<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                let own = super::rng::child_seed(seed, key);
                if is_version_field(key) {
                    if token_text(field).is_some_and(|t| stale.contains(&t)) {
                        renew(field, own);
                    }
                } else {
                    walk(field, own, depth + 1, stale);
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| walk(v, seed, depth + 1, stale)),
        _ => {}
    }
}

/// A fresh value for one version token (other kinds of value stay).
fn renew(token: &mut Value, seed: u64) {
    let mut rng = Rng::new(seed);
    match token {
        Value::String(old) => {
            let fresh = (0..8)
                .map(|_| redrawn(old, &mut rng))
                .find(|t| t != old)
                .unwrap_or_else(|| format!("{old}{}", redrawn(&"a".repeat(FRESH_LEN), &mut rng)));
            *old = fresh;
        }
        Value::Number(n) => {
            if let Some(next) = n.as_i64().and_then(|i| i.checked_add(1)) {
                *token = Value::from(next);
            }
        }
        _ => {}
    }
}

/// `old` with each digit and letter redrawn in its kind and case.
fn redrawn(old: &str, rng: &mut Rng) -> String {
    let pick = |rng: &mut Rng, from: u8, span: u64| {
        char::from(from + u8::try_from(rng.below(span)).unwrap_or(0))
    };
    old.chars()
        .map(|c| match c {
            '0'..='9' => pick(rng, b'0', 10),
            'a'..='z' => pick(rng, b'a', 26),
            'A'..='Z' => pick(rng, b'A', 26),
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn version_fields_get_fresh_values_of_their_shape() {
        let old = json!({"snapshot_id": "MTAsZDVmZDQ2", "version": 7, "etag": "\"\"",
            "name": "Road trip", "meta": {"revision": "r12"}, "api_version": "2024-01-01"});
        let mut body = old.clone();
        let mut stale = HashSet::new();
        tokens(&old, &mut stale);
        refresh(&mut body, 42, &stale);
        assert_eq!(body["name"], "Road trip");
        assert_eq!(body["api_version"], "2024-01-01");
        assert_eq!(body["version"], 8);
        let (a, b) = (body["snapshot_id"].as_str(), old["snapshot_id"].as_str());
        assert_ne!(a, b);
        assert_eq!(a.map(str::len), b.map(str::len));
        assert_ne!(body["etag"], old["etag"]);
        assert_ne!(body["meta"]["revision"], old["meta"]["revision"]);
        assert_eq!(body["meta"]["revision"].as_str().map(str::len), Some(3));
        assert!(is_version_field("snapshot_id") && is_version_field("version_id"));
        assert!(!is_version_field("api_version") && !is_version_field("snapshot_date"));
        // A token no response showed before is the model's own new one: it stays.
        let mut fresh = old.clone();
        refresh(&mut fresh, 42, &HashSet::from(["7".to_owned()]));
        assert_eq!(fresh["snapshot_id"], old["snapshot_id"]);
        assert_eq!(fresh["version"], 8);
    }
}
