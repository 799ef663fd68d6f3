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
//! films'). Where the call's path names the kind of some of the things that referred
//! (`/genre/tv/list` names shows), only those things' references are told: a show's genres
//! are TV genres, not a film's. Those naming an id the call passes come first, then the
//! latest; one is told only when it adds an id of its kind not told yet, and at most
//! [`MAX_TOLD`] are.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::identity::id_text;
use super::recall::{self, Place, Wanted};
use super::request;

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

/// The entity that made references: the tool that showed it, its id as text, its id and
/// first label as a prompt names it, and the kinds it was shown as.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Referrer {
    pub(crate) tool: String,
    pub(crate) id: String,
    pub(crate) named: Value,
    pub(crate) kinds: Vec<String>,
}

/// A reference as the session keeps it, with the entity that made it.
#[derive(Clone, Debug, PartialEq)]
struct Referral {
    by: Referrer,
    reference: Reference,
}

impl Referral {
    /// The prompt's fact: `{"refers_to": "genre", "ids": [..], "as": "genre_ids", "by": {..}}`.
    fn fact(&self) -> Value {
        json!({
            "refers_to": self.reference.kind,
            "ids": self.reference.ids,
            "as": self.reference.field,
            "by": self.by.named,
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
    /// Keeps the references `by` made, each replacing the one it made under the same
    /// field before.
    pub(crate) fn remember(&mut self, by: &Referrer, refs: &[Reference]) {
        for reference in refs.iter().rev() {
            self.0.retain(|r| {
                !(r.by.tool == by.tool && r.by.id == by.id && r.reference.field == reference.field)
            });
            let referral = Referral {
                by: by.clone(),
                reference: reference.clone(),
            };
            self.0.insert(0, referral);
        }
        self.0.truncate(MAX_KEPT);
    }

    /// The facts told to a fill of a call at `place` about the kinds `about`, which names
    /// or passes the ids `named` and recalls the entities `recalled` (see the module's doc
    /// for the rule).
    pub(crate) fn told(
        &self,
        place: &Place,
        about: &[String],
        named: &[Wanted],
        recalled: &[&str],
    ) -> Vec<Value> {
        let tool = place.tool.as_str();
        let own_kinds: HashSet<&str> = self
            .0
            .iter()
            .filter(|r| r.by.tool == tool && recalled.contains(&r.by.id.as_str()))
            .map(|r| r.reference.kind.as_str())
            .collect();
        let about: Vec<&str> = about
            .iter()
            .map(String::as_str)
            .chain(named.iter().filter_map(|w| w.kind.as_deref()))
            .filter(|kind| !own_kinds.contains(kind))
            .collect();
        let mut candidates: Vec<&Referral> = self
            .0
            .iter()
            .filter(|r| r.by.tool == tool && about.contains(&r.reference.kind.as_str()))
            .collect();
        let words = path_words(&place.path);
        let by_kind_named = |r: &&Referral| r.by.kinds.iter().any(|k| words.contains(k));
        if candidates.iter().any(by_kind_named) {
            candidates.retain(by_kind_named);
        }
        let ids: Vec<&str> = named.iter().map(|w| w.id.as_str()).collect();
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

/// The words of a path, singular, its parameters aside (`/genre/tv/list`: genre, tv, list).
fn path_words(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .map(|s| request::singular(&s.to_ascii_lowercase()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thing of `kind` referring to `genres`, and its references.
    fn shown(kind: &str, id: u32, genres: &[u32]) -> (Referrer, Vec<Reference>) {
        let entity = json!({"id": id, "title": format!("Film {id}"), "genre_ids": genres,
            "origin_country": ["US"], "ids": [1, 2]});
        let refs = of_entity(entity.as_object().unwrap());
        let by = Referrer {
            tool: "tmdb".to_owned(),
            id: id.to_string(),
            named: json!({"id": id, "title": format!("Film {id}")}),
            kinds: vec![kind.to_owned()],
        };
        (by, refs)
    }

    fn referrals(films: &[(u32, &[u32])]) -> Referrals {
        let mut kept = Referrals::default();
        for (id, genres) in films {
            let (by, refs) = shown("movie", *id, genres);
            kept.remember(&by, &refs);
        }
        kept
    }

    fn place(tool: &str, path: &str) -> Place {
        Place {
            tool: tool.to_owned(),
            tops: Vec::new(),
            path: path.to_owned(),
        }
    }

    /// Only a field named as a list of ids is a reference, its ids bounded.
    #[test]
    fn a_field_of_ids_is_a_reference_of_its_kind() {
        let many: Vec<u32> = (0..20).collect();
        let (_, refs) = shown("movie", 1, &many);
        let [one] = refs.as_slice() else {
            panic!("{refs:?}")
        };
        assert_eq!(one.field, "genre_ids");
        assert_eq!(one.kind, "genre");
        assert_eq!(one.ids.len(), MAX_IDS);
    }

    /// A genre list is told the genres films referred to, an entry only for new ids, at
    /// most a few; a search for films is told none; a film's details none of other films'.
    #[test]
    fn references_reach_the_calls_about_their_kind_only() {
        let kept = referrals(&[(1, &[12, 14]), (2, &[14]), (3, &[28, 12])]);
        let genres = ["genre".to_owned()];
        let list = place("tmdb", "/genre/movie/list");
        let told = kept.told(&list, &genres, &[], &[]);
        assert_eq!(told.len(), 2, "{told:?}");
        assert_eq!(told[0]["by"]["id"], 3);
        assert_eq!(told[0]["as"], "genre_ids");
        assert_eq!(told[1]["ids"], json!([14]), "film 1 adds none: {told:?}");
        let movies = ["movie".to_owned()];
        assert!(kept.told(&list, &movies, &[], &[]).is_empty());
        let elsewhere = place("other", "/genres");
        assert!(kept.told(&elsewhere, &genres, &[], &[]).is_empty());
        assert!(kept.told(&list, &genres, &[], &["2"]).is_empty());
        let mut wide = Referrals::default();
        for i in 0..20 {
            let (by, refs) = shown("movie", i, &[100 + i]);
            wide.remember(&by, &refs);
        }
        assert_eq!(wide.told(&list, &genres, &[], &[]).len(), MAX_TOLD);
    }

    /// A show's genres go to the TV genre list, not a film's; a path naming neither kind
    /// is told both.
    #[test]
    fn a_path_naming_the_referring_kind_is_told_only_its_references() {
        let mut kept = referrals(&[(1, &[28])]);
        let (show, refs) = shown("tv", 50, &[10765]);
        kept.remember(&show, &refs);
        let genres = ["genre".to_owned()];
        let tv = kept.told(&place("tmdb", "/genre/tv/list"), &genres, &[], &[]);
        assert_eq!(tv.len(), 1, "{tv:?}");
        assert_eq!(tv[0]["ids"], json!([10765]));
        let any = kept.told(&place("tmdb", "/genres"), &genres, &[], &[]);
        assert_eq!(any.len(), 2, "{any:?}");
    }

    /// A call naming a genre by id is told first the films that referred to it.
    #[test]
    fn references_naming_the_calls_id_come_first() {
        let kept = referrals(&[(1, &[99]), (2, &[12]), (3, &[14])]);
        let wanted = Wanted {
            id: "99".to_owned(),
            kind: Some("genre".to_owned()),
        };
        let told = kept.told(&place("tmdb", "/genre/{genre_id}"), &[], &[wanted], &[]);
        assert_eq!(told[0]["by"]["id"], 1, "{told:?}");
        assert_eq!(told.len(), 3);
    }
}
