//! The records an entity a response showed holds (a person's `known_for` films, a film's
//! `genres`, a show's `created_by`, an album's `artists`): facts about the entity that a
//! later response about it keeps, the same ids and names. A sighting keeps a few of them,
//! by their identity fields only (the id, the first label, the first date), so that a fill
//! recalling the entity is shown them; and when that fill's response lists things of their
//! kind (a person's movie credits, after the person showed films), the prompt is told they
//! are things of that kind the entity is known to have ([`known`]).

use serde_json::{Map, Value};

use super::identity::{LABELS, is_dated};
use super::recall::{self, Place};

/// Most fields of held records kept per entity (the first the response has).
const MAX_FIELDS: usize = 3;
/// Most records kept per field (the first the response lists).
const MAX_RECORDS: usize = 5;
/// Most records one [`known`] entry names.
const MAX_KNOWN: usize = 8;
/// How deep in a draft listed records are looked for.
const MAX_DEPTH: usize = 4;

/// One record an entity holds: its identity fields, and the kinds of thing it is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Held {
    pub(crate) kinds: Vec<String>,
    pub(crate) record: Value,
}

/// The records held by `entity` (shown at `place`), by the field holding them: a list of
/// objects with an id and a label, or one such object; at most [`MAX_FIELDS`] fields of
/// [`MAX_RECORDS`] records, in the response's order, so a prompt stays small and the same
/// history gives the same facts.
pub(crate) fn held(entity: &Map<String, Value>, place: &Place) -> Vec<(String, Vec<Held>)> {
    let mut out = Vec::new();
    for (field, value) in entity {
        let objects: Vec<&Map<String, Value>> = match value {
            Value::Array(items) => items.iter().filter_map(Value::as_object).collect(),
            Value::Object(one) => vec![one],
            _ => continue,
        };
        let records: Vec<Held> = objects
            .into_iter()
            .filter_map(|item| {
                let record = identity(item)?;
                Some(Held {
                    kinds: kinds(Some(field), item, place),
                    record,
                })
            })
            .take(MAX_RECORDS)
            .collect();
        if !records.is_empty() {
            out.push((field.clone(), records));
        }
        if out.len() == MAX_FIELDS {
            break;
        }
    }
    out
}

/// A record's identity fields: its id, its first label and its first date (`None`: no id or
/// no label, so nothing a later response could name the same way).
fn identity(item: &Map<String, Value>) -> Option<Value> {
    let id = item.get("id").filter(|v| v.is_string() || v.is_number())?;
    let (label, text) = LABELS
        .iter()
        .find_map(|l| item.get(*l).filter(|v| v.is_string()).map(|v| (*l, v)))?;
    let mut out = Map::new();
    out.insert("id".to_owned(), id.clone());
    out.insert(label.to_owned(), text.clone());
    let date = item.iter().find(|(_, v)| v.as_str().is_some_and(is_dated));
    if let Some((field, value)) = date {
        out.insert(field.clone(), value.clone());
    }
    Some(Value::Object(out))
}

/// The kinds of a record under `key` (`None`: the response's top): its own `type` or
/// `media_type` when it says one (a `known_for` show is a show), else what its place and
/// field say (see [`Place::kinds`]).
pub(crate) fn kinds(key: Option<&str>, item: &Map<String, Value>, place: &Place) -> Vec<String> {
    match recall::own_kind(item) {
        Some(kind) => vec![kind],
        None => place.kinds(key, item),
    }
}

/// The kinds of the records `draft` (a response at `place`) lists: objects with an id in a
/// list, sorted, each once. A detail's own top is no listed record.
pub(crate) fn listed_kinds(draft: &Value, place: &Place) -> Vec<String> {
    fn walk(value: &Value, key: Option<&str>, depth: usize, place: &Place, out: &mut Vec<String>) {
        if depth > MAX_DEPTH {
            return;
        }
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    walk(v, Some(k), depth + 1, place, out);
                }
            }
            Value::Array(items) => {
                for item in items {
                    if let Some(map) = item.as_object().filter(|m| m.contains_key("id")) {
                        out.extend(match key {
                            Some(_) => kinds(key, map, place),
                            None => place.kinds(None, map),
                        });
                    }
                    walk(item, key, depth + 1, place, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(draft, None, 0, place, &mut out);
    out.sort();
    out.dedup();
    out
}

/// The prompt entry saying which records of a `listed` kind the entity `of` (its id and
/// label) is known to hold, from what its sightings (`held`, latest first) showed:
/// `{"known": "movie", "of": {...}, "items": [...]}`, the items each once, at most
/// [`MAX_KNOWN`]; one entry per kind. None when no held record is of a listed kind.
pub(crate) fn known<'a>(
    of: &Value,
    held: impl IntoIterator<Item = &'a Held>,
    listed: &[String],
) -> Vec<Value> {
    let mut by_kind: Vec<(&str, Vec<Value>)> = Vec::new();
    for one in held {
        let Some(kind) = one.kinds.iter().find(|k| listed.contains(k)) else {
            continue;
        };
        let at = match by_kind.iter().position(|(k, _)| *k == kind.as_str()) {
            Some(at) => at,
            None => {
                by_kind.push((kind, Vec::new()));
                by_kind.len() - 1
            }
        };
        if let Some((_, items)) = by_kind.get_mut(at)
            && items.len() < MAX_KNOWN
            && !items.contains(&one.record)
        {
            items.push(one.record.clone());
        }
    }
    by_kind
        .into_iter()
        .map(|(kind, items)| serde_json::json!({"known": kind, "of": of, "items": items}))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn search_place() -> Place {
        Place {
            tool: "films".to_owned(),
            tops: vec!["person".to_owned()],
            path: "/search/person".to_owned(),
        }
    }

    /// A person's `known_for` keeps each film's id, first label and first date, no more,
    /// and only the first few; a show among them is a show.
    #[test]
    fn held_records_keep_their_identity_and_are_bounded() {
        let films: Vec<Value> = (0..9)
            .map(|i| {
                json!({"id": i, "title": format!("Film {i}"), "original_title": "x",
                "overview": "A long text that is no identity.", "release_date": "1990-09-12",
                "vote_average": 8.1})
            })
            .collect();
        let mut known_for = vec![json!({"id": 1396, "name": "Breaking Bad", "media_type": "tv"})];
        known_for.extend(films);
        let person = json!({"id": 31, "name": "Martin Scorsese", "known_for": known_for,
            "also_known_as": ["Marty"]});
        let held = held(person.as_object().unwrap(), &search_place());
        let [(field, records)] = held.as_slice() else {
            panic!("{held:?}")
        };
        assert_eq!(field, "known_for");
        assert_eq!(records.len(), MAX_RECORDS);
        assert_eq!(records[0].kinds, ["tv"]);
        assert_eq!(records[1].kinds, ["movie"]);
        assert_eq!(
            records[1].record,
            json!({"id": 0, "title": "Film 0", "release_date": "1990-09-12"})
        );
    }

    /// Credits list films (and, read from the credits' top, people); a detail lists none.
    #[test]
    fn a_draft_lists_the_kinds_of_its_list_items() {
        let credits = Place {
            tool: "films".to_owned(),
            tops: vec!["person".to_owned(), "movie_credit".to_owned()],
            path: "/person/{person_id}/movie_credits".to_owned(),
        };
        let draft = json!({"id": 31, "cast": [{"id": 5, "title": "x", "character": "y"}]});
        assert!(listed_kinds(&draft, &credits).contains(&"movie".to_owned()));
        let detail = json!({"id": 31, "name": "x", "also_known_as": ["y"]});
        assert!(listed_kinds(&detail, &search_place()).is_empty());
    }

    /// Only the records of a listed kind are named, each once, under their kind.
    #[test]
    fn known_names_the_records_of_the_listed_kinds_once() {
        let film = Held {
            kinds: vec!["movie".to_owned()],
            record: json!({"id": 11, "title": "GoodFellas"}),
        };
        let show = Held {
            kinds: vec!["tv".to_owned()],
            record: json!({"id": 1396, "name": "Breaking Bad"}),
        };
        let of = json!({"id": 31, "name": "Martin Scorsese"});
        let entries = known(&of, [&film, &show, &film], &["movie".to_owned()]);
        assert_eq!(
            entries,
            [json!({"known": "movie", "of": of, "items": [{"id": 11, "title": "GoodFellas"}]})]
        );
        assert!(known(&of, [&show], &["movie".to_owned()]).is_empty());
    }
}
