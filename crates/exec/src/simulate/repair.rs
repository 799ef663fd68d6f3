//! Brings an oracle's answer back within the response schema: each part
//! that breaks it is replaced by the same part of the draft (a missing
//! required field is added from the draft, an unknown one dropped), so the
//! model's values survive wherever they are valid. A break reported at a
//! union (`oneOf`/`anyOf`) is mended inside the alternative the answer comes
//! closest to; any other break at a parent is mended one child at a time
//! before the parent is replaced. The schema is read leniently (see
//! [`lenient`]): what a real API would send for it is not a break. A placeholder of the
//! draft shown to the model, copied back, is a break though the schema admits it
//! ([`unplace`]).

use jsonschema::JsonType;
use jsonschema::ValidationError;
use jsonschema::error::{TypeKind, ValidationErrorKind};
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
    let Ok(validator) = jsonschema::validator_for(&lenient(schema)) else {
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
            .map(|e| (e.instance_path().as_str().to_owned(), Fix::of(&e)))
            .collect();
        if broken.is_empty() {
            return Conformed { value, repairs };
        }
        deepest_first(&mut broken);
        for (path, fix) in broken {
            if fix == Fix::Graft {
                // An earlier fix may have mended it; else mend its parts before replacing it.
                if errors_under(&validator, &value, &path) == 0 {
                    continue;
                }
                repairs += 1;
                if mend_parts(&validator, &mut value, &path, draft) {
                    continue;
                }
            } else {
                repairs += fix.count();
            }
            fix.apply(&mut value, &path, draft);
        }
    }
    let valid = validator.is_valid(&value);
    Conformed {
        value: if valid { value } else { draft.clone() },
        repairs: repairs + usize::from(!valid),
    }
}

/// Takes out of `answer` every string that `placeholder` tells (a placeholder of the
/// draft the model was shown, copied back: `/placeholder-2.jpg`, `<name of crew 1>`): the
/// whole draft's value at that very place replaces it, or, where the draft has none there
/// (an item the model added), the key or list item goes, for [`conform`] to restore from
/// the draft if the schema requires it. Returns how many it took out.
pub(crate) fn unplace(
    answer: &mut Value,
    draft: &Value,
    placeholder: impl Fn(&str) -> bool,
) -> usize {
    let mut places = Vec::new();
    placed(answer, &mut String::new(), &placeholder, &mut places);
    // Deepest first, a list's last item first, so no removal moves a place still to mend.
    places.sort_by(|a, b| b.len().cmp(&a.len()).then(b.cmp(a)));
    for path in &places {
        let own = draft
            .pointer(path)
            .filter(|v| v.as_str().is_none_or(|t| !placeholder(t)));
        match own {
            Some(from) => {
                if let Some(slot) = answer.pointer_mut(path) {
                    *slot = from.clone();
                }
            }
            None => remove(answer, path),
        }
    }
    places.len()
}

/// The paths (JSON pointers below `at`) of the strings in `value` that `placeholder` tells.
fn placed(
    value: &Value,
    at: &mut String,
    placeholder: &impl Fn(&str) -> bool,
    out: &mut Vec<String>,
) {
    let len = at.len();
    match value {
        Value::String(text) if placeholder(text) => out.push(at.clone()),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                at.push_str(&format!("/{i}"));
                placed(item, at, placeholder, out);
                at.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                at.push('/');
                at.push_str(&escape(key));
                placed(item, at, placeholder, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// How one schema error is mended.
#[derive(Debug, PartialEq)]
enum Fix {
    /// A required field is missing: add the draft's.
    AddMissing(String),
    /// Fields the schema does not allow: drop them.
    DropExtra(Vec<String>),
    /// A union none of whose alternatives the part meets: the fixes (by path)
    /// that make it meet the one it comes closest to.
    Within(Vec<(String, Fix)>),
    /// A fractional number where the schema wants an integer (TMDB types some averages as
    /// integers): the nearest integer, closer to what the model said than the draft's value.
    Round,
    /// Anything else: the draft's part replaces the answer's.
    Graft,
}

impl Fix {
    fn of(error: &ValidationError<'_>) -> Self {
        match error.kind() {
            ValidationErrorKind::Required { property } => property
                .as_str()
                .map_or(Self::Graft, |p| Self::AddMissing(p.to_owned())),
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                Self::DropExtra(unexpected.clone())
            }
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context } => {
                closest(error.instance_path().as_str(), context).map_or(Self::Graft, Self::Within)
            }
            ValidationErrorKind::Type { kind }
                if wants_integer(kind) && error.instance().is_f64() =>
            {
                Self::Round
            }
            _ => Self::Graft,
        }
    }

    /// How many parts this fix replaces, adds or drops.
    fn count(&self) -> usize {
        match self {
            Self::Within(fixes) => fixes.iter().map(|(_, f)| f.count()).sum(),
            _ => 1,
        }
    }

    fn apply(self, value: &mut Value, path: &str, draft: &Value) {
        match self {
            Self::AddMissing(field) => {
                let pointer = format!("{path}/{}", escape(&field));
                match (value.pointer_mut(path), draft_at(draft, &pointer)) {
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
            Self::Within(mut fixes) => {
                deepest_first(&mut fixes);
                for (at, fix) in fixes {
                    fix.apply(value, &at, draft);
                }
            }
            Self::Round => {
                let rounded = value
                    .pointer(path)
                    .and_then(Value::as_f64)
                    .filter(|f| f.is_finite() && f.abs() < 9.0e15)
                    .map(f64::round);
                match (rounded, value.pointer_mut(path)) {
                    (Some(r), Some(part)) => *part = Value::from(r as i64),
                    _ => graft(value, path, draft),
                }
            }
            Self::Graft => graft(value, path, draft),
        }
    }
}

/// Whether a type error's expected types include `integer`.
fn wants_integer(kind: &TypeKind) -> bool {
    match kind {
        TypeKind::Single(single) => *single == JsonType::Integer,
        TypeKind::Multiple(set) => set.contains(JsonType::Integer),
    }
}

/// The fixes of the alternative of a union (each alternative's errors in `context`)
/// that the part at `path` comes closest to: of those it has the type of, the one
/// with the fewest errors. `None` when it has the type of none.
fn closest(path: &str, context: &[Vec<ValidationError<'static>>]) -> Option<Vec<(String, Fix)>> {
    context
        .iter()
        .filter(|errors| {
            !errors.iter().any(|e| {
                e.instance_path().as_str() == path
                    && matches!(e.kind(), ValidationErrorKind::Type { .. })
            })
        })
        .min_by_key(|errors| errors.len())
        .map(|errors| {
            errors
                .iter()
                .map(|e| (e.instance_path().as_str().to_owned(), Fix::of(e)))
                .collect()
        })
}

/// Sorts fixes deepest path first, so that fixing a child never moves a parent's path.
fn deepest_first(fixes: &mut Vec<(String, Fix)>) {
    fixes.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(b.0.cmp(&a.0)));
    fixes.dedup();
}

/// How many schema errors lie at `path` or below it.
fn errors_under(validator: &jsonschema::Validator, value: &Value, path: &str) -> usize {
    validator
        .iter_errors(value)
        .filter(|e| {
            let at = e.instance_path().as_str();
            at == path
                || at
                    .strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
        .count()
}

/// Mends the object or list at `path` one child at a time (the draft's child, or none
/// where the draft has none), keeping each change that lowers the errors there, so a
/// broken child does not cost its valid siblings (a `oneOf` reports its failure at the
/// parent). True when no error is left there.
fn mend_parts(
    validator: &jsonschema::Validator,
    value: &mut Value,
    path: &str,
    draft: &Value,
) -> bool {
    let mut keys: Vec<String> = match value.pointer(path) {
        Some(Value::Object(map)) => map.keys().cloned().collect(),
        Some(Value::Array(items)) => (0..items.len()).rev().map(|i| i.to_string()).collect(),
        _ => return false,
    };
    // What the draft does not have (a key the model added) goes before any value of the
    // model is replaced.
    keys.sort_by_key(|k| draft_at(draft, &format!("{path}/{}", escape(k))).is_some());
    let list = matches!(value.pointer(path), Some(Value::Array(_)));
    let mut errors = errors_under(validator, value, path);
    for key in keys {
        let child = format!("{path}/{}", escape(&key));
        let mut grafted = value.clone();
        graft(&mut grafted, &child, draft);
        // A list item may also go (a list over its `maxItems`), the last first.
        let mut trials = vec![grafted];
        if list && let Ok(i) = key.parse::<usize>() {
            let mut fewer = value.clone();
            if let Some(Value::Array(items)) = fewer.pointer_mut(path)
                && i < items.len()
            {
                items.remove(i);
            }
            trials.push(fewer);
        }
        for trial in trials {
            let now = errors_under(validator, &trial, path);
            if now < errors {
                *value = trial;
                errors = now;
                break;
            }
        }
        if errors == 0 {
            return true;
        }
    }
    false
}

/// The draft's part at `path`, where a list index the draft does not reach reads its
/// first item (the shape every item shares).
fn draft_at<'a>(draft: &'a Value, path: &str) -> Option<&'a Value> {
    let mut at = draft;
    for segment in path.split('/').skip(1) {
        at = match at {
            Value::Object(map) => map.get(&unescape(segment))?,
            Value::Array(items) => {
                let i: usize = segment.parse().ok()?;
                items.get(i).or_else(|| items.first())?
            }
            _ => return None,
        };
    }
    Some(at)
}

/// Replaces the part of `value` at `path` by the draft's, or removes it
/// when the draft has none there.
fn graft(value: &mut Value, path: &str, draft: &Value) {
    if path.is_empty() {
        *value = draft.clone();
        return;
    }
    match draft_at(draft, path) {
        Some(from) => {
            if let Some(slot) = value.pointer_mut(path) {
                *slot = from.clone();
            }
        }
        None => remove(value, path),
    }
}

/// Removes the part of `value` at `path`: a key of its object, or an item of its list.
fn remove(value: &mut Value, path: &str) {
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

/// `schema` read as an API's responses are written, so that what an answer may
/// truly hold is not a break to repair with a placeholder:
/// - OpenAPI 3.0's `nullable` (`true`, or the string `"true"` some specs write) and a
///   property the object does not require admit `null` (an API sends `null` for
///   what it does not know);
/// - `oneOf` is read as `anyOf`: a value that meets two alternatives (`7.0` is an
///   integer and a number) is not wrong;
/// - `integer` is read as `number`: specs type measures as integers that their APIs send
///   with a fraction (TMDB's `vote_average` and `popularity`), and rounding the model's
///   `5.312` to `5` would change what the agent compares;
/// - `maxLength` does not hold: specs cap lengths their APIs outgrow (TMDB's `imdb_id` at
///   9 characters, while IMDb's ids now run to 10), and a model's true `tt27403986` was
///   replaced by the draft's made-up id.
fn lenient(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut out = Map::new();
            for (key, value) in map {
                match key.as_str() {
                    "nullable" | "maxLength" => {}
                    "properties" if value.is_object() => {
                        let props = value.as_object().into_iter().flatten().map(|(k, v)| {
                            let sub = lenient(v);
                            let sub = if required.contains(&k.as_str()) {
                                sub
                            } else {
                                admit_null(sub)
                            };
                            (k.clone(), sub)
                        });
                        out.insert(key.clone(), Value::Object(props.collect()));
                    }
                    "oneOf" if !map.contains_key("anyOf") => {
                        out.insert("anyOf".to_owned(), lenient(value));
                    }
                    "type" => {
                        out.insert(key.clone(), integer_as_number(value));
                    }
                    _ => {
                        out.insert(key.clone(), lenient(value));
                    }
                }
            }
            let nullable = matches!(map.get("nullable"), Some(Value::Bool(true)))
                || map.get("nullable").and_then(Value::as_str) == Some("true");
            if nullable {
                admit_null(Value::Object(out))
            } else {
                Value::Object(out)
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(lenient).collect()),
        other => other.clone(),
    }
}

/// A `type` (a name or a list of names) with `integer` read as `number`.
fn integer_as_number(types: &Value) -> Value {
    let name = |t: &Value| match t.as_str() {
        Some("integer") => Value::from("number"),
        _ => t.clone(),
    };
    match types {
        Value::Array(names) => Value::Array(names.iter().map(name).collect()),
        one => name(one),
    }
}

/// `schema` that also admits `null`: among its types and enum values, else as an
/// alternative.
fn admit_null(schema: Value) -> Value {
    let Value::Object(mut out) = schema else {
        return schema;
    };
    if out.contains_key("const") {
        return serde_json::json!({"anyOf": [Value::Object(out), {"type": "null"}]});
    }
    if let Some(Value::Array(values)) = out.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    let has_enum = out.contains_key("enum");
    match out.get_mut("type") {
        Some(Value::String(t)) => {
            let t = Value::String(std::mem::take(t));
            out.insert("type".to_owned(), Value::Array(vec![t, "null".into()]));
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push("null".into());
            }
        }
        _ if has_enum => {}
        _ => {
            return serde_json::json!({"anyOf": [Value::Object(out), {"type": "null"}]});
        }
    }
    Value::Object(out)
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

    /// Valid model values survive repair, whatever else in the answer is broken.
    #[test]
    fn valid_model_values_are_kept() {
        let movie = json!({"type": "object", "required": ["id"], "properties": {
            "id": {"type": "integer"}, "vote_average": {"type": "number"},
            "tagline": {"type": "string", "nullable": true},
            "homepage": {"type": ["string", "null"]},
            "collection": {"nullable": true, "type": "object", "properties": {
                "id": {"type": "integer"}, "name": {"type": "string"}}},
            "runtime": {"type": "integer"},
            "belongs": {"nullable": true, "allOf": [{"type": "object", "properties": {
                "id": {"type": "integer"}}}]}}});
        let playlist = json!({"type": "object", "properties": {
            "public": {"type": "boolean"}, "name": {"type": "string"}}});
        let either = json!({"type": "object", "properties": {
            "owner": {"oneOf": [
                {"type": "object", "required": ["id", "kind"], "additionalProperties": false,
                    "properties": {"id": {"type": "string"}, "kind": {"const": "user"},
                    "name": {"type": "string"}}},
                {"type": "object", "required": ["id", "kind"], "properties": {
                    "id": {"type": "string"}, "kind": {"const": "team"}}}]},
            "score": {"type": "number"}}});
        let short = json!({"type": "array", "maxItems": 2, "items": {"type": "number"}});
        let list = json!({"type": "object", "properties": {"results": {"type": "array",
            "items": {"type": "object", "required": ["id"], "properties": {
                "id": {"type": "integer"}, "vote_average": {"type": "number"},
                "title": {"type": "string"}}}}}});
        // (schema, draft, answer, what must come out)
        let cases = [
            (
                &movie,
                json!({"id": 1, "vote_average": 0, "tagline": "ivory", "homepage": "ivory",
                    "collection": {"id": 3, "name": "ivory"}, "runtime": 0,
                    "belongs": {"id": 4}}),
                json!({"id": 1, "vote_average": 7.8, "tagline": null, "homepage": null,
                    "collection": null, "runtime": "long", "belongs": null}),
                json!({"id": 1, "vote_average": 7.8, "tagline": null, "homepage": null,
                    "collection": null, "runtime": 0, "belongs": null}),
            ),
            (
                &playlist,
                json!({"public": false, "name": "ivory"}),
                json!({}),
                json!({}),
            ),
            (
                &either,
                json!({"owner": {"id": "a", "kind": "team"}, "score": 0}),
                json!({"owner": {"id": "u7", "kind": "user", "name": "Ann", "extra": 1},
                    "score": 4.5}),
                json!({"owner": {"id": "u7", "kind": "user", "name": "Ann"}, "score": 4.5}),
            ),
            (
                &list,
                json!({"results": [{"id": 1, "vote_average": 0, "title": "ivory"}]}),
                json!({"results": [{"id": 9, "vote_average": 7.8, "title": "Heat"},
                    {"id": 10, "vote_average": 6.1, "title": "Ronin"},
                    {"id": "x", "vote_average": 8.2, "title": "Drive"}]}),
                json!({"results": [{"id": 9, "vote_average": 7.8, "title": "Heat"},
                    {"id": 10, "vote_average": 6.1, "title": "Ronin"},
                    {"id": 1, "vote_average": 8.2, "title": "Drive"}]}),
            ),
            (
                &short,
                json!([0]),
                json!([7.8, 6.5, 9.1]),
                json!([7.8, 6.5]),
            ),
        ];
        for (schema, draft, answer, want) in cases {
            let out = conform(schema, answer.clone(), &draft);
            assert_eq!(out.value, want, "{answer}");
        }
    }

    /// A placeholder the model copied back takes the whole draft's value at its place, or
    /// goes where the draft has nothing there; a required key that went comes back from
    /// the draft, and the model's other values stay.
    #[test]
    fn a_placeholder_copied_back_is_mended_from_the_whole_draft() {
        let placeholder = |t: &str| t.starts_with("/placeholder-") || t.starts_with('<');
        let schema = json!({"type": "object", "properties": {"results": {"type": "array",
            "items": {"type": "object", "required": ["id", "title"], "properties": {
                "id": {"type": "integer"}, "title": {"type": "string"},
                "poster_path": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}}}}}}});
        let draft = json!({"results": [{"id": 1, "title": "Heat", "poster_path": "/a1.jpg",
            "tags": ["crime"]}]});
        let mut answer = json!({"results": [
            {"id": 1, "title": "Heat", "poster_path": "/placeholder-1.jpg",
                "tags": ["<tags 1 of results 1>", "heist", "<tags 3 of results 1>"]},
            {"id": 2, "title": "<title of results 2>", "poster_path": "/placeholder-4.jpg"}]});
        assert_eq!(unplace(&mut answer, &draft, placeholder), 5);
        let out = conform(&schema, answer, &draft);
        assert_eq!(
            out.value,
            json!({"results": [
                {"id": 1, "title": "Heat", "poster_path": "/a1.jpg", "tags": ["crime", "heist"]},
                {"id": 2, "title": "Heat"}]})
        );
    }
}

#[cfg(test)]
mod kept {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    fn valid(schema: &Value, value: &Value) -> bool {
        jsonschema::validator_for(&lenient(schema))
            .unwrap()
            .is_valid(value)
    }

    /// `7.0` is both an integer and a number, so a `oneOf` of the two (TMDB's
    /// `vote_average`) matched twice and the draft's value replaced the model's.
    #[test]
    fn an_integer_valued_float_survives_a_one_of_integer_or_number() {
        let schema = json!({"type": "object", "properties": {"results": {"type": "array",
            "items": {"type": "object", "properties": {"title": {"type": "string"},
                "vote_average": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}}}}});
        let draft = json!({"results": [{"title": "ivory", "vote_average": 6.69}]});
        let answer: Value =
            serde_json::from_str(r#"{"results": [{"title": "Heat", "vote_average": 7.0}]}"#)
                .unwrap();
        let out = conform(&schema, answer.clone(), &draft);
        assert_eq!(out.value, answer);
        assert_eq!(out.value["results"][0]["vote_average"].as_f64(), Some(7.0));
        assert_eq!(out.repairs, 0);
    }

    /// TMDB types some averages as integers, and its API sends them with a fraction: a
    /// model's `5.312` there is kept, not rounded to 5 nor replaced by the draft's value.
    #[test]
    fn a_fraction_where_the_schema_wants_an_integer_is_kept() {
        let schema = json!({"type": "object", "properties": {"vote_average": {"type": "integer"},
            "id": {"type": "integer"}, "count": {"type": ["integer", "null"]}}});
        let draft = json!({"vote_average": 0, "id": 7, "count": 1});
        let answer = json!({"vote_average": 5.612, "id": 7, "count": 2.5});
        let fixed = conform(&schema, answer.clone(), &draft);
        assert_eq!(fixed.value, answer);
        assert_eq!(fixed.repairs, 0);
        // What is not a number at all is still repaired.
        let fixed = conform(&schema, json!({"vote_average": "high", "id": 7}), &draft);
        assert_eq!(fixed.value["vote_average"], json!(0));
    }

    /// A string longer than the spec's `maxLength` is what an API outgrowing its spec
    /// sends: TMDB caps `imdb_id` at 9 characters, and IMDb's ids now have 10.
    #[test]
    fn a_string_longer_than_the_specs_cap_is_kept() {
        let schema = json!({"type": "object", "properties": {"imdb_id": {"type": "string",
            "minLength": 9, "maxLength": 9, "pattern": "^tt[0-9]{7}"}}});
        let draft = json!({"imdb_id": "tt3923361"});
        let answer = json!({"imdb_id": "tt27403986"});
        let out = conform(&schema, answer.clone(), &draft);
        assert_eq!(out.value, answer);
        assert_eq!(out.repairs, 0);
        // What breaks the pattern is still repaired.
        let out = conform(&schema, json!({"imdb_id": "nm27403986"}), &draft);
        assert_eq!(out.value, draft);
    }

    /// A `null` for a field the schema does not require is kept (an API leaves
    /// out what it does not know); a required one comes from the draft, and
    /// OpenAPI's `nullable` written as the string `"true"` admits null too.
    #[test]
    fn a_null_for_an_optional_field_is_kept() {
        let schema = json!({"type": "object", "required": ["id", "title"], "properties": {
            "id": {"type": "integer"}, "title": {"type": "string"},
            "tagline": {"type": "string"}, "device": {"type": "string", "nullable": "true"},
            "collection": {"type": "object", "properties": {"name": {"type": "string"}}},
            "genres": {"type": "array", "items": {"type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"}, "slug": {"type": "string"}}}}}});
        let draft = json!({"id": 1, "title": "ivory", "tagline": "", "device": "abc",
            "collection": {"name": "ivory"}, "genres": [{"name": "ivory", "slug": "x"}]});
        let answer = json!({"id": 1, "title": null, "tagline": null, "device": null,
            "collection": null, "genres": [{"name": "Drama", "slug": null}]});
        let out = conform(&schema, answer, &draft);
        assert_eq!(
            out.value,
            json!({"id": 1, "title": "ivory", "tagline": null, "device": null,
                "collection": null, "genres": [{"name": "Drama", "slug": null}]})
        );
        assert!(valid(&schema, &out.value), "{}", out.value);
    }

    /// An item of a list of films or shows that the model wrote as a show stays a show:
    /// it meets the show's alternative, so neither the draft's film nor the film's
    /// required keys replace it, and a broken value in it is mended within the show.
    #[test]
    fn an_item_in_another_alternative_than_the_drafts_stays_whole() {
        let kind = |k: &str| json!({"type": "string", "enum": [k]});
        let film = json!({"type": "object", "required": ["media_type", "title"],
            "properties": {"id": {"type": "integer"}, "title": {"type": "string"},
                "release_date": {"type": "string"}, "vote_average": {"type": "number"},
                "media_type": kind("movie")}});
        let show = json!({"type": "object", "required": ["media_type", "name"],
            "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
                "first_air_date": {"type": "string"}, "vote_average": {"type": "number"},
                "media_type": kind("tv")}});
        let schema = json!({"type": "object", "properties": {"known_for": {"type": "array",
            "items": {"oneOf": [film, show]}}}});
        let draft = json!({"known_for": [{"id": 1, "title": "ivory", "release_date": "x",
            "vote_average": 5.5, "media_type": "movie"}]});
        let top_gear = json!({"id": 1433, "name": "Top Gear", "first_air_date": "2002-10-20",
            "vote_average": 8.1, "media_type": "tv"});
        let answer = json!({"known_for": [
            {"id": 214, "title": "Ice Age", "release_date": "2002-03-10", "vote_average": 7.3,
                "media_type": "movie"},
            top_gear,
            {"id": 2, "name": "The Grand Tour", "vote_average": "high", "media_type": "tv"}]});
        let out = conform(&schema, answer.clone(), &draft);
        let known = &out.value["known_for"];
        assert_eq!(known[0], answer["known_for"][0]);
        assert_eq!(known[1], top_gear);
        assert_eq!(
            known[2],
            json!({"id": 2, "name": "The Grand Tour", "vote_average": 5.5, "media_type": "tv"})
        );
        assert!(valid(&schema, &out.value), "{}", out.value);
    }

    /// A broken field inside one alternative of a `oneOf` (a track missing a
    /// required field, in a playlist's track-or-episode) is mended in place: the
    /// model's album name stays, not the draft's placeholder words.
    #[test]
    fn a_model_value_inside_a_one_of_survives_a_broken_sibling() {
        let album = json!({"type": "object", "required": ["id", "name", "album_type"],
            "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                "album_type": {"type": "string", "enum": ["album", "single"]}}});
        let track = json!({"type": "object", "required": ["id", "name", "type", "album",
            "available_markets"], "properties": {"id": {"type": "string"},
            "name": {"type": "string"}, "type": {"type": "string", "enum": ["track"]},
            "album": album, "available_markets": {"type": "array",
                "items": {"type": "string"}}}});
        let episode = json!({"type": "object", "required": ["id", "name", "type",
            "duration_ms"], "properties": {"id": {"type": "string"},
            "name": {"type": "string"}, "type": {"type": "string", "enum": ["episode"]},
            "duration_ms": {"type": "integer"}}});
        let schema = json!({"type": "object", "properties": {"items": {"type": "array",
            "items": {"type": "object", "properties": {"added_at": {"type": "string"},
                "track": {"oneOf": [track, episode]}}}}}});
        let draft = json!({"items": [{"added_at": "2020-01-01", "track": {"id": "a1",
            "name": "Amber Timber", "type": "track", "available_markets": ["US"],
            "album": {"id": "b2", "name": "Amber Timber", "album_type": "album"}}}]});
        let answer = json!({"items": [{"added_at": "2021-05-04", "track": {"id": "t9",
            "name": "Come Together", "type": "track",
            "album": {"id": "al9", "name": "Abbey Road", "album_type": "ALBUM"}}}]});
        let out = conform(&schema, answer, &draft);
        let track = &out.value["items"][0]["track"];
        assert_eq!(track["name"], "Come Together", "{}", out.value);
        assert_eq!(track["album"]["name"], "Abbey Road", "{}", out.value);
        assert_eq!(track["album"]["id"], "al9");
        assert_eq!(track["album"]["album_type"], "album");
        assert_eq!(track["available_markets"], json!(["US"]));
        assert!(valid(&schema, &out.value), "{}", out.value);
    }
}
