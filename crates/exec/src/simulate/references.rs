//! The ids an entity a response showed refers to under a field of ids (a film's
//! `genre_ids: [12, 14, 28]`, a track's `artist_ids`): things of another kind the response
//! showed only by their ids. A later response that lists or details things of that kind
//! must agree (the genre list names genres 12, 14 and 28; a film's details give those
//! genres), so the session keeps each such field as a reference: the ids, the field they
//! were seen under, the kind the field names ([`recall::listed_ids_kind`]) and the entity
//! that referred to them. The entity's own sighting carries the field too, so a fill that
//! recalls the entity (its details) is told its ids with it.
//!
//! Which references a fill is told ([`Referrals::told`]), by one rule: those of a kind the
//! call is about, that is a kind its path is about (`/genre/movie/list`: genre), a kind
//! its draft lists records of (`genres: [{id, name}]`) or a kind its id arguments name;
//! but no kind that an entity the call recalls by id referred to itself (a film's
//! details keep that film's genres, which its sighting tells, and are not told other
//! films'). Those naming an id the call passes come first, then the latest; one is told
//! only when it adds an id of its kind not told yet, and at most [`MAX_TOLD`] are.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::recall::{self, Wanted};

/// Most fields of ids kept per entity (the first the response has).
const MAX_FIELDS: usize = 3;
/// Most ids kept per field (the first the response lists).
const MAX_IDS: usize = 10;
/// Most references told to one fill.
const MAX_TOLD: usize = 6;
/// Most references a session remembers (the latest).
const MAX_KEPT: usize = 512;

/// The ids one entity's field refers to, and the kind of thing they name.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Reference {
    pub(crate) field: String,
    pub(crate) kind: String,
    pub(crate) ids: Vec<Value>,
}

/// The references an entity makes: its fields named as lists of ids whose items are ids
/// (numbers or texts), at most [`MAX_FIELDS`] of [`MAX_IDS`] ids, in the response's order.
pub(crate) fn of_entity(entity: &Map<String, Value>) -> Vec<Reference> {
    entity
        .iter()
        .filter_map(|(field, value)| {
            let kind = recall::listed_ids_kind(field)?;
            let ids: Vec<Value> = value
                .as_array()?
                .iter()
                .filter(|v| v.is_number() || v.is_string())
                .take(MAX_IDS)
                .cloned()
                .collect();
            (!ids.is_empty()).then(|| Reference {
                field: field.clone(),
                kind,
                ids,
            })
        })
        .take(MAX_FIELDS)
        .collect()
}

/// A reference as the session keeps it: which tool showed it, and the entity that made it
/// (its id as text, and its id and first label as a prompt names it).
#[derive(Clone, Debug, PartialEq)]
struct Referral {
    tool: String,
    by_id: String,
    by: Value,
    reference: Reference,
}

impl Referral {
    /// The prompt's fact: `{"refers_to": "genre", "ids": [..], "as": "genre_ids", "by": {..}}`.
    fn fact(&self) -> Value {
        json!({
            "refers_to": self.reference.kind,
            "ids": self.reference.ids,
            "as": self.reference.field,
            "by": self.by,
        })
    }

    /// Whether it names one of `ids` (as text).
    fn names_any(&self, ids: &[&str]) -> bool {
        self.reference
            .ids
            .iter()
            .any(|id| ids.contains(&id_text(id).as_str()))
    }
}

/// The references a session's responses showed, the latest first.
#[derive(Debug, Default)]
pub(crate) struct Referrals(Vec<Referral>);

impl Referrals {
    /// Keeps the references the entity `by` (shown by `tool`, with id `by_id`) made, each
    /// replacing the one it made under the same field before.
    pub(crate) fn remember(&mut self, tool: &str, by_id: &str, by: &Value, refs: &[Reference]) {
        for reference in refs.iter().rev() {
            self.0.retain(|r| {
                !(r.tool == tool && r.by_id == by_id && r.reference.field == reference.field)
            });
            self.0.insert(
                0,
                Referral {
                    tool: tool.to_owned(),
                    by_id: by_id.to_owned(),
                    by: by.clone(),
                    reference: reference.clone(),
                },
            );
        }
        self.0.truncate(MAX_KEPT);
    }

    /// The facts told to a fill of a call of `tool` about the kinds `about`, which names
    /// or passes the ids `named` and recalls by id the entities `recalled` (see the
    /// module's doc for the rule).
    pub(crate) fn told(
        &self,
        tool: &str,
        about: &[String],
        named: &[Wanted],
        recalled: &[&str],
    ) -> Vec<Value> {
        let own_kinds: HashSet<&str> = self
            .0
            .iter()
            .filter(|r| r.tool == tool && recalled.contains(&r.by_id.as_str()))
            .map(|r| r.reference.kind.as_str())
            .collect();
        let about: Vec<&str> = about
            .iter()
            .map(String::as_str)
            .chain(named.iter().filter_map(|w| w.kind.as_deref()))
            .filter(|kind| !own_kinds.contains(kind))
            .collect();
        let ids: Vec<&str> = named.iter().map(|w| w.id.as_str()).collect();
        let candidates: Vec<&Referral> = self
            .0
            .iter()
            .filter(|r| r.tool == tool && about.contains(&r.reference.kind.as_str()))
            .collect();
        let (naming, others): (Vec<&Referral>, Vec<&Referral>) =
            candidates.into_iter().partition(|r| r.names_any(&ids));
        let mut told_ids: HashSet<(&str, String)> = HashSet::new();
        let mut out = Vec::new();
        for referral in naming.into_iter().chain(others) {
            let kind = referral.reference.kind.as_str();
            let new: Vec<String> = referral
                .reference
                .ids
                .iter()
                .map(id_text)
                .filter(|id| !told_ids.contains(&(kind, id.clone())))
                .collect();
            if new.is_empty() {
                continue;
            }
            told_ids.extend(new.into_iter().map(|id| (kind, id)));
            out.push(referral.fact());
            if out.len() == MAX_TOLD {
                break;
            }
        }
        out
    }
}

/// An id as text (`12`, `"a1"`: `a1`).
fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn film(id: u32, genres: &[u32]) -> (String, Value, Vec<Reference>) {
        let entity = json!({"id": id, "title": format!("Film {id}"), "genre_ids": genres,
            "origin_country": ["US"], "ids": [1, 2]});
        let refs = of_entity(entity.as_object().unwrap());
        (
            id.to_string(),
            json!({"id": id, "title": format!("Film {id}")}),
            refs,
        )
    }

    fn referrals(films: &[(u32, &[u32])]) -> Referrals {
        let mut kept = Referrals::default();
        for (id, genres) in films {
            let (by_id, by, refs) = film(*id, genres);
            kept.remember("tmdb", &by_id, &by, &refs);
        }
        kept
    }

    /// Only a field named as a list of ids is a reference, its ids bounded.
    #[test]
    fn a_field_of_ids_is_a_reference_of_its_kind() {
        let many: Vec<u32> = (0..20).collect();
        let (_, _, refs) = film(1, &many);
        let [one] = refs.as_slice() else {
            panic!("{refs:?}")
        };
        assert_eq!(
            (one.field.as_str(), one.kind.as_str()),
            ("genre_ids", "genre")
        );
        assert_eq!(one.ids.len(), MAX_IDS);
    }

    /// A genre list is told the genres films referred to, an entry only for new ids, at
    /// most a few; a search for films is told none; a film's details none of other films'.
    #[test]
    fn references_reach_the_calls_about_their_kind_only() {
        let kept = referrals(&[(1, &[12, 14]), (2, &[14]), (3, &[28, 12])]);
        let genres = ["genre".to_owned()];
        let told = kept.told("tmdb", &genres, &[], &[]);
        assert_eq!(told.len(), 2, "{told:?}");
        assert_eq!(told[0]["by"]["id"], 3);
        assert_eq!(told[0]["as"], "genre_ids");
        assert_eq!(
            told[1]["ids"],
            json!([14]),
            "film 1 adds no genre: {told:?}"
        );
        assert!(
            kept.told("tmdb", &["movie".to_owned()], &[], &[])
                .is_empty()
        );
        assert!(kept.told("other", &genres, &[], &[]).is_empty());
        assert!(kept.told("tmdb", &genres, &[], &["2"]).is_empty());
        let mut wide = Referrals::default();
        for i in 0..20 {
            let (by_id, by, refs) = film(i, &[100 + i]);
            wide.remember("tmdb", &by_id, &by, &refs);
        }
        assert_eq!(wide.told("tmdb", &genres, &[], &[]).len(), MAX_TOLD);
    }

    /// A call naming a genre by id is told first the films that referred to it.
    #[test]
    fn references_naming_the_calls_id_come_first() {
        let kept = referrals(&[(1, &[99]), (2, &[12]), (3, &[14])]);
        let wanted = Wanted {
            id: "99".to_owned(),
            kind: Some("genre".to_owned()),
        };
        let told = kept.told("tmdb", &[], &[wanted], &[]);
        assert_eq!(told[0]["by"]["id"], 1, "{told:?}");
        assert_eq!(told.len(), 3);
    }
}
