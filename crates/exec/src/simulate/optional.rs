//! The keys of a draft that its schema does not require (Spotify's `restrictions`
//! and `linked_from` of a track): a real API sends them only for some things, so
//! the model filling the draft is told it may leave them out rather than invent a
//! value for the draft's placeholder. Repair accepts the absence: only a missing
//! required key is added back from the draft. The other way round, an empty object
//! in a draft is one its schema leaves open (RapidAPI's envelope `{"get", "errors",
//! "response": [{}]}` of many ToolBench tools): the model may fill it with keys.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

/// Most key names listed in one prompt.
const MAX_KEYS: usize = 40;
/// How deep in the draft keys are looked for.
const MAX_DEPTH: usize = 12;
/// Keys whose draft values are not placeholders (the entity's id, the numbers that
/// page a list): they stay even where the schema does not require them.
const KEPT: &[&str] = &[
    "id",
    "page",
    "total",
    "total_pages",
    "total_results",
    "limit",
    "offset",
];

/// The names of the draft's keys that the schema leaves optional wherever they
/// occur, except the ones the call's arguments fill and those in [`KEPT`]; sorted,
/// at most [`MAX_KEYS`].
pub(crate) fn optional_keys(
    schema: &Value,
    draft: &Value,
    args: &Map<String, Value>,
) -> Vec<String> {
    let mut walk = Walk {
        root: schema,
        optional: BTreeSet::new(),
        required: BTreeSet::new(),
    };
    walk.value(schema, draft, 0);
    walk.optional
        .into_iter()
        .filter(|k| {
            !walk.required.contains(k) && !KEPT.contains(&k.as_str()) && !args.contains_key(k)
        })
        .take(MAX_KEYS)
        .collect()
}

/// `answer` without the keys of `optional` whose value is a hollow object (every value in
/// it empty: `""`, null, `[]`, `{}`, or hollow itself). A model that keeps such a key says
/// it has nothing there, as on Spotify's playable tracks' `restrictions: {"reason": ""}`;
/// left in, repair fills the gap from the draft (an enum's value), and a playable track
/// reads as restricted.
pub(crate) fn drop_hollow(answer: &mut Value, optional: &[String]) {
    drop_hollow_at(answer, optional, 0);
}

fn drop_hollow_at(value: &mut Value, optional: &[String], depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            map.retain(|k, v| !(optional.contains(k) && v.is_object() && hollow(v)));
            map.values_mut()
                .for_each(|v| drop_hollow_at(v, optional, depth + 1));
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| drop_hollow_at(v, optional, depth + 1)),
        _ => {}
    }
}

/// Whether a value holds nothing: an empty string, null, an empty list, or an object all
/// of whose values hold nothing.
fn hollow(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.values().all(hollow),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Whether the draft holds an empty object (down to [`MAX_DEPTH`]): one its schema
/// leaves open, whose keys the model writes.
pub(crate) fn has_open_object(draft: &Value) -> bool {
    fn open(value: &Value, depth: usize) -> bool {
        depth <= MAX_DEPTH
            && match value {
                Value::Object(map) => map.is_empty() || map.values().any(|v| open(v, depth + 1)),
                Value::Array(items) => items.iter().any(|v| open(v, depth + 1)),
                _ => false,
            }
    }
    open(draft, 0)
}

/// The walk of a draft beside its schema.
struct Walk<'a> {
    /// The response schema, for local `$ref`s.
    root: &'a Value,
    /// Keys seen where the schema does not require them.
    optional: BTreeSet<String>,
    /// Keys seen where the schema requires them.
    required: BTreeSet<String>,
}

impl<'a> Walk<'a> {
    fn value<'s>(&mut self, schema: &'s Value, value: &Value, depth: usize)
    where
        'a: 's,
    {
        if depth > MAX_DEPTH {
            return;
        }
        let schema = self.resolve(schema);
        match value {
            Value::Object(map) => {
                let mut props = BTreeMap::new();
                let mut required = BTreeSet::new();
                self.shape(schema, &mut props, &mut required, 0);
                for (key, item) in map {
                    let sub = props.get(key.as_str()).copied();
                    if required.contains(key.as_str()) {
                        self.required.insert(key.clone());
                    } else if sub.is_some() {
                        self.optional.insert(key.clone());
                    }
                    if let Some(sub) = sub {
                        self.value(sub, item, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(sub) = schema.get("items") {
                    for item in items {
                        self.value(sub, item, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// The properties and required keys of an object schema, with those of its
    /// `allOf`, `anyOf` and `oneOf` parts (a key any part requires counts as required).
    fn shape<'s>(
        &self,
        schema: &'s Value,
        props: &mut BTreeMap<&'s str, &'s Value>,
        required: &mut BTreeSet<&'s str>,
        depth: usize,
    ) where
        'a: 's,
    {
        if depth > MAX_DEPTH {
            return;
        }
        let schema = self.resolve(schema);
        for (key, sub) in schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            props.entry(key.as_str()).or_insert(sub);
        }
        let names = schema.get("required").and_then(Value::as_array);
        required.extend(names.into_iter().flatten().filter_map(Value::as_str));
        for union in ["allOf", "anyOf", "oneOf"] {
            for part in schema
                .get(union)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.shape(part, props, required, depth + 1);
            }
        }
    }

    /// The schema a local `$ref` points to.
    fn resolve<'s>(&self, schema: &'s Value) -> &'s Value
    where
        'a: 's,
    {
        super::synth::resolve(self.root, schema)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_keys_optional_everywhere_are_listed() {
        let track = json!({"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "string"}, "name": {"type": "string"},
            "restrictions": {"type": "object", "properties": {"reason": {"type": "string"}}},
            "linked_from": {"$ref": "#/definitions/link"}, "popularity": {"type": "integer"}}});
        let schema = json!({"type": "object", "required": ["items", "name"],
            "definitions": {"link": {"type": "object", "properties": {"uri": {"type": "string"}}}},
            "properties": {"total": {"type": "integer"}, "market": {"type": "string"},
                "name": {"type": "string"}, "items": {"type": "array", "items": track}}});
        let draft = json!({"total": 3, "market": "US", "name": "x", "items": [{"id": "a",
            "name": "b", "restrictions": {"reason": "market"}, "linked_from": {"uri": "u"},
            "popularity": 4}]});
        let args = json!({"market": "US"});
        let keys = optional_keys(&schema, &draft, args.as_object().unwrap_or(&Map::new()));
        assert_eq!(
            keys,
            ["linked_from", "popularity", "reason", "restrictions", "uri"]
        );
    }
}
