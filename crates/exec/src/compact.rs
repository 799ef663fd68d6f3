//! Structure-aware compaction of JSON observations: fit a response into a
//! character budget while the text stays valid JSON and list items stay
//! whole where possible (ToolBench instead cuts the text at 1,024
//! characters, often mid-item).
//!
//! Steps, each taken only while the text is still over the budget:
//! 1. long strings are shortened (ids and names last), ending in `…`;
//! 2. fields holding URLs or images are dropped (by the schema's `format`,
//!    the field's name, or a value that is a link or an image path);
//! 3. in list items, fields other than ids and names are dropped, the
//!    largest first;
//! 4. lists lose items from their end, and end with a note saying how many
//!    items were left out;
//! 5. other fields (not ids and names) are dropped, the largest first;
//! 6. as a last resort the text is cut and given back as one JSON string.
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
//! assert_eq!(back["results"][19]["id"], 1019);
//! ```

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// What ends a shortened string.
const ELLIPSIS: &str = "…";

/// Lengths strings are shortened to, in turn (ids and names excepted).
const STRING_CAPS: &[usize] = &[200, 120, 80, 48, 32, 20];

/// Field-name fragments that mark a URL or an image.
const URL_NAMES: &[&str] = &[
    "url",
    "uri",
    "href",
    "link",
    "homepage",
    "image",
    "img",
    "logo",
    "poster",
    "backdrop",
    "avatar",
    "thumbnail",
    "icon",
    "photo",
    "picture",
    "_path",
];

/// Field names that label an entity.
const NAME_FIELDS: &[&str] = &[
    "name",
    "title",
    "label",
    "full_name",
    "display_name",
    "username",
    "original_name",
    "original_title",
];

/// Schema formats of URL-valued strings.
const URL_FORMATS: &[&str] = &["uri", "url", "uri-reference", "iri", "iri-reference"];

/// Whether a field is an id or a name, the fields compaction keeps longest.
pub fn is_key_field(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "id"
        || lower.ends_with("_id")
        || (name.ends_with("Id") && name.len() > 2)
        || NAME_FIELDS.contains(&lower.as_str())
}

/// The text of `value` in at most `budget` characters, valid JSON: the value
/// itself when it fits, else compacted as the module doc says. `schema` (the
/// API's response schema) tells which fields are URLs by their `format`.
pub fn compact(value: &Value, schema: Option<&Value>, budget: usize) -> String {
    let text = value.to_string();
    if chars(&text) <= budget {
        return text;
    }
    let mut url_fields = BTreeSet::new();
    if let Some(schema) = schema {
        collect_url_fields(schema, &mut url_fields, 0);
    }
    let mut work = value.clone();
    for &cap in STRING_CAPS {
        shorten_strings(&mut work, cap, false);
        if fits(&work, budget) {
            return work.to_string();
        }
    }
    drop_url_fields(&mut work, &url_fields);
    if fits(&work, budget) {
        return work.to_string();
    }
    while !fits(&work, budget) {
        if !drop_largest_field(&mut work, true) {
            break;
        }
    }
    if fits(&work, budget) {
        return work.to_string();
    }
    shorten_lists(&mut work, budget);
    while !fits(&work, budget) {
        if !drop_largest_field(&mut work, false) {
            break;
        }
    }
    for &cap in STRING_CAPS {
        if fits(&work, budget) {
            break;
        }
        shorten_strings(&mut work, cap, true);
    }
    if fits(&work, budget) {
        return work.to_string();
    }
    last_resort(&work.to_string(), budget)
}

/// [`compact`] of a text: JSON is compacted, anything else (or a budget too
/// small for JSON) is cut and marked with `...` as ToolBench does.
pub fn compact_text(text: &str, schema: Option<&Value>, budget: usize) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(value) => compact(&value, schema, budget),
        Err(_) => toolsmith_plumbing::text::truncate_with(text, budget, "..."),
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

fn fits(value: &Value, budget: usize) -> bool {
    chars(&value.to_string()) <= budget
}

/// Names of properties whose schema says they hold URLs.
fn collect_url_fields(schema: &Value, out: &mut BTreeSet<String>, depth: usize) {
    if depth > 32 {
        return;
    }
    match schema {
        Value::Object(map) => {
            if let Some(props) = map.get("properties").and_then(Value::as_object) {
                for (name, sub) in props {
                    let format = sub.get("format").and_then(Value::as_str);
                    let media = sub.get("contentMediaType").and_then(Value::as_str);
                    if format.is_some_and(|f| URL_FORMATS.contains(&f))
                        || media.is_some_and(|m| m.starts_with("image/"))
                    {
                        out.insert(name.clone());
                    }
                }
            }
            for sub in map.values() {
                collect_url_fields(sub, out, depth + 1);
            }
        }
        Value::Array(items) => {
            for sub in items {
                collect_url_fields(sub, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Shortens every string longer than `cap` characters; ids and names only
/// when `keys_too`.
fn shorten_strings(value: &mut Value, cap: usize, keys_too: bool) {
    match value {
        Value::Object(map) => {
            for (name, sub) in map.iter_mut() {
                if let Value::String(s) = sub {
                    if (keys_too || !is_key_field(name)) && chars(s) > cap {
                        *s = toolsmith_plumbing::text::truncate_with(s, cap, ELLIPSIS);
                    }
                } else {
                    shorten_strings(sub, cap, keys_too);
                }
            }
        }
        Value::Array(items) => {
            for sub in items {
                if let Value::String(s) = sub {
                    if chars(s) > cap {
                        *s = toolsmith_plumbing::text::truncate_with(s, cap, ELLIPSIS);
                    }
                } else {
                    shorten_strings(sub, cap, keys_too);
                }
            }
        }
        _ => {}
    }
}

/// Whether a field holds a URL or an image, by its name, the schema, or its value.
fn is_url_field(name: &str, value: &Value, schema_urls: &BTreeSet<String>) -> bool {
    if is_key_field(name) {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    if schema_urls.contains(name) || URL_NAMES.iter().any(|f| lower.contains(f)) {
        return true;
    }
    value.as_str().is_some_and(|s| {
        let s = s.to_ascii_lowercase();
        s.starts_with("http://")
            || s.starts_with("https://")
            || [".jpg", ".jpeg", ".png", ".gif", ".webp", ".svg"]
                .iter()
                .any(|ext| s.ends_with(ext))
    })
}

fn drop_url_fields(value: &mut Value, schema_urls: &BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            map.retain(|name, sub| !is_url_field(name, sub, schema_urls));
            for sub in map.values_mut() {
                drop_url_fields(sub, schema_urls);
            }
        }
        Value::Array(items) => {
            for sub in items {
                drop_url_fields(sub, schema_urls);
            }
        }
        _ => {}
    }
}

/// A field's place: the path of object keys down to its object, with list
/// positions left out (so a field of every list item is one place), and its name.
type Place = (Vec<String>, String);

/// Total text size of each droppable field by place: fields of list items
/// when `in_lists`, else the other fields; never ids and names.
fn field_sizes(
    value: &Value,
    path: &mut Vec<String>,
    in_list: bool,
    in_lists: bool,
    out: &mut Vec<(Place, usize)>,
) {
    match value {
        Value::Object(map) => {
            for (name, sub) in map {
                if in_list == in_lists && !is_key_field(name) {
                    let size = chars(&sub.to_string()) + chars(name) + 4;
                    let place = (path.clone(), name.clone());
                    match out.iter_mut().find(|(p, _)| *p == place) {
                        Some((_, total)) => *total += size,
                        None => out.push((place, size)),
                    }
                }
                path.push(name.clone());
                field_sizes(sub, path, in_list, in_lists, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for sub in items {
                field_sizes(sub, path, true, in_lists, out);
            }
        }
        _ => {}
    }
}

fn remove_place(value: &mut Value, path: &[String], name: &str) {
    match value {
        Value::Object(map) => match path.split_first() {
            None => {
                map.remove(name);
            }
            Some((head, rest)) => {
                if let Some(sub) = map.get_mut(head) {
                    remove_place(sub, rest, name);
                }
            }
        },
        Value::Array(items) => {
            for sub in items {
                remove_place(sub, path, name);
            }
        }
        _ => {}
    }
}

/// Drops the largest droppable field (see [`field_sizes`]); false when none is left.
fn drop_largest_field(value: &mut Value, in_lists: bool) -> bool {
    let mut sizes = Vec::new();
    field_sizes(value, &mut Vec::new(), false, in_lists, &mut sizes);
    let Some(((path, name), _)) = sizes.into_iter().max_by_key(|(_, size)| *size) else {
        return false;
    };
    remove_place(value, &path, &name);
    true
}

/// The note that ends a list with `n` items left out.
fn omitted_note(n: usize) -> Value {
    Value::String(format!("… {n} more items left out"))
}

/// Drops items from the end of the longest lists, each ending with a note of
/// how many items were left out, until the value fits (or every list is down
/// to one item).
fn shorten_lists(value: &mut Value, budget: usize) {
    loop {
        let over = chars(&value.to_string()).saturating_sub(budget);
        if over == 0 {
            return;
        }
        let mut lists = Vec::new();
        list_sizes(value, &mut Vec::new(), &mut lists);
        let Some((path, _)) = lists.into_iter().max_by_key(|(_, size)| *size) else {
            return;
        };
        let Some(list) = pointer_mut(value, &path) else {
            return;
        };
        let Value::Array(items) = list else {
            return;
        };
        let (mut kept, mut left_out) = split_note(items);
        let mut freed = 0usize;
        while kept.len() > 1 && freed < over + 32 {
            if let Some(last) = kept.pop() {
                freed += chars(&last.to_string()) + 1;
                left_out += 1;
            }
        }
        if left_out > 0 {
            kept.push(omitted_note(left_out));
        }
        *items = kept;
    }
}

/// A list's items without its note, and the count the note gave.
fn split_note(items: &[Value]) -> (Vec<Value>, usize) {
    let mut kept = items.to_vec();
    let left_out = match kept.last().and_then(Value::as_str) {
        Some(note) if note.starts_with("… ") && note.ends_with(" more items left out") => {
            let count = note
                .trim_start_matches("… ")
                .trim_end_matches(" more items left out")
                .parse()
                .unwrap_or(0);
            kept.pop();
            count
        }
        _ => 0,
    };
    (kept, left_out)
}

/// Every list with more than one real item, by its path, with its size.
fn list_sizes(value: &Value, path: &mut Vec<PathStep>, out: &mut Vec<(Vec<PathStep>, usize)>) {
    match value {
        Value::Object(map) => {
            for (name, sub) in map {
                path.push(PathStep::Key(name.clone()));
                list_sizes(sub, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            let (real, _) = split_note(items);
            if real.len() > 1 {
                out.push((path.clone(), chars(&value.to_string())));
            }
            for (i, sub) in items.iter().enumerate() {
                path.push(PathStep::Index(i));
                list_sizes(sub, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// One step of a path into a JSON value.
#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn pointer_mut<'v>(value: &'v mut Value, path: &[PathStep]) -> Option<&'v mut Value> {
    let mut here = value;
    for step in path {
        here = match (step, here) {
            (PathStep::Key(k), Value::Object(map)) => map.get_mut(k)?,
            (PathStep::Index(i), Value::Array(items)) => items.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(here)
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

/// Counts how many of the ids and names in `value` appear whole (as
/// `"field":value`) in `text`: `(kept, total)`. For measuring compaction
/// against a plain cut.
pub fn keys_kept(value: &Value, text: &str) -> (usize, usize) {
    let mut pairs = Vec::new();
    key_pairs(value, &mut pairs);
    let kept = pairs
        .iter()
        .filter(|fragment| text.contains(fragment.as_str()))
        .count();
    (kept, pairs.len())
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
    fn a_twenty_item_result_keeps_every_id_within_the_budget() {
        let value = movies(20);
        let text = compact(&value, None, 1024);
        assert!(chars(&text) <= 1024, "{} chars", chars(&text));
        let back: Value = serde_json::from_str(&text).unwrap();
        let results = back["results"].as_array().unwrap();
        assert_eq!(results.len(), 20);
        for (i, movie) in results.iter().enumerate() {
            assert_eq!(movie["id"], json!(100_000 + i));
            assert!(movie.get("poster_path").is_none());
        }
        let (kept, total) = keys_kept(&value, &text);
        assert_eq!(total, 40);
        assert!(kept >= 20, "{kept} of {total}");
        // A plain cut loses most of them.
        let plain = toolsmith_plumbing::text::truncate_with(&value.to_string(), 1024, "...");
        assert!(keys_kept(&value, &plain).0 < kept);
    }

    #[test]
    fn what_fits_is_left_alone_and_long_lists_end_with_a_note() {
        let small = json!({"id": 1, "name": "x"});
        assert_eq!(compact(&small, None, 1024), small.to_string());
        let ids: Vec<Value> = (0..500).map(|i| json!({"id": i})).collect();
        let text = compact(&json!({"results": ids}), None, 300);
        assert!(chars(&text) <= 300);
        let back: Value = serde_json::from_str(&text).unwrap();
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
        let text = compact(&value, Some(&schema), 60);
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["id"], 7);
        assert!(back.get("site").is_none(), "{text}");
        for budget in [0, 2, 5, 17, 64] {
            let text = compact(&value, None, budget);
            assert!(chars(&text) <= budget.max(2), "{budget}: {text}");
            if budget >= 2 {
                serde_json::from_str::<Value>(&text).unwrap();
            }
        }
    }
}
