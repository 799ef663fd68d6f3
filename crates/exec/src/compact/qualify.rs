//! Qualifiers: the short fields of a list's items that say each item's role or relation
//! within the list (a crew member's `job`, a cast member's `character` and billing `order`, a
//! member's `status`), or who made or gave the item (a review's `author`, a post's `owner`).
//! A request filters on them ("who directed", "the lead actor"), and an item is not cited
//! without them (a review without its author), so they rank right after the items'
//! identities (see [`super::columns`]).
//!
//! A field of the items themselves is one when, across the list's items, its values are
//! short strings or whole numbers and:
//! - its name says a role (`job`, `role`, `character`, ...) or who made the item (`author`,
//!   `creator`, `owner`, `username`, `created_by`, ...): the surest, shown first;
//! - a distinction: a string that differs between two items of the same entity (the same
//!   `id`, in a list of mostly distinct ones): one person credited for directing and for
//!   writing; a crew member's `department` is one where it tells such credits apart, else
//!   it only groups the crew (a category, below), and comes after their `job` either way;
//! - a position: distinct whole numbers counting from 0 or 1 (a billing order, a season
//!   number);
//! - a category: strings, few of them, some shared by several items (two at least: a value
//!   every item has tells none apart).
//!
//! The items of a list nested in a list's items (an episode's `crew`) are read the same way,
//! across the nested items of all of them; only a role counts there.
//!
//! A position mostly restates the list's order and a category only groups the items (a
//! film's language): they come after the items' own dates and take no item away, where a
//! role comes before them and may.

use std::collections::BTreeSet;

use serde_json::Value;

use super::fields::{Class, Context, is_locator};
use super::least::ordered;

/// Longest string a qualifier holds (`Director of Photography`, `Light Yagami (voice)`).
const QUALIFIER_TEXT: usize = 40;

/// Fewest items with a value that can show a category or a position.
const MIN_ITEMS: usize = 3;

/// Field names that say an item's role or relation: a hint beside the rules on values. Not
/// `department`: it groups a crew (several jobs in one department) rather than says one
/// member's part.
const ROLE_NAMES: &[&str] = &[
    "job",
    "role",
    "character",
    "position",
    "status",
    "order",
    "rank",
    "relation",
    "relationship",
];

/// Words of field names that say who made or gave an item (`author`, `review_author`,
/// `creatorName`), matched against any word of the name.
const MAKER_WORDS: &[&str] = &[
    "author", "creator", "owner", "uploader", "reviewer", "sender",
];

/// Whole field names that say who made or gave an item, where their words alone would say
/// too much (`user_rating` is a rating, not a user).
const MAKER_NAMES: &[&str] = &["by", "user", "username", "user_name", "screen_name"];

/// How surely a field says the items' role, surest first: the order qualifiers are shown in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Qualifier {
    /// Its name says a role (a crew member's `job`) or who made the item (a review's
    /// `author`).
    Role,
    /// It tells apart two items of the same entity (a crew member's `department` where one
    /// person is credited in two): a role, after those named so.
    Distinction,
    /// A position in the list: mostly the list's own order, so it takes no item away and
    /// comes after the items' own dates.
    Position,
    /// A category only (a film's `original_language`, a person's `known_for_department`):
    /// it groups the items rather than says their role, so it takes no item away and comes
    /// after their own dates.
    Category,
}

/// Whether, and how surely, field `name` of the items of a list (`items`, as read to find its
/// columns) is a qualifier: see the module doc.
pub(crate) fn qualifier(name: &str, items: &[&Value], ctx: &Context) -> Option<Qualifier> {
    let values: Vec<&Value> = items
        .iter()
        .filter_map(|item| item.get(name))
        .filter(|v| !v.is_null())
        .collect();
    if values.is_empty() || !values.iter().all(|v| is_short(v)) {
        None
    } else if says_role(name) {
        Some(Qualifier::Role)
    } else if tells_apart(name, items, ctx) {
        Some(Qualifier::Distinction)
    } else if is_position(&values) {
        Some(Qualifier::Position)
    } else if is_category(&values) {
        Some(Qualifier::Category)
    } else {
        None
    }
}

/// Whether field `name` says an item's role ([`ROLE_NAMES`]) or who made or gave it
/// ([`MAKER_WORDS`], [`MAKER_NAMES`], or a name ending in `by`: `created_by`, `addedBy`).
fn says_role(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let words = super::asked::name_words(name);
    let last = words.last().map(|w| w.to_ascii_lowercase());
    ROLE_NAMES.contains(&lower.as_str())
        || MAKER_NAMES.contains(&lower.as_str())
        || words
            .iter()
            .any(|w| MAKER_WORDS.contains(&w.to_ascii_lowercase().as_str()))
        || (words.len() > 1 && last.as_deref() == Some("by"))
}

/// A short string or a whole number: what a role or a place in a list is said with.
fn is_short(value: &Value) -> bool {
    match value {
        Value::String(s) => !s.is_empty() && s.chars().count() <= QUALIFIER_TEXT,
        Value::Number(n) => n.is_u64() || n.is_i64(),
        _ => false,
    }
}

/// Strings, at least two distinct, few against the items, some shared.
fn is_category(values: &[&Value]) -> bool {
    let n = values.len();
    if n < MIN_ITEMS || !values.iter().all(|v| v.is_string()) {
        return false;
    }
    let distinct: BTreeSet<&str> = values.iter().filter_map(|v| v.as_str()).collect();
    let d = distinct.len();
    d >= 2 && d < n && d * 2 <= n.max(4)
}

/// Distinct whole numbers counting from 0 or 1, within twice the count of items.
fn is_position(values: &[&Value]) -> bool {
    let numbers: Option<BTreeSet<u64>> = values.iter().map(|v| v.as_u64()).collect();
    let Some(numbers) = numbers else {
        return false;
    };
    let n = values.len();
    n >= MIN_ITEMS
        && numbers.len() == n
        && numbers.first().is_some_and(|min| *min <= 1)
        && numbers.last().is_some_and(|max| *max < 2 * n as u64)
}

/// Whether two items with the same key (an `id`, `*_id`, mostly distinct across the items:
/// one entity listed twice, not a list of one entity) differ in field `name`, a string.
fn tells_apart(name: &str, items: &[&Value], ctx: &Context) -> bool {
    let keys: BTreeSet<&str> = items
        .iter()
        .filter_map(|item| item.as_object())
        .flat_map(|map| ordered(map, ctx))
        .filter(|(field, class)| *class == Class::Identity(0) && !is_locator(field))
        .map(|(field, _)| field)
        .collect();
    keys.iter().any(|key| {
        let values: Vec<(&Value, &str)> = items
            .iter()
            .filter_map(|item| Some((item.get(*key)?, item.get(name)?.as_str()?)))
            .filter(|(k, _)| !k.is_null())
            .collect();
        let distinct: BTreeSet<String> = values.iter().map(|(k, _)| k.to_string()).collect();
        let twice = values
            .iter()
            .enumerate()
            .any(|(i, (k, v))| values.iter().skip(i + 1).any(|(k2, v2)| k == k2 && v != v2));
        twice && distinct.len() * 2 >= values.len()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn how(name: &str, items: &[Value]) -> Option<Qualifier> {
        let refs: Vec<&Value> = items.iter().collect();
        qualifier(name, &refs, &Context::default())
    }

    fn is(name: &str, items: &[Value]) -> bool {
        how(name, items).is_some()
    }

    #[test]
    fn categories_positions_and_distinctions_qualify_whatever_their_name() {
        // A category: few short strings, some shared.
        let tasks: Vec<Value> = ["open", "done", "open", "open", "done"]
            .iter()
            .enumerate()
            .map(|(i, s)| json!({"id": i, "state": s, "note": format!("note {i}")}))
            .collect();
        assert_eq!(how("state", &tasks), Some(Qualifier::Category));
        // All different, all alike, or numbers: not a category.
        assert!(!is("note", &tasks));
        let same: Vec<Value> = (0..5).map(|i| json!({"id": i, "lang": "en"})).collect();
        assert!(!is("lang", &same));
        let coded: Vec<Value> = (0..5).map(|i| json!({"id": i, "sex": 1 + i % 2})).collect();
        assert!(!is("sex", &coded));
        // A position: distinct whole numbers from 0 or 1; not ids, years or measures.
        let billed: Vec<Value> = (0..4)
            .map(|i| json!({"id": 90 + i, "slot": 3 - i}))
            .collect();
        assert_eq!(how("slot", &billed), Some(Qualifier::Position));
        let years: Vec<Value> = (0..4).map(|i| json!({"id": i, "year": 1990 + i})).collect();
        assert!(!is("year", &years));
        let scores: Vec<Value> = (0..4).map(|i| json!({"id": i, "score": 0.5})).collect();
        assert!(!is("score", &scores));
        // A distinction: the same person twice, credited differently.
        let credits = vec![
            json!({"id": 1, "name": "A", "credit": "Direction"}),
            json!({"id": 1, "name": "A", "credit": "Script"}),
            json!({"id": 2, "name": "B", "credit": "Music"}),
        ];
        assert_eq!(how("credit", &credits), Some(Qualifier::Distinction));
        assert!(!is("credit", &credits[1..]));
        // Not in a list of one entity over and over (a simulator's, say).
        let one: Vec<Value> = (0..4)
            .map(|i| json!({"id": 1, "remark": format!("remark {i}")}))
            .collect();
        assert!(!is("remark", &one));
        // A role's name is a hint for short values only.
        assert!(is(
            "job",
            &credits[1..]
                .iter()
                .map(|c| json!({"job": c["credit"]}))
                .collect::<Vec<_>>()
        ));
        let long = vec![
            json!({"id": 1, "role": "x".repeat(60)}),
            json!({"id": 2, "role": "y"}),
        ];
        assert!(!is("role", &long));
    }

    #[test]
    fn a_role_or_a_maker_named_so_comes_before_a_department() {
        // A crew's jobs are their roles; their departments only group them.
        let crew: Vec<Value> = [
            ("Production", "Producer"),
            ("Production", "Executive Producer"),
        ]
        .iter()
        .chain(&[("Sound", "Composer"), ("Sound", "Sound Designer")])
        .enumerate()
        .map(|(i, (department, job))| json!({"id": i, "department": department, "job": job}))
        .collect();
        assert_eq!(how("job", &crew), Some(Qualifier::Role));
        assert_eq!(how("department", &crew), Some(Qualifier::Category));
        // Who made or gave the item, however the API names it.
        let reviews: Vec<Value> = ["ana", "bo", "cy"]
            .iter()
            .enumerate()
            .map(|(i, who)| {
                json!({"id": i, "author": who, "created_by": who, "uploaderName": who,
                       "username": who, "user_rating": 3 + i, "byline": who})
            })
            .collect();
        for field in ["author", "created_by", "uploaderName"] {
            assert_eq!(how(field, &reviews), Some(Qualifier::Role), "{field}");
        }
        // A rating given by a user is no user; a byline is not named `by`.
        assert_eq!(how("user_rating", &reviews), None);
        assert_eq!(how("byline", &reviews), None);
    }
}
