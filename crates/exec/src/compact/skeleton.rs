//! The identity skeleton of a value: its identities and those of every object it holds on
//! the way to its content, down to a depth. Compaction shows skeletons before any other
//! field grows, so that a track keeps its album's and artists' ids and names before its
//! sibling objects keep their flags.

use serde_json::Value;

use super::fields::{Class, Context};
use super::least::{least, omitted_note, ordered};

/// Deepest skeleton tried, in levels of objects (lists do not count).
pub(crate) const SKELETON_DEPTH: usize = 6;

/// `value`'s least form (see [`least`]) with, down to `depth` levels of objects, the
/// skeletons of its content and of its sub-objects and lists that hold identities; a list
/// shows its first item's skeleton and a note of the rest.
pub(crate) fn skeleton(value: &Value, depth: usize, ctx: &Context) -> Value {
    match value {
        Value::Object(map) if depth > 0 => {
            let Value::Object(mut out) = least(value, ctx) else {
                return least(value, ctx);
            };
            for (name, class) in ordered(map, ctx) {
                if let Some(sub) = map.get(name).filter(|v| is_nested(class, v)) {
                    out.insert(name.to_owned(), skeleton(sub, depth - 1, ctx));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) if depth > 0 => match items.split_first() {
            None => Value::Array(Vec::new()),
            Some((first, rest)) => {
                let mut out = vec![skeleton(first, depth, ctx)];
                if !rest.is_empty() {
                    out.push(omitted_note(rest.len()));
                }
                Value::Array(out)
            }
        },
        _ => least(value, ctx),
    }
}

/// Whether a field of this class and value has a skeleton beyond its least form: an object or
/// list that is content or holds identities.
pub(crate) fn is_nested(class: Class, value: &Value) -> bool {
    matches!(class, Class::Purpose | Class::Holder) && (value.is_object() || value.is_array())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_skeleton_keeps_nested_identities_and_drops_the_rest() {
        let ctx = Context::new(Some("/me/player/currently-playing"), None);
        let track = json!({"id": "t", "name": "Song", "popularity": 70,
            "album": {"id": "a", "name": "Album", "studio": "L",
                      "artists": [{"id": "x", "name": "X", "genres": ["pop"]}, {"id": "y"}]},
            "artists": [{"id": "x", "name": "X", "followers": 3}]});
        assert_eq!(
            skeleton(&track, 3, &ctx),
            json!({"id": "t", "name": "Song",
                   "album": {"id": "a", "name": "Album",
                             "artists": [{"id": "x", "name": "X"}, "… 1 more items left out"]},
                   "artists": [{"id": "x", "name": "X"}]})
        );
        assert_eq!(
            skeleton(&track, 1, &ctx),
            json!({"id": "t", "name": "Song", "album": {"id": "a", "name": "Album"},
                   "artists": [{"id": "x", "name": "X"}]})
        );
        assert_eq!(
            skeleton(&track, 0, &ctx),
            json!({"id": "t", "name": "Song"})
        );
    }
}
