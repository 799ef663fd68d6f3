//! The keys of a draft that its schema does not require (Spotify's `restrictions`
//! and `linked_from` of a track): a real API sends them only for some things, so
//! the model filling the draft is told it may leave them out rather than invent a
//! value for the draft's placeholder. Repair accepts the absence: only a missing
//! required key is added back from the draft. The other way round, an empty object
//! in a draft is one its schema leaves open (RapidAPI's envelope `{"get", "errors",
//! "response": [{}]}` of many ToolBench tools): the model may fill it with keys.
//!
//! An open object may also be absent in the world: TMDB's `belongs_to_collection` is
//! `null` for a film in no collection. Where the schema admits null there (OpenAPI's
//! `nullable`, Swagger's `x-nullable`, a `null` type or alternative) or the API's examples
//! show null under that key, the prompt names the key as one that may be null
//! ([`nullable_open_keys`]), and a `null` the model answers there stays ([`null_places`],
//! [`put_nulls`]) instead of being refilled from the draft's `{}` (stand-ins were told
//! to fill it, and a real null clashed with that).

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
    let mut optional = BTreeSet::new();
    let mut required = BTreeSet::new();
    Walk { root: schema }.keys(schema, draft, 0, &mut |key, _, sub, needed| {
        if needed {
            required.insert(key.to_owned());
        } else if sub.is_some() {
            optional.insert(key.to_owned());
        }
        true
    });
    optional
        .into_iter()
        .filter(|k| !required.contains(k) && !KEPT.contains(&k.as_str()) && !args.contains_key(k))
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

/// The keys of the draft's empty objects (open ones, see [`has_open_object`]) that may be
/// null: where the schema admits null for them, or the API's `examples` show null under
/// that key; sorted, at most [`MAX_KEYS`].
pub(crate) fn nullable_open_keys(schema: &Value, draft: &Value, examples: &[Value]) -> Vec<String> {
    let mut shown_null = BTreeSet::new();
    for example in examples {
        null_keys(example, 0, &mut shown_null);
    }
    let mut out = BTreeSet::new();
    // An open object that may be null is named, and not gone into.
    Walk { root: schema }.keys(schema, draft, 0, &mut |key, item, sub, _| {
        let open = item.as_object().is_some_and(Map::is_empty);
        let nullable = sub.is_some_and(|s| admits_null(schema, s)) || shown_null.contains(key);
        if open && nullable {
            out.insert(key.to_owned());
        }
        !(open && nullable)
    });
    out.into_iter().take(MAX_KEYS).collect()
}

/// The names of the keys whose value is null anywhere in `value`.
fn null_keys(value: &Value, depth: usize, out: &mut BTreeSet<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                if item.is_null() {
                    out.insert(key.clone());
                }
                null_keys(item, depth + 1, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| null_keys(v, depth + 1, out)),
        _ => {}
    }
}

/// Whether a schema (before or after resolving its `$ref`) admits null: `nullable` (`true`
/// or `"true"`), `x-nullable`, a `null` type, or a `null` alternative of its union.
fn admits_null(root: &Value, schema: &Value) -> bool {
    let flagged = |s: &Value| {
        ["nullable", "x-nullable"].iter().any(|k| {
            matches!(s.get(*k), Some(Value::Bool(true)))
                || s.get(*k).and_then(Value::as_str) == Some("true")
        })
    };
    let null_type = |s: &Value| match s.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        _ => false,
    };
    let resolved = super::synth::resolve(root, schema);
    let null_part = |s: &Value| {
        ["anyOf", "oneOf"].iter().any(|k| {
            s.get(*k).and_then(Value::as_array).is_some_and(|parts| {
                parts
                    .iter()
                    .any(|p| null_type(super::synth::resolve(root, p)))
            })
        })
    };
    [schema, resolved]
        .iter()
        .any(|s| flagged(s) || null_type(s) || null_part(s))
}

/// Where `answer` holds null for a key of `keys` whose value the draft shows as an empty
/// object: the JSON pointers, for [`put_nulls`] to keep after repair.
pub(crate) fn null_places(answer: &Value, draft: &Value, keys: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if !keys.is_empty() {
        null_places_at(answer, draft, keys, String::new(), 0, &mut out);
    }
    out
}

fn null_places_at(
    answer: &Value,
    draft: &Value,
    keys: &[String],
    at: String,
    depth: usize,
    out: &mut Vec<String>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match (answer, draft) {
        (Value::Object(written), Value::Object(drafted)) => {
            for (key, value) in written {
                let Some(drafted) = drafted.get(key) else {
                    continue;
                };
                let path = format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"));
                let open = drafted.as_object().is_some_and(Map::is_empty);
                if value.is_null() && open && keys.contains(key) {
                    out.push(path);
                } else {
                    null_places_at(value, drafted, keys, path, depth + 1, out);
                }
            }
        }
        (Value::Array(written), Value::Array(drafted)) => {
            for (i, value) in written.iter().enumerate() {
                if let Some(drafted) = drafted.get(i).or_else(|| drafted.first()) {
                    null_places_at(value, drafted, keys, format!("{at}/{i}"), depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

/// Sets `body` to null at each of `places` that it still has (see [`null_places`]).
pub(crate) fn put_nulls(body: &mut Value, places: &[String]) {
    for place in places {
        if let Some(slot) = body.pointer_mut(place) {
            *slot = Value::Null;
        }
    }
}

/// The walk of a draft beside its schema, which both readers of the draft share: where
/// the schema admits optional keys ([`optional_keys`]) and where it admits null
/// ([`nullable_open_keys`]).
struct Walk<'a> {
    /// The response schema, for local `$ref`s.
    root: &'a Value,
}

impl<'a> Walk<'a> {
    /// Calls `visit` on each key of each object of `value` (under `schema`, down to
    /// [`MAX_DEPTH`]) with the key's value, the schema of that value (`None`: the schema
    /// does not describe the key) and whether the schema requires the key; then goes into
    /// the value under its schema, when there is one and `visit` answered `true`.
    fn keys<'s, F>(&self, schema: &'s Value, value: &Value, depth: usize, visit: &mut F)
    where
        'a: 's,
        F: FnMut(&str, &Value, Option<&'s Value>, bool) -> bool,
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
                    let go_on = visit(key, item, sub, required.contains(key.as_str()));
                    if let (true, Some(sub)) = (go_on, sub) {
                        self.keys(sub, item, depth + 1, visit);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(sub) = schema.get("items") {
                    for item in items {
                        self.keys(sub, item, depth + 1, visit);
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

    #[test]
    fn an_open_object_may_be_null_where_the_schema_or_an_example_says_so() {
        let open = json!({"type": "object"});
        let schema = json!({"type": "object",
            "definitions": {"open": open},
            "properties": {
                "collection": {"type": "object", "nullable": true},
                "swagger": {"type": "object", "x-nullable": true},
                "typed": {"type": ["object", "null"]},
                "either": {"anyOf": [{"$ref": "#/definitions/open"}, {"type": "null"}]},
                "shown": open, "plain": open, "filled": {"type": "object", "nullable": true,
                    "properties": {"id": {"type": "integer"}}},
                "items": {"type": "array", "items": {"type": "object",
                    "properties": {"parent": {"type": "object", "nullable": "true"}}}}}});
        let draft = json!({"collection": {}, "swagger": {}, "typed": {}, "either": {},
            "shown": {}, "plain": {}, "filled": {"id": 1}, "items": [{"parent": {}}]});
        let examples = [json!({"shown": null, "plain": {"a": 1}})];
        let keys = nullable_open_keys(&schema, &draft, &examples);
        assert_eq!(
            keys,
            [
                "collection",
                "either",
                "parent",
                "shown",
                "swagger",
                "typed"
            ]
        );
        // A null the model wrote there is kept; one for a key not listed is not a place.
        let answer = json!({"collection": null, "plain": null, "filled": null,
            "items": [{"parent": null}, {"parent": {"id": 2}}]});
        let places = null_places(&answer, &draft, &keys);
        assert_eq!(places, ["/collection", "/items/0/parent"]);
        let mut body = json!({"collection": {}, "plain": {}, "items": [{"parent": {}}]});
        put_nulls(&mut body, &places);
        assert_eq!(
            body,
            json!({"collection": null, "plain": {}, "items": [{"parent": null}]})
        );
    }
}
