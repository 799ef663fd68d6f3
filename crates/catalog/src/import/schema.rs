//! Local `$ref` resolution and `allOf` merging for OpenAPI documents.
//!
//! Schemas are inlined so that every stored schema stands alone. A reference
//! that recurses (a tree node whose children are tree nodes) is kept as a
//! reference into the schema's own `$defs`, so recursive schemas import
//! without expanding forever and stay valid JSON Schema.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::import::text::pointer_escape;

/// Inlining stops and falls back to `$defs` references past this many nodes, so
/// a spec that reuses big schemas in many places stays a reasonable size. The
/// budget is one per stored schema: definitions draw on what inlining left.
const INLINE_BUDGET: usize = 20_000;

/// Past this many nodes copied in all (inlined and into `$defs`), a further
/// definition keeps only its target's type and description, so a spec whose
/// references form a huge graph (Stripe's expandable fields: hundreds of
/// schemas referring to each other) imports in bounded memory and time.
const COPY_BUDGET: usize = 40_000;

/// How many levels of references a schema too big to inline whole still inlines
/// (its own and its parts'); deeper ones are copied once each into `$defs`.
const TOP_LEVELS: usize = 2;

/// Keys whose values are data, not schemas: never look for `$ref` inside.
const DATA_KEYS: [&str; 5] = ["example", "examples", "enum", "default", "const"];

/// Keys whose values map names to schemas: a property may well be called `default`.
const NAME_MAPS: [&str; 4] = ["properties", "patternProperties", "$defs", "definitions"];

/// Resolves local references (`#/...`) against one document.
pub(crate) struct Resolver<'a> {
    root: &'a Value,
    path: &'a Path,
}

impl<'a> Resolver<'a> {
    pub(crate) fn new(root: &'a Value, path: &'a Path) -> Self {
        Self { root, path }
    }

    pub(crate) fn path(&self) -> &'a Path {
        self.path
    }

    /// The value a reference points at. `at` is where the reference stands.
    pub(crate) fn lookup(&self, reference: &str, at: &str) -> Result<&'a Value> {
        let Some(pointer) = reference.strip_prefix('#') else {
            return Err(Error::bad(
                self.path,
                at,
                format!(
                    "external $ref `{reference}` was not resolved; import the spec from its file or URL"
                ),
            ));
        };
        let pointer = percent_decode(pointer);
        self.root.pointer(&pointer).ok_or_else(|| {
            Error::bad(
                self.path,
                at,
                format!("dangling $ref `{reference}`: nothing there"),
            )
        })
    }

    /// Follows `$ref` chains (parameters, responses, request bodies) to a real
    /// object. Returns it with the pointer where it lives.
    pub(crate) fn deref(&self, value: &'a Value, at: &str) -> Result<(&'a Value, String)> {
        let mut current = value;
        let mut where_ = at.to_owned();
        let mut seen: Vec<String> = Vec::new();
        while let Some(reference) = current.get("$ref").and_then(Value::as_str) {
            if seen.iter().any(|r| r == reference) {
                return Err(Error::bad(
                    self.path,
                    at,
                    format!("$ref `{reference}` resolves only to itself"),
                ));
            }
            seen.push(reference.to_owned());
            current = self.lookup(reference, &where_)?;
            where_ = reference.to_owned();
        }
        Ok((current, where_))
    }

    /// Follows a chain of bare references from `reference` and fails if it
    /// loops without reaching a real schema.
    fn follow_chain(&self, reference: &str, at: &str) -> Result<&'a Value> {
        let mut seen = vec![reference.to_owned()];
        let mut current = self.lookup(reference, at)?;
        while let Some(next) = current.get("$ref").and_then(Value::as_str) {
            if seen.iter().any(|r| r == next) {
                return Err(Error::bad(
                    self.path,
                    at,
                    format!("$ref `{reference}` resolves only to itself"),
                ));
            }
            current = self.lookup(next, seen.last().map_or(at, String::as_str))?;
            seen.push(next.to_owned());
        }
        Ok(current)
    }

    /// An inlined, `allOf`-merged copy of a schema.
    pub(crate) fn schema(&self, schema: &Value, at: &str) -> Result<Value> {
        let mut inliner = Inliner {
            resolver: self,
            stack: Vec::new(),
            defs: BTreeMap::new(),
            budget: INLINE_BUDGET,
            copied: 0,
            mode: Mode::Whole,
        };
        let mut out = inliner.inline(schema, at)?;
        if inliner.budget == 0 {
            // Inlined whole, the schema repeats itself past the budget (Stripe's expandable
            // fields): inline its top levels only, and every deeper schema once.
            inliner.defs.clear();
            inliner.copied = 0;
            inliner.mode = Mode::TopLevels;
            out = inliner.inline(schema, at)?;
        }
        // Definitions for references kept because they recurse; each may need others.
        let mut done: BTreeMap<String, Value> = BTreeMap::new();
        while let Some((reference, name)) = inliner
            .defs
            .iter()
            .find(|(_, n)| !done.contains_key(*n))
            .map(|(r, n)| (r.clone(), n.clone()))
        {
            let target = self.lookup(&reference, at)?;
            if inliner.mode == Mode::TopLevels {
                inliner.mode = Mode::Never;
            }
            let def = if inliner.copied < COPY_BUDGET {
                inliner.stack = vec![reference.clone()];
                inliner.inline(target, &reference)?
            } else {
                stub(target, &reference)
            };
            done.insert(name, merge_all_of(def));
        }
        out = merge_all_of(out);
        // Spotify writes `"maximum": "50"`: a schema that no validator compiles.
        crate::repair::numbers_from_strings(&mut out);
        crate::repair::booleans_from_strings(&mut out);
        for def in done.values_mut() {
            crate::repair::numbers_from_strings(def);
            crate::repair::booleans_from_strings(def);
        }
        if !done.is_empty() {
            if let Value::Object(map) = &mut out {
                map.insert(
                    "$defs".to_owned(),
                    Value::Object(done.into_iter().collect()),
                );
            } else {
                out = serde_json::json!({ "allOf": [out], "$defs": done });
            }
        }
        Ok(out)
    }
}

struct Inliner<'r, 'a> {
    resolver: &'r Resolver<'a>,
    /// References being expanded right now, outermost first.
    stack: Vec<String>,
    /// References kept as `$defs` entries, with their names there.
    defs: BTreeMap<String, String>,
    /// Nodes that may still be inlined; at zero, references become `$defs` references.
    budget: usize,
    /// Nodes copied so far, inlined or into `$defs`.
    copied: usize,
    mode: Mode,
}

/// Which references the inliner copies in place.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// All but recursive ones, until the budget is spent.
    Whole,
    /// Those less than [`TOP_LEVELS`] deep.
    TopLevels,
    /// None: every reference becomes a `$defs` reference.
    Never,
}

impl Inliner<'_, '_> {
    fn inline(&mut self, value: &Value, at: &str) -> Result<Value> {
        self.budget = self.budget.saturating_sub(1);
        self.copied += 1;
        match value {
            Value::Object(map) => {
                if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                    return self.inline_ref(reference, map, at);
                }
                let mut out = Map::with_capacity(map.len());
                for (key, child) in map {
                    let child_at = format!("{at}/{}", pointer_escape(key));
                    let child = match child {
                        _ if DATA_KEYS.contains(&key.as_str()) => child.clone(),
                        // DigitalOcean makes a whole `properties` map a reference.
                        Value::Object(names)
                            if NAME_MAPS.contains(&key.as_str()) && !is_ref(names) =>
                        {
                            self.inline_names(names, &child_at)?
                        }
                        _ => self.inline(child, &child_at)?,
                    };
                    out.insert(key.clone(), child);
                }
                Ok(Value::Object(out))
            }
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| self.inline(item, &format!("{at}/{i}")))
                .collect::<Result<Vec<_>>>()
                .map(Value::Array),
            other => Ok(other.clone()),
        }
    }

    /// A map from names to schemas, each inlined whatever its name.
    fn inline_names(&mut self, names: &Map<String, Value>, at: &str) -> Result<Value> {
        let mut out = Map::with_capacity(names.len());
        for (name, schema) in names {
            let schema = self.inline(schema, &format!("{at}/{}", pointer_escape(name)))?;
            out.insert(name.clone(), schema);
        }
        Ok(Value::Object(out))
    }

    fn inline_ref(&mut self, reference: &str, map: &Map<String, Value>, at: &str) -> Result<Value> {
        // A chain of bare references that loops back on itself describes nothing.
        self.resolver.follow_chain(reference, at)?;
        let deep = match self.mode {
            Mode::Whole => self.budget == 0,
            Mode::TopLevels => self.stack.len() >= TOP_LEVELS,
            Mode::Never => true,
        };
        if deep || self.stack.iter().any(|r| r == reference) {
            let name = self.def_name(reference);
            return Ok(serde_json::json!({ "$ref": format!("#/$defs/{name}") }));
        }
        let target = self.resolver.lookup(reference, at)?;
        self.stack.push(reference.to_owned());
        let mut out = self.inline(target, reference);
        self.stack.pop();
        // OpenAPI 3.1 lets a description or other keywords stand beside `$ref`.
        if let (Ok(Value::Object(expanded)), true) = (&mut out, map.len() > 1) {
            for (key, value) in map.iter().filter(|(k, _)| k.as_str() != "$ref") {
                expanded.insert(key.clone(), value.clone());
            }
        }
        out
    }

    fn def_name(&mut self, reference: &str) -> String {
        if let Some(name) = self.defs.get(reference) {
            return name.clone();
        }
        let base = reference
            .rsplit('/')
            .next()
            .unwrap_or("def")
            .replace("~1", "_")
            .replace("~0", "_");
        let mut name = base.clone();
        let mut n = 2;
        while self.defs.values().any(|v| v == &name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.defs.insert(reference.to_owned(), name.clone());
        name
    }
}

/// Whether an object is a reference (a string `$ref`), not a map with a property named `$ref`.
fn is_ref(map: &Map<String, Value>) -> bool {
    matches!(map.get("$ref"), Some(Value::String(_)))
}

/// A definition past [`COPY_BUDGET`]: its target's type and title, and a
/// description saying where the full schema is.
fn stub(target: &Value, reference: &str) -> Value {
    let mut out = Map::new();
    for key in ["type", "title"] {
        if let Some(value) = target.get(key).filter(|v| v.is_string() || v.is_array()) {
            out.insert(key.to_owned(), value.clone());
        }
    }
    let note = format!("not expanded (the schema grew too large): see `{reference}` in the spec");
    let description = match target.get("description").and_then(Value::as_str) {
        Some(text) if !text.trim().is_empty() => format!("{} ({note})", text.trim()),
        _ => note,
    };
    out.insert("description".to_owned(), Value::String(description));
    Value::Object(out)
}

/// Merges `allOf` lists of plain object schemas into one schema: properties
/// and required lists are united, other keywords keep their first value.
/// An `allOf` holding a kept reference stays as it is.
pub(crate) fn merge_all_of(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut map: Map<String, Value> = map
                .into_iter()
                .map(|(k, v)| match v {
                    v if DATA_KEYS.contains(&k.as_str()) => (k, v),
                    Value::Object(names) if NAME_MAPS.contains(&k.as_str()) => {
                        let names = names
                            .into_iter()
                            .map(|(name, schema)| (name, merge_all_of(schema)))
                            .collect();
                        (k, Value::Object(names))
                    }
                    v => (k, merge_all_of(v)),
                })
                .collect();
            let mergeable = matches!(map.get("allOf"), Some(Value::Array(parts)) if parts.iter().all(|p| p.is_object() && p.get("$ref").is_none()));
            if mergeable && let Some(Value::Array(parts)) = map.remove("allOf") {
                for part in parts {
                    if let Value::Object(part) = part {
                        merge_into(&mut map, part);
                    }
                }
            }
            Value::Object(map)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(merge_all_of).collect()),
        other => other,
    }
}

fn merge_into(target: &mut Map<String, Value>, part: Map<String, Value>) {
    for (key, value) in part {
        match (key.as_str(), target.get_mut(&key), value) {
            ("properties", Some(Value::Object(existing)), Value::Object(new)) => {
                for (name, schema) in new {
                    existing.entry(name).or_insert(schema);
                }
            }
            ("required", Some(Value::Array(existing)), Value::Array(new)) => {
                for name in new {
                    if !existing.contains(&name) {
                        existing.push(name);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, value) => {
                target.insert(key, value);
            }
        }
    }
}

/// Decodes `%XX` escapes in a JSON pointer taken from a URI fragment.
pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn resolve(doc: &Value, schema: &Value) -> Result<Value> {
        Resolver::new(doc, Path::new("t.json")).schema(schema, "#/x")
    }

    #[test]
    fn plain_references_are_inlined() {
        let doc = json!({"components": {"schemas": {"Id": {"type": "integer"}}}});
        let out = resolve(
            &doc,
            &json!({"type": "object", "properties": {"id": {"$ref": "#/components/schemas/Id"}}}),
        )
        .unwrap();
        assert_eq!(out["properties"]["id"], json!({"type": "integer"}));
    }

    #[test]
    fn recursive_schemas_are_kept_as_defs() {
        let doc = json!({"components": {"schemas": {"Node": {"type": "object", "properties": {
            "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}}});
        let out = resolve(&doc, &json!({"$ref": "#/components/schemas/Node"})).unwrap();
        assert_eq!(
            out["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            out["$defs"]["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
    }

    #[test]
    fn a_reference_to_itself_is_an_error() {
        let doc = json!({"components": {"schemas": {"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}}}});
        let err = resolve(&doc, &json!({"$ref": "#/components/schemas/A"})).unwrap_err();
        assert!(err.to_string().contains("resolves only to itself"), "{err}");
    }

    #[test]
    fn dangling_references_name_the_pointer() {
        let err = resolve(&json!({}), &json!({"$ref": "#/components/schemas/Gone"})).unwrap_err();
        assert!(
            err.to_string()
                .contains("dangling $ref `#/components/schemas/Gone`"),
            "{err}"
        );
    }

    #[test]
    fn properties_named_like_data_keywords_are_schemas() {
        let doc = json!({"components": {"schemas": {"Id": {"type": "integer"},
            "Named": {"type": "object", "properties": {"name": {"type": "string"}}}}}});
        let out = resolve(
            &doc,
            &json!({"type": "object", "properties": {
                "default": {"$ref": "#/components/schemas/Id"},
                "example": {"allOf": [{"$ref": "#/components/schemas/Named"}, {"required": ["name"]}]}},
                "example": {"default": {"$ref": "#/components/schemas/Id"}}}),
        )
        .unwrap();
        assert_eq!(out["properties"]["default"], json!({"type": "integer"}));
        assert_eq!(
            out["properties"]["example"],
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})
        );
        assert_eq!(
            out["example"],
            json!({"default": {"$ref": "#/components/schemas/Id"}}),
            "an example is data, kept as written"
        );
    }

    #[test]
    fn all_of_merges_properties_and_required() {
        let doc = json!({"components": {"schemas": {"Base": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}}}});
        let out = resolve(
            &doc,
            &json!({"allOf": [{"$ref": "#/components/schemas/Base"},
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}]}),
        )
        .unwrap();
        assert_eq!(out["required"], json!(["id", "name"]));
        assert_eq!(out["properties"]["name"]["type"], "string");
        assert!(out.get("allOf").is_none());
    }
}
