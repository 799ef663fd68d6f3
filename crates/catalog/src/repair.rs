//! Mechanical repairs of JSON Schemas taken from real specs: a number written as
//! a string where a keyword needs a number (Spotify's `"maximum": "50"`, fixed
//! on import), and, on export, type names JSON Schema does not know
//! (`interger`, `float`), defaults of the wrong type and Swagger 2.0 tuple
//! `items`. Each repair says what it changed, so it can be reported.

use serde_json::{Map, Number, Value};

/// The keyword an imported schema carries when a number was read from a string: the
/// original strings by keyword (`{"maximum": "50"}`). `lint` reports it.
pub(crate) const NUMBER_STRINGS: &str = "x-toolsmith-number-strings";

/// The keyword the importer puts on a request body the spec marks required (a body schema
/// has no `required` of its own for that).
pub(crate) const BODY_REQUIRED: &str = "x-body-required";

/// Removes the importer's own notes ([`NUMBER_STRINGS`], [`BODY_REQUIRED`]) from every
/// level of `schema`: they are for toolsmith's lint and export, not for a model or a
/// client reading a tool's input schema.
pub(crate) fn strip_notes(schema: &mut Value) {
    each_schema(schema, &mut |map| {
        map.remove(NUMBER_STRINGS);
        map.remove(BODY_REQUIRED);
    });
}

/// Keys whose values are data, never schemas.
const DATA_KEYS: [&str; 5] = ["example", "examples", "enum", "default", "const"];

/// Keys whose values map names to schemas.
const NAME_MAPS: [&str; 4] = ["properties", "patternProperties", "$defs", "definitions"];

/// Keywords whose value must be a number (any).
const NUMBER_KEYWORDS: [&str; 5] = [
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "multipleOf",
];

/// Keywords whose value must be a non-negative integer.
const COUNT_KEYWORDS: [&str; 8] = [
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxProperties",
    "minProperties",
    "maxContains",
    "minContains",
];

/// Calls `visit` on every schema object inside `schema` (itself included), skipping data.
fn each_schema(schema: &mut Value, visit: &mut dyn FnMut(&mut Map<String, Value>)) {
    match schema {
        Value::Object(map) => {
            visit(map);
            for (key, child) in map.iter_mut() {
                if DATA_KEYS.contains(&key.as_str()) || key.starts_with("x-") {
                    continue;
                }
                if NAME_MAPS.contains(&key.as_str()) {
                    if let Value::Object(named) = child {
                        for sub in named.values_mut() {
                            each_schema(sub, visit);
                        }
                    }
                } else {
                    each_schema(child, visit);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                each_schema(item, visit);
            }
        }
        _ => {}
    }
}

/// Replaces numbers written as strings under numeric keywords by the numbers, and
/// drops such a keyword whose string is no number; each changed schema object keeps the
/// original strings under [`NUMBER_STRINGS`]. Returns how many keywords changed.
pub(crate) fn numbers_from_strings(schema: &mut Value) -> usize {
    let mut changed = 0;
    each_schema(schema, &mut |map| {
        let mut originals = Map::new();
        for key in NUMBER_KEYWORDS.iter().chain(COUNT_KEYWORDS.iter()) {
            let Some(Value::String(text)) = map.get(*key) else {
                continue;
            };
            let text = text.clone();
            let count = COUNT_KEYWORDS.contains(key);
            match parse_number(&text, count) {
                Some(n) => map.insert((*key).to_owned(), Value::Number(n)),
                None => map.remove(*key),
            };
            originals.insert((*key).to_owned(), Value::String(text));
        }
        // Spotify also writes `"default": "20"` on an integer: sent as written, the default
        // reaches the API as the string "20".
        if let Some(Value::String(kind)) = map.get("type").cloned() {
            for key in ["default", "example"] {
                let Some(value @ Value::String(_)) = map.get(key) else {
                    continue;
                };
                if let Some(typed) = convert(&kind, value).filter(|_| kind != "string") {
                    originals.insert(key.to_owned(), value.clone());
                    map.insert(key.to_owned(), typed);
                }
            }
        }
        if !originals.is_empty() {
            changed += originals.len();
            map.insert(NUMBER_STRINGS.to_owned(), Value::Object(originals));
        }
    });
    changed
}

/// Keywords whose value must be a boolean (or, for `additionalProperties`, a schema).
const BOOLEAN_KEYWORDS: [&str; 6] = [
    "additionalProperties",
    "uniqueItems",
    "nullable",
    "readOnly",
    "writeOnly",
    "deprecated",
];

/// Replaces `"true"`/`"false"` written as strings under boolean keywords by the booleans
/// (Spotify writes `"additionalProperties": "true"`, which no validator compiles, so the
/// arguments of such an API went unchecked). Returns how many keywords changed.
pub(crate) fn booleans_from_strings(schema: &mut Value) -> usize {
    let mut changed = 0;
    each_schema(schema, &mut |map| {
        for key in BOOLEAN_KEYWORDS {
            let Some(text @ Value::String(_)) = map.get(key) else {
                continue;
            };
            match flag(text) {
                Some(b) => map.insert(key.to_owned(), Value::Bool(b)),
                None => map.remove(key),
            };
            changed += 1;
        }
    });
    changed
}

/// A flag of a spec: a boolean, or `"true"`/`"false"` written as text (Spotify's OpenAPI
/// description writes `"required": "true"` on its parameters); `None` for anything else.
pub(crate) fn flag(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(text) => match text.trim().to_ascii_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// The number in `text`: a non-negative integer when `count`, else any finite number.
fn parse_number(text: &str, count: bool) -> Option<Number> {
    let text = text.trim();
    if let Ok(n) = text.parse::<u64>() {
        return Some(Number::from(n));
    }
    if count {
        return None;
    }
    if let Ok(n) = text.parse::<i64>() {
        return Some(Number::from(n));
    }
    text.parse::<f64>().ok().and_then(Number::from_f64)
}

/// The JSON Schema type a misspelt or foreign type name means (`interger`, `int`, `float`,
/// `str`, `NUMBER`), or `None` when it is a JSON Schema type already or means nothing known.
fn type_name(raw: &str) -> Option<&'static str> {
    let known = [
        "string", "number", "integer", "boolean", "array", "object", "null",
    ];
    if known.contains(&raw) {
        return None;
    }
    match raw.to_ascii_lowercase().as_str() {
        "interger" | "int" | "int32" | "int64" | "long" | "integer" => Some("integer"),
        "float" | "double" | "decimal" | "number" => Some("number"),
        "str" | "text" | "string" => Some("string"),
        "bool" | "boolean" => Some("boolean"),
        "array" | "list" => Some("array"),
        "object" | "dict" | "map" => Some("object"),
        "null" => Some("null"),
        _ => None,
    }
}

/// What one export repair did, in words (for the export's change list).
pub(crate) type Notes = Vec<String>;

/// Export repairs of one schema: type names made JSON Schema's, unknown type names
/// dropped, a tuple's `items` list made `prefixItems`, a wrong-typed `default`
/// converted to its type or dropped. `at` names the schema in the notes.
pub(crate) fn for_export(schema: &mut Value, at: &str, notes: &mut Notes) {
    each_schema(schema, &mut |map| {
        fix_type(map, at, notes);
        if let Some(Value::Array(_)) = map.get("items")
            && let Some(items) = map.remove("items")
        {
            notes.push(format!(
                "{at}: Swagger 2.0 tuple `items` (a list of schemas) written as `prefixItems`"
            ));
            map.insert("prefixItems".to_owned(), items);
        }
        fix_default(map, at, notes);
    });
}

fn fix_type(map: &mut Map<String, Value>, at: &str, notes: &mut Notes) {
    let Some(Value::String(raw)) = map.get("type") else {
        return;
    };
    let raw = raw.clone();
    match type_name(&raw) {
        Some(fixed) => {
            notes.push(format!("{at}: type `{raw}` written as `{fixed}`"));
            map.insert("type".to_owned(), Value::String(fixed.to_owned()));
        }
        None if ![
            "string", "number", "integer", "boolean", "array", "object", "null",
        ]
        .contains(&raw.as_str()) =>
        {
            notes.push(format!(
                "{at}: type `{raw}` is no JSON Schema type; dropped"
            ));
            map.remove("type");
        }
        None => {}
    }
}

/// Whether a schema admits `null`: its type says so, `nullable: true` (OpenAPI 3.0), or one
/// of its `oneOf`/`anyOf` branches does; a schema with no type or branches admits anything.
fn admits_null(map: &Map<String, Value>) -> bool {
    let branches = ["oneOf", "anyOf"]
        .iter()
        .filter_map(|k| map.get(*k).and_then(Value::as_array))
        .flatten()
        .collect::<Vec<_>>();
    let typed = match map.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|k| k == "null"),
        _ if !branches.is_empty() => branches
            .iter()
            .any(|b| b.as_object().is_some_and(admits_null)),
        _ => true,
    };
    typed || map.get("nullable") == Some(&Value::Bool(true))
}

fn fix_default(map: &mut Map<String, Value>, at: &str, notes: &mut Notes) {
    // `default: null` ("none") on a schema that does not admit null fails strict validators.
    if map.get("default") == Some(&Value::Null) && !admits_null(map) {
        notes.push(format!(
            "{at}: default null is not allowed by the schema; dropped"
        ));
        map.remove("default");
        return;
    }
    let (Some(Value::String(kind)), Some(default)) = (map.get("type"), map.get("default")) else {
        return;
    };
    if fits(kind, default) {
        return;
    }
    let converted = convert(kind, default);
    let shown = default.to_string();
    match converted {
        Some(value) => {
            notes.push(format!(
                "{at}: default {shown} is not of type {kind}; written as {value}"
            ));
            map.insert("default".to_owned(), value);
        }
        None => {
            notes.push(format!(
                "{at}: default {shown} is not of type {kind}; dropped"
            ));
            map.remove("default");
        }
    }
}

/// Whether a value is of a JSON Schema type (integers are numbers; null fits any type,
/// as specs often write `default: null` for "none").
fn fits(kind: &str, value: &Value) -> bool {
    match (kind, value) {
        (_, Value::Null) => true,
        ("string", Value::String(_)) | ("boolean", Value::Bool(_)) => true,
        ("number", Value::Number(_)) | ("array", Value::Array(_)) => true,
        ("object", Value::Object(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => ![
            "string", "number", "integer", "boolean", "array", "object", "null",
        ]
        .contains(&kind),
    }
}

/// `value` converted to `kind` when the conversion loses nothing (`"1"` -> 1, `"true"` ->
/// true, 5 -> `"5"`).
fn convert(kind: &str, value: &Value) -> Option<Value> {
    match (kind, value) {
        ("number" | "integer", Value::String(s)) => {
            let n = parse_number(s, false)?;
            let whole = n.is_i64() || n.is_u64();
            (kind == "number" || whole).then_some(Value::Number(n))
        }
        ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("string", Value::Number(_) | Value::Bool(_)) => Some(Value::String(value.to_string())),
        _ => None,
    }
}

/// The character a C1 control (U+0080..U+009F) stands for in text that went through
/// Windows-1252 (U+0092 is a right single quote), or `None` for the five it leaves unused.
fn c1_meaning(c: char) -> Option<char> {
    const CP1252: [char; 32] = [
        '€', '\0', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\0', 'Ž', '\0', '\0',
        '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\0', 'ž', 'Ÿ',
    ];
    let index = (c as usize).checked_sub(0x80)?;
    CP1252.get(index).copied().filter(|c| *c != '\0')
}

/// Whether a character is a C1 control, which YAML-based validators reject.
fn is_c1(c: char) -> bool {
    ('\u{80}'..='\u{9f}').contains(&c)
}

/// `text` with each C1 control replaced by what it stands for in Windows-1252 (or
/// removed), when it holds any.
pub(crate) fn without_c1(text: &str) -> Option<String> {
    text.chars().any(is_c1).then(|| {
        text.chars()
            .filter_map(|c| if is_c1(c) { c1_meaning(c) } else { Some(c) })
            .collect()
    })
}

/// Replaces C1 controls in every string and key of a document ([`without_c1`]); returns
/// how many strings changed.
pub(crate) fn strip_c1(value: &mut Value) -> usize {
    match value {
        Value::String(s) => match without_c1(s) {
            Some(clean) => {
                *s = clean;
                1
            }
            None => 0,
        },
        Value::Array(items) => items.iter_mut().map(strip_c1).sum(),
        Value::Object(map) => {
            let mut changed = 0;
            if map.keys().any(|k| k.chars().any(is_c1)) {
                let old = std::mem::take(map);
                for (key, child) in old {
                    let key = without_c1(&key).map_or(key, |k| {
                        changed += 1;
                        k
                    });
                    map.insert(key, child);
                }
            }
            changed + map.values_mut().map(strip_c1).sum::<usize>()
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_default_and_example_written_as_strings_take_the_schemas_type() {
        let mut schema = json!({"type": "object", "properties": {
            "limit": {"type": "integer", "default": "20", "example": "10"},
            "ratio": {"type": "number", "default": "0.5"},
            "name": {"type": "string", "default": "20"},
            "page": {"type": "integer", "default": "first"}}});
        assert_eq!(numbers_from_strings(&mut schema), 3);
        let p = &schema["properties"];
        assert_eq!(p["limit"]["default"], 20);
        assert_eq!(p["limit"]["example"], 10);
        assert_eq!(p["limit"][NUMBER_STRINGS]["default"], "20");
        assert_eq!(p["ratio"]["default"], 0.5);
        assert_eq!(p["name"]["default"], "20");
        assert_eq!(
            p["page"]["default"], "first",
            "no number: left for lint to report"
        );
    }

    #[test]
    fn booleans_in_strings_become_booleans() {
        let mut schema = json!({"type": "object", "additionalProperties": "true",
            "properties": {"uris": {"type": "array", "uniqueItems": "False",
                "additionalProperties": "sometimes"}}});
        assert_eq!(booleans_from_strings(&mut schema), 3);
        assert_eq!(schema["additionalProperties"], true);
        assert_eq!(schema["properties"]["uris"]["uniqueItems"], false);
        assert!(
            schema["properties"]["uris"]
                .get("additionalProperties")
                .is_none()
        );
        assert!(jsonschema::validator_for(&schema).is_ok());
    }

    #[test]
    fn numbers_in_strings_become_numbers_and_are_remembered() {
        let mut schema = json!({"type": "object", "properties": {
            "limit": {"type": "integer", "maximum": "50", "minimum": "1"},
            "name": {"type": "string", "maxLength": "ten", "default": "5"}}});
        assert_eq!(numbers_from_strings(&mut schema), 3);
        let limit = &schema["properties"]["limit"];
        assert_eq!(limit["maximum"], 50);
        assert_eq!(limit["minimum"], 1);
        assert_eq!(limit[NUMBER_STRINGS]["maximum"], "50");
        assert!(schema["properties"]["name"].get("maxLength").is_none());
        assert_eq!(
            schema["properties"]["name"]["default"], "5",
            "data is left alone"
        );
    }

    #[test]
    fn a_null_default_is_dropped_where_the_schema_refuses_null() {
        let mut schema = json!({"type": "object", "properties": {
            "stop": {"default": null, "oneOf": [{"type": "string"}, {"type": "array"}]},
            "tag": {"type": "string", "nullable": true, "default": null},
            "any": {"default": null},
            "n": {"type": ["integer", "null"], "default": null}}});
        let mut notes = Vec::new();
        for_export(&mut schema, "x", &mut notes);
        let p = &schema["properties"];
        assert!(p["stop"].get("default").is_none(), "{schema}");
        for kept in ["tag", "any", "n"] {
            assert_eq!(p[kept].get("default"), Some(&Value::Null), "{kept}");
        }
        assert_eq!(notes.len(), 1, "{notes:?}");
    }

    #[test]
    fn export_repairs_types_defaults_and_tuples() {
        let mut schema = json!({"type": "object", "properties": {
            "n": {"type": "number", "default": "1"},
            "i": {"type": "interger", "default": "x"},
            "f": {"type": "float"},
            "t": {"type": "array", "items": [{"type": "string"}, {"type": "int"}]}}});
        let mut notes = Vec::new();
        for_export(&mut schema, "p", &mut notes);
        let p = &schema["properties"];
        assert_eq!(p["n"]["default"], 1);
        assert_eq!(p["i"]["type"], "integer");
        assert!(p["i"].get("default").is_none());
        assert_eq!(p["f"]["type"], "number");
        assert_eq!(p["t"]["prefixItems"][1]["type"], "integer");
        assert!(p["t"].get("items").is_none());
        assert_eq!(notes.len(), 6, "{notes:#?}");
    }

    #[test]
    fn c1_controls_become_what_they_meant() {
        assert_eq!(without_c1("It\u{92}s").as_deref(), Some("It’s"));
        assert_eq!(without_c1("a\u{81}b").as_deref(), Some("ab"));
        assert_eq!(without_c1("plain é"), None);
    }
}
