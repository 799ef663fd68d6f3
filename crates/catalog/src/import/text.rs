//! Reading JSON and YAML documents with errors that point at line and column.

use std::path::Path;

use serde_json::Value;
use toolsmith_plumbing::json::sha256_hex;

use crate::error::{Error, Result};

/// A parsed document and the hash of its bytes.
pub(crate) struct Document {
    pub(crate) value: Value,
    pub(crate) sha256: String,
}

/// Reads and parses a JSON or YAML file (YAML when the extension says so, or
/// when the text does not start like JSON).
pub(crate) fn read_document(path: &Path) -> Result<Document> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_bytes(path, &bytes)
}

/// Parses bytes read from `path` (which may be an archive member's path).
pub(crate) fn parse_bytes(path: &Path, bytes: &[u8]) -> Result<Document> {
    let sha256 = sha256_hex(bytes);
    let yaml_ext = matches!(
        path.extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("yaml" | "yml")
    );
    let first = bytes
        .iter()
        .copied()
        .find(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF);
    let looks_json = matches!(first, Some(b'{' | b'['));
    let value = if yaml_ext || !looks_json {
        parse_yaml(path, bytes)?
    } else {
        parse_json(path, bytes)?
    };
    Ok(Document { value, sha256 })
}

pub(crate) fn parse_json(path: &Path, bytes: &[u8]) -> Result<Value> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice(bytes).map_err(|e| Error::Syntax {
        path: path.to_owned(),
        syntax: "JSON",
        line: e.line(),
        column: e.column(),
        reason: strip_position(&e.to_string()),
    })
}

fn parse_yaml(path: &Path, bytes: &[u8]) -> Result<Value> {
    let syntax = |line, column, reason: String| Error::Syntax {
        path: path.to_owned(),
        syntax: "YAML",
        line,
        column,
        reason,
    };
    let text = std::str::from_utf8(bytes).map_err(|e| syntax(0, 0, format!("not UTF-8: {e}")))?;
    let super::yaml::YamlJson(value) = serde_norway::from_str(text).map_err(|e| {
        let (line, column) = e
            .location()
            .map(|l| (l.line(), l.column()))
            .unwrap_or((0, 0));
        syntax(line, column, strip_position(&e.to_string()))
    })?;
    Ok(value)
}

/// serde's messages end with " at line L column C", which our error already says.
fn strip_position(message: &str) -> String {
    match message.find(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

/// Escapes a key for use in a JSON pointer (RFC 6901).
pub(crate) fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The string at `key` of an object, or "".
pub(crate) fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_name_line_and_column() {
        let err = parse_bytes(Path::new("spec.json"), b"{\n  \"a\": 1,\n  oops\n}")
            .err()
            .unwrap();
        let text = err.to_string();
        assert!(text.starts_with("spec.json:3:3: malformed JSON"), "{text}");
    }

    #[test]
    fn yaml_errors_name_line_and_column() {
        let err = parse_bytes(
            Path::new("spec.yaml"),
            b"openapi: 3.0.0\npaths:\n  - a\n b: [",
        )
        .err()
        .unwrap();
        assert!(
            matches!(
                err,
                Error::Syntax {
                    syntax: "YAML",
                    line: 4,
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn yaml_without_extension_is_detected() {
        let doc = parse_bytes(Path::new("spec"), b"openapi: 3.1.0\ninfo: {title: x}\n").unwrap();
        assert_eq!(doc.value["openapi"], "3.1.0");
    }
}
