//! Synthesis of one JSON value from a JSON Schema, deterministic in a seed.
//!
//! Consistency across calls comes from how seeds are derived:
//! - the call's seed is a hash of the API id and the canonical arguments;
//! - an object with an `id` property is an *entity*: its id comes first (the
//!   path parameter's value at the top level, else drawn from the call's
//!   seed), and every other field's seed is a hash of the id and the field's
//!   name. So movie 42 has the same release date in a search result and in
//!   its detail, whatever else either schema holds;
//! - a field named like an argument echoes the argument, and the name or
//!   title of a search result contains the search term;
//! - values come from the tool's examples per entity type (the schema path
//!   and field name tell a company from a person), and an entity takes all
//!   its example fields from one example record (a film's title, original
//!   title and overview belong together), but its dates, drawn for it (`dates`);
//! - the labels an entity was shown with are remembered (see [`Labels`]),
//!   so the detail of a company found by a search carries that name.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Map, Number, Value};

use super::count;
use super::dates;
use super::filler::WORDS;
use super::idshape::{self, IdShape, UriShape};
use super::limits::Limits;
use super::listed::{self, Listed};
use super::magnitude;
use super::neutral::Examples;
use super::pattern;
use super::prose;
use super::request::{self, Request};
use super::rng::{Rng, child_seed};
use crate::canonical::{canonical_json, stable_hash};
use crate::paging_fields::{OFFSET_FIELDS, PAGE_FIELDS, SIZE_FIELDS};

/// Arguments that carry a search term.
const TERM_ARGS: &[&str] = &[
    "query",
    "q",
    "search",
    "keyword",
    "keywords",
    "term",
    "search_term",
    "text",
    "name",
    "title",
];

/// Fields that label an entity and so should contain the search term.
const LABEL_FIELDS: &[&str] = &[
    "title",
    "name",
    "original_title",
    "original_name",
    "full_name",
    "display_name",
    "label",
];

/// Fields that count every result, on all pages: the shared
/// [`crate::paging_fields::TOTAL_FIELDS`] and the spellings a drawn page may also use
/// (`total_items`, `totalResults`), which the simulator's settling of pages leaves alone.
const TOTAL_FIELDS: &[&str] = &[
    "total",
    "total_results",
    "total_count",
    "total_items",
    "totalResults",
    "totalCount",
];

/// Whether an object's properties (of a schema, or of a draft drawn from it) make it
/// a page of a longer list: a total, and a page number, offset, page size or link
/// to the next page.
pub(crate) fn is_page(props: &Map<String, Value>) -> bool {
    let has = |keys: &[&str]| keys.iter().any(|k| props.contains_key(*k));
    has(TOTAL_FIELDS)
        && (has(PAGE_FIELDS)
            || has(OFFSET_FIELDS)
            || has(SIZE_FIELDS)
            || has(&["total_pages", "next"]))
}

/// The number of items on the call's own page in a draft: the list of the root when
/// it is a page (see [`is_page`]), else of the first page among the root's fields (a
/// search's `tracks`); `None` when the draft holds no page.
pub(crate) fn own_page_len(draft: &Value) -> Option<usize> {
    let Value::Object(root) = draft else {
        return None;
    };
    let page = Some(root).filter(|r| is_page(r)).or_else(|| {
        root.values()
            .filter_map(Value::as_object)
            .find(|inner| is_page(inner))
    })?;
    page.values().find_map(Value::as_array).map(Vec::len)
}

/// Properties beside a wrapped entity that are not an entity themselves.
const WRAPPER_METAS: &[&str] = &["links", "_links", "meta", "pagination", "paging"];

/// Most entities whose labels a simulator remembers.
const MAX_LABELS: usize = 200_000;

/// The labels (name-like fields) each entity was shown with, by entity type
/// and canonical id.
#[derive(Debug, Default)]
pub(crate) struct Labels(HashMap<(String, String), Map<String, Value>>);

/// Context of one synthesis: the schema's root (for `$ref`), the call's
/// arguments, and example values by field name.
pub(crate) struct Synth<'a> {
    root: &'a Value,
    args: &'a Map<String, Value>,
    term: Option<&'a str>,
    path_id: Option<&'a Value>,
    pool: &'a Pool,
    limits: &'a Limits,
    request: &'a Request,
    labels: &'a Mutex<Labels>,
    /// Entity types of the objects being built, innermost last.
    entities: RefCell<Vec<String>>,
    /// Whether each object being built is at the level of the call's
    /// arguments (the root, or the one object a root wraps), innermost last:
    /// only there does a field named like an argument echo it.
    echo: RefCell<Vec<bool>>,
    /// The key of the one object the root wraps (`{"droplet": {...}}`).
    wrapper: RefCell<Option<String>>,
    /// Whether each object being built is an entity the call is about (the
    /// root, the object it wraps, the items of a list in either), whose
    /// labels take the search term; a sub-object (a droplet's kernel, a
    /// film's genre) is not. Innermost last.
    labelled: RefCell<Vec<bool>>,
    /// How many lists the value being built sits in: a page inside a list item (an
    /// album's `tracks` in a page of albums) is no page of the call's.
    lists: std::cell::Cell<usize>,
    /// The simulated world's date, before which the user's acts fall (see `dates`).
    today: jiff::civil::Date,
}

/// Example values gathered from every example of a tool, so that every API
/// of the tool draws from the same values: by entity type and field name,
/// by field name alone, and whole records (the scalar fields of one example
/// entity) by entity type.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pool {
    by_field: HashMap<String, Vec<Value>>,
    by_entity: HashMap<(String, String), Vec<Value>>,
    records: HashMap<String, Vec<Map<String, Value>>>,
    /// Example ids of the whole tool (from response examples and the schemas'
    /// `example`s), for the shape of ids no example of their own shows.
    ids: Vec<String>,
    /// Every text of the tool's examples, which a fill's draft shows as placeholders.
    examples: Examples,
    /// The items of the examples' lists of plain values, by field (see `listed`).
    listed: Listed,
    /// The texts and numbers the schemas' properties give as their `example`, by field name.
    documented: HashMap<String, Vec<Value>>,
}

/// Most values or records kept per slot.
const POOL_SLOT: usize = 64;

impl Pool {
    /// Adds the values of one example of an API whose response is about
    /// `entity`, at `path`.
    pub(crate) fn add_example(&mut self, example: &Value, entity: &str, path: &str) {
        self.examples.add_example(example);
        match example {
            Value::Object(map) => self.add_object(map, entity, entity, path, 0),
            Value::Array(items) => {
                for item in items.iter().take(32) {
                    if let Value::Object(map) = item {
                        self.add_object(map, entity, entity, path, 0);
                    }
                }
            }
            _ => {}
        }
    }

    fn add_object(
        &mut self,
        map: &Map<String, Value>,
        entity: &str,
        top: &str,
        path: &str,
        depth: usize,
    ) {
        if depth > 12 {
            return;
        }
        let mut record = Map::new();
        for (key, value) in map {
            match value {
                Value::Object(sub) => {
                    let kind = request::entity_of(Some(key), top, path);
                    self.add_object(sub, &kind, top, path, depth + 1);
                }
                Value::Array(items) if items.iter().any(|i| i.is_object() || i.is_array()) => {
                    let kind = request::entity_of(Some(key), top, path);
                    for item in items.iter().take(32) {
                        if let Value::Object(sub) = item {
                            self.add_object(sub, &kind, top, path, depth + 1);
                        }
                    }
                }
                Value::Null => {}
                Value::Array(items) if items.is_empty() => {}
                scalar => {
                    if let Some(id) = scalar.as_str().filter(|_| idshape::names_id(key)) {
                        self.add_id(id);
                    }
                    if let Value::Array(items) = scalar {
                        self.listed.add(key, items);
                    }
                    record.insert(key.clone(), scalar.clone());
                    push_unique(self.by_field.entry(key.clone()).or_default(), scalar);
                    push_unique(
                        self.by_entity
                            .entry((entity.to_owned(), key.clone()))
                            .or_default(),
                        scalar,
                    );
                }
            }
        }
        let is_entity = map.contains_key("id") || LABEL_FIELDS.iter().any(|l| map.contains_key(*l));
        if is_entity && !record.is_empty() {
            let slot = self.records.entry(entity.to_owned()).or_default();
            let same_id =
                |r: &Map<String, Value>| map.get("id").is_some() && r.get("id") == map.get("id");
            if slot.len() < POOL_SLOT && !slot.iter().any(same_id) {
                slot.push(record);
            }
        }
    }

    /// Adds the `example`s anywhere in a response schema: of id fields to the tool's
    /// example ids, of lists of plain values to the items listed, of texts and numbers to those
    /// documented by field, and all of them to its example texts.
    pub(crate) fn add_schema_examples(&mut self, schema: &Value) {
        self.examples.add_schema(schema);
        let mut stack = vec![(schema, 0usize)];
        while let Some((node, depth)) = stack.pop() {
            if depth > 64 {
                continue;
            }
            match node {
                Value::Object(map) => {
                    if let Some(Value::Object(props)) = map.get("properties") {
                        for (key, sub) in props {
                            match sub.get("example") {
                                Some(Value::String(text)) if idshape::names_id(key) => {
                                    self.add_id(text);
                                }
                                Some(plain @ (Value::String(_) | Value::Number(_))) => {
                                    push_unique(
                                        self.documented.entry(key.clone()).or_default(),
                                        plain,
                                    );
                                }
                                Some(Value::Array(items)) => self.listed.add(key, items),
                                _ => {}
                            }
                        }
                    }
                    stack.extend(map.values().map(|v| (v, depth + 1)));
                }
                Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
                _ => {}
            }
        }
    }

    /// The texts of the tool's examples.
    pub(crate) fn examples(&self) -> &Examples {
        &self.examples
    }

    fn add_id(&mut self, id: &str) {
        if self.ids.len() < idshape::MAX_SAMPLES && !self.ids.iter().any(|known| known == id) {
            self.ids.push(id.to_owned());
        }
    }

    /// Values for a field: of its entity type, else (not for labels,
    /// which would mix a person's name into a company) of any entity.
    fn values(&self, entity: &str, name: &str) -> Option<&Vec<Value>> {
        self.by_entity
            .get(&(entity.to_owned(), name.to_owned()))
            .or_else(|| {
                (!LABEL_FIELDS.contains(&name.to_ascii_lowercase().as_str()))
                    .then(|| self.by_field.get(name))
                    .flatten()
            })
    }

    /// What the items of a list of plain values under `field` are drawn from (see `listed`):
    /// the ids the examples give things of the kind it lists the ids of, and the items the
    /// examples list under it; with the length of the examples' longest such list.
    fn list_choices(&self, field: &str) -> (Vec<&Value>, Option<usize>) {
        let mut choices: Vec<&Value> = Vec::new();
        if let Some(kind) = listed::kind_of_ids(field) {
            let ids = self.by_entity.get(&(kind, "id".to_owned()));
            choices.extend(ids.into_iter().flatten());
        }
        let (items, longest) = self.listed.of(field);
        for item in items {
            if !choices.contains(&item) {
                choices.push(item);
            }
        }
        (choices, longest)
    }

    /// The values the tool's examples give a field named `field`, in its responses'
    /// examples and its schemas'.
    fn values_of(&self, field: &str) -> impl Iterator<Item = &Value> + '_ {
        let documented = self.documented.get(field).into_iter().flatten();
        self.by_field
            .get(field)
            .into_iter()
            .flatten()
            .chain(documented)
    }

    /// The texts the tool's examples give a field named `field` ([`Self::values_of`]).
    fn texts_of(&self, field: &str) -> Vec<&str> {
        self.values_of(field).filter_map(Value::as_str).collect()
    }

    /// The numbers the tool's examples give a field named `field` ([`Self::values_of`];
    /// see `magnitude`).
    fn numbers_of(&self, field: &str) -> impl Iterator<Item = f64> + '_ {
        self.values_of(field).filter_map(Value::as_f64)
    }

    /// One example record of the entity type, chosen by `seed`.
    fn record(&self, entity: &str, seed: u64) -> Option<&Map<String, Value>> {
        let records = self.records.get(entity)?;
        let mut rng = Rng::new(seed ^ 0x007e_c04d);
        records.get(rng.index(records.len()))
    }
}

fn push_unique(slot: &mut Vec<Value>, value: &Value) {
    if slot.len() < POOL_SLOT && !slot.contains(value) {
        slot.push(value.clone());
    }
}

impl<'a> Synth<'a> {
    pub(crate) fn new(
        root: &'a Value,
        args: &'a Map<String, Value>,
        path_id: Option<&'a Value>,
        pool: &'a Pool,
        limits: &'a Limits,
        request: &'a Request,
        labels: &'a Mutex<Labels>,
    ) -> Self {
        let term = TERM_ARGS
            .iter()
            .find_map(|name| args.get(*name).and_then(Value::as_str))
            .filter(|t| !t.trim().is_empty());
        Self {
            root,
            args,
            term,
            path_id,
            pool,
            limits,
            request,
            labels,
            entities: RefCell::new(vec![request.entity.clone()]),
            echo: RefCell::new(vec![true]),
            wrapper: RefCell::new(None),
            labelled: RefCell::new(vec![true]),
            lists: std::cell::Cell::new(0),
            today: super::today::utc_today(),
        }
    }

    /// The synthesis on the simulated world's date `today` (the real date by default).
    pub(crate) fn on(mut self, today: jiff::civil::Date) -> Self {
        self.today = today;
        self
    }

    /// Whether the object being built takes the search term in its labels.
    fn at_term_level(&self) -> bool {
        self.labelled.borrow().last().copied().unwrap_or(false)
    }

    /// The argument a field named `name` echoes: only at the arguments'
    /// level, so `name` fills `droplet.name` but not `droplet.kernel.name`.
    fn arg(&self, name: Option<&str>) -> Option<&'a Value> {
        let at_level = self.echo.borrow().last().copied().unwrap_or(false);
        at_level.then(|| self.args.get(name?)).flatten()
    }

    /// The entity type of the object being built.
    fn entity(&self) -> String {
        self.entities.borrow().last().cloned().unwrap_or_default()
    }

    /// Synthesizes the value of `schema` (the root when called from outside).
    pub(crate) fn value(&self, schema: &Value, seed: u64) -> Value {
        self.node(schema, None, seed, 0, None)
    }

    fn resolve<'s>(&'s self, schema: &'s Value) -> &'s Value
    where
        'a: 's,
    {
        resolve(self.root, schema)
    }

    fn node(
        &self,
        schema: &Value,
        name: Option<&str>,
        seed: u64,
        depth: usize,
        item: Option<usize>,
    ) -> Value {
        let schema = self.resolve(schema);
        if let Some(constant) = schema.get("const") {
            return constant.clone();
        }
        if let Some(choices) = schema
            .get("enum")
            .and_then(Value::as_array)
            .filter(|c| !c.is_empty())
        {
            let echoed = self.arg(name).filter(|v| choices.contains(v));
            if let Some(v) = echoed {
                return v.clone();
            }
            let mut rng = Rng::new(seed);
            return choices
                .get(rng.index(choices.len()))
                .cloned()
                .unwrap_or(Value::Null);
        }
        if let Some(value) = schema
            .get("oneOf")
            .and_then(Value::as_array)
            .and_then(|alts| self.one_of(alts, name, seed, depth, item))
        {
            return value;
        }
        if let Some(first) = schema
            .get("anyOf")
            .and_then(Value::as_array)
            .and_then(|alts| alts.iter().find(|alt| !is_null_schema(self.resolve(alt))))
        {
            return self.node(first, name, seed, depth, item);
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            let merged = self.merge_all_of(schema, parts);
            return self.node(&merged, name, seed, depth, item);
        }
        match schema_type(schema) {
            Some("object") => self.object(schema, name, seed, depth, item),
            Some("array") => self.array(schema, name, seed, depth),
            Some("string") => Value::String(self.string(schema, name, seed, item)),
            Some("integer") => self.integer(schema, name, seed),
            Some("number") => self.number(schema, name, seed),
            Some("boolean") => self.boolean(name, seed),
            Some("null") => Value::Null,
            _ => self.untyped(name, seed),
        }
    }

    /// A value that matches exactly one alternative by type (an integer
    /// matches both `integer` and `number`, so `oneOf` of the two needs a
    /// fraction). Tries each alternative with a few seeds.
    fn one_of(
        &self,
        alts: &[Value],
        name: Option<&str>,
        seed: u64,
        depth: usize,
        item: Option<usize>,
    ) -> Option<Value> {
        let candidates: Vec<&Value> = alts
            .iter()
            .filter(|a| !is_null_schema(self.resolve(a)))
            .collect();
        // The alternative the call's arguments name: `GET /me/top/{type}` with
        // `type = "tracks"` answers tracks, not the first alternative (artists).
        if let Some(named) = candidates.iter().find(|alt| self.named_by_args(alt)) {
            return Some(self.node(named, name, seed, depth, item));
        }
        for round in 0..4u64 {
            for alt in &candidates {
                let value = self.node(alt, name, seed.wrapping_add(round), depth, item);
                let matching = candidates
                    .iter()
                    .filter(|other| self.shallow_matches(self.resolve(other), &value))
                    .count();
                if matching == 1 {
                    return Some(value);
                }
            }
        }
        // No value told the alternatives apart: a fraction for
        // integer-or-number, else the first alternative.
        let number = candidates
            .iter()
            .any(|a| schema_type(self.resolve(a)) == Some("number"));
        let mut rng = Rng::new(seed);
        if number {
            let tenths = f64::from(i32::try_from(rng.range(0, 99)).unwrap_or(0));
            return Number::from_f64(tenths / 10.0 + 0.05).map(Value::Number);
        }
        candidates
            .first()
            .map(|alt| self.node(alt, name, seed, depth, item))
    }

    /// Whether a string argument of the call names `alt`: equals (ignoring case and a plural
    /// `s`) its `type` property's const or single enum value, its title, or its `$ref` name.
    fn named_by_args(&self, alt: &Value) -> bool {
        let norm = |s: &str| {
            let s = s.trim().to_ascii_lowercase();
            s.strip_suffix('s').map(str::to_owned).unwrap_or(s)
        };
        let resolved = self.resolve(alt);
        let kind = resolved.pointer("/properties/type");
        let mut names: Vec<String> = Vec::new();
        if let Some(c) = kind.and_then(|t| t.get("const")).and_then(Value::as_str) {
            names.push(norm(c));
        }
        if let Some([only]) = kind
            .and_then(|t| t.get("enum"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            names.extend(only.as_str().map(norm));
        }
        names.extend(resolved.get("title").and_then(Value::as_str).map(norm));
        names.extend(
            alt.get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.rsplit('/').next())
                .map(|n| norm(n.trim_end_matches("Object"))),
        );
        !names.is_empty()
            && self
                .args
                .values()
                .filter_map(Value::as_str)
                .any(|v| names.contains(&norm(v)))
    }

    /// Whether `value` fits `schema` by type, and for objects by required
    /// properties and the enums, consts and types of its properties: enough
    /// to tell the alternatives of a `oneOf` apart by a discriminator.
    fn shallow_matches(&self, schema: &Value, value: &Value) -> bool {
        if !type_matches(schema, value) {
            return false;
        }
        if let Some(choices) = schema.get("enum").and_then(Value::as_array) {
            return choices.contains(value);
        }
        if let Some(constant) = schema.get("const") {
            return constant == value;
        }
        let Value::Object(map) = value else {
            return true;
        };
        let required_ok = schema
            .get("required")
            .and_then(Value::as_array)
            .is_none_or(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .all(|k| map.contains_key(k))
            });
        let props = schema.get("properties").and_then(Value::as_object);
        required_ok
            && map.iter().all(|(k, v)| {
                props.and_then(|p| p.get(k)).is_none_or(|sub| {
                    let sub = self.resolve(sub);
                    let enum_ok = sub
                        .get("enum")
                        .and_then(Value::as_array)
                        .is_none_or(|choices| choices.contains(v));
                    let const_ok = sub.get("const").is_none_or(|c| c == v);
                    enum_ok && const_ok && type_matches(sub, v)
                })
            })
    }

    /// One schema from the parts of an `allOf` (and the schema's own
    /// keywords): properties and required lists are united, other keywords
    /// (enum, format, bounds) taken from the first part that has them.
    fn merge_all_of(&self, schema: &Value, parts: &[Value]) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        let mut merged = Map::new();
        let own = std::iter::once(schema);
        for part in own.chain(parts.iter().map(|p| self.resolve(p))) {
            let Some(map) = part.as_object() else {
                continue;
            };
            for (key, value) in map {
                match key.as_str() {
                    "properties" => {
                        if let Some(props) = value.as_object() {
                            properties.extend(props.iter().map(|(k, v)| (k.clone(), v.clone())));
                        }
                    }
                    "required" => {
                        if let Some(req) = value.as_array() {
                            required.extend(req.iter().cloned());
                        }
                    }
                    "allOf" | "$ref" => {}
                    _ => {
                        merged.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                }
            }
        }
        if !properties.is_empty() {
            merged
                .entry("type")
                .or_insert_with(|| Value::String("object".to_owned()));
            merged.insert("properties".to_owned(), Value::Object(properties));
        }
        if !required.is_empty() {
            merged.insert("required".to_owned(), Value::Array(required));
        }
        Value::Object(merged)
    }

    fn object(
        &self,
        schema: &Value,
        name: Option<&str>,
        seed: u64,
        depth: usize,
        item: Option<usize>,
    ) -> Value {
        let entity = if depth == 0 {
            self.request.entity.clone()
        } else {
            request::entity_of(name, &self.request.entity, &self.request.path)
        };
        let at_level = match depth {
            0 => {
                *self.wrapper.borrow_mut() = self.wrapped_key(schema);
                true
            }
            1 => name.is_some() && self.wrapper.borrow().as_deref() == name,
            _ => false,
        };
        // Lists push no level: the innermost level is the list's owner.
        let owner_at_level = self.echo.borrow().last().copied().unwrap_or(false);
        let takes_term = at_level || (item.is_some() && owner_at_level);
        self.entities.borrow_mut().push(entity.clone());
        self.echo.borrow_mut().push(at_level);
        self.labelled.borrow_mut().push(takes_term);
        let value = self.object_of(schema, &entity, seed, depth, item);
        self.labelled.borrow_mut().pop();
        self.echo.borrow_mut().pop();
        self.entities.borrow_mut().pop();
        value
    }

    /// The key of the one object-valued property of a root object without
    /// an id of its own (its other properties scalars, lists or links): the
    /// entity the root wraps.
    fn wrapped_key(&self, schema: &Value) -> Option<String> {
        let props = schema
            .get("properties")
            .and_then(Value::as_object)
            .filter(|p| !p.contains_key("id"))?;
        let mut objects = props.iter().filter(|(key, sub)| {
            !WRAPPER_METAS.contains(&key.as_str())
                && schema_type(self.resolve(sub)) == Some("object")
        });
        let (key, _) = objects.next()?;
        objects.next().is_none().then(|| key.clone())
    }

    /// An object drawn from its schema for `entity`: its own `id` first (which picks the
    /// entity's record, if the pool has one), then each property, the list of a page drawn
    /// to the call's page, then its page numbers, its own id carried into its other keys,
    /// and its labels remembered.
    fn object_of(
        &self,
        schema: &Value,
        entity: &str,
        seed: u64,
        depth: usize,
        item: Option<usize>,
    ) -> Value {
        let empty = Map::new();
        let props = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        let (seed, record) = self.identify(props, entity, seed, depth, &mut out);
        let paged = depth <= 2 && self.lists.get() == 0 && is_page(props);
        let sized = depth == 0 && !paged && self.request.shown.is_some();
        let own_list = (paged || sized).then(|| self.own_list_key(props)).flatten();
        let mut list_done = false;
        let mut filtered = false;
        let deep = depth >= self.limits.max_depth;
        for (key, sub) in props {
            if key == "id" || (deep && !required.contains(&key.as_str())) {
                continue;
            }
            let own = own_list.is_none_or(|k| k == key.as_str());
            let (key, sub) = match self.named(key, sub, depth, props, &required) {
                Some(named) => named,
                None => continue,
            };
            let sub = self.typed_by_twin(&key, sub, props);
            let resolved = self.resolve(&sub);
            if (paged || sized) && own && !list_done && schema_type(resolved) == Some("array") {
                list_done = true;
                let (value, by_filters) = self.own_list(resolved, &key, seed, depth, paged);
                filtered = by_filters;
                out.insert(key, value);
                continue;
            }
            let value = self.property(record, &key, &sub, seed, depth, item);
            out.insert(key, value);
        }
        self.settle_object(&mut out, props, entity, paged, filtered);
        Value::Object(out)
    }

    /// Of the lists among an object's properties, the one the call's page or count sizes
    /// (see [`count::sized_list`]): the one the count names, else of the API's kind.
    fn own_list_key<'p>(&self, props: &'p Map<String, Value>) -> Option<&'p str> {
        let lists: Vec<&str> = props
            .iter()
            .filter(|(key, sub)| {
                key.as_str() != "id" && schema_type(self.resolve(sub)) == Some("array")
            })
            .map(|(key, _)| key.as_str())
            .collect();
        count::sized_list(&self.request.counted, &self.request.entity, &lists)
    }

    /// Draws the object's own `id` into `out`, when its schema has one, and returns the seed
    /// its other properties are drawn from (the id's, so that one entity's fields agree
    /// wherever it appears) and the pool's record of that entity.
    fn identify<'s>(
        &'s self,
        props: &Map<String, Value>,
        entity: &str,
        seed: u64,
        depth: usize,
        out: &mut Map<String, Value>,
    ) -> (u64, Option<&'s Map<String, Value>>) {
        let Some(id_schema) = props.get("id") else {
            return (seed, None);
        };
        let id = self.own_id(id_schema, seed, depth);
        let seed = stable_hash(&[b"entity", canonical_json(&id).as_bytes()]);
        let record = self.pool.record(entity, seed);
        out.insert("id".to_owned(), id);
        (seed, record)
    }

    /// The list `key` of the call's own page (`paged`) or of a response the call sizes:
    /// as many items as the call shows, filtered as its arguments say; and whether any
    /// filter applied.
    fn own_list(
        &self,
        schema: &Value,
        key: &str,
        seed: u64,
        depth: usize,
        paged: bool,
    ) -> (Value, bool) {
        let filters = self.list_filters(schema);
        let filtered = !filters.is_empty();
        let count = if paged {
            self.request.paging(filtered).2
        } else {
            self.request.shown.unwrap_or_default()
        };
        let value = self.page_of(
            schema,
            key,
            child_seed(seed, key),
            depth + 1,
            &filters,
            count,
        );
        (value, filtered)
    }

    /// Property `key` of an object: the entity's `record` of it when it fits the schema,
    /// else drawn from `sub`.
    fn property(
        &self,
        record: Option<&Map<String, Value>>,
        key: &str,
        sub: &Value,
        seed: u64,
        depth: usize,
        item: Option<usize>,
    ) -> Value {
        let resolved = self.resolve(sub);
        match record
            .and_then(|r| r.get(key))
            .filter(|v| self.record_fits(key, resolved, v))
        {
            Some(v) => v.clone(),
            None => self.node(sub, Some(key), child_seed(seed, key), depth + 1, item),
        }
    }

    /// What a drawn object settles once its properties are drawn: its own id carried into
    /// its other keys, its page numbers (the call's own page's, or an inner page's agreeing
    /// with its items), and the labels of an object with an id remembered.
    fn settle_object(
        &self,
        out: &mut Map<String, Value>,
        props: &Map<String, Value>,
        entity: &str,
        paged: bool,
        filtered: bool,
    ) {
        if let Some(id_schema) = props.get("id") {
            let uris = self.uri_shapes(props);
            carry_own_id(out, self.resolve(id_schema), entity, &uris);
        }
        if paged {
            self.page_numbers(out, filtered);
        } else if is_page(props) {
            self.inner_page_numbers(out, props);
        }
        if out.contains_key("id") {
            self.remember_labels(entity, out);
        }
    }

    /// The `scheme:kind:id` forms of an object's text properties whose examples share one
    /// (see [`UriShape`]): the property's own examples, else, where it has none, those the
    /// tool's examples give a field of its name, whose kind is another thing's where the
    /// field is a `uri`, every thing's own (a track's form gives an artist's its scheme).
    fn uri_shapes(&self, props: &Map<String, Value>) -> Vec<(String, UriShape)> {
        let mut shapes = Vec::new();
        for (key, sub) in props {
            let sub = self.resolve(sub);
            if schema_type(sub) != Some("string") {
                continue;
            }
            let own = example_texts(sub);
            let shape = if own.is_empty() {
                let tools = UriShape::of(self.pool.texts_of(key));
                tools.map(|s| if key == "uri" { s.of_any_kind() } else { s })
            } else {
                UriShape::of(own)
            };
            if let Some(shape) = shape {
                shapes.push((key.clone(), shape));
            }
        }
        shapes
    }

    /// An object's own `id`: the one the call's path names when the object is the
    /// response's own entity at this level, else one drawn from its schema.
    fn own_id(&self, id_schema: &Value, seed: u64, depth: usize) -> Value {
        let at_level = self.echo.borrow().last().copied().unwrap_or(false);
        self.path_id
            .filter(|_| at_level)
            .and_then(|p| coerce(p, self.resolve(id_schema)))
            .unwrap_or_else(|| {
                self.node(
                    id_schema,
                    Some("id"),
                    child_seed(seed, "id"),
                    depth + 1,
                    None,
                )
            })
    }

    /// The name and schema a property is generated under: a property with
    /// an empty name (a slip in some specs) takes the name of the example's
    /// field the schema does not name, as a list when the example has one,
    /// else it is left out unless required.
    fn named(
        &self,
        key: &str,
        sub: &Value,
        depth: usize,
        props: &Map<String, Value>,
        required: &[&str],
    ) -> Option<(String, Value)> {
        if !key.is_empty() {
            return Some((key.to_owned(), sub.clone()));
        }
        match (&self.request.unnamed, depth) {
            (Some((name, is_list)), 0) if !props.contains_key(name) => {
                let resolved = self.resolve(sub);
                let schema = if *is_list && schema_type(resolved) != Some("array") {
                    serde_json::json!({"type": "array", "items": resolved})
                } else {
                    resolved.clone()
                };
                Some((name.clone(), schema))
            }
            _ => required
                .contains(&key)
                .then(|| (key.to_owned(), sub.clone())),
        }
    }

    /// The schema of property `key`, or, when it says nothing of the value's type (TMDB's
    /// `next_episode_to_air` is only `{"nullable": true}`), the typed schema of its twin: the
    /// sibling named alike but for its first word (`last_episode_to_air`, an episode). An
    /// untyped schema was drawn as a word, and the model filling the draft kept a string.
    fn typed_by_twin(&self, key: &str, sub: Value, props: &Map<String, Value>) -> Value {
        if !is_untyped(self.resolve(&sub)) {
            return sub;
        }
        let Some((_, tail)) = key.split_once('_').filter(|(_, t)| !t.is_empty()) else {
            return sub;
        };
        props
            .iter()
            .find(|(other, schema)| {
                other.as_str() != key
                    && other.split_once('_').is_some_and(|(_, t)| t == tail)
                    && !is_untyped(self.resolve(schema))
            })
            .map_or(sub, |(_, schema)| schema.clone())
    }

    /// Whether an example record's value can stand for a field: same type,
    /// within an enum, no string constraints to meet, not an id, and not a
    /// field the call's arguments or search term decide.
    fn record_fits(&self, key: &str, schema: &Value, value: &Value) -> bool {
        let lower = key.to_ascii_lowercase();
        let by_term =
            self.term.is_some() && self.at_term_level() && LABEL_FIELDS.contains(&lower.as_str());
        let constrained = ["const", "oneOf", "anyOf", "allOf"]
            .iter()
            .any(|k| schema.get(*k).is_some())
            || value
                .as_str()
                .is_some_and(|text| !string_fits(schema, text));
        // An id copied from a record would give one id to every entity drawn from it, and a
        // date the record's birthday to every person (see `dates`).
        let other_id = idshape::names_id(key) || idshape::names_other_id(key);
        let dated = value.as_str().is_some_and(dates::is_dated);
        !by_term
            && !constrained
            && !other_id
            && !dated
            && self.arg(Some(key)).is_none()
            && type_matches(schema, value)
            && schema
                .get("enum")
                .and_then(Value::as_array)
                .is_none_or(|c| c.contains(value))
            && (!value.is_array()
                || schema.get("items").is_none_or(|items| {
                    value
                        .as_array()
                        .is_some_and(|vs| vs.iter().all(|v| type_matches(self.resolve(items), v)))
                }))
    }

    /// Gives an entity the labels it was shown with before, or remembers
    /// the ones it has now.
    fn remember_labels(&self, entity: &str, out: &mut Map<String, Value>) {
        let Some(id) = out.get("id") else {
            return;
        };
        let key = (entity.to_owned(), canonical_json(id));
        let Ok(mut labels) = self.labels.lock() else {
            return;
        };
        if let Some(known) = labels.0.get(&key) {
            for (field, value) in known {
                if out.get(field).is_some_and(Value::is_string) {
                    out.insert(field.clone(), value.clone());
                }
            }
            return;
        }
        let shown: Map<String, Value> = out
            .iter()
            .filter(|(k, v)| LABEL_FIELDS.contains(&k.as_str()) && v.is_string())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !shown.is_empty() && labels.0.len() < MAX_LABELS {
            labels.0.insert(key, shown);
        }
    }

    /// The filters of the call that apply to the items of a list schema.
    fn list_filters(&self, schema: &Value) -> Vec<request::Filter> {
        let Some(items) = schema.get("items") else {
            return Vec::new();
        };
        let fields: Vec<&str> = self
            .resolve(items)
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        self.request.filters_for(&fields)
    }

    /// Sets the numbers of a page object (page, offset, size, totals) to
    /// what [`Request::paging`] says, where the schema has them as numbers.
    fn page_numbers(&self, out: &mut Map<String, Value>, filtered: bool) {
        let (total, pages, _) = self.request.paging(filtered);
        let size = u64::try_from(self.request.page_size).unwrap_or(u64::MAX);
        let numbers = [
            (PAGE_FIELDS, self.request.page),
            (OFFSET_FIELDS, self.request.start),
            (SIZE_FIELDS, size),
            (TOTAL_FIELDS, total),
            (&["total_pages", "totalPages"][..], pages),
        ];
        for (keys, number) in numbers {
            for key in keys {
                if let Some(slot) = out.get_mut(*key).filter(|v| v.is_number()) {
                    *slot = Value::from(number);
                }
            }
        }
    }

    /// Sets the numbers of a page below the call's own (an album's `tracks` in a
    /// search result): it starts at its first item, and its size is what its
    /// schema documents (`default`, else `example`), else the simulator's page
    /// size, never a draw; `paging` makes its total agree with its items.
    fn inner_page_numbers(&self, out: &mut Map<String, Value>, props: &Map<String, Value>) {
        let fallback = u64::try_from(self.limits.page_size).unwrap_or(20);
        for key in SIZE_FIELDS {
            let documented = props
                .get(*key)
                .map(|s| self.resolve(s))
                .and_then(|s| s.get("default").or_else(|| s.get("example")))
                .and_then(Value::as_u64)
                .filter(|n| *n >= 1);
            if let Some(slot) = out.get_mut(*key).filter(|v| v.is_number()) {
                *slot = Value::from(documented.unwrap_or(fallback));
            }
        }
        let firsts = [(OFFSET_FIELDS, 0u64), (PAGE_FIELDS, 1)];
        for (keys, first) in firsts {
            for key in keys {
                if let Some(slot) = out.get_mut(*key).filter(|v| v.is_number()) {
                    *slot = Value::from(first);
                }
            }
        }
    }

    /// The list of a paged response: `count` items (see
    /// [`Request::paging`]), each satisfying the call's filters.
    fn page_of(
        &self,
        schema: &Value,
        name: &str,
        seed: u64,
        depth: usize,
        filters: &[request::Filter],
        count: usize,
    ) -> Value {
        let Some(items) = schema.get("items").filter(|i| i.is_object()) else {
            return self.array(schema, Some(name), seed, depth.saturating_sub(1));
        };
        let max_items = usize_kw(schema, "maxItems").unwrap_or(usize::MAX);
        let count = count.min(max_items);
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            let mut chosen = Value::Null;
            for attempt in 0..24usize {
                let item_seed = child_seed(seed, &format!("{i}.{attempt}"));
                chosen = self.in_list(|| self.node(items, Some(name), item_seed, depth, Some(i)));
                let ok = chosen
                    .as_object()
                    .is_none_or(|m| filters.iter().all(|f| f.holds(m)));
                if ok {
                    break;
                }
            }
            if let Value::Object(map) = &mut chosen {
                let mut rng = Rng::new(child_seed(seed, &format!("force {i}")));
                request::force(map, filters, &mut rng);
            }
            out.push(chosen);
        }
        Value::Array(out)
    }

    fn array(&self, schema: &Value, name: Option<&str>, seed: u64, depth: usize) -> Value {
        if let Some(echo) = self.arg(name).filter(|v| v.is_array()) {
            return echo.clone();
        }
        let min_items = usize_kw(schema, "minItems").unwrap_or(0);
        let max_items = usize_kw(schema, "maxItems").unwrap_or(usize::MAX);
        let mut rng = Rng::new(seed);
        let count = if depth >= self.limits.max_depth {
            min_items
        } else if let (0, Some(asked)) = (depth, self.request.shown) {
            asked.clamp(min_items, max_items.max(min_items))
        } else {
            let lo = self.limits.min_items.max(min_items);
            let hi = self.limits.max_items.min(max_items).max(lo);
            lo + rng.index(hi - lo + 1)
        };
        let Some(items) = schema.get("items").filter(|i| i.is_object()) else {
            let entity = self.entity();
            let pooled = name
                .and_then(|n| self.pool.values(&entity, n))
                .map(Vec::as_slice)
                .unwrap_or_default();
            return Value::Array(
                pooled
                    .iter()
                    .filter(|v| !v.is_array())
                    .take(count)
                    .cloned()
                    .collect(),
            );
        };
        let plain = is_plain(self.resolve(items));
        let asked = depth == 0 && self.request.shown.is_some();
        let wanted = (count, min_items, asked);
        if let Some(drawn) = name
            .filter(|_| plain)
            .and_then(|name| self.listed_items(items, name, wanted, &mut rng))
        {
            return Value::Array(drawn);
        }
        // A list of plain values repeats none (`["US", "US"]`), unless to reach its minimum.
        let unique = schema
            .get("uniqueItems")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let mut out: Vec<Value> = Vec::with_capacity(count);
        let mut attempt = 0usize;
        while out.len() < count && attempt < count * 4 + 4 {
            let item_seed = child_seed(seed, &attempt.to_string());
            let at = out.len();
            let value = self.in_list(|| self.node(items, name, item_seed, depth + 1, Some(at)));
            attempt += 1;
            let repeats = (unique || plain && out.len() >= min_items) && out.contains(&value);
            if !repeats {
                out.push(value);
            }
        }
        Value::Array(out)
    }

    /// The items of a list of plain values named `name`, drawn from those its examples
    /// give (see [`listed`]): `count` of them (no more than the examples' longest such list
    /// holds, unless the call `asked` for them), each once; `None` when the examples give
    /// none that fits the items' schema, or fewer than the list's `min_items`.
    fn listed_items(
        &self,
        items: &Value,
        name: &str,
        (count, min_items, asked): (usize, usize, bool),
        rng: &mut Rng,
    ) -> Option<Vec<Value>> {
        let items = self.resolve(items);
        let (choices, longest) = self.pool.list_choices(name);
        let choices: Vec<&Value> = choices
            .into_iter()
            .filter(|v| type_matches(items, v))
            .filter(|v| v.as_str().is_none_or(|t| string_fits(items, t)))
            .collect();
        if choices.is_empty() || choices.len() < min_items {
            return None;
        }
        let count = match longest {
            Some(most) if !asked => count.min(most.max(min_items)),
            _ => count,
        };
        Some(listed::draw(&choices, count, rng))
    }

    /// `build`'s value, built as an item of a list.
    fn in_list(&self, build: impl FnOnce() -> Value) -> Value {
        self.lists.set(self.lists.get() + 1);
        let value = build();
        self.lists.set(self.lists.get().saturating_sub(1));
        value
    }

    fn pooled(
        &self,
        name: Option<&str>,
        seed: u64,
        accept: impl Fn(&Value) -> bool,
    ) -> Option<Value> {
        let entity = self.entity();
        let candidates: Vec<&Value> = self
            .pool
            .values(&entity, name?)?
            .iter()
            .filter(|v| accept(v))
            .collect();
        let mut rng = Rng::new(seed ^ 0x5eed);
        candidates
            .get(rng.index(candidates.len()))
            .map(|v| (*v).clone())
    }

    fn string(&self, schema: &Value, name: Option<&str>, seed: u64, item: Option<usize>) -> String {
        let mut rng = Rng::new(seed);
        let lower = name.map(str::to_ascii_lowercase).unwrap_or_default();
        let text = if let Some(echo) = self.arg(name).and_then(scalar_text) {
            echo
        } else if let (Some(term), true) = (
            self.term,
            self.at_term_level() && LABEL_FIELDS.contains(&lower.as_str()),
        ) {
            match item {
                Some(i) if i > 0 => format!("{term} {}", capitalized(word(&mut rng))),
                _ => term.to_owned(),
            }
        } else if let Some(id) = self.shaped_id(schema, name) {
            id.mint(&mut rng)
        } else if let Some(Value::String(s)) = documented(schema, seed).filter(|v| {
            !is_id_name(&lower) && v.as_str().is_some_and(|t| prose::usable_example(&lower, t))
        }) {
            // An example's date is the example's, not every entity's (see `dates`).
            dates::redrawn(s, &mut rng)
        } else if let Some(Value::String(s)) = self.pooled(name, seed, |v| {
            v.as_str().is_some_and(|t| string_fits(schema, t))
        }) {
            if idshape::names_other_id(&lower) {
                idshape::like(s, &mut rng)
            } else {
                dates::redrawn(s, &mut rng)
            }
        } else {
            by_format_or_name(schema, &lower, &mut rng)
        };
        let echoed = self.arg(name).is_some();
        let text = if dates::times_an_act(&lower) && !echoed {
            dates::recent(text, self.today, &mut rng)
        } else {
            text
        };
        let text = fit_length(schema, text, &mut rng);
        match schema.get("pattern").and_then(Value::as_str) {
            Some(pattern) => fit_pattern(pattern, text, &mut rng),
            None => text,
        }
    }

    /// The shape of the ids of an id field with no `format` or `pattern` of its own: the
    /// one its examples show (the schema's, else the tool's examples of that field),
    /// else the one most of the tool's example ids share.
    fn shaped_id(&self, schema: &Value, name: Option<&str>) -> Option<IdShape> {
        let name = name.filter(|n| idshape::names_id(n))?;
        if schema.get("format").is_some() || schema.get("pattern").is_some() {
            return None;
        }
        let mut own = example_texts(schema);
        if own.is_empty() {
            let pooled = self.pool.values(&self.entity(), name);
            own.extend(pooled.into_iter().flatten().filter_map(Value::as_str));
        }
        if !own.is_empty() {
            return IdShape::of(&own, 0.5);
        }
        let tool: Vec<&str> = self.pool.ids.iter().map(String::as_str).collect();
        IdShape::of(&tool, 0.5)
    }

    fn integer(&self, schema: &Value, name: Option<&str>, seed: u64) -> Value {
        if let Some(n) = self.arg(name).and_then(as_integer) {
            return Value::from(clamp_i64(schema, n));
        }
        let lower = name.map(str::to_ascii_lowercase).unwrap_or_default();
        let is_id = is_id_name(&lower);
        if let Some(example) = documented(schema, seed).filter(|v| !is_id && v.is_i64()) {
            return example;
        }
        let pooled = (!is_id)
            .then(|| self.pooled(name, seed, |v| v.is_i64() || v.is_u64()))
            .flatten();
        if let Some(v) = pooled {
            return v;
        }
        let mut rng = Rng::new(seed);
        let value = if let Some((lo, hi)) = prose::described_range(schema) {
            rng.range(lo, hi)
        } else if is_id {
            rng.range(1, 999_999)
        } else if lower.contains("year") {
            rng.range(1950, 2024)
        } else if lower == "page" {
            1
        } else if let Some((lo, hi)) =
            name.and_then(|n| magnitude::integer_span(self.pool.numbers_of(n)))
        {
            rng.range(lo, hi)
        } else if magnitude::is_place(&lower) {
            rng.range(magnitude::SMALL_PLACE.0, magnitude::SMALL_PLACE.1)
        } else if lower.contains("count") || lower.starts_with("total") {
            rng.range(0, 5000)
        } else {
            rng.range(0, 1000)
        };
        Value::from(clamp_i64(schema, value))
    }

    fn number(&self, schema: &Value, name: Option<&str>, seed: u64) -> Value {
        if let Some(n) = self.arg(name).filter(|v| v.is_number()) {
            return n.clone();
        }
        if let Some(v) = documented(schema, seed).filter(Value::is_number) {
            return v;
        }
        if let Some(v) = self.pooled(name, seed, Value::is_number) {
            return v;
        }
        let mut rng = Rng::new(seed);
        let shown = name
            .and_then(|n| magnitude::span(self.pool.numbers_of(n)))
            .filter(|_| schema.get("minimum").is_none() && schema.get("maximum").is_none());
        let lo = schema
            .get("minimum")
            .and_then(Value::as_f64)
            .or(shown.map(|(lo, _)| lo))
            .unwrap_or(0.0);
        let hi = schema
            .get("maximum")
            .and_then(Value::as_f64)
            .or(shown.map(|(_, hi)| hi))
            .unwrap_or(lo + 10.0)
            .max(lo);
        let raw = lo + rng.unit() * (hi - lo);
        let rounded = (raw * 1000.0).round() / 1000.0;
        Number::from_f64(rounded.clamp(lo, hi)).map_or(Value::from(0), Value::Number)
    }

    fn boolean(&self, name: Option<&str>, seed: u64) -> Value {
        if let Some(b) = self.arg(name).and_then(Value::as_bool) {
            return Value::Bool(b);
        }
        if let Some(v) = self.pooled(name, seed, Value::is_boolean) {
            return v;
        }
        Value::Bool(Rng::new(seed).below(2) == 1)
    }

    /// A schema with no type: an example value for the name if there is one,
    /// else a short string.
    fn untyped(&self, name: Option<&str>, seed: u64) -> Value {
        if let Some(v) = self.arg(name) {
            return v.clone();
        }
        if let Some(v) = self.pooled(name, seed, |_| true) {
            return v;
        }
        let mut rng = Rng::new(seed);
        Value::String(word(&mut rng).to_owned())
    }
}

/// Whether a schema is of plain values (texts or numbers) free to draw: no choices.
fn is_plain(schema: &Value) -> bool {
    matches!(schema_type(schema), Some("string" | "integer" | "number"))
        && schema.get("enum").is_none()
        && schema.get("const").is_none()
}

/// Whether a schema says nothing of its value's type: no type, no shape (properties,
/// items), no reference, no alternatives, no choices.
fn is_untyped(schema: &Value) -> bool {
    const SHAPING: &[&str] = &[
        "type",
        "properties",
        "items",
        "$ref",
        "oneOf",
        "anyOf",
        "allOf",
        "enum",
        "const",
        "additionalProperties",
    ];
    schema
        .as_object()
        .is_some_and(|map| !SHAPING.iter().any(|k| map.contains_key(*k)))
}

/// Whether a field name names an identifier (`id`, `movie_id`, `userId`):
/// such fields never take a documented example, which would give every
/// entity the same id.
fn is_id_name(lower: &str) -> bool {
    lower == "id" || lower.ends_with("_id") || lower.ends_with("id")
}

/// The value the schema documents (`example`, or one of `examples`, chosen
/// by the seed), when it fits the schema's own constraints.
fn documented(schema: &Value, seed: u64) -> Option<Value> {
    let example = match schema.get("examples").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => list.get(Rng::new(seed).index(list.len())),
        _ => schema.get("example"),
    }?;
    // A YAML block scalar leaves a line break at the end of an example (Spotify's image
    // URLs): no value ends in one.
    let trimmed = example
        .as_str()
        .filter(|t| t.trim_end() != *t)
        .map(|t| Value::String(t.trim_end().to_owned()));
    let example = trimmed.as_ref().unwrap_or(example);
    let fits = match example {
        Value::String(text) => string_fits(schema, text),
        Value::Number(_) => {
            let x = example.as_f64().unwrap_or(0.0);
            schema
                .get("minimum")
                .and_then(Value::as_f64)
                .is_none_or(|m| x >= m)
                && schema
                    .get("maximum")
                    .and_then(Value::as_f64)
                    .is_none_or(|m| x <= m)
        }
        _ => false,
    };
    (fits && type_matches(schema, example)).then(|| example.clone())
}

/// Whether a string meets a schema's length, format and pattern.
fn string_fits(schema: &Value, text: &str) -> bool {
    let len = text.chars().count();
    let length_ok = usize_kw(schema, "minLength").is_none_or(|min| len >= min)
        && usize_kw(schema, "maxLength").is_none_or(|max| len <= max);
    let format_ok = match schema.get("format").and_then(Value::as_str) {
        Some("date") => {
            let bytes = text.as_bytes();
            bytes.len() == 10
                && bytes.iter().enumerate().all(|(i, b)| {
                    if i == 4 || i == 7 {
                        *b == b'-'
                    } else {
                        b.is_ascii_digit()
                    }
                })
        }
        Some("date-time") => text.contains('T'),
        Some("uri" | "url" | "iri") => text.contains("://"),
        Some("email" | "idn-email") => text.contains('@'),
        Some("uuid") => text.len() == 36 && text.chars().filter(|c| *c == '-').count() == 4,
        Some("ipv4") => text.parse::<std::net::Ipv4Addr>().is_ok(),
        Some("ipv6") => text.parse::<std::net::Ipv6Addr>().is_ok(),
        Some("int32" | "int64") => text.parse::<i64>().is_ok(),
        Some("hostname") => text.contains('.') && !text.contains(' '),
        Some(_) => false,
        None => true,
    };
    let pattern_ok = schema
        .get("pattern")
        .and_then(Value::as_str)
        .is_none_or(|pattern| {
            jsonschema::validator_for(&serde_json::json!({"type": "string", "pattern": pattern}))
                .is_ok_and(|v| v.is_valid(&Value::String(text.to_owned())))
        });
    length_ok && format_ok && pattern_ok
}

fn schema_type(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .or(Some("null")),
        _ => {
            if schema.get("properties").is_some() {
                Some("object")
            } else if schema.get("items").is_some() {
                Some("array")
            } else {
                None
            }
        }
    }
}

/// Whether `value` has a type `schema` allows (a schema without a type
/// allows anything).
fn type_matches(schema: &Value, value: &Value) -> bool {
    let allowed: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => match schema_type(schema) {
            Some(t) => vec![t],
            None => return true,
        },
    };
    allowed.iter().any(|t| match *t {
        "integer" => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => true,
    })
}

/// The schema a local `$ref` of `schema` points to in `root` (through a chain of them, a
/// few links at most); `schema` itself when it is no such reference.
pub(crate) fn resolve<'s>(root: &'s Value, mut schema: &'s Value) -> &'s Value {
    for _ in 0..16 {
        let Some(pointer) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
        else {
            break;
        };
        match root.pointer(pointer) {
            Some(target) => schema = target,
            None => break,
        }
    }
    schema
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

fn usize_kw(schema: &Value, key: &str) -> Option<usize> {
    schema
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok())
}

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn as_integer(value: &Value) -> Option<i64> {
    match value {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A value converted to what an `id` schema expects (a path parameter
/// arrives as text or a number).
/// `None` when the value cannot take that type.
fn coerce(value: &Value, schema: &Value) -> Option<Value> {
    match schema_type(schema) {
        Some("integer") => as_integer(value).map(Value::from),
        Some("number") => value
            .as_f64()
            .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
            .and_then(Number::from_f64)
            .map(Value::Number),
        Some("string") => scalar_text(value).map(Value::String),
        _ => Some(value.clone()),
    }
}

/// Makes an entity's other fields name its own id where the spec's examples show they do:
/// a field whose example holds the id's example (Spotify's album `uri`
/// `spotify:album:2up3OPMp9Tb4dAKM2erWXQ` beside the id `2up3OPMp9Tb4dAKM2erWXQ`) gets the
/// drawn id in its place, so every album does not share one uri; a field whose examples
/// share a `scheme:kind:id` form (`uris`) takes that form with the entity's kind and id
/// (`spotify:artist:<id>`); and a `uri` drawn as plain words becomes `urn:<type>:<id>`.
fn carry_own_id(
    out: &mut Map<String, Value>,
    id_schema: &Value,
    entity: &str,
    uris: &[(String, UriShape)],
) {
    let id = match out.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return,
    };
    let example = id_schema
        .get("example")
        .and_then(Value::as_str)
        .filter(|e| e.chars().count() >= 4 && *e != id);
    let kind = out
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| !t.contains(' '))
        .unwrap_or(entity)
        .to_owned();
    for (key, value) in out.iter_mut().filter(|(k, _)| k.as_str() != "id") {
        let Value::String(text) = value else { continue };
        let shaped = uris
            .iter()
            .find(|(field, _)| field == key)
            .and_then(|(_, shape)| shape.uri(&kind, &id));
        if let Some(example) = example.filter(|e| text.contains(e)) {
            *text = text.replace(example, &id);
        } else if let Some(uri) = shaped {
            *text = uri;
        } else if key == "uri" && !text.contains(':') {
            *text = format!("urn:{kind}:{id}");
        }
    }
}

fn clamp_i64(schema: &Value, value: i64) -> i64 {
    let mut value = value;
    if let Some(min) = schema.get("minimum").and_then(Value::as_i64) {
        value = value.max(min);
    }
    if let Some(min) = schema.get("exclusiveMinimum").and_then(Value::as_i64) {
        value = value.max(min.saturating_add(1));
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_i64) {
        value = value.min(max);
    }
    if let Some(max) = schema.get("exclusiveMaximum").and_then(Value::as_i64) {
        value = value.min(max.saturating_sub(1));
    }
    value
}

fn word(rng: &mut Rng) -> &'static str {
    WORDS.get(rng.index(WORDS.len())).copied().unwrap_or("item")
}

fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

fn hex(rng: &mut Rng, len: usize) -> String {
    let mut out = format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64());
    out.truncate(len);
    out
}

/// `text` if it matches `pattern`, else the first of a few common shapes
/// (its slug, a string drawn from the pattern itself, digits, decimal, hex,
/// uuid, date, letters) that does; `text` when none does. The pattern is checked with the JSON Schema validator itself.
fn fit_pattern(pattern: &str, text: String, rng: &mut Rng) -> String {
    let schema = serde_json::json!({ "type": "string", "pattern": pattern });
    let Ok(validator) = jsonschema::validator_for(&schema) else {
        return text;
    };
    if validator.is_valid(&Value::String(text.clone())) {
        return text;
    }
    let slug = text
        .to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let valid = |c: &String| validator.is_valid(&Value::String(c.clone()));
    if valid(&slug) {
        return slug;
    }
    if let Some(drawn) = (0..3)
        .filter_map(|_| pattern::matching(pattern, rng))
        .find(|c| valid(c))
    {
        return drawn;
    }
    let candidates = [
        rng.range(1, 99_999).to_string(),
        format!("{}.{:02}", rng.range(1, 9_999), rng.range(0, 99)),
        hex(rng, 8),
        uuid(rng),
        dates::drawn(rng),
        word(rng).to_ascii_uppercase(),
        word(rng).to_owned(),
        String::new(),
    ];
    candidates.into_iter().find(|c| valid(c)).unwrap_or(text)
}

fn uuid(rng: &mut Rng) -> String {
    let h = hex(rng, 32);
    format!(
        "{}-{}-{}-{}-{}",
        h.get(0..8).unwrap_or_default(),
        h.get(8..12).unwrap_or_default(),
        h.get(12..16).unwrap_or_default(),
        h.get(16..20).unwrap_or_default(),
        h.get(20..32).unwrap_or_default()
    )
}

fn by_format_or_name(schema: &Value, lower: &str, rng: &mut Rng) -> String {
    match schema.get("format").and_then(Value::as_str) {
        Some("date") => return dates::drawn(rng),
        Some("date-time") => {
            return format!(
                "{}T{:02}:{:02}:00Z",
                dates::drawn(rng),
                rng.range(0, 23),
                rng.range(0, 59)
            );
        }
        Some("uri" | "url" | "iri") => return format!("https://example.com/{}", hex(rng, 10)),
        Some("uri-reference" | "iri-reference") => return format!("/{}", hex(rng, 10)),
        Some("email" | "idn-email") => return format!("{}@example.com", word(rng)),
        Some("uuid") => return uuid(rng),
        Some("time") => {
            return format!(
                "{:02}:{:02}:{:02}Z",
                rng.range(0, 23),
                rng.range(0, 59),
                rng.range(0, 59)
            );
        }
        Some("ipv4") => {
            return format!(
                "10.{}.{}.{}",
                rng.range(0, 255),
                rng.range(0, 255),
                rng.range(1, 254)
            );
        }
        Some("ipv6") => return format!("2001:db8::{}", hex(rng, 4)),
        Some("hostname" | "idn-hostname") => return format!("{}.example.com", word(rng)),
        Some("int32" | "int64") => return rng.range(1, 99_999).to_string(),
        Some("byte") => return "dG9vbHNtaXRo".to_owned(),
        Some("duration") => return format!("PT{}M", rng.range(1, 59)),
        _ => {}
    }
    if lower.contains("uuid") {
        return uuid(rng);
    }
    if lower.ends_with("date") || lower.ends_with("_at") || matches!(lower, "birthday" | "deathday")
    {
        dates::drawn(rng)
    } else if lower.ends_with("_path") {
        format!("/{}.jpg", hex(rng, 12))
    } else if lower.contains("url")
        || lower == "homepage"
        || lower == "href"
        || lower.contains("link")
    {
        format!("https://example.com/{}", hex(rng, 10))
    } else if lower.contains("email") {
        format!("{}@example.com", word(rng))
    } else if lower.starts_with("iso_639") || lower.ends_with("language") {
        "en".to_owned()
    } else if lower.starts_with("iso_3166") || lower.contains("country") {
        "US".to_owned()
    } else if lower == "id" || lower.ends_with("_id") {
        hex(rng, 12)
    } else if LABEL_FIELDS.contains(&lower) {
        format!("{} {}", capitalized(word(rng)), capitalized(word(rng)))
    } else {
        let n = rng.range(1, 4);
        (0..n).map(|_| word(rng)).collect::<Vec<_>>().join(" ")
    }
}

fn fit_length(schema: &Value, text: String, rng: &mut Rng) -> String {
    let min = usize_kw(schema, "minLength").unwrap_or(0);
    let max = usize_kw(schema, "maxLength").unwrap_or(usize::MAX);
    let mut text = text;
    let mut len = text.chars().count();
    while len < min {
        text.push(char::from(b'a' + u8::try_from(rng.below(26)).unwrap_or(0)));
        len += 1;
    }
    if len > max {
        text = toolsmith_plumbing::text::char_prefix(&text, max).to_owned();
    }
    text
}
/// The texts a schema gives as its own examples (`examples`, then `example`).
fn example_texts(schema: &Value) -> Vec<&str> {
    schema
        .get("examples")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .chain(schema.get("example"))
        .filter_map(Value::as_str)
        .collect()
}
