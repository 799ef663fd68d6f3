//! Structure-aware compaction of JSON observations: fit a response into a
//! character budget while the text stays valid JSON, every object keeps what
//! says which entity it is, and the content the API exists to return stays
//! (ToolBench instead cuts the text at 1,024 characters, often mid-item).
//!
//! Within the budget:
//! - list items go last: where the view below would leave items of a list of objects out, the
//!   whole is first trimmed, rung by rung across all of it, of the fields worth least (links
//!   and image paths, restated names, long texts shortened, lists of codes, flags, numbers,
//!   ...; never identities, dates, roles or the fields the request names, see `trim`), and the
//!   first rung that fits with every item is the view (a TV episode's five cast members, 1.7k
//!   characters, keep all five where the view below showed two);
//! - every object keeps its identity fields (`id`, `*_id`, `name`, `title`,
//!   `uri`, `type`, and the like, at any depth; not an opaque version token such as
//!   `snapshot_id`, `etag`, a cursor or a hash, which says which state an entity is in, not
//!   which entity, and ranks as an ordinary field) before any other field (the
//!   items of a list, their core identities first, as below), and an object
//!   that had content is never emptied: one without identities keeps its most
//!   telling field;
//! - a sub-object too large to keep whole is shrunk to its identities, not
//!   dropped, and before any field grows, every object holding identities
//!   shows its skeleton: the identities of the objects it holds, level by
//!   level (a track's album and artists keep their ids and names before a
//!   sibling device keeps its settings; a list's skeleton is its first item's,
//!   and it gives way to the list's own view, grown by columns as below, as soon
//!   as that view shows more of its items, though in fewer characters: three
//!   saved albums by their ids and names, not one with its first track's
//!   locators); then, before any field grows toward
//!   whole, the short scalars of the objects it holds (a device's
//!   `volume_percent` beside a whole track); the fields the request names
//!   (see below) in the objects it holds come before the skeletons;
//! - a list keeps its first items and ends with a note saying how many items
//!   it left out, unless the request ranks its items by a field they carry ("the latest
//!   movie": `release_date`, see `ranked`): then a list that is cut shows the items ranked
//!   first, in that order, those playing the part the request names first when the items
//!   carry it ("directed by": a crew credit's `job` Director, see `role`), and its note says
//!   which they are; the items of a list of objects are grown alike, by columns
//!   (a field at a path, such as `played_at` or `track.album.release_date`):
//!   a column is added to every shown item before a column of lower rank is
//!   added to any, and a column that does not fit across all of them is left
//!   out for all. An item starts from its core form, two-tier so that many
//!   items fit: the first entity on the way in (the item, or a recently
//!   played item's track) shows its keys (`id`, `*_id`) and names; an entity
//!   it holds (the track's album and artists) its best name and only short
//!   keys (a long code, such as a 22-character Spotify id, waits for a later
//!   column); an object with neither its kind (`type`), else its `uri`.
//!   Columns rank: the item's skeleton (the core identities of the objects
//!   within two levels, such as a track's `artists[].name`), the long keys of those
//!   nested entities (an album's `artists[].id`: what a next call such as "follow the
//!   artist" takes; grown right after the columns that decide how many items show, and
//!   before any other), the item's
//!   roles (its own short fields saying its role in the list, found by their
//!   values across the items: a role's name such as `job`, `character`, `order`,
//!   or one saying who made or gave the item, such as a review's `author`, first,
//!   then a string telling apart two credits of one person; a crew's
//!   `department` only groups it, after its own dates; they may take items
//!   away as dates do, further; so are those of the items of a list nested in
//!   the items, such as a season's `episodes[].crew[].job`, found across
//!   them), the fields at any depth whose names share a word stem with the
//!   request (the user's task and the model's thought when it made the
//!   call, see [`Hints`]: `popularity` for "the most popular show"; they take
//!   items away as roles do; a word naming one of the response's lists of
//!   objects names what to show, not a field: "some tracks" does not ask for
//!   `track_number`), the item's own short scalars (those of its
//!   sub-objects without identities too, such as a forecast's `main.temp`;
//!   dates first, then positions counting from 0 or 1 and categories such as a
//!   language, then texts, numbers, booleans), the item's handle (below), its own numbers
//!   that every item shares (every track's `disc_number` 1: they tell no item apart),
//!   the other identities of those objects (`type`, `*_type`, a `uri`, a
//!   nested entity's long id), the identities of deeper objects, short
//!   scalars of nested entities (an album's `release_date` within a track),
//!   long texts, other values, maps of flags, and links last, with the locators
//!   of nested entities that only restate their key (an album's `uri` holding its
//!   `id` within a track); the item's handle is the locator of the entity the item is
//!   (its `uri`, even one holding its `id`; not that of a bare reference without a name,
//!   such as a playlist item's `added_by`) and its number within its own kind (a track's
//!   `track_number`, named by its `type`), shown where it fits across the shown items: it
//!   is what a next call takes to act on the item (Spotify's `POST /playlists/{id}/tracks`
//!   takes `uris`, not ids); it comes right after the skeleton where the item wraps the
//!   entity (a playlist item's `track`: before its album's long id), else after the item's
//!   own scalars (a playlist's track count) and before the numbers every item shares, so
//!   that a track never shows its `disc_number` or its album's `total_tracks` without its
//!   `uri`; it is not worth an item, but a request putting items somewhere ("add",
//!   "append", "insert", "queue") asks for it as it asks for any field it names. The
//!   budget is split so: a list whose items all fit by their skeletons is
//!   shown whole, and its own dates may take a quarter of its items away at
//!   most; else as many items are shown as their units (skeleton and own
//!   dates) fit in four fifths of the list's room, and a unit column that
//!   does not fit takes items away from the end, down to two thirds of them
//!   (fewer items, each showing its date, rather than more without), a
//!   role down to three quarters of that floor and a field the request names
//!   down to half of it (a person's crew credits, beside her cast credits, keep
//!   their air dates for "her latest show"), and a unit column that did not fit
//!   is tried again once a later one has taken items away; then
//!   more items are shown in that form while they fit, and only then the
//!   other columns grow across all shown items where they fit (an item's
//!   `uri` or `type` is not worth an item);
//! - an image-like object (a url beside sizes, such as Spotify's
//!   `{height, url, width}`) has its url as its identity: an image that is
//!   shown is shown with its url;
//! - the fields an API exists to return are kept first and never dropped as a
//!   category: its payload (`results`, `items`, `data`, ...), the fields named
//!   by its path or function name (`albums` of `/me/albums`; not a count of them, such as
//!   an album's `total_tracks` in a playlist's tracks), the fields the
//!   call asked for by a field-selection argument (`fields=name,job`, `select`,
//!   `$select`, `include`, TMDB's `append_to_response`; a comma-separated text
//!   or a list), at any depth, the images of an images endpoint, and the
//!   text of the items of an endpoint that exists to return texts (its path
//!   or name says reviews, comments, messages, posts, notes, lyrics, ...:
//!   their `content`, `body`, `text`, ...), shown in every shown item as a
//!   snippet ending in `…` that grows, across the items, before their own
//!   dates do (its first step may take items away as a date does); maps of booleans (Spotify's `actions.disallows`)
//!   grow after everything else but URLs and images of other APIs, which come
//!   last;
//! - the fields that page a list (a page's `next` and `previous`, its
//!   totals, `page`, `offset`, `limit`, cursors) are kept whole, right after
//!   the least forms of the identities and content: they say there is more
//!   and how to ask for it;
//! - an object that says which one it is by its kind alone, beside content of its own (a
//!   copyright's `{"text": ..., "type": "C"}`), holds no identities: shown by them it would
//!   be a bare code, so it is a plain value, grown late;
//! - a null, an empty list and an empty object say nothing: a view that is cut leaves them
//!   out first and does not count them among the fields it left out; a small object
//!   counting something of its holder (a playlist's `tracks: {href, total}`) is content, its
//!   count one of the holder's own numbers;
//! - long strings are shortened, ending in `…`;
//! - as a last resort the text is cut and given back as one JSON string.
//!
//! [`left_out`] says what a view left out of the whole (the items of its lists, the fields of
//! its objects, the texts it shortened, or the whole text cut short), so that an agent shown
//! the view can be told what reading the whole would add. A field the view shows somewhere is
//! named by where it was left out (`items[].album.id`), never by its name alone.
//!
//! ```
//! use serde_json::json;
//! let items: Vec<_> = (0..20)
//!     .map(|i| json!({"id": 1000 + i, "title": format!("Film {i}"),
//!                      "overview": "A long story ".repeat(20),
//!                      "poster_path": "/abcdefghijkl.jpg"}))
//!     .collect();
//! let text = toolsmith_exec::compact::compact(&json!({"results": items}), None, 1024);
//! assert!(text.chars().count() <= 1024);
//! let back: serde_json::Value = serde_json::from_str(&text).unwrap();
//! assert_eq!(back["results"][0]["id"], 1000);
//! assert_eq!(back["results"][1]["title"], "Film 1");
//! ```

mod asked;
mod columns;
mod core;
mod fields;
mod grow;
mod least;
mod left_out;
mod qualify;
mod ranked;
mod render;
mod role;
mod skeleton;
mod trim;

use serde_json::{Map, Value};

use self::fields::Context;
use self::least::{ELLIPSIS, is_note};
pub use self::left_out::{LeftOut, left_out};
use self::render::render;

/// What compaction knows of the API that answered, beyond the response.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hints<'a> {
    /// The API's response schema: its `format`s tell which fields are URLs.
    pub schema: Option<&'a Value>,
    /// The API's path template or function name (`/collection/{id}/images`,
    /// `get_album_images`): says what the API exists to return.
    pub endpoint: Option<&'a str>,
    /// The call's arguments: the fields a field-selection argument names (`fields`,
    /// `select`, `$select`, `include`, ...) are kept first, as the API's content.
    pub arguments: Option<&'a Value>,
    /// The user's task: the fields whose names share a word stem with it (`popularity` for
    /// "the most popular show") rank right after the items' roles.
    pub task: Option<&'a str>,
    /// The model's text of the turn that made the call (its thought), read as the task is.
    pub thought: Option<&'a str>,
}

/// Whether a field is an identity field (an id, a name or a kind), the fields
/// compaction keeps first.
pub fn is_key_field(name: &str) -> bool {
    fields::identity_rank(name).is_some()
}

/// The text of `value` in at most `budget` characters, valid JSON: the value
/// itself when it fits, else compacted as the module doc says. `schema` (the
/// API's response schema) tells which fields are URLs by their `format`.
pub fn compact(value: &Value, schema: Option<&Value>, budget: usize) -> String {
    compact_with(
        value,
        Hints {
            schema,
            ..Hints::default()
        },
        budget,
    )
}

/// [`compact`] knowing the API (see [`Hints`]).
pub fn compact_with(value: &Value, hints: Hints<'_>, budget: usize) -> String {
    let text = value.to_string();
    if chars(&text) <= budget {
        return text;
    }
    let ctx = Context::new(hints.endpoint, hints.schema)
        .with_arguments(hints.arguments)
        .with_request(hints.task, hints.thought)
        .with_kinds_of(value);
    let shown = trim::keep_items(value, render(value, budget, &ctx), budget, &ctx);
    let out = shown.to_string();
    if chars(&out) <= budget {
        return out;
    }
    last_resort(&text, budget)
}

/// [`compact`] of a text: JSON is compacted, anything else (or a budget too
/// small for JSON) is cut and marked with `...` as ToolBench does.
pub fn compact_text(text: &str, schema: Option<&Value>, budget: usize) -> String {
    compact_text_with(
        text,
        Hints {
            schema,
            ..Hints::default()
        },
        budget,
    )
}

/// [`compact_text`] knowing the API (see [`Hints`]).
pub fn compact_text_with(text: &str, hints: Hints<'_>, budget: usize) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => compact_with(&value, hints, budget),
        Err(_) => toolsmith_plumbing::text::truncate_with(text, budget, "..."),
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// The text cut to fit, as one JSON string (valid JSON whatever the budget
/// allows beyond the two quotes).
fn last_resort(text: &str, budget: usize) -> String {
    let mut keep = budget.saturating_sub(3);
    loop {
        if keep == 0 {
            return "\"\"".to_owned();
        }
        let cut = toolsmith_plumbing::text::truncate_with(text, keep, ELLIPSIS);
        let quoted = Value::String(cut).to_string();
        if chars(&quoted) <= budget {
            return quoted;
        }
        let excess = chars(&quoted) - budget;
        keep = keep.saturating_sub(excess.max(1));
    }
}

/// Counts how many of the identity fields of `value` (see [`is_key_field`])
/// appear whole (as `"field":value`) in `text`: `(kept, total)`. For measuring
/// compaction against a plain cut.
pub fn keys_kept(value: &Value, text: &str) -> (usize, usize) {
    let mut pairs = Vec::new();
    key_pairs(value, &mut pairs);
    let kept = pairs
        .iter()
        .filter(|fragment| text.contains(fragment.as_str()))
        .count();
    (kept, pairs.len())
}

/// Counts the objects of `value` that had fields and are empty in `text` (its
/// compacted form), matched by key and list position; a text that is no longer
/// JSON, or no longer an object where `value` was one, counts its top object.
pub fn emptied_objects(value: &Value, text: &str) -> usize {
    match serde_json::from_str::<Value>(text) {
        Ok(shown) => emptied(value, &shown),
        Err(_) => usize::from(value.as_object().is_some_and(|m| !m.is_empty())),
    }
}

/// Counts, over the objects `text` (the compacted form of `value`) still shows,
/// their identity fields (see [`is_key_field`]) and how many are shown with
/// their whole value: `(kept, total)`. Unlike [`keys_kept`], the items a list
/// left out do not count: this measures whether each object the agent sees
/// still says which entity it is. A text that is no longer JSON shows none of
/// the top object's identities.
pub fn shown_identities_kept(value: &Value, text: &str) -> (usize, usize) {
    match serde_json::from_str::<Value>(text) {
        Ok(shown) => shown_identities(value, &shown),
        Err(_) => (0, own_identities(value).count()),
    }
}

/// The identity fields of an object with a scalar value.
fn own_identities(value: &Value) -> impl Iterator<Item = (&String, &Value)> {
    value
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(name, sub)| {
            is_key_field(name) && !sub.is_object() && !sub.is_array() && !sub.is_null()
        })
}

fn shown_identities(value: &Value, shown: &Value) -> (usize, usize) {
    match (value, shown) {
        (Value::Object(whole), Value::Object(kept)) => {
            let mut out = (0, 0);
            for (name, sub) in own_identities(value) {
                out.1 += 1;
                out.0 += usize::from(kept.get(name) == Some(sub));
            }
            for (name, sub) in kept {
                if let Some(w) = whole.get(name) {
                    let (k, t) = shown_identities(w, sub);
                    out = (out.0 + k, out.1 + t);
                }
            }
            out
        }
        (Value::Array(whole), Value::Array(kept)) => whole
            .iter()
            .zip(kept.iter().filter(|v| !is_note(v)))
            .map(|(w, k)| shown_identities(w, k))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1)),
        (Value::Object(_), _) => (0, own_identities(value).count()),
        _ => (0, 0),
    }
}

fn emptied(value: &Value, shown: &Value) -> usize {
    match (value, shown) {
        (Value::Object(whole), Value::Object(kept)) => {
            let own = usize::from(!whole.is_empty() && kept.is_empty());
            own + kept
                .iter()
                .filter_map(|(k, sub)| whole.get(k).map(|w| emptied(w, sub)))
                .sum::<usize>()
        }
        (Value::Array(whole), Value::Array(kept)) => whole
            .iter()
            .zip(kept.iter().filter(|v| !is_note(v)))
            .map(|(w, k)| emptied(w, k))
            .sum(),
        (Value::Object(whole), _) => usize::from(!whole.is_empty()),
        _ => 0,
    }
}

fn key_pairs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (name, sub) in map {
                if is_key_field(name) && !sub.is_object() && !sub.is_array() && !sub.is_null() {
                    let mut one = Map::new();
                    one.insert(name.clone(), sub.clone());
                    let text = Value::Object(one).to_string();
                    let fragment = text
                        .strip_prefix('{')
                        .and_then(|t| t.strip_suffix('}'))
                        .unwrap_or(&text);
                    out.push(fragment.to_owned());
                } else {
                    key_pairs(sub, out);
                }
            }
        }
        Value::Array(items) => {
            for sub in items {
                key_pairs(sub, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    /// `value` compacted within `budget` (checked) and its text parsed back.
    fn compacted(value: &Value, hints: Hints<'_>, budget: usize) -> (String, Value) {
        let text = compact_with(value, hints, budget);
        assert!(
            chars(&text) <= budget,
            "{} chars of {budget}: {text}",
            chars(&text)
        );
        let back = serde_json::from_str(&text).unwrap();
        (text, back)
    }

    fn movies(n: usize) -> Value {
        let results: Vec<Value> = (0..n)
            .map(|i| {
                json!({
                    "id": 100_000 + i,
                    "title": format!("Film number {i}"),
                    "overview": "Somebody goes somewhere and finds something. ".repeat(6),
                    "poster_path": "/7WsyChQLEftFiDOVTGkv3hFpyyt.jpg",
                    "backdrop_path": "/bOGkgRGdhrBYJSLpXaxhXVstddV.jpg",
                    "genre_ids": [28, 12, 14],
                    "release_date": "2018-04-25",
                    "vote_average": 7.5,
                    "original_language": "en",
                })
            })
            .collect();
        json!({"page": 1, "results": results, "total_results": n, "total_pages": 1})
    }

    #[test]
    fn a_result_page_keeps_every_shown_items_ids_grows_items_alike_and_notes_the_rest() {
        // Twenty movies fit by their ids and titles: all are shown, each with what fits for
        // all of them, and where there is room, each with its date.
        let value = movies(20);
        for budget in [1024, 2048] {
            let (text, back) = compacted(&value, Hints::default(), budget);
            let results = back["results"].as_array().unwrap();
            assert_eq!(results.len(), 20, "{text}");
            let fields: Vec<&String> = results[0].as_object().unwrap().keys().collect();
            for (i, movie) in results.iter().enumerate() {
                assert_eq!(movie["id"], json!(100_000 + i));
                assert_eq!(movie["title"], json!(format!("Film number {i}")));
                assert_eq!(
                    movie.as_object().unwrap().keys().collect::<Vec<_>>(),
                    fields
                );
                if budget == 2048 {
                    assert_eq!(movie["release_date"], "2018-04-25", "{text}");
                }
            }
        }
        // Forty do not: the first ones are shown, each with its date (not the first alone),
        // and a note says how many were left out.
        let value = movies(40);
        let (text, back) = compacted(&value, Hints::default(), 1024);
        let results = back["results"].as_array().unwrap();
        let shown: Vec<&Value> = results.iter().filter(|v| v.is_object()).collect();
        assert!(shown.len() >= 8, "{text}");
        for (i, movie) in shown.iter().enumerate() {
            assert_eq!(movie["id"], json!(100_000 + i));
            assert_eq!(movie["title"], json!(format!("Film number {i}")));
            assert_eq!(movie["release_date"], "2018-04-25", "{text}");
        }
        let note = results.last().unwrap().as_str().unwrap();
        assert_eq!(note, format!("… {} more items left out", 40 - shown.len()));
        assert_eq!(back["total_results"], 40);
        let (kept, total) = keys_kept(&value, &text);
        assert_eq!(total, 80);
        // A plain cut loses most of them.
        let plain = toolsmith_plumbing::text::truncate_with(&value.to_string(), 1024, "...");
        assert!(keys_kept(&value, &plain).0 < kept, "{kept} of {total}");
        assert_eq!(emptied_objects(&value, &text), 0);
    }

    /// `value` without its kind fields (`type`): the identities a shown object may leave to a
    /// later column.
    fn without_kinds(value: &Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(
                map.iter()
                    .filter(|(k, _)| k.as_str() != "type")
                    .map(|(k, v)| (k.clone(), without_kinds(v)))
                    .collect(),
            ),
            Value::Array(items) => Value::Array(items.iter().map(without_kinds).collect()),
            other => other.clone(),
        }
    }

    #[test]
    fn every_object_shown_keeps_its_identities_at_every_depth() {
        // A deep, GitHub-like page: items hold an owner and a repository that holds an
        // owner and a license, each with its identities and much else.
        let user = |i: usize| {
            json!({"login": format!("user{i}"), "id": 500 + i, "type": "User",
                   "bio": "writes code ".repeat(10), "company": "somewhere",
                   "avatar_url": "https://avatars.example/u/1"})
        };
        let items: Vec<Value> = (0..12)
            .map(|i| {
                json!({"id": i, "name": format!("repo-{i}"), "full_name": format!("org/repo-{i}"),
                       "description": "a project ".repeat(15), "owner": user(i),
                       "license": {"key": "mit", "name": "MIT License", "spdx_id": "MIT",
                                   "body": "permission is granted ".repeat(20)},
                       "parent": {"id": 1000 + i, "name": "upstream", "owner": user(i + 50),
                                  "topics": ["a", "b", "c"]}})
            })
            .collect();
        let value = json!({"total_count": 12, "items": items});
        // Every shown object keeps its keys and names; its kind (an owner's `type`) is a
        // later column, shown across the items where the list has room for it.
        for budget in [1024, 2048, 4096] {
            let (text, back) = compacted(&value, Hints::default(), budget);
            assert_eq!(emptied_objects(&value, &text), 0, "{text}");
            let (kept, total) = shown_identities_kept(&without_kinds(&value), &text);
            assert!(total > 0, "{text}");
            assert_eq!(kept, total, "{budget}: {text}");
            if budget == 4096 {
                assert_eq!(
                    shown_identities_kept(&value, &text),
                    (total + 24, total + 24)
                );
            }
            assert_eq!(back["items"][0]["owner"]["login"], "user0", "{text}");
            assert_eq!(back["items"][0]["parent"]["owner"]["id"], 550, "{text}");
        }
        // A plain cut keeps the first items' identities only as far as it reaches, and
        // is no longer JSON: none of the top object's identities count as shown.
        let plain = toolsmith_plumbing::text::truncate_with(&value.to_string(), 1024, "...");
        assert_eq!(shown_identities_kept(&json!({"id": 1}), &plain), (0, 1));
    }

    /// A TMDB movie's credits: a few cast members and a crew of `crew`, the crew in TMDB's
    /// order of fields, a person credited twice (directing and writing).
    fn credits(crew: usize) -> Value {
        let jobs = [
            ("Directing", "Director"),
            ("Writing", "Screenplay"),
            ("Production", "Producer"),
            ("Sound", "Original Music Composer"),
            ("Camera", "Director of Photography"),
            ("Editing", "Editor"),
        ];
        let crew: Vec<Value> = (0..crew)
            .map(|i| {
                let (department, job) = jobs[i % jobs.len()];
                let person = if i == 1 { 7000 } else { 7000 + i };
                json!({"adult": false, "credit_id": format!("52fe4250c3a36847f80{i:05}"),
                       "department": department, "gender": 1 + i % 2, "id": person,
                       "job": job, "known_for_department": department,
                       "name": format!("Crew Person {}", person - 7000),
                       "original_name": format!("Crew Person {}", person - 7000),
                       "popularity": 1.5, "profile_path": "/abcdefghijklmnopqrstuvwxyz1.jpg"})
            })
            .collect();
        let cast: Vec<Value> = (0..3)
            .map(|i| {
                json!({"adult": false, "cast_id": 10 + i, "character": format!("Role {i}"),
                       "credit_id": format!("52fe4250c3a36847f81{i:05}"), "gender": 2,
                       "id": 9000 + i, "known_for_department": "Acting",
                       "name": format!("Actor {i}"), "order": i, "popularity": 3.5,
                       "profile_path": "/abcdefghijklmnopqrstuvwxyz2.jpg"})
            })
            .collect();
        json!({"id": 550, "cast": cast, "crew": crew})
    }

    /// The objects shown in list `key` of a compacted response (its note left out).
    fn objects_in<'a>(back: &'a Value, key: &str) -> Vec<&'a Value> {
        back[key]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v.is_object())
            .collect()
    }

    #[test]
    fn the_shown_crew_says_each_ones_job_and_the_cast_their_character_and_order() {
        let value = credits(40);
        let hints = Hints {
            endpoint: Some("/movie/{movie_id}/credits"),
            ..Hints::default()
        };
        let (text, back) = compacted(&value, hints, 1024);
        let crew = objects_in(&back, "crew");
        assert!(crew.len() >= 3, "{text}");
        for (i, person) in crew.iter().enumerate() {
            assert_eq!(person["id"], value["crew"][i]["id"], "{text}");
            assert_eq!(person["job"], value["crew"][i]["job"], "{text}");
        }
        for (i, actor) in back["cast"].as_array().unwrap().iter().enumerate() {
            assert_eq!(actor["character"], json!(format!("Role {i}")), "{text}");
            assert_eq!(actor["order"], i, "{text}");
        }
        assert_eq!(emptied_objects(&value, &text), 0);
        let (kept, total) = shown_identities_kept(&value, &text);
        assert_eq!(kept, total, "{text}");
    }

    #[test]
    fn the_fields_a_call_selects_are_shown_in_every_shown_item() {
        // Forty movies: without a selection their ratings give way to their dates.
        let value = movies(40);
        let args = json!({"query": "film", "fields": "id,title,vote_average"});
        let hints = Hints {
            arguments: Some(&args),
            ..Hints::default()
        };
        let (text, back) = compacted(&value, hints, 1024);
        let shown = objects_in(&back, "results");
        assert!(shown.len() >= 8, "{text}");
        for movie in &shown {
            assert_eq!(movie["vote_average"], 7.5, "{text}");
        }
        // At any depth: a crew member's gender, asked for as a list of paths.
        let value = credits(40);
        let args = json!({"movie_id": 550, "select": ["crew.gender"]});
        let hints = Hints {
            arguments: Some(&args),
            ..Hints::default()
        };
        let (text, back) = compacted(&value, hints, 1024);
        let crew = objects_in(&back, "crew");
        assert!(crew.len() >= 2, "{text}");
        for (i, person) in crew.iter().enumerate() {
            assert_eq!(person["gender"], value["crew"][i]["gender"], "{text}");
        }
        assert_eq!(emptied_objects(&value, &text), 0);
    }

    /// A TMDB `GET /tv/on_the_air` page of `n` shows, in TMDB's order of fields.
    fn on_the_air(n: usize) -> Value {
        let results: Vec<Value> = (0..n)
            .map(|i| {
                json!({"adult": false, "backdrop_path": "/9faGSFi5jam6pDWGNd0p8JcJgXQ.jpg",
                       "genre_ids": [10_765, 18], "id": 200_000 + i,
                       "origin_country": ["US"], "original_language": "en",
                       "original_name": format!("Show {i}"),
                       "overview": "People meet and things happen to them. ".repeat(5),
                       "popularity": 300.0 - 11.5 * i as f64,
                       "poster_path": "/xQ6GijOFnxTyUzqiwGpVxgfcgqI.jpg",
                       "first_air_date": "2019-03-04", "name": format!("Show {i}"),
                       "vote_average": 8.0 - 0.1 * i as f64, "vote_count": 1000 + i})
            })
            .collect();
        json!({"page": 1, "results": results, "total_pages": 9, "total_results": 180})
    }

    /// The shown items of `results` that show field `name`, and how many are shown.
    fn showing(back: &Value, name: &str) -> (usize, usize) {
        let shown = objects_in(back, "results");
        let with = shown.iter().filter(|m| m.get(name).is_some()).count();
        (with, shown.len())
    }

    #[test]
    fn the_fields_the_request_names_are_shown_in_every_shown_item() {
        let value = on_the_air(20);
        let hints = |task, thought| Hints {
            endpoint: Some("/tv/on_the_air"),
            task,
            thought,
            ..Hints::default()
        };
        // "Popular" is `popularity`'s stem: every shown show says how popular it is.
        let task = Some("When did the most popular TV show currently on the air start?");
        let (text, back) = compacted(&value, hints(task, None), 1024);
        let (with, shown) = showing(&back, "popularity");
        assert!(shown >= 8, "{text}");
        assert_eq!(with, shown, "{text}");
        assert_eq!(emptied_objects(&value, &text), 0);
        let (kept, total) = shown_identities_kept(&value, &text);
        assert_eq!(kept, total, "{text}");
        // Without a request the shows' ratings give way to more shows.
        let (text, back) = compacted(&value, hints(None, None), 1024);
        assert_eq!(showing(&back, "vote_average").0, 0, "{text}");
        // "Rated" reaches `vote_average` and `vote_count` (see `asked`), as a thought naming
        // them does: fewer shows, each with both.
        let task = Some("Which show on the air is the highest rated?");
        let thought = Some("I will list the shows on the air and compare their vote average.");
        for thought in [None, thought] {
            let (text, back) = compacted(&value, hints(task, thought), 1024);
            let (with, shown) = showing(&back, "vote_average");
            assert!(shown >= 6, "{text}");
            assert_eq!(showing(&back, "vote_count").0, shown, "{text}");
            assert_eq!(with, shown, "{text}");
        }
    }

    /// A Spotify search's page of `n` tracks, each with its album (and the album's date).
    fn found_tracks(n: usize) -> Value {
        let items: Vec<Value> = (0..n)
            .map(|i| {
                let album = json!({"album_type": "album", "id": format!("4aawyAB9vmqN3uQ7Fj{i:04}"),
                    "name": format!("Album {i}"), "release_date": format!("20{i:02}-06-07"),
                    "total_tracks": 11, "type": "album"});
                json!({"album": album, "disc_number": 1, "duration_ms": 200_000 + i,
                       "explicit": false, "id": format!("3n3Ppam7vgaVa1iaRUc{i:03}"),
                       "name": format!("Song {i}"), "popularity": 50 + i, "track_number": 2,
                       "type": "track"})
            })
            .collect();
        json!({"tracks": {"items": items, "limit": 20, "offset": 0, "total": 20}})
    }

    /// A TMDB movie with its credits appended: ten cast members, ten crew members (the
    /// director third), each in TMDB's order of fields.
    fn movie_with_credits() -> Value {
        let person = |i: usize| {
            json!({"adult": false, "credit_id": format!("52fe4250c3a36847f8{i:06}"), "gender": 2,
                   "id": 7000 + i, "known_for_department": "Acting",
                   "name": format!("Person {i}"), "original_name": format!("Person {i}"),
                   "popularity": 12.5, "profile_path": "/7Jahy5LZX2Fo8fGJltMreAI49hC.jpg"})
        };
        let cast: Vec<Value> = (0..10)
            .map(|i| {
                let mut member = person(i);
                member["character"] = json!(format!("Role {i}"));
                member["order"] = json!(i);
                member
            })
            .collect();
        let jobs = ["Producer", "Writer", "Director", "Editor", "Composer"];
        let crew: Vec<Value> = (0..10)
            .map(|i| {
                let mut member = person(100 + i);
                member["department"] = json!("Crew");
                member["job"] = json!(jobs[i % jobs.len()]);
                member
            })
            .collect();
        json!({"adult": false, "budget": 165_000_000, "id": 438_631,
               "overview": "A gifted young man travels to a dangerous planet. ".repeat(4),
               "popularity": 312.4, "release_date": "2021-09-15", "runtime": 155,
               "title": "Dune", "vote_average": 7.8, "vote_count": 9000,
               "credits": {"cast": cast, "crew": crew}})
    }

    #[test]
    fn a_question_word_keeps_the_field_it_names_by_another_word() {
        // "Latest": a nested date (a track's album's), which more tracks otherwise outrank.
        let value = found_tracks(20);
        let dated = |task| {
            let hints = Hints {
                endpoint: Some("/search"),
                task,
                ..Hints::default()
            };
            let (text, back) = compacted(&value, hints, 1024);
            let shown = objects_in(&back["tracks"], "items");
            let with = shown
                .iter()
                .filter(|t| t["album"]["release_date"].is_string());
            (text, with.count(), shown.len())
        };
        let (text, with, _) = dated(None);
        assert_eq!(with, 0, "{text}");
        let (text, with, shown) = dated(Some("What is the latest song of Band of Horses?"));
        assert!(shown >= 5, "{text}");
        assert_eq!(with, shown, "{text}");
        // "Who directed": the crew's jobs, in more of the appended crew (the director is the
        // third).
        let value = movie_with_credits();
        let jobs = |task| {
            let hints = Hints {
                endpoint: Some("/movie/{movie_id}"),
                task,
                ..Hints::default()
            };
            let (text, back) = compacted(&value, hints, 760);
            let crew = objects_in(&back["credits"], "crew");
            let jobs: Vec<String> = crew
                .iter()
                .filter_map(|c| c["job"].as_str())
                .map(str::to_owned)
                .collect();
            (text, jobs, crew.len())
        };
        let (text, without, _) = jobs(None);
        assert!(!without.contains(&"Director".to_owned()), "{text}");
        let (text, with, shown) = jobs(Some("Who directed Dune?"));
        assert!(with.contains(&"Director".to_owned()), "{text}");
        assert_eq!(with.len(), shown, "{text}");
    }

    /// A Spotify paging object of `n` albums (of 100), as `GET /browse/new-releases` nests it.
    fn new_releases(n: usize) -> Value {
        let base = "https://api.spotify.com/v1/browse/new-releases";
        let items: Vec<Value> = (0..n)
            .map(|i| {
                let id = format!("4aawyAB9vmqN3uQ7Fj{i:04}");
                json!({"album_type": "album", "href": format!("https://api.spotify.com/v1/albums/{id}"),
                       "id": id, "name": format!("Album {i}"), "release_date": "2012-01-01",
                       "artists": [{"id": "0OdUWJ0sBjDrqHygGUXeCF", "name": "Band of Horses",
                                    "type": "artist", "uri": "spotify:artist:0OdUWJ0sBjDrqHygGUXeCF"}],
                       "total_tracks": 10, "type": "album", "uri": format!("spotify:album:{id}")})
            })
            .collect();
        json!({"albums": {"href": format!("{base}?offset=20&limit=20"), "items": items,
                          "limit": 20, "next": format!("{base}?offset=40&limit=20"),
                          "offset": 20, "previous": format!("{base}?offset=0&limit=20"),
                          "total": 100}})
    }

    #[test]
    fn a_pages_next_and_totals_are_shown_whole() {
        let value = new_releases(20);
        let hints = Hints {
            endpoint: Some("/browse/new-releases"),
            ..Hints::default()
        };
        for budget in [1024, 2048] {
            let (text, back) = compacted(&value, hints, budget);
            for field in ["next", "previous", "total", "offset", "limit"] {
                assert_eq!(back["albums"][field], value["albums"][field], "{text}");
            }
            assert!(objects_in(&back["albums"], "items").len() >= 5, "{text}");
            assert_eq!(emptied_objects(&value, &text), 0);
        }
        // A cursor object too, and TMDB's page and totals.
        let mut value = new_releases(20);
        value["albums"]["cursors"] = json!({"after": "MTcwMDAwMDAwMA", "before": null});
        let (text, back) = compacted(&value, hints, 1024);
        assert_eq!(
            back["albums"]["cursors"], value["albums"]["cursors"],
            "{text}"
        );
        let value = on_the_air(20);
        let (text, back) = compacted(&value, Hints::default(), 1024);
        for field in ["page", "total_pages", "total_results"] {
            assert_eq!(back[field], value[field], "{text}");
        }
    }

    /// A page of five reviews of 2,000 characters, their text under `field`.
    fn reviews(field: &str) -> Value {
        let results: Vec<Value> = (0..5)
            .map(|i| {
                let text = format!("Review {i}: ")
                    + &"The pacing drags but the ending pays it off. ".repeat(45);
                json!({"author": format!("Critic {i}"),
                       "author_details": {"name": "", "username": format!("critic{i}"),
                                          "avatar_path": "/a.jpg", "rating": 8.0},
                       field: text[..2000].to_owned(),
                       "created_at": "2021-06-01T10:00:00.000Z",
                       "id": format!("60b5f1a{i}c3a36847f8000000"),
                       "updated_at": "2021-06-02T10:00:00.000Z",
                       "url": format!("https://www.themoviedb.org/review/60b5f1a{i}")})
            })
            .collect();
        json!({"id": 550, "page": 1, "results": results, "total_pages": 1, "total_results": 5})
    }

    #[test]
    fn the_text_a_reviews_api_returns_is_shown_as_a_snippet_in_every_shown_review() {
        let hints = Hints {
            endpoint: Some("/movie/{movie_id}/reviews"),
            ..Hints::default()
        };
        for field in ["content", "text", "body"] {
            let value = reviews(field);
            // At 2,048 characters all five, each with its author and a longer snippet.
            for (budget, least, count) in [(1024, 100, 4), (2048, 150, 5)] {
                let (text, back) = compacted(&value, hints, budget);
                let shown = objects_in(&back, "results");
                assert!(shown.len() >= count, "{text}");
                if budget == 2048 {
                    assert!(shown.iter().all(|r| r["author"].is_string()), "{text}");
                }
                for (i, review) in shown.iter().enumerate() {
                    let snippet = review[field].as_str().unwrap_or_default();
                    let start = format!("Review {i}: The pacing drags");
                    assert!(snippet.starts_with(&start), "{field}: {text}");
                    assert!(snippet.ends_with('…'), "{field}: {text}");
                    assert!(snippet.chars().count() >= least, "{field}: {text}");
                }
                assert_eq!(emptied_objects(&value, &text), 0);
            }
        }
        // A movie's `body` is no text the API exists for.
        let plain = Hints {
            endpoint: Some("/movie/{movie_id}/lists"),
            ..Hints::default()
        };
        let (text, back) = compacted(&reviews("body"), plain, 1024);
        assert!(
            objects_in(&back, "results")[0].get("body").is_none(),
            "{text}"
        );
    }

    /// A TMDB `GET /tv/{tv_id}/season/{season_number}`: thirteen episodes, each with its
    /// crew (a director, writers, a photographer) and guest stars, in TMDB's order of fields.
    fn season() -> Value {
        let jobs = [
            ("Directing", "Director"),
            ("Writing", "Writer"),
            ("Writing", "Teleplay"),
            ("Camera", "Director of Photography"),
            ("Editing", "Editor"),
        ];
        let person = |kind: &str, i: usize| {
            json!({"adult": false, "gender": 2, "id": 7000 + i,
                   "known_for_department": kind, "name": format!("{kind} Person {i}"),
                   "original_name": format!("{kind} Person {i}"), "popularity": 2.5,
                   "profile_path": "/abcdefghijklmnopqrstuvwxyz1.jpg"})
        };
        let episodes: Vec<Value> = (0..13)
            .map(|e| {
                let crew: Vec<Value> = jobs
                    .iter()
                    .enumerate()
                    .map(|(j, (department, job))| {
                        let mut member = person(department, (e * 7 + j) % 20);
                        member["department"] = json!(department);
                        member["job"] = json!(job);
                        member["credit_id"] = json!(format!("52571af119c29571140d{e:02}{j:02}"));
                        member
                    })
                    .collect();
                let guests: Vec<Value> = (0..4)
                    .map(|g| {
                        let mut guest = person("Acting", 100 + e * 4 + g);
                        guest["character"] = json!(format!("Guest {g}"));
                        guest["order"] = json!(500 + g);
                        guest
                    })
                    .collect();
                json!({"air_date": "2013-02-01", "episode_number": e + 1, "id": 802_549 + e,
                       "name": format!("Chapter {}", e + 1),
                       "overview": "Frank plots his next move in Washington. ".repeat(6),
                       "production_code": "", "runtime": 55, "season_number": 1,
                       "show_id": 1425, "still_path": "/abcdefghijklmnopqrstuvwxyz9.jpg",
                       "vote_average": 7.6, "vote_count": 40, "crew": crew,
                       "guest_stars": guests})
            })
            .collect();
        json!({"_id": "52571af119c29571140d5a11", "air_date": "2013-02-01",
               "episodes": episodes, "name": "Season 1", "overview": "A season.",
               "id": 3572, "poster_path": "/pqrstuvwxyz.jpg", "season_number": 1,
               "vote_average": 7.9})
    }

    #[test]
    fn the_shown_crew_of_each_shown_episode_says_each_ones_job() {
        let value = season();
        let hints = Hints {
            endpoint: Some("/tv/{tv_id}/season/{season_number}"),
            ..Hints::default()
        };
        let (text, back) = compacted(&value, hints, 2048);
        let episodes = objects_in(&back, "episodes");
        assert!(episodes.len() >= 3, "{text}");
        for (e, episode) in episodes.iter().enumerate() {
            assert_eq!(episode["id"], value["episodes"][e]["id"], "{text}");
            let crew = objects_in(episode, "crew");
            assert!(!crew.is_empty(), "{text}");
            for (j, member) in crew.iter().enumerate() {
                let whole = &value["episodes"][e]["crew"][j];
                assert_eq!(member["id"], whole["id"], "{text}");
                assert_eq!(member["job"], whole["job"], "{text}");
            }
        }
        assert_eq!(emptied_objects(&value, &text), 0);
    }

    /// A Spotify playback state: a track with its album and artists, deep and long, and
    /// the device playing it.
    fn playback() -> Value {
        let artist = |i: usize| {
            let id = format!("0OdUWJ0sBjDrqHygGUX{i:03}");
            json!({"external_urls": {"spotify": format!("https://open.spotify.com/artist/{id}")},
                   "href": format!("https://api.spotify.com/v1/artists/{id}"), "id": id,
                   "name": format!("Singer {i}"), "type": "artist",
                   "uri": format!("spotify:artist:{id}")})
        };
        let images: Vec<Value> = [640, 300, 64]
            .iter()
            .map(|s| json!({"height": s, "url": format!("https://i.scdn.co/image/ab67616d0000b273{s:06}"), "width": s}))
            .collect();
        let album = json!({"album_type": "album", "artists": [artist(1), artist(2)],
            "copyrights": [{"text": "2004 The Label", "type": "C"}, {"text": "2004 The Label", "type": "P"}],
            "id": "4aawyAB9vmqN3uQ7FjRGTy", "images": images, "name": "Hot Fuss",
            "release_date": "2004-06-07", "total_tracks": 11, "type": "album",
            "uri": "spotify:album:4aawyAB9vmqN3uQ7FjRGTy"});
        json!({"device": {"id": "5fbb3ba6aa454b5534c4ba43a8c7e8e45a63ad0e", "is_active": true,
                          "name": "Kitchen speaker", "type": "Speaker", "volume_percent": 59},
               "repeat_state": "off", "shuffle_state": false, "progress_ms": 42_000,
               "item": {"album": album, "artists": [artist(1), artist(3)], "disc_number": 1,
                        "duration_ms": 237_120, "id": "3n3Ppam7vgaVa1iaRUc9Lp",
                        "name": "Mr. Brightside", "popularity": 74, "track_number": 2,
                        "type": "track", "uri": "spotify:track:3n3Ppam7vgaVa1iaRUc9Lp"},
               "is_playing": true})
    }

    #[test]
    fn a_field_the_request_names_in_a_held_object_is_shown_before_skeletons_fill_the_room() {
        let value = playback();
        let hints = |task| Hints {
            endpoint: Some("/me/player"),
            task,
            ..Hints::default()
        };
        // At 520 characters the track's skeleton leaves the device its identities only.
        let (text, back) = compacted(&value, hints(None), 520);
        assert!(back["device"].get("volume_percent").is_none(), "{text}");
        let task = Some("Turn down the volume a little");
        for budget in (300..=600).step_by(20) {
            let (text, back) = compacted(&value, hints(task), budget);
            assert_eq!(back["device"]["volume_percent"], 59, "{budget}: {text}");
            assert_eq!(back["item"]["name"], "Mr. Brightside", "{budget}: {text}");
            assert_eq!(emptied_objects(&value, &text), 0);
        }
    }

    /// A TMDB episode's credits (`GET /tv/{tv_id}/season/{s}/episode/{e}/credits`): five
    /// cast members and a director, in TMDB's order of fields; 1.7k characters.
    fn episode_credits() -> Value {
        let person = |id: usize, name: &str| {
            json!({"adult": false, "gender": 2, "id": id, "known_for_department": "Acting",
                   "name": name, "original_name": name, "popularity": 12.345,
                   "profile_path": "/7Jahy5LZX2Fo8fGJltMreAI49hC.jpg"})
        };
        let names = [
            "Bryan Cranston",
            "Aaron Paul",
            "Anna Gunn",
            "RJ Mitte",
            "Dean Norris",
        ];
        let roles = [
            "Walter White",
            "Jesse Pinkman",
            "Skyler White",
            "Walter White Jr.",
            "Hank",
        ];
        let cast: Vec<Value> = (0..5)
            .map(|i| {
                let mut member = person(17_419 + i, names[i]);
                member["character"] = json!(roles[i]);
                member["credit_id"] = json!(format!("52542282760ee31328001{i:03}"));
                member["order"] = json!(i);
                member
            })
            .collect();
        let mut director = person(66_633, "Vince Gilligan");
        director["department"] = json!("Directing");
        director["job"] = json!("Director");
        director["credit_id"] = json!("52542287760ee31328001af1");
        json!({"cast": cast, "crew": [director], "guest_stars": [], "id": 62_085})
    }

    #[test]
    fn a_result_a_little_over_the_budget_loses_fields_before_list_items() {
        let value = json!({"error": "", "response": episode_credits()});
        assert!((1600..1800).contains(&chars(&value.to_string())));
        let hints = Hints {
            endpoint: Some("/tv/{tv_id}/season/{season_number}/episode/{episode_number}/credits"),
            ..Hints::default()
        };
        // At the limit, and at what a cut note leaves of it.
        for budget in [1024, 760] {
            let (text, back) = compacted(&value, hints, budget);
            let cast = objects_in(&back["response"], "cast");
            assert_eq!(cast.len(), 5, "{budget}: {text}");
            for (member, whole) in cast
                .iter()
                .zip(value["response"]["cast"].as_array().unwrap())
            {
                for field in ["id", "name", "character"] {
                    assert_eq!(member[field], whole[field], "{budget}: {text}");
                }
            }
            let crew = objects_in(&back["response"], "crew");
            assert_eq!(crew[0]["job"], "Director", "{budget}: {text}");
            assert_eq!(crew[0]["name"], "Vince Gilligan", "{budget}: {text}");
            // The image paths went first.
            assert!(!text.contains("profile_path"), "{text}");
            let cut = left_out(&value.to_string(), &text);
            assert_eq!(cut.items, 0, "{cut:?}");
            assert_eq!(emptied_objects(&value, &text), 0);
        }
    }

    /// The names of the fields `value` has anywhere.
    fn keys_anywhere(value: &Value, out: &mut std::collections::BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                for (name, sub) in map {
                    out.insert(name.clone());
                    keys_anywhere(sub, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|sub| keys_anywhere(sub, out)),
            _ => {}
        }
    }

    #[test]
    fn left_out_names_alone_only_the_fields_the_view_shows_nowhere() {
        let fixtures = [
            (found_tracks(20), "/search"),
            (new_releases(20), "/browse/new-releases"),
            (playback(), "/me/player"),
            (on_the_air(20), "/tv/on_the_air"),
            (movie_with_credits(), "/movie/{movie_id}"),
        ];
        let mut located = 0;
        for (value, endpoint) in &fixtures {
            for budget in [520, 760, 1024] {
                let hints = Hints {
                    endpoint: Some(endpoint),
                    ..Hints::default()
                };
                let (text, back) = compacted(value, hints, budget);
                let mut seen = std::collections::BTreeSet::new();
                keys_anywhere(&back, &mut seen);
                let cut = left_out(&value.to_string(), &text);
                for field in &cut.fields {
                    let alone = !field.contains(['.', '[']);
                    assert!(!alone || !seen.contains(field), "{field}: {text}");
                    located += usize::from(!alone);
                }
            }
        }
        // A nested album's long id is left out where the track's is shown.
        assert!(located > 0);
        let (text, _) = compacted(&found_tracks(20), Hints::default(), 1024);
        let cut = left_out(&found_tracks(20).to_string(), &text);
        assert!(
            cut.fields.contains(&"tracks.items[].album.id".to_owned()),
            "{cut:?}: {text}"
        );
    }

    #[test]
    fn what_fits_is_left_alone_and_long_lists_end_with_a_note() {
        let small = json!({"id": 1, "name": "x"});
        assert_eq!(compact(&small, None, 1024), small.to_string());
        let ids: Vec<Value> = (0..500).map(|i| json!({"id": i})).collect();
        let (_, back) = compacted(&json!({"results": ids}), Hints::default(), 300);
        let results = back["results"].as_array().unwrap();
        let note = results.last().unwrap().as_str().unwrap();
        let shown = results.len() - 1;
        assert_eq!(note, format!("… {} more items left out", 500 - shown));
        assert_eq!(results[0]["id"], 0);
    }

    #[test]
    fn schema_formats_mark_url_fields_and_anything_fits_as_json() {
        let schema = json!({"type": "object", "properties": {
            "id": {"type": "integer"}, "site": {"type": "string", "format": "uri"},
            "about": {"type": "string"}}});
        let value = json!({"id": 7, "site": "x".repeat(300), "about": "y".repeat(100)});
        let hints = Hints {
            schema: Some(&schema),
            ..Hints::default()
        };
        let (text, back) = compacted(&value, hints, 60);
        assert_eq!(back["id"], 7);
        // The URL comes last: the plain field is shown before it.
        assert!(back.get("site").is_none(), "{text}");
        assert!(back["about"].as_str().unwrap().starts_with("yyy"), "{text}");
        for budget in [0, 2, 5, 17, 64] {
            let text = compact(&value, None, budget);
            assert!(chars(&text) <= budget.max(2), "{budget}: {text}");
            if budget >= 2 {
                serde_json::from_str::<Value>(&text).unwrap();
            }
        }
    }
}
