//! The part a request names for the items of a ranked list: "the highest rated film directed
//! by X" ranks X's credits with the job of directing, not every credit of any job (a film X
//! only produced can outrank every film X directed). A request names a part by a role word
//! ("directed", "director", "produced", "written", "starring", ...); the items carry theirs in
//! a role-like field (`job`, `role`, `position`, `department`), whose values are matched to
//! the role word case-insensitively by a simple stem (`Director`, `Directing` for "directed";
//! `Writer`, `Screenplay` for "written"), whatever the API.
//!
//! The filter holds only when it is plain: the request names one part (two, as in "directed
//! ... starring", leave it unclear), the items carry a role-like field with values of that
//! part, and not every item has one (a filter passing all items says nothing). A list whose
//! items carry no role-like field, such as a person's cast credits for "starring", is the
//! part itself: it is not filtered.

use std::collections::BTreeSet;

use serde_json::Value;

use super::asked::{Asked, name_words};

/// A part an item can play, named by the request's words and reached in the items' values by
/// the stems of their words (see [`role_stem`]).
struct Part {
    /// The request's words naming the part.
    words: &'static [&'static str],
    /// The stems of the values saying an item plays the part.
    stems: &'static [&'static str],
}

/// The parts a request can name. Writing reaches a screenplay as well as a writer; acting
/// reaches an actor or a star (not the cast: its stem is casting's, a crew job).
const PARTS: &[Part] = &[
    Part {
        words: &["directed", "director", "directing", "directs"],
        stems: &["direct"],
    },
    Part {
        words: &["produced", "producer", "producing", "produces"],
        stems: &["produc"],
    },
    Part {
        words: &[
            "written",
            "wrote",
            "writer",
            "writing",
            "screenplay",
            "screenwriter",
        ],
        stems: &["writ", "screenplay", "screenwrit", "teleplay"],
    },
    Part {
        words: &["composed", "composer", "scored"],
        stems: &["compos"],
    },
    Part {
        words: &["edited", "editor"],
        stems: &["edit"],
    },
    Part {
        words: &["starring", "starred", "acted", "actor", "actress", "acting"],
        stems: &["act", "star"],
    },
];

/// The last words of the names of role-like fields, most telling first: a `department` only
/// groups jobs, so it counts when no finer field has the part's values.
const ROLE_FIELD_WORDS: &[&str] = &["job", "role", "position", "department"];

/// A word of a field name that makes it no role of the item: `known_for_department` says what
/// a person is known for, not the part of this credit.
const NOT_OF_THE_ITEM: &str = "known";

/// Endings taken off a value's word, longest first, to reach its stem: the one who does
/// ("director", "writer"), the doing ("directing") and the done ("produced").
const ENDINGS: &[&str] = &["ress", "ing", "ed", "er", "or"];

/// Shortest stem an ending may leave.
const MIN_STEM: usize = 3;

/// The items of a list that play the part the request names: those whose `field` holds one
/// of `values`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RoleFilter {
    field: String,
    values: BTreeSet<String>,
}

impl RoleFilter {
    /// The filter the request asks of `items` (objects), if it is plain (see the module doc).
    pub(crate) fn of(items: &[Value], asked: &Asked) -> Option<Self> {
        let part = named_part(asked)?;
        let fields = role_fields(items);
        // A value that is the part itself ("Producer") before one qualifying it ("Executive
        // Producer"); a finer field before a coarser one.
        let filter = [true, false].into_iter().find_map(|whole| {
            fields.iter().find_map(|field| {
                let values = values_of(items, field, part, whole);
                (!values.is_empty()).then(|| Self {
                    field: field.clone(),
                    values,
                })
            })
        })?;
        let passing = items.iter().filter(|item| filter.passes(item)).count();
        (passing < items.len()).then_some(filter)
    }

    /// Whether `item` plays the part.
    pub(crate) fn passes(&self, item: &Value) -> bool {
        item.get(&self.field)
            .and_then(Value::as_str)
            .is_some_and(|value| self.values.contains(value))
    }

    /// The filter in words: "job Director", "job Writer or Screenplay".
    pub(crate) fn describe(&self) -> String {
        let values: Vec<&str> = self.values.iter().map(String::as_str).collect();
        format!("{} {}", self.field, values.join(" or "))
    }
}

/// The one part the request's words name, if they name one.
fn named_part(asked: &Asked) -> Option<&'static Part> {
    let mut named = PARTS.iter().filter(|part| {
        asked
            .words()
            .iter()
            .any(|w| part.words.contains(&w.as_str()))
    });
    match (named.next(), named.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// The role-like fields of `items` with text values, most telling first.
fn role_fields(items: &[Value]) -> Vec<String> {
    let mut fields = BTreeSet::new();
    for map in items.iter().filter_map(Value::as_object) {
        let texts = map.iter().filter(|(_, value)| value.is_string());
        fields.extend(texts.filter_map(|(name, _)| role_field_rank(name).map(|r| (r, name))));
    }
    fields.into_iter().map(|(_, name)| name.clone()).collect()
}

/// Where field `name` stands among [`ROLE_FIELD_WORDS`], if it is role-like.
fn role_field_rank(name: &str) -> Option<usize> {
    let words: Vec<String> = name_words(name).iter().map(|w| w.to_lowercase()).collect();
    if words.iter().any(|w| w == NOT_OF_THE_ITEM) {
        return None;
    }
    let last = words.last()?;
    let singular = last.strip_suffix('s').unwrap_or(last);
    ROLE_FIELD_WORDS.iter().position(|w| *w == singular)
}

/// The values of `field` in `items` that say the item plays `part`: a value of one word whose
/// stem is the part's (`whole`), or one whose last word's is ("Executive Producer").
fn values_of(items: &[Value], field: &str, part: &Part, whole: bool) -> BTreeSet<String> {
    let plays = |value: &str| {
        let words = name_words(value);
        let head = match words.as_slice() {
            [one] => Some(one),
            [.., last] if !whole => Some(last),
            _ => None,
        };
        head.is_some_and(|word| part.stems.contains(&role_stem(word).as_str()))
    };
    items
        .iter()
        .filter_map(|item| item.get(field).and_then(Value::as_str))
        .filter(|value| plays(value))
        .map(str::to_owned)
        .collect()
}

/// A role word's simple stem: lowercased, a plural's `s` and one ending of [`ENDINGS`] taken
/// off ("Directors" and "directing" to `direct`, "Writer" to `writ`). English stemmers keep
/// "director" and "writer" whole, which would part them from "directed" and "writing".
fn role_stem(word: &str) -> String {
    let lower = word.to_lowercase();
    let singular = match lower.strip_suffix('s') {
        Some(rest) if !rest.ends_with('s') && rest.len() >= MIN_STEM => rest,
        _ => &lower,
    };
    ENDINGS
        .iter()
        .find_map(|ending| {
            singular
                .strip_suffix(ending)
                .filter(|stem| stem.len() >= MIN_STEM)
        })
        .unwrap_or(singular)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn filter(task: &str, items: &[Value]) -> Option<String> {
        RoleFilter::of(items, &Asked::of([Some(task), None])).map(|f| f.describe())
    }

    fn credits(jobs: &[(&str, &str)]) -> Vec<Value> {
        jobs.iter()
            .enumerate()
            .map(|(i, (job, department))| {
                json!({"id": i, "job": job, "department": department,
                       "known_for_department": "Directing"})
            })
            .collect()
    }

    #[test]
    fn role_words_reach_the_values_of_the_part_they_name() {
        let items = credits(&[
            ("Director", "Directing"),
            ("Executive Producer", "Production"),
            ("Producer", "Production"),
            ("Writer", "Writing"),
            ("Screenplay", "Writing"),
            ("Original Music Composer", "Sound"),
        ]);
        let reaches = |task: &str| filter(task, &items);
        assert_eq!(
            reaches("the highest rated film directed by X"),
            Some("job Director".into())
        );
        assert_eq!(
            reaches("the latest film of the director X"),
            Some("job Director".into())
        );
        // The part itself before a value qualifying it.
        assert_eq!(
            reaches("the most popular film produced by X"),
            Some("job Producer".into())
        );
        assert_eq!(
            reaches("the latest film written by X"),
            Some("job Screenplay or Writer".into())
        );
        // A value qualifying the part when none is the part itself.
        assert_eq!(
            reaches("the latest film X composed"),
            Some("job Original Music Composer".into())
        );
    }

    #[test]
    fn a_department_counts_when_no_finer_field_has_the_part() {
        let items = vec![
            json!({"id": 0, "department": "Directing"}),
            json!({"id": 1, "department": "Production"}),
        ];
        assert_eq!(
            filter("the latest film directed by X", &items),
            Some("department Directing".into())
        );
    }

    #[test]
    fn no_filter_unless_it_is_plain() {
        let items = credits(&[("Director", "Directing"), ("Producer", "Production")]);
        for task in [
            // No part named.
            "the highest rated film of X",
            // Two parts named.
            "the latest film directed by X starring Y",
            // A part no item plays: a crew list for "starring".
            "the latest film starring X",
            "the latest film edited by X",
        ] {
            assert_eq!(filter(task, &items), None, "{task}");
        }
        // Every item plays the part: the filter says nothing.
        let all = credits(&[("Director", "Directing"), ("Director", "Directing")]);
        assert_eq!(filter("the latest film directed by X", &all), None);
        // Items without a role-like field are the part themselves (a cast list), and what a
        // person is known for is no role of the item.
        let cast = vec![
            json!({"id": 0, "character": "Self", "known_for_department": "Acting"}),
            json!({"id": 1, "character": "Ann", "known_for_department": "Directing"}),
        ];
        assert_eq!(filter("the latest film starring X", &cast), None);
        assert_eq!(filter("the latest film directed by X", &cast), None);
    }

    #[test]
    fn role_stems_join_the_doer_the_doing_and_the_done() {
        for (word, stem) in [
            ("Director", "direct"),
            ("Directors", "direct"),
            ("directing", "direct"),
            ("Producer", "produc"),
            ("produced", "produc"),
            ("Writer", "writ"),
            ("Actress", "act"),
            ("Actor", "act"),
            ("Editor", "edit"),
            ("Screenplay", "screenplay"),
            ("Sound", "sound"),
            ("Cast", "cast"),
        ] {
            assert_eq!(role_stem(word), stem, "{word}");
        }
    }
}
