//! A readable outline of a large JSON response, so that an LLM can write an
//! extraction filter without reading the whole response (ConAgents'
//! observing agent works from such an outline).
//!
//! Every field is shown with its name, type and nesting; a list is described
//! by its length and its first element; a scalar shows a short sample, with
//! long strings cut.

use std::fmt::Write as _;

use serde_json::Value;
use toolsmith_plumbing::text::char_prefix;

/// Limits of the outline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OutlineSettings {
    /// Strings longer than this many characters are cut, with `…` and their length.
    pub max_string_chars: usize,
    /// Nesting deeper than this is summarized as `…`.
    pub max_depth: usize,
    /// At most this many lines; the rest is summarized.
    pub max_lines: usize,
}

impl Default for OutlineSettings {
    /// Samples of up to 40 characters, 12 levels, 300 lines.
    fn default() -> Self {
        Self {
            max_string_chars: 40,
            max_depth: 12,
            max_lines: 300,
        }
    }
}

/// The outline of `value` with default settings, its top named `response`.
pub fn pseudo_schema(value: &Value) -> String {
    pseudo_schema_with(value, "response", &OutlineSettings::default())
}

/// The outline of `value`, its top named `name`.
pub(crate) fn pseudo_schema_with(value: &Value, name: &str, settings: &OutlineSettings) -> String {
    let mut lines = Vec::new();
    outline(value, name, 0, settings, &mut lines);
    if lines.len() > settings.max_lines {
        lines.truncate(settings.max_lines);
        lines.push(format!("… (outline cut at {} lines)", settings.max_lines));
    }
    lines.join("\n")
}

fn outline(
    value: &Value,
    name: &str,
    depth: usize,
    settings: &OutlineSettings,
    lines: &mut Vec<String>,
) {
    // Building past the line cap is wasted work; one extra line marks the cut.
    if lines.len() > settings.max_lines {
        return;
    }
    let indent = "  ".repeat(depth);
    let mut line = format!("{indent}{name}: ");
    match value {
        Value::Object(map) => {
            let _ = write!(line, "object ({} keys)", map.len());
            lines.push(line);
            if depth >= settings.max_depth {
                lines.push(format!("{indent}  …"));
                return;
            }
            for (key, child) in map {
                outline(child, key, depth + 1, settings, lines);
            }
        }
        Value::Array(items) => {
            match items.first() {
                None => line.push_str("array (empty)"),
                Some(_) => {
                    let _ = write!(line, "array ({} items), first item:", items.len());
                }
            }
            lines.push(line);
            if let Some(first) = items.first() {
                if depth >= settings.max_depth {
                    lines.push(format!("{indent}  …"));
                    return;
                }
                outline(first, &format!("{name}[0]"), depth + 1, settings, lines);
            }
        }
        Value::String(s) => {
            let count = s.chars().count();
            if count > settings.max_string_chars {
                let head = char_prefix(s, settings.max_string_chars);
                let _ = write!(line, "string = {:?}… ({count} chars)", head);
            } else {
                let _ = write!(line, "string = {s:?}");
            }
            lines.push(line);
        }
        Value::Number(n) => {
            let kind = if n.is_f64() { "number" } else { "integer" };
            let _ = write!(line, "{kind} = {n}");
            lines.push(line);
        }
        Value::Bool(b) => {
            let _ = write!(line, "boolean = {b}");
            lines.push(line);
        }
        Value::Null => {
            line.push_str("null");
            lines.push(line);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn outlines_nesting_lists_and_long_strings() {
        let value = json!({
            "page": 1,
            "results": [
                {"id": 597, "title": "Titanic", "overview": "x".repeat(100), "genre_ids": [18, 10749]},
                {"id": 2, "title": "Other"}
            ],
            "note": null
        });
        let text = pseudo_schema(&value);
        let want = [
            "response: object (3 keys)",
            "  page: integer = 1",
            "  results: array (2 items), first item:",
            "    results[0]: object (4 keys)",
            "      id: integer = 597",
            "      title: string = \"Titanic\"",
        ];
        for line in want {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        assert!(text.contains("(100 chars)"), "{text}");
        assert!(text.contains("genre_ids[0]: integer = 18"), "{text}");
        assert!(
            !text.contains("Other"),
            "only the first item is described:\n{text}"
        );
    }

    #[test]
    fn caps_lines() {
        let big: serde_json::Map<String, Value> =
            (0..1000).map(|i| (format!("k{i}"), json!(i))).collect();
        let text = pseudo_schema(&Value::Object(big));
        assert!(text.lines().count() <= 301);
        assert!(
            text.ends_with("cut at 300 lines)"),
            "{}",
            text.lines().last().unwrap_or_default()
        );
    }
}
