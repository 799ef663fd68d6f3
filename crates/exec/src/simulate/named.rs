//! Recall by name: the entities a call names by the text it gives. A read (a safe call)
//! that gives the text of a lookup input (a required free text, such as a search's
//! `query`: [`toolsmith_catalog::Api::lookup_inputs`]) names the entities the session
//! showed, by the same tool and of a kind the call is about, whose label is that text
//! (case, punctuation and spacing aside: "the matrix" names "The Matrix"), then those
//! whose label holds it as whole words ("Avatar" names "Avatar: The Way of Water", which
//! such a search lists too); the exact ones first, then the latest shown, at most
//! [`MAX_NAMED`]. Its fill is told them, and nothing else the session showed of its kinds
//! (no film looked up before is told to a search for another), and its answer keeps their
//! ids ([`keep_ids`]). So two searches of one step, answered one after the other, give one
//! film one id.

use serde_json::{Map, Value};

use super::identity::{LABELS, is_dated};
use super::recall::Place;
use crate::executor::BookEntry;

/// Most entities one call recalls by name.
pub(crate) const MAX_NAMED: usize = 4;
/// Most labels a session remembers (the latest).
const MAX_NAMES: usize = 4_096;
/// How deep in an answer entities are looked for.
const MAX_DEPTH: usize = 4;

/// The texts a call of `entry` names things by (see the module's doc), normalized; none
/// for a call that may change something (a playlist created by a name is a new one).
pub(crate) fn texts(entry: &BookEntry, args: &Map<String, Value>) -> Vec<String> {
    if !crate::gate::is_safe(entry) {
        return Vec::new();
    }
    entry
        .api
        .api
        .lookup_inputs()
        .into_iter()
        .filter_map(|name| args.get(name)?.as_str())
        .map(normalized)
        .filter(|text| !text.is_empty())
        .collect()
}

/// A label or a text as names are compared: lowercase words of letters and digits,
/// one space apart.
pub(crate) fn normalized(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The labels of the entities a session showed, normalized, each with the entity's id as
/// text, the latest first.
#[derive(Debug, Default)]
pub(crate) struct Names(Vec<(String, String)>);

impl Names {
    /// Remembers that the entity `id` was shown under the labels of `shown`.
    pub(crate) fn remember(&mut self, id: &str, shown: &Value) {
        for label in LABELS {
            let Some(text) = shown.get(*label).and_then(Value::as_str) else {
                continue;
            };
            let label = normalized(text);
            if label.is_empty() {
                continue;
            }
            self.0.retain(|(l, i)| !(l == &label && i == id));
            self.0.insert(0, (label, id.to_owned()));
        }
        self.0.truncate(MAX_NAMES);
    }

    /// The ids of the entities shown under the normalized `label` exactly, the latest first.
    pub(crate) fn labelled<'a>(&'a self, label: &'a str) -> impl Iterator<Item = &'a str> {
        self.0
            .iter()
            .filter(move |(l, _)| l == label)
            .map(|(_, id)| id.as_str())
    }

    /// The ids of the entities `texts` name: those labelled exactly so, then those whose
    /// label holds a text as whole words, each the latest first, each id once.
    pub(crate) fn named(&self, texts: &[String]) -> Vec<&str> {
        let exact = self
            .0
            .iter()
            .filter(|(label, _)| texts.iter().any(|t| t == label));
        let within = self
            .0
            .iter()
            .filter(|(label, _)| texts.iter().any(|t| holds_words(label, t)));
        let mut out: Vec<&str> = Vec::new();
        for (_, id) in exact.chain(within) {
            if !out.contains(&id.as_str()) {
                out.push(id);
            }
        }
        out
    }
}

/// Whether the entity `shown` was shown under the normalized `label` exactly.
pub(crate) fn labelled_as(label: &str, shown: &Value) -> bool {
    LABELS.iter().any(|l| {
        shown
            .get(*l)
            .and_then(Value::as_str)
            .is_some_and(|text| normalized(text) == label)
    })
}

/// Whether `texts` name the entity `shown` (see [`Names::named`]): it was shown under a
/// label that is one of them or holds one as whole words.
pub(crate) fn names_any(texts: &[String], shown: &Value) -> bool {
    LABELS.iter().any(|l| {
        shown.get(*l).and_then(Value::as_str).is_some_and(|text| {
            let label = normalized(text);
            texts.iter().any(|t| holds_words(&label, t))
        })
    })
}

/// Whether the normalized `label` holds the normalized `text` as whole words.
fn holds_words(label: &str, text: &str) -> bool {
    format!(" {label} ").contains(&format!(" {text} "))
}

/// One entity a fill was told by name: its kinds and its sighting's fields.
pub(crate) struct Told<'a> {
    pub(crate) kinds: &'a [String],
    pub(crate) shown: &'a Value,
}

/// Makes each entity `answer` (a response at `place`) shows under the same label and of a
/// kind of one `told` by name keep that one's id, where their dates agree (no date shown
/// of both falls in another year: a 1953 "Titanic" is another film than a 1997 one) and
/// no other entity of the answer has that id already.
pub(crate) fn keep_ids(answer: &mut Value, place: &Place, told: &[Told<'_>]) {
    if told.is_empty() {
        return;
    }
    let mut ids = Vec::new();
    ids_in(answer, 0, &mut ids);
    rewrite(answer, None, 0, place, told, &mut ids);
}

/// The ids of the objects in `value`, as JSON.
fn ids_in(value: &Value, depth: usize, out: &mut Vec<Value>) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            out.extend(map.get("id").cloned());
            map.values().for_each(|v| ids_in(v, depth + 1, out));
        }
        Value::Array(items) => items.iter().for_each(|v| ids_in(v, depth + 1, out)),
        _ => {}
    }
}

fn rewrite(
    value: &mut Value,
    key: Option<&str>,
    depth: usize,
    place: &Place,
    told: &[Told<'_>],
    ids: &mut Vec<Value>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(id) = same_thing(map, key, place, told)
                && map.get("id") != Some(&id)
                && !ids.contains(&id)
            {
                ids.push(id.clone());
                map.insert("id".to_owned(), id);
            }
            for (k, v) in map.iter_mut() {
                rewrite(v, Some(k), depth + 1, place, told, ids);
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| rewrite(v, key, depth + 1, place, told, ids)),
        _ => {}
    }
}

/// The id of the one entity told by name that `entity` (under `key`) is: the same label,
/// a kind in common, no date in another year. `None` when none is, or several are.
fn same_thing(
    entity: &Map<String, Value>,
    key: Option<&str>,
    place: &Place,
    told: &[Told<'_>],
) -> Option<Value> {
    entity.get("id")?;
    let label = LABELS
        .iter()
        .find_map(|l| entity.get(*l).and_then(Value::as_str))
        .map(normalized)?;
    let kinds = place.kinds(key, entity);
    let mut same = told.iter().filter(|t| {
        labelled_as(&label, t.shown)
            && t.kinds.iter().any(|k| kinds.contains(k))
            && dates_agree(entity, t.shown)
    });
    let one = same.next()?;
    same.next()
        .is_none()
        .then(|| one.shown.get("id").cloned())?
}

/// Whether no date field both `entity` and `shown` have falls in different years.
pub(crate) fn dates_agree(entity: &Map<String, Value>, shown: &Value) -> bool {
    let Some(shown) = shown.as_object() else {
        return true;
    };
    shown.iter().all(|(field, value)| {
        let (Some(was), Some(now)) = (
            value.as_str().filter(|t| is_dated(t)),
            entity
                .get(field)
                .and_then(Value::as_str)
                .filter(|t| is_dated(t)),
        ) else {
            return true;
        };
        was.get(..4) == now.get(..4)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Names compare without case or punctuation; an exact label comes before one that
    /// holds the text, and a word inside another word names nothing.
    #[test]
    fn a_text_names_its_label_then_the_labels_holding_it() {
        let mut names = Names::default();
        names.remember("1", &json!({"title": "Avatar"}));
        names.remember("2", &json!({"title": "Avatar: The Way of Water"}));
        names.remember("3", &json!({"title": "Avatars United"}));
        assert_eq!(names.named(&[normalized("AVATAR")]), ["1", "2"]);
        assert_eq!(names.named(&[normalized("avatar the way of water")]), ["2"]);
        assert!(names.named(&[normalized("Inception")]).is_empty());
    }

    /// The answer's film of the told title takes the told id; one of another year, or of
    /// another label, keeps its own; an id already in the answer is not given twice.
    #[test]
    fn an_answer_keeps_the_ids_told_by_name() {
        let place = Place {
            tool: "tmdb".to_owned(),
            tops: vec!["movie".to_owned()],
            path: "/search/movie".to_owned(),
        };
        let shown = json!({"id": 603, "title": "The Matrix", "release_date": "1999-03-30"});
        let kinds = vec!["movie".to_owned()];
        let told = [Told {
            kinds: &kinds,
            shown: &shown,
        }];
        let mut answer = json!({"results": [
            {"id": 9, "title": "The Matrix", "release_date": "1999-03-31"},
            {"id": 10, "title": "The Matrix", "release_date": "2031-01-01"},
            {"id": 11, "title": "The Matrix Reloaded"}]});
        keep_ids(&mut answer, &place, &told);
        let ids: Vec<&Value> = answer["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| &f["id"])
            .collect();
        assert_eq!(ids, [&json!(603), &json!(10), &json!(11)]);
        let mut twice = json!({"results": [{"id": 603, "title": "Other"},
            {"id": 9, "title": "The Matrix"}]});
        keep_ids(&mut twice, &place, &told);
        assert_eq!(twice["results"][1]["id"], 9);
    }
}
