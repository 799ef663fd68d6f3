//! The core form of a list item's objects: the few identities that say which entity each is,
//! so that many items fit before any grows. An object's other identities (its `uri`, its
//! `type`, a nested entity's long id) are columns of their own that come after the item's own
//! dates (see [`super::columns`]); a nested entity's long id is the first of them.
//!
//! The rule: the first entity on the way into an item (the item itself when it has
//! identities, else the track of a recently played item) shows its keys (`id`, `*_id`) and
//! its names (`name`, `title`, `original_title`, ...). An entity held by another one (a
//! track's album and artists) shows its best name (`name` before `title` before the others,
//! see [`name_preference`]) and only those of its keys that are short (a number, a short
//! code): a long code such as a 22-character Spotify id waits for a later column, the name
//! being enough to say which entity it is; without a name it shows its keys. An object with
//! neither keys nor names shows its kind (a playlist context's `type`), else its locator (a
//! `uri`, a long code); one without identities shows its most telling field, as its least
//! form does. The content the API exists to return is always in it.

use serde_json::{Map, Value};

use super::fields::{Class, Context, KIND_RANK, is_locator, name_preference, only_kinded};
use super::least::{IDENTITY_CAP, capped, least, most_telling, omitted_note, ordered};

/// The fields of `map` its core form shows, in its order: see the module doc. `nested` says
/// an object with identities lies above it in the item.
pub(crate) fn core_fields<'m>(
    map: &'m Map<String, Value>,
    nested: bool,
    ctx: &Context,
) -> Vec<&'m str> {
    let order = ordered(map, ctx);
    let keys: Vec<&str> = order
        .iter()
        .filter(|(name, class)| *class == Class::Identity(0) && !is_locator(name))
        .map(|(name, _)| *name)
        .collect();
    let names: Vec<&str> = order
        .iter()
        .filter(|(_, class)| *class == Class::Identity(1))
        .map(|(name, _)| *name)
        .collect();
    let best_name = names
        .iter()
        .copied()
        .min_by_key(|name| name_preference(name));
    let mut out: Vec<&str> = match (best_name, nested) {
        (Some(name), true) => keys
            .into_iter()
            .filter(|key| map.get(*key).is_some_and(is_short_key))
            .chain([name])
            .collect(),
        (Some(_), false) => keys.into_iter().chain(names).collect(),
        (None, _) if !keys.is_empty() => keys,
        // A bare kind beside content says nothing: the object shows its most telling field.
        (None, _) if only_kinded(map) => Vec::new(),
        // A locator is a long code: an object's kind says more in fewer characters.
        (None, _) => order
            .iter()
            .filter(|(_, class)| matches!(class, Class::Identity(_)))
            .min_by_key(|(name, _)| is_locator(name))
            .map(|(name, _)| vec![*name])
            .unwrap_or_default(),
    };
    // The content the API exists to return is never left out.
    out.extend(order.iter().filter_map(|(name, class)| {
        let scalar = map
            .get(*name)
            .is_some_and(|v| !v.is_object() && !v.is_array() && !v.is_null());
        (*class == Class::Purpose && scalar).then_some(*name)
    }));
    out
}

/// Whether an object has identity fields of its own (a kind alone beside content of its own
/// is none: a copyright's bare `type` code says nothing, see [`only_kinded`]).
pub(crate) fn has_identity(map: &Map<String, Value>, ctx: &Context) -> bool {
    let ranks: Vec<u8> = ordered(map, ctx)
        .iter()
        .filter_map(|(_, class)| match class {
            Class::Identity(rank) => Some(*rank),
            _ => None,
        })
        .collect();
    // An image's url is its identity beside a kind (see `Context::image_url_field`).
    let bare_kind = ranks.iter().all(|rank| *rank == KIND_RANK) && only_kinded(map);
    !ranks.is_empty() && !bare_kind
}

/// The core form of `value` (see the module doc); `nested` says an object with identities
/// lies above it. Never an empty object where `value` has fields.
pub(crate) fn core(value: &Value, nested: bool, ctx: &Context) -> Value {
    match value {
        Value::Object(map) => core_object(map, nested, ctx),
        Value::Array(items) => match items.split_first() {
            None => Value::Array(Vec::new()),
            Some((first, rest)) => {
                let mut out = vec![core(first, nested, ctx)];
                if !rest.is_empty() {
                    out.push(omitted_note(rest.len()));
                }
                Value::Array(out)
            }
        },
        other => least(other, ctx),
    }
}

fn core_object(map: &Map<String, Value>, nested: bool, ctx: &Context) -> Value {
    let mut out = Map::new();
    for name in core_fields(map, nested, ctx) {
        if let Some(value) = map.get(name) {
            out.insert(name.to_owned(), capped(value, IDENTITY_CAP));
        }
    }
    if out.is_empty() {
        // No identities: the first field with content, in the order fields matter (as the
        // least form has it), itself in its core form.
        // A bare kind beside content (a copyright's `type`) is not what tells most.
        let mut order = ordered(map, ctx);
        if only_kinded(map) {
            order.retain(|(_, class)| !matches!(class, Class::Identity(_)));
        }
        if let Some((name, value)) = most_telling(map, &order) {
            out.insert(name.to_owned(), core(value, nested, ctx));
        }
    }
    Value::Object(out)
}

/// Whether identity field `name` of `map` only restates another of its identities: a locator
/// (`uri`, `urn`) whose text holds one of the object's keys (`spotify:track:<id>`).
pub(crate) fn restates(map: &Map<String, Value>, name: &str, ctx: &Context) -> bool {
    let Some(text) = map.get(name).and_then(Value::as_str) else {
        return false;
    };
    is_locator(name)
        && ordered(map, ctx).iter().any(|(key, class)| {
            *class == Class::Identity(0)
                && !is_locator(key)
                && map.get(*key).is_some_and(|v| {
                    let shown = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    shown.chars().count() >= MIN_RESTATED && text.contains(&shown)
                })
        })
}

/// Whether a key's value is short enough to stand beside a nested entity's name (a number, a
/// short code), unlike a long code such as Spotify's 22-character ids.
fn is_short_key(value: &Value) -> bool {
    let text = match value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    };
    text <= SHORT_KEY
}

/// Longest key, in characters, a nested entity shows beside its name.
const SHORT_KEY: usize = 12;

/// Shortest key a locator must hold to restate it (a key of `7` says nothing).
const MIN_RESTATED: usize = 4;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_first_entity_shows_keys_and_a_name_and_nested_ones_their_name() {
        let ctx = Context::new(Some("/me/player/recently-played"), None);
        let item = json!({"track": {"id": "t1", "uri": "spotify:track:t1", "type": "track",
                                     "name": "Song", "popularity": 3},
                          "played_at": "2025-11-01T10:04:05Z"});
        assert_eq!(
            core(&item, false, &ctx),
            json!({"track": {"id": "t1", "name": "Song"}})
        );
        // A nested entity shows a short key beside its name, not a long one.
        let album = json!({"id": "a1", "name": "Album", "type": "album"});
        assert_eq!(
            core(&album, true, &ctx),
            json!({"id": "a1", "name": "Album"})
        );
        let album = json!({"id": "4aawyAB9vmqN3uQ7FjRGTy", "name": "Album", "type": "album"});
        assert_eq!(core(&album, true, &ctx), json!({"name": "Album"}));
        // A nested entity without a name keeps its key; one with neither its first identity.
        assert_eq!(
            core(&json!({"id": "a1", "type": "album"}), true, &ctx),
            json!({"id": "a1"})
        );
        let context = json!({"uri": "spotify:playlist:p", "type": "playlist"});
        assert_eq!(core(&context, false, &ctx), json!({"type": "playlist"}));
        let located = json!({"uri": "spotify:playlist:p", "href": "https://x.example/p"});
        assert_eq!(
            core(&located, false, &ctx),
            json!({"uri": "spotify:playlist:p"})
        );
        // The first entity shows all its names; a nested one its best name only: `title`
        // before `original_title`, whatever the order of the fields.
        let movie = json!({"original_title": "Le Film", "id": 7, "title": "The Film"});
        assert_eq!(
            core(&movie, false, &ctx),
            json!({"id": 7, "original_title": "Le Film", "title": "The Film"})
        );
        assert_eq!(
            core(&movie, true, &ctx),
            json!({"id": 7, "title": "The Film"})
        );
        // An image's url is what it is for.
        let image = json!({"height": 64, "url": "https://i.example/a.jpg", "width": 64});
        assert_eq!(
            core(&image, true, &ctx),
            json!({"url": "https://i.example/a.jpg"})
        );
    }

    #[test]
    fn a_kind_beside_content_is_no_identity_unless_an_image_url_is_there() {
        let ctx = Context::default();
        let map = |v: Value| v.as_object().cloned().unwrap_or_default();
        let copyright = json!({"text": "(C) 2004 The Label", "type": "C"});
        assert!(!has_identity(&map(copyright.clone()), &ctx));
        assert_eq!(
            core(&copyright, true, &ctx),
            json!({"text": "(C) 2004 The Label"})
        );
        let image = json!({"height": 64, "type": "thumbnail",
                           "url": "https://i.example/a.jpg", "width": 64});
        assert!(has_identity(&map(image), &ctx));
        // A kind alone is what an object says of itself.
        assert!(has_identity(&map(json!({"type": "album"})), &ctx));
    }

    #[test]
    fn a_locator_holding_the_objects_key_restates_it() {
        let ctx = Context::default();
        let track = json!({"id": "t1xyz", "uri": "spotify:track:t1xyz", "name": "Song"});
        let map = track.as_object().cloned().unwrap_or_default();
        assert!(restates(&map, "uri", &ctx));
        assert!(!restates(&map, "name", &ctx));
        let context = json!({"uri": "spotify:playlist:p", "type": "playlist"});
        let map = context.as_object().cloned().unwrap_or_default();
        assert!(!restates(&map, "uri", &ctx));
    }
}
