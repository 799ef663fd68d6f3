//! The draft as a fill prompt shows it, within a size budget: a Spotify search
//! with `limit=50` drafts fifty deep track objects, far more than a model needs
//! to see to write them. Lists are cut to their first items first, then the
//! deepest parts are left out, each cut said in a note so the model still
//! writes the whole response; the repair step (`repair`) fills back what the
//! schema requires, and a list cut outside any other (a page's `items`) that the
//! answer holds fewer items of than its page counts is completed from the draft's own
//! items ([`complete`]): the response keeps the count the call asked for, each item
//! schema-valid with an id of its own, however few items the model wrote out. The
//! note on a cut list leaves its size to the prompt's list rules: a model told to
//! write all fifty filled a one-track single with fifty.

use serde_json::{Map, Value};

use crate::canonical::canonical_json;
use crate::paging_fields::{OFFSET_FIELDS, TOTAL_FIELDS};

/// Most notes listed; the rest are counted.
const MAX_NOTES: usize = 12;

/// A draft cut to fit, and what was cut.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shown {
    /// The draft as shown: valid JSON, lists shortened and deep parts emptied.
    pub(crate) draft: Value,
    /// One line per cut (`/items holds 50 items; the first 2 are shown`).
    pub(crate) notes: Vec<String>,
    /// The lists cut outside any other list (`/items`, `/tracks/items`), by JSON
    /// pointer: an answer short of the draft's items there is completed ([`complete`]).
    pub(crate) lists: Vec<String>,
}

/// `draft` within `budget` characters of JSON, or `None` when even its top
/// level does not fit.
pub(crate) fn within(draft: &Value, budget: usize) -> Option<Shown> {
    let fits = |v: &Value| canonical_json(v).len() <= budget;
    if fits(draft) {
        return Some(Shown {
            draft: draft.clone(),
            notes: Vec::new(),
            lists: Vec::new(),
        });
    }
    for keep in [3, 1] {
        let mut cuts = Cuts::default();
        let cut = cut_lists(draft, keep, "", false, &mut cuts);
        if fits(&cut) {
            return Some(shown(cut, cuts));
        }
    }
    let mut list_cuts = Cuts::default();
    let short = cut_lists(draft, 1, "", false, &mut list_cuts);
    for depth in (1..depth_of(&short)).rev() {
        let mut cuts = list_cuts.clone();
        let cut = cut_deep(&short, depth, "", &mut cuts.notes);
        if fits(&cut) {
            return Some(shown(cut, cuts));
        }
    }
    None
}

/// `answer` with each list of `lists` that holds fewer items than its page counts
/// completed with the draft's items after them (one whose id the answer already shows
/// left out), up to the draft's count: a page of saved albums the model was shown three
/// of, and counted fifty of, holds fifty. A page whose count the model made as short as
/// its items (a search for one exact title, a single with one track) stays so, and so
/// does a list with no count beside it (a recommendation's three seeds): only the model's
/// own count says items are missing, and a completed item shows the draft's placeholders.
pub(crate) fn complete(answer: &mut Value, draft: &Value, lists: &[String]) {
    for at in lists {
        let Some(counted) = page_of(at)
            .and_then(|page| answer.pointer(page))
            .and_then(room)
        else {
            continue;
        };
        let (Some(Value::Array(full)), Some(Value::Array(written))) =
            (draft.pointer(at), answer.pointer_mut(at))
        else {
            continue;
        };
        let wanted = counted.min(full.len());
        let ids: Vec<Value> = written
            .iter()
            .filter_map(|i| i.get("id").cloned())
            .collect();
        let rest: Vec<Value> = full
            .iter()
            .skip(written.len())
            .filter(|item| item.get("id").is_none_or(|id| !ids.contains(id)))
            .take(wanted.saturating_sub(written.len()))
            .cloned()
            .collect();
        written.extend(rest);
    }
}

/// The pointer of the object a list at `at` belongs to (`/tracks` of `/tracks/items`).
fn page_of(at: &str) -> Option<&str> {
    at.rsplit_once('/').map(|(page, _)| page)
}

/// The items a page's numbers leave room for on it: its total less its offset, when it
/// has a total.
fn room(page: &Value) -> Option<usize> {
    let number = |keys: &[&str]| keys.iter().find_map(|k| page.get(*k)?.as_u64());
    let total = number(TOTAL_FIELDS)?;
    let offset = number(OFFSET_FIELDS).unwrap_or(0);
    usize::try_from(total.saturating_sub(offset)).ok()
}

/// What cutting a draft's lists took out: the notes told to the model, and the lists
/// [`complete`] fills back.
#[derive(Debug, Clone, Default)]
struct Cuts {
    notes: Vec<String>,
    lists: Vec<String>,
}

fn shown(draft: Value, Cuts { mut notes, lists }: Cuts) -> Shown {
    if notes.len() > MAX_NOTES {
        let more = notes.len() - MAX_NOTES;
        notes.truncate(MAX_NOTES);
        notes.push(format!("... and {more} more parts cut the same way"));
    }
    Shown {
        draft,
        notes,
        lists,
    }
}

/// `value` with every list longer than `keep` cut to its first `keep` items; `inside`:
/// whether `value` is within a list item.
fn cut_lists(value: &Value, keep: usize, at: &str, inside: bool, cuts: &mut Cuts) -> Value {
    match value {
        Value::Array(items) => {
            if items.len() > keep {
                let (at, len) = (pointer(at), items.len());
                if !inside {
                    cuts.lists.push(at.to_owned());
                }
                // The list rules size it: a new playlist or a single holds fewer.
                cuts.notes.push(format!(
                    "`{at}` holds {len} items; the first {keep} are shown; size the list by the rules below"
                ));
            }
            let shown = items
                .iter()
                .take(keep)
                .enumerate()
                .map(|(i, v)| cut_lists(v, keep, &format!("{at}/{i}"), true, cuts))
                .collect();
            Value::Array(shown)
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let at = format!("{at}/{k}");
                    (k.clone(), cut_lists(v, keep, &at, inside, cuts))
                })
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

    #[test]
    fn a_page_cut_for_space_is_completed_from_the_draft_and_nested_lists_are_not() {
        let draft =
            json!({"tracks": {"total": 50, "items": (0..50).map(track).collect::<Vec<_>>()}});
        let shown = within(&draft, 2000).unwrap();
        assert_eq!(shown.lists, ["/tracks/items"], "{:?}", shown.notes);
        // The model wrote two tracks, the second with an id the draft's fifth has, and one image.
        let mut answer = json!({"tracks": {"total": 50, "items": [
            {"id": "x1", "name": "Blue", "album": {"images": [{"url": "https://i/9"}]}},
            {"id": "t4", "name": "Green", "album": {"images": []}}]}});
        complete(&mut answer, &draft, &shown.lists);
        let items = answer["tracks"]["items"].as_array().unwrap();
        assert_eq!(items.len(), 49, "the draft's t4 is not listed twice");
        assert_eq!(items[0]["name"], "Blue");
        assert_eq!(items[2]["id"], "t2");
        assert_eq!(items[0]["album"]["images"].as_array().unwrap().len(), 1);
        // A page the model counted as short as its items stays so; one it counted 5 of, 5.
        for (total, len) in [(1, 1), (5, 5)] {
            let mut answer =
                json!({"tracks": {"total": total, "items": [{"id": "x1", "name": "Hey Jude"}]}});
            complete(&mut answer, &draft, &shown.lists);
            assert_eq!(answer["tracks"]["items"].as_array().unwrap().len(), len);
        }
    }

    /// A list with no count beside it (a recommendation's seeds) keeps the model's length:
    /// nothing says items are missing, and completed ones would show the draft's placeholders.
    #[test]
    fn a_list_without_a_count_is_not_completed() {
        let draft = json!({"seeds": (0..50).map(track).collect::<Vec<_>>(), "total": 50});
        let shown = within(&draft, 2000).unwrap();
        assert_eq!(shown.lists, ["/seeds"], "{:?}", shown.notes);
        let mut answer = json!({"seeds": [{"id": "s1", "name": "rock"}]});
        complete(&mut answer, &draft, &shown.lists);
        assert_eq!(answer["seeds"].as_array().unwrap().len(), 1);
    }
}
