//! A cut list shows the items the request ranks first. "What is the latest movie directed by
//! X?" asks for the credit with the latest `release_date`; an API listing credits oldest first
//! would otherwise show the oldest ones and leave the answer out. When the request's words
//! rank by one field the items carry (a superlative: "latest", "most popular", "highest
//! rated", "the first ... released"), a list too long to show whole shows its items in that
//! order, first ranked first, and its note says so.
//!
//! "First" and "last" rank by date only where a word of making or of time binds them ("the
//! first movie X directed", "the last time it aired"); after a determiner without one ("the
//! first movie similar to Titanic", "my last playlist") the user's task asks for a place in the
//! API's list, and no ranking holds, whatever else the request ranks by.
//!
//! The ranking holds only when it is plain: one superlative's kind and direction in the
//! request, one field of that kind among the items' own fields (the one the request names by
//! its own words when several are), and its values comparable (ISO dates, or numbers); items
//! without a value rank last. The kinds and the field words they reach are those of
//! [`super::asked`].
//!
//! A ranking ranks within the part the request names ("directed by", "produced", "written",
//! see [`super::role`]) when the items carry it: the items playing it rank first, each group
//! by the field ("the highest rated film directed by X" shows X's directing credits, not a
//! better rated one X only produced), and the note names the part. When no item plays it, the
//! ranking is over all items, as without a part.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use serde_json::Value;

use super::asked::{Asked, name_words, reached_by};
use super::fields::Context;
use super::role::RoleFilter;

/// Words after "first" or "last" within which a word of making or of time must come for it to
/// rank by date ("the first movie X directed", "first released", "the last time it aired"),
/// not by the API's order ("my first playlist", "the first movie similar to Titanic").
const FIRST_REACH: usize = 5;

/// Words saying when, that bind "first" or "last" to a date as a word of making does.
const TIME_WORDS: &[&str] = &["time", "date", "year"];

/// Words before "first" or "last" that make it a place in a list ("the first movie", "my
/// last playlist").
const DETERMINERS: &[&str] = &["the", "my", "your", "his", "her", "their", "its", "our"];

/// Words saying an entity was made or came out: "the first ... directed" ranks by date.
const MAKING_WORDS: &[&str] = &[
    "released",
    "directed",
    "made",
    "produced",
    "written",
    "wrote",
    "aired",
    "published",
    "recorded",
    "starred",
    "appeared",
    "debuted",
    "created",
    "composed",
    "filmed",
];

/// Words before "rated"/"popular" that rank it highest first, and lowest first.
const HIGH_WORDS: &[&str] = &["highest", "best", "top", "most"];
const LOW_WORDS: &[&str] = &["lowest", "worst", "least"];

/// What a superlative ranks by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Date,
    Rating,
    Popularity,
}

impl Kind {
    /// The field-name words of this kind: those its question word reaches in [`super::asked`].
    fn field_words(self) -> &'static [&'static str] {
        reached_by(match self {
            Self::Date => "latest",
            Self::Rating => "rated",
            Self::Popularity => "famous",
        })
    }
}

/// How a list's items are ranked for a request: by `field`, highest (latest) first or not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Ranking {
    field: String,
    kind: Kind,
    descending: bool,
    /// The part the request names, and how many items play it: those rank first.
    part: Option<(RoleFilter, usize)>,
}

impl Ranking {
    /// The ranking the request asks of `items` (objects), if it is plain (see the module doc).
    pub(crate) fn of(items: &[Value], ctx: &Context) -> Option<Self> {
        let (kind, descending) = superlative(ctx.request())?;
        let field = ranked_field(items, kind, ctx.request())?;
        let part = RoleFilter::of(items, ctx.request()).map(|filter| {
            let playing = items.iter().filter(|item| filter.passes(item)).count();
            (filter, playing)
        });
        Some(Self {
            field,
            kind,
            descending,
            part,
        })
    }

    /// `items` in this ranking's order, first ranked first: those playing the part named
    /// before the others, then by value; ties and items without a value keep their order, the
    /// latter last.
    pub(crate) fn sorted(&self, items: &[Value]) -> Vec<Value> {
        let mut out: Vec<Value> = items.to_vec();
        out.sort_by(|a, b| {
            self.plays(b)
                .cmp(&self.plays(a))
                .then_with(|| self.by_value(a, b))
        });
        out
    }

    /// Whether `item` plays the part the request names (every item does when it names none).
    fn plays(&self, item: &Value) -> bool {
        self.part
            .as_ref()
            .is_none_or(|(filter, _)| filter.passes(item))
    }

    /// The order of two items by the ranked field, first ranked first, items without a
    /// value last.
    fn by_value(&self, a: &Value, b: &Value) -> Ordering {
        match (self.value(a), self.value(b)) {
            (Some(a), Some(b)) => {
                let order = compare(a, b);
                if self.descending {
                    order.reverse()
                } else {
                    order
                }
            }
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    }

    /// The note ending a list ranked so, showing `shown` of `shown + left` items: which items
    /// are shown and in what order, then how many were left out.
    pub(crate) fn note(&self, shown: usize, left: usize) -> Value {
        let (word, first) = match (self.kind, self.descending) {
            (Kind::Date, true) => ("latest", "latest"),
            (Kind::Date, false) => ("earliest", "earliest"),
            (_, true) => ("highest", "highest"),
            (_, false) => ("lowest", "lowest"),
        };
        let total = shown + left;
        let field = &self.field;
        let which = match &self.part {
            None => format!("those with the {word} {field}, {first} first"),
            Some((filter, playing)) if shown <= *playing => format!(
                "those with {} and the {word} {field}, {first} first",
                filter.describe()
            ),
            Some((filter, playing)) => {
                let others = shown - playing;
                let noun = if others == 1 { "other" } else { "others" };
                format!(
                    "all {playing} with {}, then {others} {noun}, each group {first} {field} first",
                    filter.describe()
                )
            }
        };
        Value::String(format!(
            "… shown: {shown} of {total} items, {which} (not in the API's order); {left} more \
             items left out"
        ))
    }

    /// The item's value of the ranked field, if it has one to compare.
    fn value<'v>(&self, item: &'v Value) -> Option<&'v Value> {
        item.get(&self.field).filter(|v| comparable(v))
    }
}

/// The one kind and direction the request's superlatives rank by, if they agree; none when
/// the user's task asks for a place in the API's list ("the first movie similar to Titanic":
/// the API's first, however the model's thought ranks).
fn superlative(asked: &Asked) -> Option<(Kind, bool)> {
    if asks_for_place(asked.task_words()) {
        return None;
    }
    let words = asked.words();
    let mut found = BTreeSet::new();
    for (i, word) in words.iter().enumerate() {
        let before = i
            .checked_sub(1)
            .and_then(|j| words.get(j))
            .map(String::as_str);
        let ranks = match word.as_str() {
            "latest" | "newest" => Some((Kind::Date, true)),
            "recent" if before == Some("most") => Some((Kind::Date, true)),
            "oldest" | "earliest" => Some((Kind::Date, false)),
            "first" if makes_within(&words[i + 1..]) => Some((Kind::Date, false)),
            "last" if makes_within(&words[i + 1..]) => Some((Kind::Date, true)),
            "rated" | "rating" => graded(before).map(|d| (Kind::Rating, d)),
            "popular" | "famous" => graded(before).map(|d| (Kind::Popularity, d)),
            _ => None,
        };
        found.extend(ranks);
    }
    let mut found = found.into_iter();
    match (found.next(), found.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// Whether a word of making or of time comes within [`FIRST_REACH`] words of the same text.
fn makes_within(after: &[String]) -> bool {
    after
        .iter()
        .take(FIRST_REACH)
        .take_while(|w| !w.is_empty())
        .any(|w| MAKING_WORDS.contains(&w.as_str()) || TIME_WORDS.contains(&w.as_str()))
}

/// Whether `words` ask for a place in a list: "first" or "last" after a determiner ("the
/// first movie similar to Titanic", "my last playlist") that no word of making or of time
/// binds to a date (see [`makes_within`]).
fn asks_for_place(words: &[String]) -> bool {
    words.iter().enumerate().any(|(i, word)| {
        let ordinal = word == "first" || word == "last";
        let determined = i
            .checked_sub(1)
            .and_then(|j| words.get(j))
            .is_some_and(|before| DETERMINERS.contains(&before.as_str()));
        ordinal && determined && !makes_within(&words[i + 1..])
    })
}

/// Whether the word before "rated"/"popular" ranks highest first (`true`) or lowest first.
fn graded(before: Option<&str>) -> Option<bool> {
    let before = before?;
    if HIGH_WORDS.contains(&before) {
        Some(true)
    } else if LOW_WORDS.contains(&before) {
        Some(false)
    } else {
        None
    }
}

/// The one own field of `items` of `kind` whose values compare: the one the request names by
/// its own words when several are.
fn ranked_field(items: &[Value], kind: Kind, asked: &Asked) -> Option<String> {
    let mut fields = BTreeSet::new();
    for map in items.iter().filter_map(Value::as_object) {
        fields.extend(map.keys().filter(|name| is_of_kind(name, kind)).cloned());
    }
    let fields: Vec<String> = fields
        .into_iter()
        .filter(|name| values_compare(items, name))
        .collect();
    if let [one] = fields.as_slice() {
        return Some(one.clone());
    }
    let named: Vec<&String> = fields.iter().filter(|f| asked.shares_stem(f)).collect();
    match named.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    }
}

/// Whether field `name` is of `kind` by its words (a count of votes is no rating).
fn is_of_kind(name: &str, kind: Kind) -> bool {
    let words: Vec<String> = name_words(name).iter().map(|w| w.to_lowercase()).collect();
    !words.iter().any(|w| w == "count")
        && words
            .iter()
            .any(|w| kind.field_words().contains(&w.as_str()))
}

/// Whether the values of field `name` in `items` compare: two at least, all ISO dates or
/// all numbers (missing, null and empty values aside).
fn values_compare(items: &[Value], name: &str) -> bool {
    let values: Vec<&Value> = items
        .iter()
        .filter_map(|item| item.get(name))
        .filter(|v| !v.is_null() && v.as_str() != Some(""))
        .collect();
    values.len() >= 2 && (values.iter().all(|v| v.is_number()) || values.iter().all(|v| is_date(v)))
}

fn is_date(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|s| crate::dates::starts_as_date(s, crate::dates::Precision::Day))
}

/// Whether `value` has a place in a ranking (a number or an ISO date).
fn comparable(value: &Value) -> bool {
    value.is_number() || is_date(value)
}

/// Numbers by value, dates by their text (ISO dates sort as text).
fn compare(a: &Value, b: &Value) -> Ordering {
    match (a.as_f64(), b.as_f64(), a.as_str(), b.as_str()) {
        (Some(a), Some(b), _, _) => a.total_cmp(&b),
        (_, _, Some(a), Some(b)) => a.cmp(b),
        _ => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn ranking(task: &str, items: &[Value]) -> Option<(String, bool)> {
        let ctx = Context::default().with_request(Some(task), None);
        Ranking::of(items, &ctx).map(|r| (r.field, r.descending))
    }

    fn films() -> Vec<Value> {
        (0..4)
            .map(|i| {
                json!({"id": i, "title": format!("F{i}"), "release_date": format!("200{i}-01-01"),
                       "credit_id": format!("c{i}"), "popularity": 3.5 - f64::from(i),
                       "vote_average": 6.0 + f64::from(i), "vote_count": 10 * i})
            })
            .collect()
    }

    #[test]
    fn superlatives_rank_by_the_one_field_of_their_kind() {
        let items = films();
        let by = |field: &str, descending| Some((field.to_owned(), descending));
        assert_eq!(ranking("the latest film", &items), by("release_date", true));
        assert_eq!(
            ranking("their most recent film", &items),
            by("release_date", true)
        );
        assert_eq!(ranking("the oldest one", &items), by("release_date", false));
        assert_eq!(
            ranking("the first film she released", &items),
            by("release_date", false)
        );
        assert_eq!(
            ranking("the last film she directed", &items),
            by("release_date", true)
        );
        assert_eq!(
            ranking("the most popular film", &items),
            by("popularity", true)
        );
        assert_eq!(
            ranking("the least famous film", &items),
            by("popularity", false)
        );
        // A count of votes is no rating.
        assert_eq!(
            ranking("the highest rated film", &items),
            by("vote_average", true)
        );
        assert_eq!(
            ranking("the worst rated film", &items),
            by("vote_average", false)
        );
    }

    #[test]
    fn no_ranking_unless_it_is_plain() {
        let items = films();
        for task in [
            "Which films did she make?",
            "Add it to my first playlist",
            "the most popular of the latest films",
            "recent films",
            // A place in the API's list, however popular the rest is.
            "the most popular film of the first movie similar to Titanic",
            "the last film in the collection, the most popular one",
        ] {
            assert_eq!(ranking(task, &items), None, "{task}");
        }
        // Two dates of one kind, neither named by the request's own words.
        let two: Vec<Value> = (0..3)
            .map(|i| json!({"id": i, "created_at": "2020-01-01", "updated_at": "2021-01-01"}))
            .collect();
        assert_eq!(ranking("the latest one", &two), None);
        assert_eq!(
            ranking("the latest updated one", &two),
            Some(("updated_at".to_owned(), true))
        );
        // Values that do not compare.
        let texts: Vec<Value> = (0..3)
            .map(|i| json!({"id": i, "release_date": "soon"}))
            .collect();
        assert_eq!(ranking("the latest film", &texts), None);
    }

    #[test]
    fn a_place_in_the_users_task_holds_back_a_ranking_of_the_models_thought() {
        let items = films();
        let ranked = |task: &str, thought: &str| {
            let ctx = Context::default().with_request(Some(task), Some(thought));
            Ranking::of(&items, &ctx).map(|r| r.field)
        };
        let thought = "The most popular Titanic has id 597; I will get movies similar to it.";
        assert_eq!(ranked("the first movie similar to Titanic", thought), None);
        // "First" in the thought is a step of a plan, not a place in a list.
        let plan = "First I will get the most popular films.";
        assert_eq!(
            ranked("Which film is the most popular?", plan),
            Some("popularity".to_owned())
        );
    }

    #[test]
    fn items_without_a_value_rank_last_and_ties_keep_their_order() {
        let items = vec![
            json!({"id": 0, "release_date": "2001-01-01"}),
            json!({"id": 1, "release_date": ""}),
            json!({"id": 2, "release_date": "2009-01-01"}),
            json!({"id": 3, "release_date": "2001-01-01"}),
        ];
        let ctx = Context::default().with_request(Some("the latest film"), None);
        let ranking = Ranking::of(&items, &ctx).unwrap();
        let ids: Vec<Value> = ranking
            .sorted(&items)
            .iter()
            .map(|i| i["id"].clone())
            .collect();
        assert_eq!(ids, [json!(2), json!(0), json!(3), json!(1)]);
    }

    #[test]
    fn the_items_playing_the_part_named_rank_first_and_the_note_names_it() {
        let items = vec![
            json!({"id": 0, "job": "Producer", "vote_average": 9.5}),
            json!({"id": 1, "job": "Director", "vote_average": 7.0}),
            json!({"id": 2, "job": "Writer", "vote_average": 8.0}),
            json!({"id": 3, "job": "Director", "vote_average": 8.5}),
        ];
        let ctx = Context::default().with_request(Some("the best rated film she directed"), None);
        let ranking = Ranking::of(&items, &ctx).unwrap();
        let ids: Vec<Value> = ranking
            .sorted(&items)
            .iter()
            .map(|i| i["id"].clone())
            .collect();
        assert_eq!(ids, [json!(3), json!(1), json!(0), json!(2)]);
        assert_eq!(
            ranking.note(2, 2),
            "… shown: 2 of 4 items, those with job Director and the highest vote_average, \
             highest first (not in the API's order); 2 more items left out"
        );
        // Showing more items than play the part: the note says where they end.
        assert_eq!(
            ranking.note(3, 1),
            "… shown: 3 of 4 items, all 2 with job Director, then 1 other, each group highest \
             vote_average first (not in the API's order); 1 more items left out"
        );
    }
}
