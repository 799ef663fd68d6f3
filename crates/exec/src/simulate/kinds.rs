//! An argument that names a kind of thing selects the shape of that kind. TMDB's
//! `GET /trending/{media_type}/{time_window}` documents its results as films only, so
//! trending TV (`media_type=tv`) was drafted with a film's keys (`title`,
//! `release_date`), where a show has `name` and `first_air_date`.
//!
//! The rule, for any tool: the tool's own lists of one kind of thing (`GET /tv/popular`,
//! `GET /search/tv`: a path without parameters whose entity is `tv`, see
//! [`super::request::api_entity`]) show what an item of that kind looks like. A call whose
//! argument takes, from its parameter's choices (`enum`), the name of one such kind, in a
//! response whose list holds items of another kind among those choices (the schema of
//! `movie`'s lists), has its list drafted with items of the named kind.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::request::api_entity;
use crate::executor::BookEntry;

/// The item schema of each kind of thing one tool lists, by kind (`movie`, `tv`).
#[derive(Debug, Default)]
pub(crate) struct Kinds(BTreeMap<String, Value>);

impl Kinds {
    /// Learns the kind `entry` lists, if it is a list of one kind of thing: a path without
    /// parameters, whose response holds a list of objects at its top. The first API of a
    /// kind (in the caller's order) gives its shape.
    pub(crate) fn learn(&mut self, entry: &BookEntry) {
        let api = &entry.api.api;
        if api.endpoint.path().is_none_or(|p| p.contains('{')) {
            return;
        }
        let Some(items) = api.response_schema.as_ref().and_then(|s| list_items(s).1) else {
            return;
        };
        let kind = api_entity(entry, &Map::new());
        self.0.entry(kind).or_insert_with(|| items.clone());
    }

    /// The response schema of a call of `entry` with `args`, its list's items of the kind
    /// an argument names (see the module doc); `None` when nothing changes.
    pub(crate) fn fitted(
        &self,
        entry: &BookEntry,
        args: &Map<String, Value>,
        schema: &Value,
    ) -> Option<Value> {
        let (named, others) = self.named_kind(entry, args)?;
        let wanted = self.0.get(&named)?;
        let (key, items) = list_items(schema);
        let (key, items) = (key?, items?);
        let is_other = others
            .iter()
            .any(|other| self.0.get(other).is_some_and(|shape| shape == items));
        if !is_other || items == wanted {
            return None;
        }
        let mut fitted = schema.clone();
        let slot = fitted.get_mut("properties")?.get_mut(&key)?;
        match slot.get_mut("items") {
            Some(inner) => *inner = wanted.clone(),
            None => *slot = wanted.clone(),
        }
        Some(fitted)
    }

    /// The kind an argument of the call names from its parameter's choices, and the other
    /// kinds among those choices.
    fn named_kind(
        &self,
        entry: &BookEntry,
        args: &Map<String, Value>,
    ) -> Option<(String, Vec<String>)> {
        entry.api.api.params.iter().find_map(|p| {
            let value = args.get(&p.name)?.as_str()?.to_ascii_lowercase();
            let choices = p
                .schema
                .get("enum")
                .or_else(|| p.schema.get("items")?.get("enum"))?
                .as_array()?;
            let kinds: Vec<String> = choices
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_ascii_lowercase)
                .filter(|c| self.0.contains_key(c))
                .collect();
            kinds.contains(&value).then(|| {
                let others = kinds.into_iter().filter(|k| *k != value).collect();
                (value, others)
            })
        })
    }
}

/// The property of a response's top that holds its list, and the schema of the list's
/// items: the first property that is a list of objects, else an object property without a
/// name (TMDB's trending writes its `results` as `""`, an item's schema).
fn list_items(schema: &Value) -> (Option<String>, Option<&Value>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return (None, None);
    };
    let is_object = |s: &Value| s.get("properties").is_some_and(Value::is_object);
    let listed = props.iter().find_map(|(key, sub)| {
        let items = sub.get("items").filter(|i| is_object(i))?;
        Some((key.clone(), items))
    });
    let unnamed = || {
        props
            .get("")
            .filter(|s| is_object(s))
            .map(|s| (String::new(), s))
    };
    match listed.or_else(unnamed) {
        Some((key, items)) => (Some(key), Some(items)),
        None => (None, None),
    }
}
