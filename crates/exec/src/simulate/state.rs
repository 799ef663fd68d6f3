//! What a session's calls changed, kept so that the next read sees it: an
//! item added by `POST /things` is read by `GET /things/{id}` and listed by
//! `GET /things`; `PUT`/`PATCH /things/{id}` changes it; `DELETE` removes it
//! (a later read is `not_found`). Only the collection/item shape of REST
//! paths is understood; any other call passes through unchanged.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use toolsmith_catalog::{HttpMethod, ParamLocation, ToolId};

use super::repair::project;
use crate::canonical::canonical_json;
use crate::executor::BookEntry;

/// Most items a session remembers per collection.
const MAX_ITEMS: usize = 10_000;

/// Properties beside a wrapped entity that are not an entity themselves.
const METAS: &[&str] = &["links", "_links", "meta", "pagination", "paging"];

/// What a call does to its collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Create,
    Read,
    Update,
    Delete,
    List,
}

/// The items of one collection (`/pets` of one tool) the session changed.
#[derive(Debug, Default)]
struct Collection {
    /// Items as last written, by canonical id.
    items: HashMap<String, Map<String, Value>>,
    /// Ids created in this session, oldest first.
    created: Vec<String>,
    /// Ids deleted in this session.
    deleted: HashSet<String>,
}

/// The changes of one session, by tool and collection path.
#[derive(Debug, Default)]
pub(crate) struct State {
    collections: HashMap<(ToolId, String), Collection>,
}

/// A read of something this session deleted.
#[derive(Debug)]
pub(crate) struct Gone(pub(crate) String);

impl State {
    /// Why the call is about something this session deleted, if it is: an id in its
    /// path (`/pets/{pet_id}`, `/pets/{pet_id}/photos`) naming an item deleted from
    /// the collection the path has before it. A call that creates is never about one.
    pub(crate) fn gone(&self, entry: &BookEntry, args: &Map<String, Value>) -> Option<Gone> {
        let api = &entry.api.api;
        let path = api.endpoint.path()?.trim_end_matches('/');
        let mut parent = String::new();
        for segment in path.split('/').filter(|s| !s.is_empty()) {
            let param = segment
                .strip_prefix('{')
                .and_then(|s| s.strip_suffix('}'))
                .filter(|name| {
                    api.params
                        .iter()
                        .any(|p| p.name == *name && p.location == ParamLocation::Path)
                });
            if let Some(id) = param.and_then(|name| args.get(name)).map(canonical_id) {
                let key = (api.id.tool().clone(), parent.clone());
                if self
                    .collections
                    .get(&key)
                    .is_some_and(|c| c.deleted.contains(&id))
                {
                    return Some(Gone(format!(
                        "{parent}/{id} was deleted earlier in this session"
                    )));
                }
            }
            parent = format!("{parent}/{segment}");
        }
        None
    }

    /// Records what the call changed and makes `body` show what earlier
    /// calls changed; `Err` when the call reads or deletes an item this
    /// session deleted.
    pub(crate) fn apply(
        &mut self,
        entry: &BookEntry,
        args: &Map<String, Value>,
        body: &mut Value,
    ) -> Result<(), Gone> {
        let Some((path, op, id)) = classify(entry, args) else {
            return Ok(());
        };
        let key = (entry.api.api.id.tool().clone(), path.clone());
        if op == Op::List {
            if let Some(collection) = self.collections.get(&key) {
                collection.show_in(body);
            }
            return Ok(());
        }
        let collection = self.collections.entry(key).or_default();
        let id = match (op, id) {
            (Op::Create, _) => main_object(body)
                .and_then(|o| o.get("id"))
                .map(canonical_id),
            (_, id) => id,
        };
        let Some(id) = id else {
            return Ok(());
        };
        if op != Op::Create && collection.deleted.contains(&id) {
            return Err(Gone(format!(
                "{path}/{id} was deleted earlier in this session"
            )));
        }
        match op {
            Op::Delete => {
                collection.items.remove(&id);
                collection.deleted.insert(id);
            }
            Op::Read => {
                if let (Some(stored), Some(object)) = (collection.items.get(&id), main_object(body))
                {
                    object.extend(stored.clone());
                }
            }
            Op::Create | Op::Update => {
                let written = same_level_args(entry, args);
                // The response shows the item (a created or updated pet), or answers
                // something else (`{"snapshot_id"}`) or nothing, which stays as it is.
                let mut shown = main_object(body).filter(|o| shows_item(o, &written));
                let mut item = collection
                    .items
                    .get(&id)
                    .cloned()
                    .or_else(|| shown.as_deref().cloned())
                    .unwrap_or_default();
                for (field, value) in written {
                    if item.get(&field).is_none_or(|old| same_type(old, &value)) {
                        item.insert(field, value);
                    }
                }
                if let Some(object) = shown.as_mut() {
                    object.extend(item.clone());
                }
                if collection.items.len() < MAX_ITEMS {
                    if op == Op::Create && !collection.created.contains(&id) {
                        collection.created.push(id.clone());
                    }
                    collection.deleted.remove(&id);
                    collection.items.insert(id, item);
                }
            }
            Op::List => {}
        }
        Ok(())
    }
}

impl Collection {
    /// Makes a listing of the collection agree with the session: deleted
    /// items left out, changed ones changed, created ones added first (with
    /// the fields the listing's items have), the totals moved to match.
    fn show_in(&self, body: &mut Value) {
        let Some(list) = main_list(body) else {
            return;
        };
        let before = list.len();
        list.retain(|item| {
            item.get("id")
                .is_none_or(|id| !self.deleted.contains(&canonical_id(id)))
        });
        let removed = before - list.len();
        for item in list.iter_mut() {
            if let (Some(id), Value::Object(map)) = (item.get("id").map(canonical_id), &mut *item)
                && let Some(stored) = self.items.get(&id)
            {
                let changed = project(stored, map);
                map.extend(changed);
            }
        }
        let listed: HashSet<String> = list
            .iter()
            .filter_map(|i| i.get("id").map(canonical_id))
            .collect();
        let template = list.first().and_then(Value::as_object).cloned();
        let added: Vec<Value> = self
            .created
            .iter()
            .filter(|id| !listed.contains(*id))
            .filter_map(|id| self.items.get(id))
            .map(|item| match &template {
                Some(t) => Value::Object(project(item, t)),
                None => Value::Object(item.clone()),
            })
            .collect();
        let count = added.len();
        list.splice(0..0, added);
        if let Value::Object(map) = body {
            for key in ["total", "total_results", "total_count", "count"] {
                if let Some(total) = map.get(key).and_then(Value::as_u64) {
                    let moved = (total + count as u64).saturating_sub(removed as u64);
                    map.insert(key.to_owned(), Value::from(moved));
                }
            }
        }
    }
}

/// The collection path, the operation, and the item's id (from the path)
/// of a REST call; `None` for other shapes.
fn classify(entry: &BookEntry, args: &Map<String, Value>) -> Option<(String, Op, Option<String>)> {
    let api = &entry.api.api;
    let method = api.endpoint.method()?;
    let path = api.endpoint.path()?.trim_end_matches('/');
    let (parent, last) = path.rsplit_once('/')?;
    let item_param = last
        .strip_prefix('{')
        .and_then(|l| l.strip_suffix('}'))
        .filter(|name| {
            api.params
                .iter()
                .any(|p| p.name == *name && p.location == ParamLocation::Path)
        });
    match item_param {
        Some(param) => {
            let id = args.get(param).map(canonical_id);
            let op = match method {
                HttpMethod::Get => Op::Read,
                HttpMethod::Put | HttpMethod::Patch | HttpMethod::Post => Op::Update,
                HttpMethod::Delete => Op::Delete,
                _ => return None,
            };
            (!parent.is_empty()).then(|| (parent.to_owned(), op, id))
        }
        None => {
            let op = match method {
                HttpMethod::Post => Op::Create,
                HttpMethod::Get => Op::List,
                _ => return None,
            };
            Some((path.to_owned(), op, None))
        }
    }
}

/// An id as text, so that `7` and `"7"` name one item.
pub(crate) fn canonical_id(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => canonical_json(other),
    }
}

/// Calls `visit` with the id (as [`canonical_id`] writes it) and the fields of every object
/// in `value` that has a string or number `id`, down to `max_depth` levels of objects and
/// lists: the entities a response shows, for the session's records of them.
pub(crate) fn each_entity(
    value: &Value,
    max_depth: usize,
    visit: &mut impl FnMut(String, &Map<String, Value>),
) {
    each_entity_at(value, 0, max_depth, visit);
}

fn each_entity_at(
    value: &Value,
    depth: usize,
    max_depth: usize,
    visit: &mut impl FnMut(String, &Map<String, Value>),
) {
    if depth > max_depth {
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(id) = map.get("id").filter(|v| v.is_string() || v.is_number()) {
                visit(canonical_id(id), map);
            }
            map.values()
                .for_each(|v| each_entity_at(v, depth + 1, max_depth, visit));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| each_entity_at(v, depth + 1, max_depth, visit)),
        _ => {}
    }
}

/// The arguments that describe the item itself: body fields (flattened or
/// inside a `body` object) and query arguments, not path parameters.
pub(crate) fn same_level_args(
    entry: &BookEntry,
    args: &Map<String, Value>,
) -> Vec<(String, Value)> {
    let params = &entry.api.api.params;
    let mut out = Vec::new();
    for (name, value) in args {
        let param = params.iter().find(|p| p.name == *name);
        match (param, value) {
            (None, Value::Object(body)) if name == "body" => {
                out.extend(body.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            (Some(p), _) if p.location == ParamLocation::Body => {
                out.push((name.clone(), value.clone()));
            }
            _ => {}
        }
    }
    out
}

/// Whether a write's response object is the item it wrote: it has an id, or a field
/// the call set. `{}` and `{"snapshot_id": ...}` are not, and never get the call's
/// arguments written into them (the agent would read them as the API's answer).
fn shows_item(object: &Map<String, Value>, written: &[(String, Value)]) -> bool {
    object.contains_key("id") || written.iter().any(|(field, _)| object.contains_key(field))
}

fn same_type(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b) || a.is_null()
}

/// The entity a response is about: the root object, or the one object it
/// wraps (`{"pet": {...}}`) when the root has no id of its own.
pub(crate) fn main_object(body: &mut Value) -> Option<&mut Map<String, Value>> {
    let Value::Object(map) = body else {
        return None;
    };
    if map.contains_key("id") {
        return Some(map);
    }
    let wrapped: Vec<String> = map
        .iter()
        .filter(|(k, v)| v.is_object() && !METAS.contains(&k.as_str()))
        .map(|(k, _)| k.clone())
        .collect();
    match wrapped.as_slice() {
        [only] => match map.get_mut(only) {
            Some(Value::Object(inner)) => Some(inner),
            _ => None,
        },
        _ => Some(map),
    }
}

/// The list a listing response holds: the root array, or the first list
/// of objects of the root object.
fn main_list(body: &mut Value) -> Option<&mut Vec<Value>> {
    match body {
        Value::Array(items) => Some(items),
        Value::Object(map) => map
            .values_mut()
            .filter_map(|v| match v {
                Value::Array(items) if items.iter().all(Value::is_object) => Some(items),
                _ => None,
            })
            .next(),
        _ => None,
    }
}
