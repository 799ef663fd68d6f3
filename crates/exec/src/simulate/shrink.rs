//! The draft as a fill prompt shows it, within a size budget: a Spotify search
//! with `limit=50` drafts fifty deep track objects, far more than a model needs
//! to see to write them. Lists are cut to their first items first, then the
//! deepest parts are left out, each cut said in a note so the model still
//! writes the whole response; the repair step (`repair`) fills back what the
//! schema requires.

use serde_json::{Map, Value};

use crate::canonical::canonical_json;

/// Most notes listed; the rest are counted.
const MAX_NOTES: usize = 12;

/// A draft cut to fit, and what was cut.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shown {
    /// The draft as shown: valid JSON, lists shortened and deep parts emptied.
    pub(crate) draft: Value,
    /// One line per cut (`/items holds 50 items; the first 2 are shown`).
    pub(crate) notes: Vec<String>,
}

/// `draft` within `budget` characters of JSON, or `None` when even its top
/// level does not fit.
pub(crate) fn within(draft: &Value, budget: usize) -> Option<Shown> {
    let fits = |v: &Value| canonical_json(v).len() <= budget;
    if fits(draft) {
        return Some(Shown {
            draft: draft.clone(),
            notes: Vec::new(),
        });
    }
    for keep in [3, 1] {
        let mut notes = Vec::new();
        let cut = cut_lists(draft, keep, "", &mut notes);
        if fits(&cut) {
            return Some(shown(cut, notes));
        }
    }
    let mut list_notes = Vec::new();
    let short = cut_lists(draft, 1, "", &mut list_notes);
    for depth in (1..depth_of(&short)).rev() {
        let mut notes = list_notes.clone();
        let cut = cut_deep(&short, depth, "", &mut notes);
        if fits(&cut) {
            return Some(shown(cut, notes));
        }
    }
    None
}

fn shown(draft: Value, mut notes: Vec<String>) -> Shown {
    if notes.len() > MAX_NOTES {
        let more = notes.len() - MAX_NOTES;
        notes.truncate(MAX_NOTES);
        notes.push(format!("... and {more} more parts cut the same way"));
    }
    Shown { draft, notes }
}

/// `value` with every list longer than `keep` cut to its first `keep` items.
fn cut_lists(value: &Value, keep: usize, at: &str, notes: &mut Vec<String>) -> Value {
    match value {
        Value::Array(items) => {
            if items.len() > keep {
                notes.push(format!(
                    "`{}` holds {} items; the first {keep} are shown; size the list by the rules below",
                    pointer(at),
                    items.len()
                ));
            }
            let shown = items
                .iter()
                .take(keep)
                .enumerate()
                .map(|(i, v)| cut_lists(v, keep, &format!("{at}/{i}"), notes))
                .collect();
            Value::Array(shown)
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), cut_lists(v, keep, &format!("{at}/{k}"), notes)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `value` with every object or list below `depth` emptied.
fn cut_deep(value: &Value, depth: usize, at: &str, notes: &mut Vec<String>) -> Value {
    let empty = match value {
        Value::Object(map) if depth == 0 && !map.is_empty() => Value::Object(Map::new()),
        Value::Array(items) if depth == 0 && !items.is_empty() => Value::Array(Vec::new()),
        Value::Object(map) => {
            return Value::Object(
                map.iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            cut_deep(v, depth - 1, &format!("{at}/{k}"), notes),
                        )
                    })
                    .collect(),
            );
        }
        Value::Array(items) => {
            return Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| cut_deep(v, depth - 1, &format!("{at}/{i}"), notes))
                    .collect(),
            );
        }
        other => return other.clone(),
    };
    notes.push(format!(
        "`{}` is left out for space; write it in full as the API returns it",
        pointer(at)
    ));
    empty
}

/// How many levels of objects and lists `value` has.
fn depth_of(value: &Value) -> usize {
    match value {
        Value::Object(map) => 1 + map.values().map(depth_of).max().unwrap_or(0),
        Value::Array(items) => 1 + items.iter().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

fn pointer(at: &str) -> &str {
    if at.is_empty() { "/" } else { at }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    fn track(i: usize) -> Value {
        json!({"id": format!("t{i}"), "name": "ivory", "album": {"id": "a", "name": "ivory",
            "images": [{"url": "https://i/1", "width": 640}, {"url": "https://i/2", "width": 300}],
            "available_markets": ["AD", "AE", "AR", "AT", "AU", "BE", "BG", "BO", "BR", "CA"]}})
    }

    #[test]
    fn a_draft_is_cut_lists_first_then_depth_and_says_so() {
        let draft =
            json!({"tracks": {"total": 50, "items": (0..50).map(track).collect::<Vec<_>>()}});
        let whole = canonical_json(&draft).len();
        assert_eq!(within(&draft, whole).unwrap().draft, draft, "fits: as is");
        let shown = within(&draft, 2000).unwrap();
        assert!(canonical_json(&shown.draft).len() <= 2000);
        assert_eq!(shown.draft["tracks"]["items"].as_array().unwrap().len(), 3);
        assert_eq!(shown.draft["tracks"]["items"][0]["album"]["id"], "a");
        assert!(
            shown.notes[0].contains("`/tracks/items` holds 50 items"),
            "{:?}",
            shown.notes
        );
        // Tighter: one item, its deep parts left out, the ids of the levels above kept.
        let tight = within(&draft, 150).unwrap();
        assert!(canonical_json(&tight.draft).len() <= 150, "{}", tight.draft);
        assert_eq!(tight.draft["tracks"]["items"][0]["id"], "t0");
        assert!(
            tight.notes.iter().any(|n| n.contains("left out")),
            "{:?}",
            tight.notes
        );
        // Too tight for the top level: nothing to show.
        assert_eq!(within(&draft, 10), None);
    }
}
