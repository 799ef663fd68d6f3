//! Canonical JSON (object keys sorted at every level, no whitespace) and sha256 in hex: the
//! stable text and digests that cache keys and content hashes are made of.
//!
//! The canonical text is byte-identical to what the response cache (exec) and the LLM cache
//! (llm) wrote before they shared this function, so keys stored in existing databases still hit.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The canonical text of a JSON value: object keys sorted (by bytes) at every level, no
/// insignificant whitespace, strings and numbers written as `serde_json` writes them. Two
/// values that differ only in key order have the same canonical text.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(key, out);
                out.push(':');
                write_canonical(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::String(s) => write_string(s, out),
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// A JSON string literal, escaped as `serde_json` escapes it.
fn write_string(s: &str, out: &mut String) {
    // Serializing a `&str` cannot fail; the fallback is never taken.
    match serde_json::to_string(s) {
        Ok(quoted) => out.push_str(&quoted),
        Err(_) => out.push_str("\"\""),
    }
}

/// Lowercase hex of the sha256 of `bytes` (64 characters).
pub fn sha256_hex(bytes: impl AsRef<[u8]>) -> String {
    use std::fmt::Write as _;
    let digest = Sha256::digest(bytes.as_ref());
    let mut out = String::with_capacity(64);
    for b in digest {
        // Writing to a String cannot fail.
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// How an error message names a JSON value's type ("a string", "an object", "null").
pub fn type_name(value: &Value) -> &'static str {
    match value {
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
    use serde_json::json;

    use super::*;

    #[test]
    fn key_order_does_not_matter() {
        let a = json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "s"}});
        let b = json!({"a": {"x": "s", "y": [1, {"c": 3, "d": 2}]}, "b": 1});
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#
        );
    }

    /// The LLM cache used to sort keys into a new `Value` and print it with `serde_json`: the
    /// two must agree byte for byte, escapes and numbers included.
    #[test]
    fn matches_sorting_then_printing_with_serde_json() {
        fn sorted(value: &Value) -> Value {
            match value {
                Value::Object(map) => {
                    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                    entries.sort_by(|a, b| a.0.cmp(b.0));
                    Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| (k.clone(), sorted(v)))
                            .collect(),
                    )
                }
                Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
                other => other.clone(),
            }
        }
        let value = json!({
            "z\"q": "tab\there \u{1F600} é \\ \u{0001}",
            "Z": [1.5, -0.0, 1e300, 12345678901234567890u64, null, true],
            "a": {"é": {}, "b": [], "a/b": "x"},
            "": -7
        });
        let expected = serde_json::to_string(&sorted(&value)).unwrap();
        assert_eq!(canonical_json(&value), expected);
    }

    #[test]
    fn sha256_is_lowercase_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(sha256_hex("").len(), 64);
    }
}
