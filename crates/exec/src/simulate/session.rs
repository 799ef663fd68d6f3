//! What one simulator remembers across the calls of a session, beyond the
//! labels of the synthesizer: the responses a model filled (so a repeated
//! call reads the same body, and the model is asked once), the entities
//! shown so far (the context of the next fill), and the changes calls made
//! ([`State`]).

use std::collections::HashMap;

use serde_json::{Map, Value};
use toolsmith_catalog::ApiId;

use super::state::State;
use crate::canonical::canonical_json;

/// Most ids remembered.
const MAX_SEEN: usize = 100_000;
/// Most sightings kept per id (one id may name a film and a person).
const PER_ID: usize = 4;
/// Most entities put in one prompt.
const MAX_SHOWN: usize = 12;
/// Most filled responses kept.
const MAX_FILLED: usize = 10_000;
/// Most earlier writes shown in a prompt (the latest).
const MAX_WRITES: usize = 8;
/// Fields that name an entity.
const LABELS: &[&str] = &[
    "name",
    "title",
    "original_title",
    "full_name",
    "display_name",
];
/// How deep in a response entities are looked for.
const MAX_DEPTH: usize = 4;

/// The session memory of a simulator.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// Responses written by the oracle, by API and canonical arguments.
    filled: HashMap<(ApiId, String), Value>,
    /// Entities shown, by id as text, latest first: `{"id", "name"|"title", "in"}`.
    seen: HashMap<String, Vec<Value>>,
    /// The session's successful writes (calls other than GET), oldest first, each
    /// `{"done": "METHOD path", "arguments": ...}`: the next fill is told them.
    writes: Vec<Value>,
    /// The changes the session's calls made.
    pub(crate) state: State,
}

impl Session {
    /// The response the oracle wrote for this call earlier, if any.
    pub(crate) fn filled(&self, api: &ApiId, args: &Value) -> Option<Value> {
        self.filled
            .get(&(api.clone(), canonical_json(args)))
            .cloned()
    }

    /// Keeps the oracle's response to this call.
    pub(crate) fn keep_filled(&mut self, api: &ApiId, args: &Value, body: &Value) {
        if self.filled.len() < MAX_FILLED {
            self.filled
                .insert((api.clone(), canonical_json(args)), body.clone());
        }
    }

    /// Records a successful write, so the next fill is told it and no read is answered
    /// from before it: the responses filled so far are forgotten (a playlist read again
    /// after its tracks were removed is asked anew, with the removal in the prompt).
    pub(crate) fn record_write(&mut self, call: String, args: &Value) {
        self.writes
            .push(serde_json::json!({"done": call, "arguments": args}));
        if self.writes.len() > MAX_WRITES {
            self.writes.remove(0);
        }
        self.filled.clear();
    }

    /// The session's latest writes, oldest first.
    pub(crate) fn writes(&self) -> &[Value] {
        &self.writes
    }

    /// Remembers the entities a response shows (objects with an id and a
    /// name or title), the latest sighting first.
    pub(crate) fn remember(&mut self, body: &Value) {
        let mut found = Vec::new();
        entities(body, None, 0, &mut found);
        for entity in found {
            let Some(id) = entity.get("id").and_then(scalar) else {
                continue;
            };
            if self.seen.len() >= MAX_SEEN && !self.seen.contains_key(&id) {
                continue;
            }
            let sightings = self.seen.entry(id).or_default();
            sightings.retain(|e| e != &entity);
            sightings.insert(0, entity);
            sightings.truncate(PER_ID);
        }
    }

    /// The entities to show the oracle for a call: those whose id the
    /// arguments name. Only those: a prompt that depended on whatever else
    /// the session happened to show would differ between runs whose calls
    /// interleave differently, and miss the cache.
    pub(crate) fn relevant(&self, args: &Value) -> Vec<Value> {
        let mut named: Vec<String> = match args {
            Value::Object(map) => map.values().filter_map(scalar).collect(),
            _ => Vec::new(),
        };
        named.sort();
        named.dedup();
        named
            .iter()
            .filter_map(|id| self.seen.get(id))
            .flatten()
            .take(MAX_SHOWN)
            .cloned()
            .collect()
    }
}

/// Objects with an id and a label in `value`, down to [`MAX_DEPTH`].
fn entities(value: &Value, key: Option<&str>, depth: usize, out: &mut Vec<Value>) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(entity) = entity(map, key) {
                out.push(entity);
            }
            for (k, v) in map {
                entities(v, Some(k), depth + 1, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| entities(v, key, depth + 1, out)),
        _ => {}
    }
}

fn entity(map: &Map<String, Value>, key: Option<&str>) -> Option<Value> {
    let id = map.get("id").filter(|v| v.is_string() || v.is_number())?;
    let mut out = Map::new();
    out.insert("id".to_owned(), id.clone());
    for label in LABELS {
        if let Some(text) = map.get(*label).filter(|v| v.is_string()) {
            out.insert((*label).to_owned(), text.clone());
        }
    }
    if out.len() == 1 {
        return None;
    }
    if let Some(key) = key {
        out.insert("in".to_owned(), Value::String(key.to_owned()));
    }
    Some(Value::Object(out))
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}
