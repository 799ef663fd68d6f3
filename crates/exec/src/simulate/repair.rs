//! Brings an oracle's answer back within the response schema: each part
//! that breaks it is replaced by the same part of the draft (a missing
//! required field is added from the draft, an unknown one dropped), so the
//! model's values survive wherever they are valid.

use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value};

/// Rounds of repair before the draft is taken whole.
const MAX_ROUNDS: usize = 8;

/// What [`conform`] made of an answer.
#[derive(Debug)]
pub(crate) struct Conformed {
    /// A value valid against the schema.
    pub(crate) value: Value,
    /// Parts replaced from the draft (0 when the answer was valid).
    pub(crate) repairs: usize,
}

/// `answer` made valid against `schema`, from `draft` (itself valid). A
/// schema the validator cannot compile is taken as no constraint.
pub(crate) fn conform(schema: &Value, answer: Value, draft: &Value) -> Conformed {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return Conformed {
            value: answer,
            repairs: 0,
        };
    };
    let mut value = answer;
    let mut repairs = 0;
    for _ in 0..MAX_ROUNDS {
        let mut broken: Vec<(String, Fix)> = validator
            .iter_errors(&value)
            .map(|e| (e.instance_path().as_str().to_owned(), Fix::of(e.kind())))
            .collect();
        if broken.is_empty() {
            return Conformed { value, repairs };
        }
        // Deepest first, so that fixing a child never moves a parent's path.
        broken.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(b.0.cmp(&a.0)));
        broken.dedup();
        for (path, fix) in broken {
            repairs += 1;
            fix.apply(&mut value, &path, draft);
        }
    }
    let valid = validator.is_valid(&value);
    Conformed {
        value: if valid { value } else { draft.clone() },
        repairs: repairs + usize::from(!valid),
    }
}

/// How one schema error is mended.
#[derive(Debug, PartialEq)]
enum Fix {
    /// A required field is missing: add the draft's.
    AddMissing(String),
    /// Fields the schema does not allow: drop them.
    DropExtra(Vec<String>),
    /// Anything else: the draft's part replaces the answer's.
    Graft,
}

impl Fix {
    fn of(kind: &ValidationErrorKind) -> Self {
        match kind {
            ValidationErrorKind::Required { property } => property
                .as_str()
                .map_or(Self::Graft, |p| Self::AddMissing(p.to_owned())),
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                Self::DropExtra(unexpected.clone())
            }
            _ => Self::Graft,
        }
    }

    fn apply(self, value: &mut Value, path: &str, draft: &Value) {
        match self {
            Self::AddMissing(field) => {
                let pointer = format!("{path}/{}", escape(&field));
                match (value.pointer_mut(path), draft.pointer(&pointer)) {
                    (Some(Value::Object(map)), Some(from)) => {
                        map.insert(field, from.clone());
                    }
                    _ => graft(value, path, draft),
                }
            }
            Self::DropExtra(fields) => {
                if let Some(Value::Object(map)) = value.pointer_mut(path) {
                    for field in fields {
                        map.remove(&field);
                    }
                }
            }
            Self::Graft => graft(value, path, draft),
        }
    }
}

/// Replaces the part of `value` at `path` by the draft's, or removes it
/// when the draft has none there.
fn graft(value: &mut Value, path: &str, draft: &Value) {
    if path.is_empty() {
        *value = draft.clone();
        return;
    }
    match draft.pointer(path) {
        Some(from) => {
            if let Some(slot) = value.pointer_mut(path) {
                *slot = from.clone();
            }
        }
        None => {
            let Some((parent, last)) = path.rsplit_once('/') else {
                return;
            };
            let key = unescape(last);
            match value.pointer_mut(parent) {
                Some(Value::Object(map)) => {
                    map.remove(&key);
                }
                Some(Value::Array(items)) => {
                    if let Ok(i) = key.parse::<usize>()
                        && i < items.len()
                    {
                        items.remove(i);
                    }
                }
                _ => {}
            }
        }
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// The fields of `map` that a value keeps when `template` has them.
pub(crate) fn project(
    map: &Map<String, Value>,
    template: &Map<String, Value>,
) -> Map<String, Value> {
    map.iter()
        .filter(|(k, _)| template.contains_key(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn broken_parts_come_from_the_draft_and_valid_ones_stay() {
        let schema = json!({"type": "object", "required": ["id", "cast"],
            "additionalProperties": false,
            "properties": {"id": {"type": "integer"}, "title": {"type": "string"},
                "cast": {"type": "array", "items": {"type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}, "order": {"type": "integer"}}}}}});
        let draft = json!({"id": 7, "title": "river", "cast": [{"name": "x", "order": 0}]});
        let answer = json!({"id": "seven", "title": "Django Unchained", "extra": 1,
            "cast": [{"name": "Jamie Foxx", "order": "first"}, {"order": 2}]});
        let out = conform(&schema, answer, &draft);
        assert_eq!(out.value["id"], 7);
        assert_eq!(out.value["title"], "Django Unchained");
        assert!(out.value.get("extra").is_none());
        assert_eq!(out.value["cast"][0]["name"], "Jamie Foxx");
        assert_eq!(out.value["cast"][0]["order"], 0);
        assert!(
            jsonschema::validator_for(&schema)
                .unwrap()
                .is_valid(&out.value),
            "{}",
            out.value
        );
        assert!(out.repairs >= 3);
        // An answer of the wrong type altogether is the draft.
        let out = conform(&schema, json!([1, 2]), &draft);
        assert_eq!(out.value, draft);
    }
}
