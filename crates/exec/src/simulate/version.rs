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
//!
//! A field named only `version`, `revision`, `rev` or `snapshot` may instead hold
//! a release of some software or format (Ruby's `3.3.0`, a chart library's `0.6`),
//! which a write does not change. Such a field is redrawn only when its value is
//! an opaque token ([`is_opaque`]: a revision count, a hex or base64-like string)
//! that neither the call's arguments nor the API's documented values hold
//! ([`Documented`]). A field whose name is a token's (`etag`, `snapshot_id`, ...)
//! is always a token.
//!
//! The session keeps the version each entity is at ([`Current`]): a write names a new
//! one for the entity its path names (`DELETE /playlists/{playlist_id}/tracks` answers the
//! playlist's new `snapshot_id`; a write answering none moves the known one on), and every
//! later draft and answer showing that entity shows that version. A playlist read after
//! its tracks were removed used to show the `snapshot_id` it was read with before.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use toolsmith_catalog::{ParamLocation, id_entity};

use super::rng::Rng;
use super::state::{canonical_id, each_entity};
use crate::dates::{Precision, starts_as_date};
use crate::executor::BookEntry;

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

/// Whether a field's name alone says it holds a token (`etag`, `snapshot_id`), not a
/// release number: only the bare names `version`, `revision`, `rev` and `snapshot` may
/// hold either.
fn names_token(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    !matches!(lower.as_str(), "version" | "revision" | "rev" | "snapshot")
}

/// Gives every version field of `body` (down to [`MAX_DEPTH`]) whose value is one of
/// `stale` a fresh value drawn from `seed`, never the one it had; a field of an
/// ambiguous name keeps a value that is no opaque token or that `kept` holds.
pub(crate) fn refresh(body: &mut Value, seed: u64, stale: &HashSet<String>, kept: &Documented) {
    walk(body, seed, 0, &Stale { stale, kept });
}

/// What [`walk`] redraws: the stale tokens, less what the call or the API documents.
struct Stale<'a> {
    stale: &'a HashSet<String>,
    kept: &'a Documented,
}

impl Stale<'_> {
    /// Whether the value of the version field `name` is a stale token to redraw.
    fn redraws(&self, name: &str, value: &Value) -> bool {
        let Some(text) = token_text(value).filter(|t| self.stale.contains(t)) else {
            return false;
        };
        if names_token(name) {
            return true;
        }
        value.is_i64() || value.is_u64() || (is_opaque(&text) && !self.kept.0.contains(&text))
    }
}

/// The texts a version field of ambiguous name keeps through a write: the values of the
/// call's arguments (a release the call names) and the values the API documents for its
/// version fields (the schema's examples, defaults and enums, the recorded examples).
#[derive(Debug, Default)]
pub(crate) struct Documented(HashSet<String>);

impl Documented {
    /// What `entry` documents and the call's `args` hold.
    pub(crate) fn of(entry: &BookEntry, args: &Map<String, Value>) -> Self {
        let mut out = HashSet::new();
        args.values().for_each(|v| scalars(v, &mut out, 0));
        let api = &entry.api.api;
        if let Some(schema) = &api.response_schema {
            schema_values(schema, &mut out, 0);
        }
        for example in &api.response_examples {
            collect(example, &mut out, 0);
        }
        Self(out)
    }
}

/// Most nesting read of an argument or a schema.
const MAX_SCAN: usize = 32;

/// Every scalar of `value`, as text.
fn scalars(value: &Value, out: &mut HashSet<String>, depth: usize) {
    match value {
        Value::Array(items) if depth < MAX_SCAN => {
            items.iter().for_each(|v| scalars(v, out, depth + 1));
        }
        Value::Object(map) if depth < MAX_SCAN => {
            map.values().for_each(|v| scalars(v, out, depth + 1));
        }
        other => out.extend(token_text(other)),
    }
}

/// The documented values (`example`, `examples`, `default`, `enum`, `const`) of every
/// property of a version field's name in a response schema.
fn schema_values(schema: &Value, out: &mut HashSet<String>, depth: usize) {
    if depth > MAX_SCAN {
        return;
    }
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                let versions = props.iter().filter(|(n, _)| is_version_field(n));
                for (_, sub) in versions {
                    for key in ["example", "examples", "default", "enum", "const"] {
                        if let Some(documented) = sub.get(key) {
                            scalars(documented, out, 0);
                        }
                    }
                }
            }
            map.values().for_each(|v| schema_values(v, out, depth + 1));
        }
        Value::Array(items) => items.iter().for_each(|v| schema_values(v, out, depth + 1)),
        _ => {}
    }
}

/// Whether a version value is an opaque token a write replaces, not a release: a whole
/// number counting revisions, or one word without spaces that holds a digit (or is long,
/// as base64 is) and is neither a release number ([`is_release`]) nor a date.
pub(crate) fn is_opaque(text: &str) -> bool {
    let word = !text.is_empty() && !text.chars().any(char::is_whitespace);
    let telling = text.chars().any(|c| c.is_ascii_digit()) || text.chars().count() >= 16;
    word && telling && !is_release(text) && !is_date(text)
}

/// Whether `text` is a release number: dotted numbers (`3.3.0`, `0.6`), with an optional
/// leading `v` (`v2.1`) and a pre-release or build tail (`1.0.0-beta`, `2.0+build.5`).
pub(crate) fn is_release(text: &str) -> bool {
    let bare = text.strip_prefix(['v', 'V']).unwrap_or(text);
    let (core, tail) = match bare.find(['-', '+']) {
        Some(at) => (bare.get(..at).unwrap_or_default(), bare.get(at + 1..)),
        None => (bare, None),
    };
    let parts: Vec<&str> = core.split('.').collect();
    let numeric = parts.len() >= 2
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    let tail_ok = tail.is_none_or(|t| {
        !t.is_empty()
            && t.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
    });
    numeric && tail_ok
}

/// Whether `text` starts as an ISO date (`2024-01-15`, `2024-01-15T10:00:00Z`): a dated
/// version, which a digit-by-digit redraw would turn into no date at all.
fn is_date(text: &str) -> bool {
    starts_as_date(text, Precision::Day)
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

fn walk(value: &mut Value, seed: u64, depth: usize, stale: &Stale<'_>) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, field) in map.iter_mut() {
                let own = super::rng::child_seed(seed, key);
                if is_version_field(key) {
                    if stale.redraws(key, field) {
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

/// Most entities whose version a session keeps.
const MAX_ENTITIES: usize = 10_000;

/// The version fields of each entity a session showed, by id as text: what it is at now.
#[derive(Debug, Default)]
pub(crate) struct Current(HashMap<String, Map<String, Value>>);

impl Current {
    /// Makes every entity of `body` (down to [`MAX_DEPTH`]) show the version the session
    /// holds it at, in the version fields it has.
    pub(crate) fn carry(&self, body: &mut Value) {
        self.carry_in(body, 0);
    }

    fn carry_in(&self, value: &mut Value, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match value {
            Value::Object(map) => {
                let known = map.get("id").and_then(|id| self.0.get(&canonical_id(id)));
                if let Some(known) = known {
                    for (key, token) in known {
                        if let Some(slot) = map.get_mut(key) {
                            *slot = token.clone();
                        }
                    }
                }
                map.values_mut().for_each(|v| self.carry_in(v, depth + 1));
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.carry_in(v, depth + 1)),
            _ => {}
        }
    }

    /// Keeps the versions the entities of `body` show.
    pub(crate) fn observe(&mut self, body: &Value) {
        each_entity(body, MAX_DEPTH, &mut |id, map| {
            let fields = version_fields(map);
            if !fields.is_empty() {
                self.keep(id, fields);
            }
        });
    }

    /// Moves the entity a successful write names (the last id parameter of its path) to a
    /// new version: the one its response gives (`{"snapshot_id": ...}`, already fresh, see
    /// [`refresh`]), else each token the session held it at drawn anew from `seed`.
    pub(crate) fn written(
        &mut self,
        entry: &BookEntry,
        args: &Map<String, Value>,
        body: &Value,
        seed: u64,
    ) {
        let Some(id) = written_entity(entry, args) else {
            return;
        };
        let mut answered = body.clone();
        let given = super::state::main_object(&mut answered)
            .map(|object| version_fields(object))
            .unwrap_or_default();
        if !given.is_empty() {
            self.keep(id, given);
        } else if let Some(known) = self.0.get_mut(&id) {
            for (key, token) in known.iter_mut() {
                let opaque = token_text(token).is_some_and(|t| is_opaque(&t));
                if names_token(key) || opaque {
                    renew(token, super::rng::child_seed(seed, key));
                }
            }
        }
    }

    fn keep(&mut self, id: String, fields: Map<String, Value>) {
        if self.0.len() < MAX_ENTITIES || self.0.contains_key(&id) {
            self.0.entry(id).or_default().extend(fields);
        }
    }
}

/// The version fields of one object (its own, not its parts'), scalars only.
fn version_fields(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .filter(|(key, value)| is_version_field(key) && token_text(value).is_some())
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// The id of the entity a write changes: the value of the last path parameter of an id's
/// name (`playlist_id` of `/playlists/{playlist_id}/tracks`), as text.
fn written_entity(entry: &BookEntry, args: &Map<String, Value>) -> Option<String> {
    let api = &entry.api.api;
    super::request::path_params(api.endpoint.path()?)
        .rfind(|name| {
            let names_id = name.eq_ignore_ascii_case("id") || id_entity(name).is_some();
            names_id
                && api
                    .params
                    .iter()
                    .any(|p| p.name == *name && p.location == ParamLocation::Path)
        })
        .and_then(|name| args.get(name))
        .filter(|v| !v.is_null())
        .map(canonical_id)
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
        refresh(&mut body, 42, &stale, &Documented::default());
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
        let seven = HashSet::from(["7".to_owned()]);
        refresh(&mut fresh, 42, &seven, &Documented::default());
        assert_eq!(fresh["snapshot_id"], old["snapshot_id"]);
        assert_eq!(fresh["version"], 8);
    }

    #[test]
    fn a_release_number_is_no_token() {
        for release in ["3.3.0", "0.6", "v2.1", "1.0.0-beta", "2.0+build.5"] {
            assert!(is_release(release) && !is_opaque(release), "{release}");
        }
        for token in ["MTAsZDVmZDQ2", "9f8e7d6c5b4a", "r12", "17", "W/\"a41f\""] {
            assert!(!is_release(token) && is_opaque(token), "{token}");
        }
        for other in ["2024-01-15", "beta", "Ruby 3.3", "v", ""] {
            assert!(!is_opaque(other), "{other}");
        }
        let mut body = json!({"version": "3.3.0", "revision": "r12", "rev": 4, "etag": "0.6"});
        let stale = ["3.3.0", "r12", "4", "0.6"].map(str::to_owned).into();
        refresh(&mut body, 7, &stale, &Documented::default());
        assert_eq!(body["version"], "3.3.0");
        assert_ne!(body["revision"], "r12");
        assert_eq!(body["rev"], 5);
        assert_ne!(
            body["etag"], "0.6",
            "an etag is a token whatever it looks like"
        );
        let mut kept = json!({"revision": "r12"});
        let named = Documented(HashSet::from(["r12".to_owned()]));
        refresh(&mut kept, 7, &stale, &named);
        assert_eq!(kept["revision"], "r12");
    }
}
