//! A call that names the fields it wants (Spotify's `GET /playlists/{id}?fields=...`, an
//! OData `$select`) gets only those: the simulator drafts the whole thing, a model filling
//! it is shown the draft cut to the selection (it writes no detail the answer drops, and
//! the prompt stays short) and its answer is completed from the whole draft where the
//! schema requires, and the answer is cut to the selection at the end.
//!
//! A fields filter is a query parameter named `fields` or `select` (a leading `$` aside)
//! whose description, if any, speaks of fields. Its value is a comma-separated list
//! (`description,uri`), and what is supported of Spotify's syntax:
//! - a dotted name selects inside an object (`owner.id`), and inside each item of a
//!   list (`tracks.items.added_at`);
//! - parentheses select several fields inside one (`tracks.items(added_at,track(name))`),
//!   in each item of a list too;
//! - `!name` inside a selection leaves that field out and keeps the others
//!   (`album(!available_markets)`).
//!
//! A selection naming no field of the response (a misspelling), or that does not parse,
//! is ignored: the whole response answers, as a server ignoring an unknown field would.

use std::borrow::Cow;

use serde_json::{Map, Value};
use toolsmith_catalog::{Param, ParamLocation};

use crate::executor::BookEntry;

/// Names (lowercase, without a leading `$`) of a fields filter.
const FILTER_NAMES: &[&str] = &["fields", "select"];
/// Most nesting of a selection.
const MAX_NESTING: usize = 16;

/// One selected field and what is selected inside it (`None`: all of it).
#[derive(Clone, Debug, PartialEq)]
struct Pick {
    name: String,
    inner: Option<Selection>,
}

/// The fields a selection keeps or, when it only excludes, leaves out.
#[derive(Clone, Debug, Default, PartialEq)]
struct Selection {
    keep: Vec<Pick>,
    drop: Vec<String>,
}

/// Cuts `body` to the fields the call's fields filter names, if it names any.
pub(crate) fn select(entry: &BookEntry, args: &Map<String, Value>, body: &mut Value) {
    if let Cow::Owned(cut) = selected(entry, args, body) {
        *body = cut;
    }
}

/// What of `body` the call's fields filter selects (`body` itself when it selects nothing
/// of it): the answer's cut, and the draft's a fill is shown, so that the model writes
/// only what the answer will hold.
pub(crate) fn selected<'b>(
    entry: &BookEntry,
    args: &Map<String, Value>,
    body: &'b Value,
) -> Cow<'b, Value> {
    let Some(text) = filter_arg(entry, args) else {
        return Cow::Borrowed(body);
    };
    let Some(selection) = parse(text) else {
        tracing::debug!(
            filter = text,
            "a fields filter that does not parse is ignored"
        );
        return Cow::Borrowed(body);
    };
    let mut cut = body.clone();
    apply(&selection, &mut cut);
    if cut.as_object().is_some_and(|m| !m.is_empty()) || !body.is_object() {
        Cow::Owned(cut)
    } else {
        Cow::Borrowed(body)
    }
}

/// The text of the call's fields filter argument.
fn filter_arg<'a>(entry: &BookEntry, args: &'a Map<String, Value>) -> Option<&'a str> {
    entry.api.api.params.iter().find_map(|p| {
        is_selector(p)
            .then(|| args.get(&p.name).and_then(Value::as_str))
            .flatten()
            .filter(|t| !t.trim().is_empty())
    })
}

/// Whether `p` is a fields filter: it chooses what a response shows, so it says nothing of
/// what the response's items hold (the simulator never reads it as an item filter).
pub(crate) fn is_selector(p: &Param) -> bool {
    let name = p.name.trim_start_matches('$').to_ascii_lowercase();
    let speaks_of_fields =
        p.description.is_empty() || p.description.to_ascii_lowercase().contains("field");
    p.location == ParamLocation::Query && FILTER_NAMES.contains(&name.as_str()) && speaks_of_fields
}

/// Keeps in `value` what `selection` selects: in an object its fields, in a list each item.
fn apply(selection: &Selection, value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| apply(selection, v)),
        Value::Object(map) => {
            if selection.keep.is_empty() {
                map.retain(|k, _| !selection.drop.contains(k));
                return;
            }
            map.retain(|k, _| selection.keep.iter().any(|p| &p.name == k));
            for pick in &selection.keep {
                if let (Some(inner), Some(field)) = (&pick.inner, map.get_mut(&pick.name)) {
                    apply(inner, field);
                }
            }
        }
        _ => {}
    }
}

/// The selection `text` writes, `None` when it does not parse.
fn parse(text: &str) -> Option<Selection> {
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut at = 0;
    let selection = list(&chars, &mut at, 0)?;
    (at == chars.len()).then_some(selection)
}

/// A comma-separated list of picks, up to a closing parenthesis or the end.
fn list(chars: &[char], at: &mut usize, nesting: usize) -> Option<Selection> {
    if nesting > MAX_NESTING {
        return None;
    }
    let mut out = Selection::default();
    loop {
        if chars.get(*at) == Some(&'!') {
            *at += 1;
            out.drop.push(name(chars, at)?);
        } else {
            let pick = pick(chars, at, nesting)?;
            merge(&mut out.keep, pick);
        }
        match chars.get(*at) {
            Some(',') => *at += 1,
            _ => return Some(out),
        }
    }
}

/// One pick: a name, then `.pick` or `(list)` inside it, or nothing.
fn pick(chars: &[char], at: &mut usize, nesting: usize) -> Option<Pick> {
    let name = name(chars, at)?;
    let inner = match chars.get(*at) {
        Some('.') => {
            *at += 1;
            let inner = pick(chars, at, nesting + 1)?;
            Some(Selection {
                keep: vec![inner],
                drop: Vec::new(),
            })
        }
        Some('(') => {
            *at += 1;
            let inner = list(chars, at, nesting + 1)?;
            (chars.get(*at) == Some(&')')).then_some(())?;
            *at += 1;
            Some(inner)
        }
        _ => None,
    };
    Some(Pick { name, inner })
}

/// A field name: everything up to a separator.
fn name(chars: &[char], at: &mut usize) -> Option<String> {
    let start = *at;
    while chars
        .get(*at)
        .is_some_and(|c| !matches!(c, ',' | '.' | '(' | ')' | '!'))
    {
        *at += 1;
    }
    (*at > start).then(|| chars.get(start..*at).unwrap_or_default().iter().collect())
}

/// Adds `pick` to `picks`, joining what two picks of one name select inside it
/// (`owner.id,owner.display_name`); a pick of all of a field wins.
fn merge(picks: &mut Vec<Pick>, pick: Pick) {
    let Some(same) = picks.iter_mut().find(|p| p.name == pick.name) else {
        picks.push(pick);
        return;
    };
    match (&mut same.inner, pick.inner) {
        (Some(mine), Some(theirs)) => {
            for inner in theirs.keep {
                merge(&mut mine.keep, inner);
            }
            mine.drop.extend(theirs.drop);
        }
        (_, None) => same.inner = None,
        (None, Some(_)) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cut(text: &str, mut value: Value) -> Value {
        apply(&parse(text).expect("parses"), &mut value);
        value
    }

    #[test]
    fn a_selection_keeps_named_dotted_and_parenthesised_fields() {
        let playlist = json!({"id": "p1", "name": "Road trip", "uri": "spotify:playlist:p1",
            "description": "Songs", "owner": {"id": "u1", "display_name": "Ann"},
            "tracks": {"total": 2, "items": [
                {"added_at": "2024-01-01", "added_by": {"id": "u1", "uri": "x"},
                 "track": {"name": "A", "href": "h", "album": {"name": "X", "markets": ["SE"]}}},
                {"added_at": "2024-01-02", "added_by": {"id": "u2", "uri": "y"},
                 "track": {"name": "B", "href": "i", "album": {"name": "Y", "markets": []}}}]}});
        assert_eq!(
            cut("description,uri", playlist.clone()),
            json!({"description": "Songs", "uri": "spotify:playlist:p1"})
        );
        assert_eq!(
            cut("owner.id,owner.display_name,name", playlist.clone()),
            json!({"name": "Road trip", "owner": {"id": "u1", "display_name": "Ann"}})
        );
        assert_eq!(
            cut("tracks.items(added_at,added_by.id)", playlist.clone()),
            json!({"tracks": {"items": [
                {"added_at": "2024-01-01", "added_by": {"id": "u1"}},
                {"added_at": "2024-01-02", "added_by": {"id": "u2"}}]}})
        );
        assert_eq!(
            cut("tracks.items(track(name,album(!markets)))", playlist),
            json!({"tracks": {"items": [
                {"track": {"name": "A", "album": {"name": "X"}}},
                {"track": {"name": "B", "album": {"name": "Y"}}}]}})
        );
        for broken in ["tracks(items", "a,,b", "(a)", "a)"] {
            assert_eq!(parse(broken), None, "{broken}");
        }
    }
}
