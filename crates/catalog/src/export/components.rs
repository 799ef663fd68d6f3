//! Shared schemas of an exported OpenAPI document: a stored schema's `$defs`
//! (kept by the importer for recursive schemas) move to `components/schemas`
//! with their references rewritten, so they resolve inside the document; and a
//! schema used in several places is written once there and referred to, so the
//! export stays near the source's size instead of inlining every use.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Map, Value};

/// Object schemas smaller than this (in bytes of JSON) stay inline wherever they are used.
const SHARE_MIN_BYTES: usize = 200;

/// Prefix of a reference into a stored schema's own `$defs`.
const DEFS: &str = "#/$defs/";
/// Prefix of a reference into a draft-04 schema's own `definitions`.
const DEFINITIONS: &str = "#/definitions/";
/// Prefix of a reference into the document's shared schemas.
const COMPONENTS: &str = "#/components/schemas/";

/// The `components/schemas` of one exported document, filled as its schemas are placed.
#[derive(Default)]
pub(super) struct Components {
    schemas: Map<String, Value>,
    /// Each definition moved here, by its source name and source text (references still in
    /// the stored schema's own `#/$defs/` form), so the copy every API's schema carries of
    /// the same definition is written once.
    placed: HashMap<(String, String), Placed>,
}

/// Where a definition went, and where its direct references went then.
struct Placed {
    name: String,
    refs: BTreeMap<String, String>,
}

/// One definition of a stored schema, before it is placed.
struct SourceDef {
    name: String,
    def: Value,
    text: String,
    refs: BTreeSet<String>,
}

impl Components {
    /// Moves `schema`'s `$defs` into the components (one name per distinct definition) and
    /// points its `#/$defs/...` references there.
    pub(super) fn take_defs(&mut self, schema: &mut Value) {
        // Draft-04 schemas (quicktype's, in RapidAPI tool files) keep them in `definitions`.
        for (key, prefix) in [("$defs", DEFS), ("definitions", DEFINITIONS)] {
            self.take_named(schema, key, prefix);
        }
    }

    fn take_named(&mut self, schema: &mut Value, key: &str, prefix: &str) {
        let Some(Value::Object(defs)) = schema.as_object_mut().and_then(|m| m.remove(key)) else {
            return;
        };
        let sources: Vec<SourceDef> = defs
            .into_iter()
            .map(|(name, def)| SourceDef {
                text: def.to_string(),
                refs: direct_refs(&def, prefix),
                name,
                def,
            })
            .collect();
        let mut renamed = self.reusable(&sources);
        let fresh: Vec<&SourceDef> = sources
            .iter()
            .filter(|s| !renamed.contains_key(&s.name))
            .collect();
        for source in &fresh {
            let final_name = self.free_name(&source.name, &source.def);
            renamed.insert(source.name.clone(), final_name);
        }
        rewrite_refs(schema, prefix, &renamed);
        for source in fresh {
            let mut def = source.def.clone();
            rewrite_refs(&mut def, prefix, &renamed);
            let name = renamed.get(&source.name).cloned().unwrap_or_default();
            let refs = source
                .refs
                .iter()
                .filter_map(|r| renamed.get(r).map(|n| (r.clone(), n.clone())))
                .collect();
            self.schemas.insert(name.clone(), def);
            self.placed.insert(
                (source.name.clone(), source.text.clone()),
                Placed { name, refs },
            );
        }
    }

    /// The definitions of `sources` already placed from an identical copy, by source name:
    /// those whose text matches a placed one and whose references all lead, in turn, to
    /// definitions reused the same way (checked to a fixed point, so a changed definition
    /// anywhere below makes everything that refers to it a new component).
    fn reusable(&self, sources: &[SourceDef]) -> HashMap<String, String> {
        let mut reused: HashMap<&str, (&SourceDef, &Placed)> = sources
            .iter()
            .filter_map(|s| {
                let placed = self.placed.get(&(s.name.clone(), s.text.clone()))?;
                Some((s.name.as_str(), (s, placed)))
            })
            .collect();
        loop {
            let broken: Vec<&str> = reused
                .iter()
                .filter(|(_, (source, placed))| {
                    source
                        .refs
                        .iter()
                        .any(|r| reused.get(r.as_str()).map(|(_, p)| &p.name) != placed.refs.get(r))
                })
                .map(|(name, _)| *name)
                .collect();
            if broken.is_empty() {
                break;
            }
            for name in broken {
                reused.remove(name);
            }
        }
        reused
            .into_iter()
            .map(|(name, (_, placed))| (name.to_owned(), placed.name.clone()))
            .collect()
    }

    /// A name for `def` under `components/schemas`: `name` itself when free or already
    /// holding the same schema, else `name_2`, `name_3`...
    fn free_name(&self, name: &str, def: &Value) -> String {
        // OpenAPI allows only `[a-zA-Z0-9._-]` in component names.
        let name: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let name = if name.is_empty() {
            "Schema"
        } else {
            name.as_str()
        };
        let mut candidate = name.to_owned();
        let mut n = 1;
        while let Some(existing) = self.schemas.get(&candidate) {
            if existing == def {
                break;
            }
            n += 1;
            candidate = format!("{name}_{n}");
        }
        candidate
    }

    /// Writes object schemas that occur more than once across `schemas` (each a schema of
    /// the document, by mutable reference) once under `components/schemas`, named by their
    /// `title` or the property they first stand for, and refers to them. Returns how many.
    pub(super) fn share_repeats(&mut self, schemas: &mut [&mut Value]) -> usize {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for schema in schemas.iter() {
            count_objects(schema, &mut counts);
        }
        let repeated: HashMap<String, usize> = counts
            .into_iter()
            .filter(|(text, n)| *n > 1 && text.len() >= SHARE_MIN_BYTES)
            .collect();
        if repeated.is_empty() {
            return 0;
        }
        let mut names: BTreeMap<String, String> = BTreeMap::new();
        for schema in schemas.iter_mut() {
            self.replace_repeats(schema, &repeated, &mut names, "Schema");
        }
        names.len()
    }

    /// Replaces, outermost first, each repeated object schema inside `value` by a
    /// reference to its shared copy.
    fn replace_repeats(
        &mut self,
        value: &mut Value,
        repeated: &HashMap<String, usize>,
        names: &mut BTreeMap<String, String>,
        hint: &str,
    ) {
        if let Value::Object(map) = value
            && is_object_schema(map)
        {
            let text = value.to_string();
            if repeated.contains_key(&text) {
                let name = match names.get(&text) {
                    Some(name) => name.clone(),
                    None => {
                        let base = value
                            .get("title")
                            .and_then(Value::as_str)
                            .map(crate::names::slug)
                            .filter(|s| !s.is_empty())
                            .unwrap_or_else(|| hint.to_owned());
                        let name = self.free_name(&base, value);
                        self.schemas.insert(name.clone(), value.clone());
                        names.insert(text, name.clone());
                        name
                    }
                };
                *value = serde_json::json!({ "$ref": format!("{COMPONENTS}{name}") });
                return;
            }
        }
        match value {
            Value::Object(map) => {
                let in_properties = map.contains_key("properties");
                for (key, child) in map.iter_mut() {
                    if matches!(
                        key.as_str(),
                        "example" | "examples" | "enum" | "default" | "const"
                    ) {
                        continue;
                    }
                    if key == "properties"
                        && in_properties
                        && let Value::Object(props) = child
                    {
                        for (prop, schema) in props.iter_mut() {
                            self.replace_repeats(schema, repeated, names, prop);
                        }
                        continue;
                    }
                    let hint = if key == "items" { hint } else { key.as_str() };
                    self.replace_repeats(child, repeated, names, hint);
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.replace_repeats(item, repeated, names, hint);
                }
            }
            _ => {}
        }
    }

    /// The `components/schemas` object, when there is any.
    pub(super) fn into_value(self) -> Option<Value> {
        (!self.schemas.is_empty()).then_some(Value::Object(self.schemas))
    }
}

/// Replaces each local `$ref` of `doc` that resolves nowhere (the source's own dangling
/// references) by an open schema, keeping its sibling keywords. Returns the references.
pub(super) fn drop_dangling(doc: &mut Value) -> Vec<String> {
    let mut dangling = Vec::new();
    let snapshot = doc.clone();
    drop_in(doc, &snapshot, &mut dangling);
    dangling
}

fn drop_in(value: &mut Value, doc: &Value, dangling: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            let broken = match map.get("$ref") {
                Some(Value::String(r)) => r
                    .strip_prefix('#')
                    .is_some_and(|pointer| doc.pointer(pointer).is_none()),
                _ => false,
            };
            if broken && let Some(Value::String(r)) = map.remove("$ref") {
                dangling.push(r);
            }
            for (key, child) in map.iter_mut() {
                if !matches!(
                    key.as_str(),
                    "example" | "examples" | "enum" | "default" | "const"
                ) {
                    drop_in(child, doc, dangling);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| drop_in(i, doc, dangling)),
        _ => {}
    }
}

/// Whether an object is a schema with properties (the only kind worth sharing).
fn is_object_schema(map: &Map<String, Value>) -> bool {
    map.get("properties").is_some_and(Value::is_object)
}

/// Counts each object schema with properties by its JSON text; one occurrence inside
/// another repeated one still counts, so the outer is shared first.
fn count_objects(value: &Value, counts: &mut HashMap<String, usize>) {
    match value {
        Value::Object(map) => {
            if is_object_schema(map) {
                *counts.entry(value.to_string()).or_default() += 1;
            }
            for (key, child) in map {
                if !matches!(
                    key.as_str(),
                    "example" | "examples" | "enum" | "default" | "const"
                ) {
                    count_objects(child, counts);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| count_objects(item, counts)),
        _ => {}
    }
}

/// The names of the definitions `value` refers to directly (`{prefix}NAME...`).
fn direct_refs(value: &Value, prefix: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    collect_refs(value, prefix, &mut names);
    names
}

fn collect_refs(value: &Value, prefix: &str, names: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref")
                && let Some(rest) = reference.strip_prefix(prefix)
            {
                let name = rest.split_once('/').map_or(rest, |(n, _)| n);
                names.insert(name.replace("~1", "/").replace("~0", "~"));
            }
            map.values()
                .for_each(|child| collect_refs(child, prefix, names));
        }
        Value::Array(items) => items.iter().for_each(|i| collect_refs(i, prefix, names)),
        _ => {}
    }
}

/// Points `{prefix}NAME...` references at `#/components/schemas/RENAMED...`.
fn rewrite_refs(value: &mut Value, prefix: &str, renamed: &HashMap<String, String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(rest) = reference.strip_prefix(prefix)
            {
                let (name, tail) = rest.split_once('/').map_or((rest, ""), |(n, t)| (n, t));
                let name = name.replace("~1", "/").replace("~0", "~");
                if let Some(new) = renamed.get(&name) {
                    let tail = if tail.is_empty() {
                        String::new()
                    } else {
                        format!("/{tail}")
                    };
                    *reference = format!(
                        "{COMPONENTS}{}{tail}",
                        new.replace('~', "~0").replace('/', "~1")
                    );
                }
            }
            for child in map.values_mut() {
                rewrite_refs(child, prefix, renamed);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| rewrite_refs(item, prefix, renamed)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn defs_move_to_components_and_references_follow() {
        let mut components = Components::default();
        let mut schema = json!({"type": "object", "properties": {"kids": {"type": "array",
            "items": {"$ref": "#/$defs/Node"}}},
            "$defs": {"Node": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/Node"}}}}}});
        components.take_defs(&mut schema);
        assert!(schema.get("$defs").is_none());
        assert_eq!(
            schema["properties"]["kids"]["items"]["$ref"],
            "#/components/schemas/Node"
        );
        let mut other = json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "string"}}});
        components.take_defs(&mut other);
        assert_eq!(other["$ref"], "#/components/schemas/Node_2");
        let value = components.into_value().unwrap();
        assert_eq!(
            value["Node"]["properties"]["kids"]["items"]["$ref"],
            "#/components/schemas/Node"
        );
        assert_eq!(value["Node_2"]["type"], "string");
    }

    /// A recursive `Node` whose `Leaf` is given: the stored schema of one API.
    fn tree(leaf: Value) -> Value {
        json!({"$ref": "#/$defs/Node", "$defs": {
            "Node": {"type": "object", "properties": {
                "kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                "leaf": {"$ref": "#/$defs/Leaf"}}},
            "Leaf": leaf}})
    }

    #[test]
    fn the_same_recursive_defs_in_many_schemas_are_written_once() {
        let mut components = Components::default();
        let leaf = json!({"type": "object", "properties": {"id": {"type": "string"}}});
        let mut refs = Vec::new();
        for _ in 0..3 {
            let mut schema = tree(leaf.clone());
            components.take_defs(&mut schema);
            refs.push(schema["$ref"].clone());
        }
        assert!(
            refs.iter().all(|r| r == "#/components/schemas/Node"),
            "{refs:?}"
        );
        let value = components.into_value().unwrap();
        let mut names: Vec<&String> = value.as_object().unwrap().keys().collect();
        names.sort();
        assert_eq!(names, ["Leaf", "Node"]);
    }

    #[test]
    fn a_changed_def_below_makes_a_new_component_of_what_refers_to_it() {
        let mut components = Components::default();
        let mut first = tree(json!({"type": "string"}));
        components.take_defs(&mut first);
        let mut second = tree(json!({"type": "integer"}));
        components.take_defs(&mut second);
        assert_eq!(second["$ref"], "#/components/schemas/Node_2");
        let value = components.into_value().unwrap();
        assert_eq!(
            value["Node_2"]["properties"]["leaf"]["$ref"],
            "#/components/schemas/Leaf_2"
        );
        assert_eq!(value["Leaf_2"]["type"], "integer");
        assert_eq!(
            value["Node"]["properties"]["leaf"]["$ref"],
            "#/components/schemas/Leaf"
        );
    }
}
