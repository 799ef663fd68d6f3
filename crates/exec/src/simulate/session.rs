//! What one simulator remembers across the calls of a session, beyond the
//! labels of the synthesizer: the responses a model filled (so a repeated
//! call reads the same body, and the model is asked once), the entities
//! shown so far (the context of the next fill, each with the records it holds: `held`;
//! which of them a call recalls is `recall`'s rule, and a call about the user recalls the
//! user and their own things of the kinds its draft shows: `me`), the entities the agent
//! holds, and the changes calls made ([`State`]).
//!
//! The agent holds an entity once one of the session's calls passed its id, under any
//! argument (`person_id=66185`, `with_crew=66185`, `ids=a,b`; not a page, a count or a
//! date: see [`recall::passed`]), and the session had shown an entity of that id from
//! the same tool. A fill is told, besides the entities its call names by id-like arguments,
//! those its call passes under other names (a discover by `with_crew`: the director),
//! then the latest few the agent holds of a kind its draft lists (the director searched
//! before, to the credits of a film; a film looked up, to its director's credits), each
//! with the id and name it was shown under: one real thing keeps one id in the session.
//! A read that names things by text (a search's `query`) is told instead the entities shown
//! under that name, and its answer keeps their ids (see `named`); a call about things of a
//! kind is told the ids entities referred to of that kind (a film's `genre_ids`, to the
//! genre list: see `references`). Whatever the call, an entity its answer shows under the
//! label of one thing of its kind the session showed takes that thing's id, unless the
//! call's arguments pass its own (see `shared`).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};
use toolsmith_catalog::ApiId;

use super::extent::Counts;
use super::held::{self, Held};
use super::identity::{LABELS, is_dated};
use super::me::{self, Mine, Owner};
use super::named::{self, MAX_NAMED, Names, Told};
use super::recall::{self, Place, Wanted};
use super::references::{self, Reference, Referrals, Referrer};
use super::shared;
use super::state::State;
use super::version::Current;
use crate::canonical::canonical_json;
use crate::executor::BookEntry;

/// Most ids remembered.
const MAX_SEEN: usize = 100_000;
/// Most sightings kept per id (one id may name a film and a person).
const PER_ID: usize = 4;
/// Most entities put in one prompt.
const MAX_SHOWN: usize = 12;
/// Most entities the agent holds remembered (the latest passed).
const MAX_HELD_IDS: usize = 32;
/// Most entities the agent holds told to one fill besides those its call passes.
const MAX_HELD_SHOWN: usize = 6;
/// Most filled responses kept.
const MAX_FILLED: usize = 10_000;
/// Most sightings of the user's own things kept (the latest).
const MAX_OWN: usize = 64;
/// Most earlier writes shown in a prompt (the latest).
const MAX_WRITES: usize = 8;
/// How deep in a response entities are looked for.
const MAX_DEPTH: usize = 4;
/// Most facts kept per sighting of an entity, besides its id and labels.
const MAX_FACTS: usize = 6;
/// Most characters of a text fact (longer texts are not facts but prose).
const MAX_FACT_CHARS: usize = 40;
/// Fields that are no fact worth repeating (addresses of the entity, its kind).
const NOT_FACTS: &[&str] = &["id", "in", "type", "uri", "href", "url"];

/// One entity as a response showed it: what the prompt is told (the records it holds
/// among it), which tool showed it as what kinds of thing (see [`Place::kinds`]), and the
/// records it holds with their kinds (see [`held`]).
#[derive(Clone, Debug, PartialEq)]
struct Sighting {
    tool: String,
    kinds: Vec<String>,
    shown: Value,
    held: Vec<Held>,
    /// The lists of ids it referred to (see `references`), which `shown` holds too.
    refs: Vec<Reference>,
}

/// The session memory of a simulator.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// Responses written by the oracle, by API and canonical arguments.
    filled: HashMap<(ApiId, String), Value>,
    /// Entities shown, by id as text, latest first: `{"id", "name"|"title", "in"}` and
    /// a few short facts (`"followers.total"`, `"release_date"`; see [`facts`]).
    seen: HashMap<String, Vec<Sighting>>,
    /// The session's successful writes (calls other than GET), oldest first, each
    /// `{"done": "METHOD path", "arguments": ...}`: the next fill is told them.
    writes: Vec<Value>,
    /// The version tokens (`snapshot_id`, `etag`, ...) the session's responses showed, as
    /// text: a write's response that repeats one gets a fresh one.
    pub(crate) versions: HashSet<String>,
    /// The version each entity shown is at, moved on by the writes that change it.
    pub(crate) current: Current,
    /// The changes the session's calls made.
    pub(crate) state: State,
    /// How many things the entities shown hold (a playlist's `tracks.total`), which their
    /// sub-collections' pages then count (see `extent`).
    pub(crate) counts: Counts,
    /// The account's owner, as the first response about them showed them (see `me`).
    pub(crate) owner: Option<Owner>,
    /// The user's own things (devices, playlists) that calls about the user showed,
    /// latest first: a later such call showing things of the same kind recalls them,
    /// having no id argument to recall them by.
    own: Vec<Sighting>,
    /// The entities the agent holds: shown, then passed by a call's argument; by tool and
    /// id, the latest passed first.
    held_ids: Vec<(String, Wanted)>,
    /// The labels the entities were shown under, for a call naming them by text (`named`).
    names: Names,
    /// The ids the entities shown referred to under fields of ids (`references`).
    referrals: Referrals,
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

    /// Keeps the user a response about them shows, the first time one does; after that,
    /// a profile shows the user the session knows, whatever the model wrote.
    pub(crate) fn know_owner(&mut self, mine: Mine, body: &mut Value) {
        match &self.owner {
            Some(owner) if mine == Mine::Profile => owner.carry(mine, body),
            Some(_) => {}
            None => self.owner = Owner::shown(mine, body),
        }
    }

    /// Before the session knows the user: the owner of the thing the task names as the
    /// user's own, if `body` shows it (see `me::Owner::named_in`).
    pub(crate) fn know_owner_named(&mut self, task: &str, body: &Value) {
        if self.owner.is_none() {
            self.owner = Owner::named_in(task, body);
        }
    }

    /// Remembers the entities a response shown at `place` holds (objects with an id
    /// and a name or title), the latest sighting first; as the user's own things too
    /// when the response is about the user (`mine`).
    pub(crate) fn remember(&mut self, body: &Value, place: &Place, mine: bool) {
        let mut found = Vec::new();
        entities(body, None, 0, place, &mut found);
        if mine {
            for sighting in found.iter().rev() {
                self.own
                    .retain(|s| s.shown.get("id") != sighting.shown.get("id"));
                self.own.insert(0, sighting.clone());
            }
            self.own.truncate(MAX_OWN);
        }
        for sighting in found.iter().rev() {
            if let Some(id) = sighting.shown.get("id").and_then(scalar) {
                self.names.remember(&id, &sighting.shown);
                let by = Referrer {
                    tool: sighting.tool.clone(),
                    id,
                    named: named_by(&sighting.shown),
                    kinds: sighting.kinds.clone(),
                };
                self.referrals.remember(&by, &sighting.refs);
            }
        }
        for sighting in found {
            let Some(id) = sighting.shown.get("id").and_then(scalar) else {
                continue;
            };
            if self.seen.len() >= MAX_SEEN && !self.seen.contains_key(&id) {
                continue;
            }
            let sightings = self.seen.entry(id).or_default();
            sightings.retain(|e| e != &sighting);
            sightings.insert(0, sighting);
            sightings.truncate(PER_ID);
        }
    }

    /// Notes the entities shown before whose ids a call of `entry` passes in `args` as
    /// ones the agent holds (see the module's doc).
    pub(crate) fn note_passed(&mut self, entry: &BookEntry, args: &Map<String, Value>) {
        let tool = entry.api.api.id.tool().to_string();
        for wanted in recall::passed(entry, args) {
            if self.named(&tool, &wanted).next().is_none() {
                continue;
            }
            let key = (tool.clone(), wanted);
            self.held_ids.retain(|k| k != &key);
            self.held_ids.insert(0, key);
        }
        self.held_ids.truncate(MAX_HELD_IDS);
    }

    /// What the fill of a call of `entry` with `args` is told the session showed and did,
    /// the most relevant first: for a call about the user or one whose `draft` shows
    /// owners, the user (see `me`); the entities its id arguments name, with the records
    /// each was shown holding, then those its other arguments pass; for a call naming
    /// things by text, the entities it names (see `named`), else the entities the agent
    /// holds of a kind its `draft` lists (see the module's doc); the named entities'
    /// records of a kind its `draft` lists (see `held`); the ids entities referred to of a
    /// kind the call is about (see `references`); for a call about the user, their own
    /// things of the kinds its `draft` shows; the latest writes.
    pub(crate) fn recalled(
        &self,
        entry: &BookEntry,
        args: &Map<String, Value>,
        draft: Option<&Value>,
    ) -> Vec<Value> {
        let tool = entry.api.api.id.tool().to_string();
        let wanted = recall::wanted(entry, args);
        let place = Place::of(entry, args);
        let mut shown = self.relevant(&tool, &wanted);
        let passed = recall::passed(entry, args);
        let passed_now = passed.iter().filter(|w| !wanted.contains(w));
        self.add_held(&tool, passed_now, None, MAX_SHOWN, &mut shown);
        let listed = draft.map(|d| held::listed_kinds(d, &place));
        let about = about_kinds(&place, listed.as_deref().unwrap_or_default());
        let texts = named::texts(entry, args);
        if !texts.is_empty() {
            for sighting in self.named_sightings(&tool, &texts, &about) {
                let told = shown
                    .iter()
                    .any(|e| e.get("id") == sighting.shown.get("id"));
                if !told && shown.len() < MAX_SHOWN {
                    shown.push(sighting.shown.clone());
                }
            }
        } else if let Some(listed) = &listed {
            let held_ids = self.held_ids.iter().filter(|(t, _)| *t == tool);
            let most = (shown.len() + MAX_HELD_SHOWN).min(MAX_SHOWN);
            let ids = held_ids.map(|(_, w)| w);
            self.add_held(&tool, ids, Some(listed), most, &mut shown);
        }
        if let Some(listed) = &listed {
            shown.extend(self.known(&tool, &wanted, listed));
        }
        let recalled: Vec<String> = shown
            .iter()
            .filter_map(|e| e.get("id").and_then(scalar))
            .collect();
        let recalled: Vec<&str> = recalled.iter().map(String::as_str).collect();
        shown.extend(self.referrals.told(&place, &about, &passed, &recalled));
        if me::mine(entry).is_some() {
            let own = draft.map(|d| self.own_things(d, &place, &shown));
            shown.extend(own.unwrap_or_default());
        }
        // The user, to a call about them and to one whose things have owners (a search
        // for the user's playlist lists the user's own as theirs).
        if let Some(owner) = &self.owner
            && (me::mine(entry).is_some() || draft.is_some_and(me::holds_owner))
        {
            shown.insert(0, owner.fact());
        }
        shown.extend(self.writes.iter().cloned());
        shown
    }

    /// Makes the entities an answer to a call naming things by text shows keep the ids of
    /// those the session showed under the same labels (see `named`), as its fill was told.
    pub(crate) fn keep_named_ids(
        &self,
        entry: &BookEntry,
        args: &Map<String, Value>,
        answer: &mut Value,
    ) {
        let texts = named::texts(entry, args);
        if texts.is_empty() {
            return;
        }
        let tool = entry.api.api.id.tool().to_string();
        let place = Place::of(entry, args);
        let about = about_kinds(&place, &held::listed_kinds(answer, &place));
        let sightings = self.named_sightings(&tool, &texts, &about);
        let told: Vec<Told<'_>> = sightings
            .iter()
            .map(|s| Told {
                kinds: &s.kinds,
                shown: &s.shown,
            })
            .collect();
        named::keep_ids(answer, &place, &told);
    }

    /// Makes the entities an answer of a call of `entry` with `args` shows keep the ids the
    /// session showed them under, whatever call showed them, but those the call's arguments
    /// pass (see `shared`).
    pub(crate) fn keep_shown_ids(
        &self,
        entry: &BookEntry,
        args: &Map<String, Value>,
        answer: &mut Value,
    ) {
        let tool = entry.api.api.id.tool().to_string();
        let place = Place::of(entry, args);
        let fixed: Vec<String> = recall::passed(entry, args)
            .into_iter()
            .map(|w| w.id)
            .collect();
        let shown = |label: &str, kinds: &[String], entity: &Map<String, Value>| {
            self.shown_as(&tool, label, kinds, entity)
        };
        shared::keep_shown_ids(answer, &place, &fixed, shown);
    }

    /// The ids of the entities `tool` showed under the normalized `label`, of one of the
    /// `kinds`, with no date in another year than `entity`'s and placed nowhere else; each
    /// once.
    fn shown_as(
        &self,
        tool: &str,
        label: &str,
        kinds: &[String],
        entity: &Map<String, Value>,
    ) -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        for id in self.names.labelled(label) {
            let sighting = self.seen.get(id).into_iter().flatten().find(|s| {
                s.tool == tool
                    && s.kinds.iter().any(|k| kinds.contains(k))
                    && named::labelled_as(label, &s.shown)
                    && named::dates_agree(entity, &s.shown)
                    && shared::places_agree(entity, &s.shown)
            });
            if let Some(id) = sighting.and_then(|s| s.shown.get("id"))
                && !out.contains(id)
            {
                out.push(id.clone());
            }
        }
        out
    }

    /// The latest sighting by `tool`, of one of the kinds `about` and under a label `texts`
    /// name, of each entity they name (see `named`), at most [`MAX_NAMED`].
    fn named_sightings(&self, tool: &str, texts: &[String], about: &[String]) -> Vec<&Sighting> {
        self.names
            .named(texts)
            .into_iter()
            .filter_map(|id| {
                self.seen.get(id)?.iter().find(|s| {
                    s.tool == tool
                        && s.kinds.iter().any(|k| about.contains(k))
                        && named::names_any(texts, &s.shown)
                })
            })
            .take(MAX_NAMED)
            .collect()
    }

    /// Adds to `shown`, up to `most` entries, the latest sighting by `tool` of each entity
    /// `ids` name, of one of the `listed` kinds when given, unless one with its id is there.
    fn add_held<'a>(
        &self,
        tool: &str,
        ids: impl Iterator<Item = &'a Wanted>,
        listed: Option<&[String]>,
        most: usize,
        shown: &mut Vec<Value>,
    ) {
        for wanted in ids {
            let Some(sighting) = self.named(tool, wanted).next() else {
                continue;
            };
            let of_kind = listed.is_none_or(|l| sighting.kinds.iter().any(|k| l.contains(k)));
            let id = sighting.shown.get("id");
            let told = shown.iter().any(|e| e.get("id") == id);
            if of_kind && !told && shown.len() < most {
                shown.push(sighting.shown.clone());
            }
        }
    }

    /// The user's own things shown before by calls of `tool` about the user, of the kinds
    /// the `draft` (at `place`) shows, but those in `shown` already, so that the devices
    /// listed a call ago are the ones the player reports now.
    fn own_things(&self, draft: &Value, place: &Place, shown: &[Value]) -> Vec<Value> {
        let mut drafted = Vec::new();
        entities(draft, None, 0, place, &mut drafted);
        let kinds: Vec<&String> = drafted.iter().flat_map(|s| &s.kinds).collect();
        self.own
            .iter()
            .filter(|s| s.tool == place.tool && s.kinds.iter().any(|k| kinds.contains(&k)))
            .filter(|s| !shown.contains(&s.shown))
            .take(MAX_SHOWN.saturating_sub(shown.len()))
            .map(|s| s.shown.clone())
            .collect()
    }

    /// The entities to show the oracle for a call of `tool`: those `wanted` names by
    /// id and kind. Only those: a prompt that depended on whatever else the session
    /// happened to show would differ between runs whose calls interleave differently,
    /// and miss the cache.
    fn relevant(&self, tool: &str, wanted: &[Wanted]) -> Vec<Value> {
        wanted
            .iter()
            .flat_map(|w| self.named(tool, w))
            .take(MAX_SHOWN)
            .map(|s| s.shown.clone())
            .collect()
    }

    /// The sightings of `tool` of the entity `wanted` names, of its kind, latest first.
    fn named<'a>(
        &'a self,
        tool: &'a str,
        wanted: &'a Wanted,
    ) -> impl Iterator<Item = &'a Sighting> {
        self.seen
            .get(&wanted.id)
            .into_iter()
            .flatten()
            .filter(move |s| {
                s.tool == tool && wanted.kind.as_ref().is_none_or(|k| s.kinds.contains(k))
            })
    }

    /// For a call whose draft lists records of the `listed` kinds, the records of those
    /// kinds the entities it names were shown holding (a person's `known_for` films, to
    /// their movie credits), one entry per entity and kind (see [`held::known`]).
    fn known(&self, tool: &str, wanted: &[Wanted], listed: &[String]) -> Vec<Value> {
        if listed.is_empty() {
            return Vec::new();
        }
        wanted
            .iter()
            .flat_map(|w| {
                let sightings: Vec<&Sighting> = self.named(tool, w).collect();
                let of = sightings.first().map(|s| named_by(&s.shown))?;
                let records = sightings.into_iter().flat_map(|s| &s.held);
                Some(held::known(&of, records, listed))
            })
            .flatten()
            .take(MAX_SHOWN)
            .collect()
    }
}

/// Objects with an id and a label in `value`, down to [`MAX_DEPTH`], as shown at `place`.
fn entities(
    value: &Value,
    key: Option<&str>,
    depth: usize,
    place: &Place,
    out: &mut Vec<Sighting>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(mut shown) = entity(map, key) {
                let mut kept = Vec::new();
                for (field, records) in held::held(map, place) {
                    let identities = records.iter().map(|h| h.record.clone()).collect();
                    shown[field] = Value::Array(identities);
                    kept.extend(records);
                }
                let refs = references::of_entity(map);
                for reference in &refs {
                    shown[&reference.field] = Value::Array(reference.ids.clone());
                }
                out.push(Sighting {
                    tool: place.tool.clone(),
                    kinds: place.kinds(key, map),
                    shown,
                    held: kept,
                    refs,
                });
            }
            for (k, v) in map {
                entities(v, Some(k), depth + 1, place, out);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| entities(v, key, depth + 1, place, out)),
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
    for (name, fact) in facts(map) {
        out.insert(name, fact);
    }
    if let Some(key) = key {
        out.insert("in".to_owned(), Value::String(key.to_owned()));
    }
    Some(Value::Object(out))
}

/// The short scalar facts of an entity (a count, a date, a short text), so that a
/// later response about it agrees: its own fields and those of a small object it holds
/// without an id (`followers.total`); numbers and dates first, in the order the response
/// has them, then other texts and flags, at most [`MAX_FACTS`].
fn facts(map: &Map<String, Value>) -> Vec<(String, Value)> {
    let mut found: Vec<(u8, String, Value)> = Vec::new();
    for (key, value) in map {
        if LABELS.contains(&key.as_str()) || !is_fact_name(key) {
            continue;
        }
        match value {
            Value::Object(inner) if !inner.contains_key("id") && inner.len() <= 3 => {
                for (sub, v) in inner {
                    if let Some(rank) = fact_rank(v).filter(|_| is_fact_name(sub)) {
                        found.push((rank, format!("{key}.{sub}"), v.clone()));
                    }
                }
            }
            _ => {
                if let Some(rank) = fact_rank(value) {
                    found.push((rank, key.clone(), value.clone()));
                }
            }
        }
    }
    found.sort_by_key(|(rank, _, _)| *rank);
    found
        .into_iter()
        .take(MAX_FACTS)
        .map(|(_, name, value)| (name, value))
        .collect()
}

/// Whether a field may hold a fact: not an address or the entity's kind.
fn is_fact_name(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    !NOT_FACTS.contains(&lower.as_str()) && !lower.ends_with("_url") && !lower.ends_with("_path")
}

/// How early a value is kept as a fact (numbers and dates, then texts, then flags), `None`
/// for what is no short scalar (a long text, a link, a list).
fn fact_rank(value: &Value) -> Option<u8> {
    match value {
        Value::Number(_) => Some(0),
        Value::String(text) if text.chars().count() <= MAX_FACT_CHARS && !text.contains("://") => {
            Some(if is_dated(text) { 0 } else { 1 })
        }
        Value::Bool(_) => Some(2),
        _ => None,
    }
}

/// The kinds a call at `place` is about: what its path is about, and the kinds of the
/// records its draft (or answer) lists.
fn about_kinds(place: &Place, listed: &[String]) -> Vec<String> {
    let mut about: Vec<String> = place.tops.iter().chain(listed).cloned().collect();
    about.sort();
    about.dedup();
    about
}

/// An entity as a prompt entry names it: its id and first label.
fn named_by(shown: &Value) -> Value {
    let mut out = Map::new();
    for field in std::iter::once(&"id").chain(LABELS) {
        if let Some(value) = shown.get(*field) {
            out.insert((*field).to_owned(), value.clone());
            if *field != "id" {
                break;
            }
        }
    }
    Value::Object(out)
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A sighting keeps a few short facts of its entity, numbers and dates first, never a long
    /// text or a link, and never more than [`MAX_FACTS`].
    #[test]
    fn a_sighting_keeps_a_bounded_few_short_facts() {
        let mut session = Session::default();
        let mut artist = json!({"id": "a1", "name": "The Beatles", "type": "artist",
            "href": "https://api.example/artists/a1", "followers": {"total": 123},
            "bio": "A band from Liverpool that changed popular music for good, and more.",
            "formed": "1960-08-01", "country": "GB", "active": false});
        for i in 0..10 {
            artist[format!("count_{i}")] = json!(i);
        }
        let place = Place {
            tool: "music".to_owned(),
            tops: vec!["search".to_owned()],
            path: "/search".to_owned(),
        };
        session.remember(&json!({"artists": [artist]}), &place, false);
        let wanted = Wanted {
            id: "a1".to_owned(),
            kind: Some("artist".to_owned()),
        };
        let shown = session.relevant("music", &[wanted]);
        let [one] = shown.as_slice() else {
            panic!("{shown:?}")
        };
        let fields = one.as_object().map(Map::len).unwrap_or_default();
        assert_eq!(fields, 2 + MAX_FACTS + 1, "{one}");
        assert_eq!(one["followers.total"], 123, "{one}");
        assert!(
            one.get("bio").is_none() && one.get("href").is_none(),
            "{one}"
        );
        assert_eq!(one["formed"], "1960-08-01", "{one}");
        assert!(
            one.get("country").is_none(),
            "numbers and dates come first: {one}"
        );
    }
}
