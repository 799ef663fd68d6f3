//! One thing, one id across the calls of a session, whatever kind of call shows it. A
//! search keeps the ids of the things its text names (`named`), and a call naming things
//! by id is told them (`recall`); but a call that names neither draws the entities of its
//! kinds anew (a show's credits list its director, a show's `similar` and
//! `recommendations` list shows), and a model filling two such calls one after the other
//! gave one person two ids (stand-in y4: David Lynch, in Twin Peaks' season and in
//! Mulholland Drive's credits; y1: Breaking Bad, in two lists of one show).
//!
//! So the answer is read after the fill, and the fill is told nothing more (no prompt
//! grows). Each entity the answer shows (an object with an id and a label, of the kinds
//! its record says: see [`held::kinds`]) is matched against the entities the session showed
//! by the same tool: where exactly one was shown of a kind in common, under the same
//! label (normalized as `named` does) and with no date in another year, the entity takes
//! that one's id, and so does what else in the answer referred to its old id (the same
//! person listed again as the writer, a `person_id` field). An entity stays as written:
//! - when the call's arguments pass its id (the agent asked for that very thing);
//! - when the answer holds another entity of a kind in common under that label with
//!   another id (a list may hold two people named alike), or the session showed several;
//! - when the shown id belongs to another entity of a kind in common in the answer;
//! - when it is a numbered part of something (`episode_number`, `season_number`,
//!   `track_number`): many shows have an episode called "Pilot";
//! - against a shown entity placed elsewhere ([`places_agree`]: a hotel of a chain in
//!   another city is another hotel of the same name).

use serde_json::{Map, Value};

use super::held;
use super::identity::{LABELS, id_text};
use super::named::normalized;
use super::recall::{self, Place};

/// How deep in an answer entities are looked for (as deep as the session remembers them).
const MAX_DEPTH: usize = 4;

/// An entity an answer shows: its kinds, its first label normalized, its id.
struct Drawn<'v> {
    kinds: Vec<String>,
    label: String,
    id: &'v Value,
    entity: &'v Map<String, Value>,
}

/// One identity given back: the entities of a kind of `kinds` labelled `label` (or not
/// labelled) whose id is `from` take the id `to`.
#[derive(Debug, PartialEq)]
struct Swap {
    kinds: Vec<String>,
    label: String,
    from: String,
    to: Value,
}

/// Makes the entities `answer` (a response at `place`) shows keep the ids the session
/// showed them under (see the module's doc). `fixed` are the ids the call's arguments pass,
/// as text; `shown` gives the ids of the entities the session showed under a normalized
/// label, of one of some kinds, whose dates agree with an entity's.
pub(crate) fn keep_shown_ids(
    answer: &mut Value,
    place: &Place,
    fixed: &[String],
    shown: impl Fn(&str, &[String], &Map<String, Value>) -> Vec<Value>,
) {
    let mut drawn = Vec::new();
    drawn_in(answer, None, 0, place, &mut drawn);
    let swaps = swaps(&drawn, fixed, shown);
    if !swaps.is_empty() {
        give_back(answer, None, 0, place, &swaps);
    }
}

/// The entities in `value` (under `key`), down to [`MAX_DEPTH`].
fn drawn_in<'v>(
    value: &'v Value,
    key: Option<&str>,
    depth: usize,
    place: &Place,
    out: &mut Vec<Drawn<'v>>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            out.extend(drawn(map, key, place));
            for (k, v) in map {
                drawn_in(v, Some(k), depth + 1, place, out);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| drawn_in(v, key, depth + 1, place, out)),
        _ => {}
    }
}

/// `map` as an entity, when it has an id and a label.
fn drawn<'v>(map: &'v Map<String, Value>, key: Option<&str>, place: &Place) -> Option<Drawn<'v>> {
    let id = map.get("id").filter(|v| v.is_string() || v.is_number())?;
    let label = first_label(map).filter(|l| !l.is_empty())?;
    Some(Drawn {
        kinds: held::kinds(key, map, place),
        label,
        id,
        entity: map,
    })
}

/// The identities to give back (see the module's doc for when an entity has one).
fn swaps(
    drawn: &[Drawn<'_>],
    fixed: &[String],
    shown: impl Fn(&str, &[String], &Map<String, Value>) -> Vec<Value>,
) -> Vec<Swap> {
    let mut out: Vec<Swap> = Vec::new();
    for one in drawn {
        let from = id_text(one.id);
        let done = out.iter().any(|s| s.from == from && s.label == one.label);
        if done || fixed.contains(&from) || is_part(one.entity) {
            continue;
        }
        let akin = |other: &&Drawn<'_>| other.kinds.iter().any(|k| one.kinds.contains(k));
        let namesake = drawn
            .iter()
            .filter(akin)
            .any(|o| o.label == one.label && id_text(o.id) != from);
        if namesake {
            continue;
        }
        let Ok([to]) = <[Value; 1]>::try_from(shown(&one.label, &one.kinds, one.entity)) else {
            continue;
        };
        let to_text = id_text(&to);
        let taken = drawn.iter().filter(akin).any(|o| id_text(o.id) == to_text)
            || out.iter().any(|s| id_text(&s.to) == to_text);
        if to_text == from || taken {
            continue;
        }
        out.push(Swap {
            kinds: one.kinds.clone(),
            label: one.label.clone(),
            from,
            to,
        });
    }
    out
}

/// Gives each entity of `value` a swap is for its shown id, and each field referring to
/// things of a swap's kind by id (`person_id`, `person_ids`) the shown id for the old one.
fn give_back(value: &mut Value, key: Option<&str>, depth: usize, place: &Place, swaps: &[Swap]) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            let kinds = held::kinds(key, map, place);
            let label = first_label(map);
            let id = map.get("id").map(id_text);
            let swap = swaps.iter().find(|s| {
                id.as_ref() == Some(&s.from)
                    && s.kinds.iter().any(|k| kinds.contains(k))
                    && label.as_ref().is_none_or(|l| *l == s.label)
            });
            if let Some(swap) = swap {
                map.insert("id".to_owned(), swap.to.clone());
            }
            for (k, v) in map.iter_mut() {
                if let Some(kind) = recall::id_field_kind(k) {
                    refer(v, &kind, swaps);
                }
                give_back(v, Some(k), depth + 1, place, swaps);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| give_back(v, key, depth + 1, place, swaps)),
        _ => {}
    }
}

/// Replaces, in a field referring to things of `kind` by id, an old id a swap is for,
/// keeping the field's type (an id written as text stays text).
fn refer(value: &mut Value, kind: &str, swaps: &[Swap]) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| refer(v, kind, swaps)),
        Value::String(_) | Value::Number(_) => {
            let text = id_text(value);
            let Some(swap) = swaps
                .iter()
                .find(|s| s.from == text && s.kinds.iter().any(|k| k == kind))
            else {
                return;
            };
            *value = match value {
                Value::String(_) => Value::String(id_text(&swap.to)),
                _ => swap.to.clone(),
            };
        }
        _ => {}
    }
}

/// Parts of the names of fields that place a thing (`city`, `country`, `address`,
/// `place_of_birth`): two things of one name placed apart are two things.
const PLACE_FIELDS: &[&str] = &["city", "country", "address", "place"];

/// Whether no text field placing a thing ([`PLACE_FIELDS`]) that both `entity` and
/// `shown` have differs (case, punctuation and spacing aside).
pub(crate) fn places_agree(entity: &Map<String, Value>, shown: &Value) -> bool {
    let Some(shown) = shown.as_object() else {
        return true;
    };
    shown.iter().all(|(field, was)| {
        let lower = field.to_ascii_lowercase();
        let placing = PLACE_FIELDS.iter().any(|p| lower.contains(p));
        match (was.as_str(), entity.get(field).and_then(Value::as_str)) {
            (Some(was), Some(now)) if placing => normalized(was) == normalized(now),
            _ => true,
        }
    })
}

/// Whether an entity is a numbered part of something (`episode_number: 1`), whose label
/// other things' parts share.
fn is_part(entity: &Map<String, Value>) -> bool {
    entity
        .iter()
        .any(|(k, v)| k.to_ascii_lowercase().ends_with("_number") && v.is_number())
}

/// The first label of an entity, normalized.
fn first_label(map: &Map<String, Value>) -> Option<String> {
    LABELS
        .iter()
        .find_map(|l| map.get(*l).and_then(Value::as_str))
        .map(normalized)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn credits() -> Place {
        Place {
            tool: "tmdb".to_owned(),
            tops: vec!["tv".to_owned(), "credit".to_owned()],
            path: "/tv/{tv_id}/credits".to_owned(),
        }
    }

    /// The session showed one David Lynch, person 11, and one Naomi Watts, person 12.
    fn shown(label: &str, kinds: &[String], _: &Map<String, Value>) -> Vec<Value> {
        let person = kinds.iter().any(|k| k == "person");
        match label {
            "david lynch" if person => vec![json!(11)],
            "naomi watts" if person => vec![json!(12)],
            _ => Vec::new(),
        }
    }

    /// Lynch takes his shown id wherever the answer lists him or refers to him; a person
    /// the session never showed stays as written.
    #[test]
    fn an_entity_shown_before_takes_its_shown_id_everywhere_in_the_answer() {
        let mut answer = json!({"id": 1920, "crew": [
            {"id": 5123, "name": "David Lynch", "job": "Director"},
            {"id": 5123, "name": "David Lynch", "job": "Writer"},
            {"id": 723, "name": "Mark Frost", "job": "Writer"}],
            "cast": [{"id": 6677, "name": "Kyle MacLachlan", "person_id": "5123"}]});
        keep_shown_ids(&mut answer, &credits(), &[], shown);
        assert_eq!(answer["crew"][0]["id"], 11);
        assert_eq!(answer["crew"][1]["id"], 11);
        assert_eq!(answer["crew"][2]["id"], 723);
        assert_eq!(answer["cast"][0]["id"], 6677);
        assert_eq!(answer["cast"][0]["person_id"], "11");
    }

    /// Two people of one name in the answer, an id the call passes, a shown id another
    /// entity holds, or an episode numbered within its show: each stays as written.
    #[test]
    fn namesakes_passed_ids_taken_ids_and_parts_stay() {
        let place = credits();
        let mut namesakes = json!({"crew": [{"id": 5123, "name": "David Lynch"},
            {"id": 77, "name": "David Lynch"}]});
        let before = namesakes.clone();
        keep_shown_ids(&mut namesakes, &place, &[], shown);
        assert_eq!(namesakes, before);
        let mut passed = json!({"crew": [{"id": 5123, "name": "David Lynch"}]});
        keep_shown_ids(&mut passed, &place, &["5123".to_owned()], shown);
        assert_eq!(passed["crew"][0]["id"], 5123);
        let mut taken = json!({"crew": [{"id": 5123, "name": "David Lynch"},
            {"id": 11, "name": "Mark Frost"}]});
        keep_shown_ids(&mut taken, &place, &[], shown);
        assert_eq!(taken["crew"][0]["id"], 5123);
        let mut part = json!({"episodes": [{"id": 5, "name": "Naomi Watts",
            "episode_number": 1}]});
        keep_shown_ids(&mut part, &place, &[], |_, _, _| vec![json!(12)]);
        assert_eq!(part["episodes"][0]["id"], 5);
    }

    /// A thing shown in one city is not the thing of that name in another.
    #[test]
    fn things_placed_apart_are_two_things() {
        let hotel = json!({"id": 1, "name": "Grand Hotel", "city": "Paris"});
        let there = json!({"id": 2, "name": "Grand Hotel", "city": "london"});
        let here = json!({"id": 3, "name": "Grand Hotel", "city": "PARIS", "stars": 4});
        assert!(!places_agree(there.as_object().unwrap(), &hotel));
        assert!(places_agree(here.as_object().unwrap(), &hotel));
        assert!(places_agree(&Map::new(), &hotel));
    }
}
