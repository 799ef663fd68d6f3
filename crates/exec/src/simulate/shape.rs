//! The shapes the simulator observed for APIs that document none: the first
//! response it gave to such an API (no response schema, no example) is kept
//! as the API's shape, its skeleton (keys and value types, no values), and
//! every later invention for that API is told to follow it, so one run never
//! answers one API in two layouts. Kept per simulator (shared by the sessions
//! it forks), bounded in APIs and in size.

use std::collections::HashMap;

use serde_json::{Map, Value};
use toolsmith_catalog::ApiId;

use crate::canonical::canonical_json;

/// Most APIs whose shape one simulator keeps.
const MAX_APIS: usize = 10_000;
/// Most characters of one kept skeleton: a larger one is cut to fewer levels.
pub(crate) const MAX_SHAPE_CHARS: usize = 2_000;
/// Most levels of a skeleton (a deeper part is shown as `"object"` or `"array"`).
const MAX_LEVELS: usize = 6;
/// Most keys of one object of a skeleton.
const MAX_KEYS: usize = 40;

/// The skeletons observed, by API.
#[derive(Debug, Default)]
pub(crate) struct Shapes(HashMap<ApiId, Value>);

impl Shapes {
    /// The skeleton kept for `api`, if one was observed.
    pub(crate) fn of(&self, api: &ApiId) -> Option<&Value> {
        self.0.get(api)
    }

    /// Keeps the skeleton of `body` as `api`'s shape, unless one is kept already (the
    /// first answer sets it) or the map is full.
    pub(crate) fn observe(&mut self, api: &ApiId, body: &Value) {
        if self.0.contains_key(api) || self.0.len() >= MAX_APIS {
            return;
        }
        if let Some(skeleton) = skeleton(body) {
            self.0.insert(api.clone(), skeleton);
        }
    }
}

/// The examples of the API's main layout: those with the top-level keys of the example
/// that has the most of them (the first such), so that a call picking among them by its
/// seed never gets an example of another layout (an error body beside the records).
pub(crate) fn alike(examples: &[Value]) -> Vec<&Value> {
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    let main = examples
        .iter()
        .rev()
        .max_by_key(|e| keys(e).len())
        .map(keys);
    examples
        .iter()
        .filter(|e| main.as_ref().is_none_or(|m| keys(e) == *m))
        .collect()
}

/// The skeleton of `value` within [`MAX_SHAPE_CHARS`]: as many levels as fit, `None`
/// when not even its top does (or it is no object or list, which has no layout).
pub(crate) fn skeleton(value: &Value) -> Option<Value> {
    if !(value.is_object() || value.is_array()) {
        return None;
    }
    (1..=MAX_LEVELS)
        .rev()
        .map(|levels| cut(value, levels))
        .find(|s| canonical_json(s).len() <= MAX_SHAPE_CHARS)
}

/// The skeleton of `value` down to `levels` levels: an object's keys with theirs, a
/// list as a list of its first item's, a scalar as its type's name.
fn cut(value: &Value, levels: usize) -> Value {
    let name = |n: &str| Value::String(n.to_owned());
    match value {
        Value::Object(_) if levels == 0 => name("object"),
        Value::Array(_) if levels == 0 => name("array"),
        Value::Object(map) => Value::Object(
            map.iter()
                .take(MAX_KEYS)
                .map(|(k, v)| (k.clone(), cut(v, levels - 1)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(
            items
                .first()
                .map(|first| cut(first, levels - 1))
                .into_iter()
                .collect(),
        ),
        scalar => name(toolsmith_catalog::lint::json_type(scalar)),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_skeleton_keeps_keys_and_types_and_fits_its_limit() {
        let body = json!({"url": "https://q.example/a.png", "size": 300, "ok": true,
            "scale": 1.5, "tags": [{"k": "v"}], "none": null});
        assert_eq!(
            skeleton(&body),
            Some(json!({"url": "string", "size": "integer", "ok": "boolean",
                "scale": "number", "tags": [{"k": "string"}], "none": "null"}))
        );
        assert_eq!(skeleton(&json!("text")), None);
        let mut deep = json!("leaf");
        for i in 0..30 {
            deep = json!({format!("key{i}"): deep, "pad": "x".repeat(10)});
        }
        let cut = skeleton(&deep).unwrap();
        assert!(canonical_json(&cut).len() <= MAX_SHAPE_CHARS);
        assert!(canonical_json(&cut).contains("\"object\""), "{cut}");
        let wide: Map<String, Value> = (0..500)
            .map(|i| {
                (
                    format!("a_rather_long_key_number_{i}"),
                    json!({"x": {"y": 1}}),
                )
            })
            .collect();
        assert!(
            skeleton(&Value::Object(wide))
                .is_none_or(|s| canonical_json(&s).len() <= MAX_SHAPE_CHARS)
        );
        let mut shapes = Shapes::default();
        let api: ApiId = "qr/generate".parse().unwrap();
        shapes.observe(&api, &json!({"image": "a"}));
        shapes.observe(&api, &json!({"qr": {"png": "b"}}));
        assert_eq!(
            shapes.of(&api),
            Some(&json!({"image": "string"})),
            "the first one stays"
        );
    }
}
