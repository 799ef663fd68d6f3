//! Cut observations, kept whole for the run, and the `read_result` tool that reads them.
//!
//! Under toolsmith's protocol an observation over the limit is compacted
//! (`toolsmith_exec::compact`) and its whole text is kept on the toolset's [`Shelf`] under a
//! short handle (`r1`, `r2`, ...) that the observation names in a `cut` field, beside what the
//! view left out (how many items, which fields, how many texts shortened: what reading the
//! whole adds; a view that left nothing out is no cut). From then on the
//! toolset offers `read_result`: a page of the whole text at an offset (a first line of JSON
//! saying where the page is, then `limit - 120` characters of the text as they are), or the
//! output of a jq filter over it (run in the sandbox of the run's `Runtime::jq`; without one, paging
//! only). The idea is `serve`'s `read_result`; the handles here live as long as the run.
//! Under `--protocol paper` observations are cut plainly, nothing is kept, and the tool is
//! never offered.

use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};
use toolsmith_exec::JqSandbox;
use toolsmith_exec::compact::{Hints, LeftOut, compact_text_with, left_out};
use toolsmith_llm::ToolSpec;

use crate::names::READ_RESULT;

/// The whole texts of a run's cut observations, by handle.
#[derive(Debug, Default)]
pub(crate) struct Shelf {
    kept: Mutex<Vec<Arc<str>>>,
}

impl Shelf {
    /// Keeps `text` and returns its handle.
    pub(crate) fn keep(&self, text: &str) -> String {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.push(Arc::from(text));
        format!("r{}", kept.len())
    }

    /// The text kept under `handle`.
    pub(crate) fn get(&self, handle: &str) -> Option<Arc<str>> {
        let index: usize = handle.trim().strip_prefix('r')?.parse().ok()?;
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.get(index.checked_sub(1)?).cloned()
    }

    /// Whether nothing was cut yet.
    pub(crate) fn is_empty(&self) -> bool {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_empty()
    }
}

/// The `read_result` tool.
pub(crate) fn read_result_spec() -> ToolSpec {
    ToolSpec {
        name: READ_RESULT.to_owned(),
        description: "Read more of an observation that was cut (it has a `cut` field with a \
                      handle; its `left_out` says what the view left out): the whole text page \
                      by page from `offset`, or the output of a jq filter over the whole JSON \
                      (such as `.response.items[].album.name`)."
            .to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {
                "handle": {"type": "string", "description": "The handle of the cut observation."},
                "offset": {"type": "integer", "description": "Character to start the page at (0 first)."},
                "jq_filter": {"type": "string", "description": "A jq filter run over the whole observation, instead of paging."}
            },
            "required": ["handle"]
        }),
    }
}

/// An observation's text for the model within `limit` characters: whole when it fits (or
/// when its compacted view leaves nothing out, only spaces), else compacted, kept on `shelf`
/// and marked with a `cut` field naming its handle and saying what the view left out (items,
/// fields, shortened texts: what reading the whole adds).
pub(crate) fn present(text: &str, hints: Hints<'_>, limit: usize, shelf: &Shelf) -> String {
    let compacted = compact_text_with(text, hints, limit);
    if compacted == text {
        return compacted;
    }
    let first = left_out(text, &compacted);
    if first.is_nothing() {
        return compacted;
    }
    let handle = shelf.keep(text);
    let total_chars = text.chars().count();
    // The note takes room from the view, and what the view leaves out depends on its room:
    // start from the note of the view at the whole limit and shrink the room until both fit.
    let mut room = limit.saturating_sub(
        cut_note(&handle, total_chars, &first)
            .to_string()
            .chars()
            .count()
            + 8,
    );
    loop {
        let body = compact_text_with(text, hints, room);
        let note = cut_note(&handle, total_chars, &left_out(text, &body));
        let mut out = match serde_json::from_str::<Value>(&body) {
            Ok(Value::Object(map)) => Value::Object(map),
            Ok(other) => json!({"response": other}),
            Err(_) => json!({"response": body}),
        };
        out["cut"] = note;
        let out = out.to_string();
        let excess = out.chars().count().saturating_sub(limit);
        if excess == 0 || room == 0 {
            return out;
        }
        room = room.saturating_sub(excess);
    }
}

/// The `cut` field of a view of a kept observation: its handle, the whole's size, what the
/// view left out, and how to read more.
fn cut_note(handle: &str, total_chars: usize, left_out: &LeftOut) -> Value {
    json!({
        "handle": handle,
        "total_chars": total_chars,
        "left_out": left_out.to_string(),
        "read_more": "call read_result with this handle and an offset, or a jq_filter",
    })
}

/// What a `read_result` call asks for.
enum Read {
    Page(usize),
    Jq(String),
}

/// The text a `read_result` call with `arguments` asks for (a page, or a jq filter's
/// output), or why it cannot be read.
pub(crate) async fn read(
    arguments: &Value,
    shelf: &Shelf,
    limit: usize,
    jq: Option<&JqSandbox>,
) -> Result<String, String> {
    let handle = arguments
        .get("handle")
        .and_then(Value::as_str)
        .ok_or("read_result needs the `handle` of a cut observation")?;
    let text = shelf
        .get(handle)
        .ok_or_else(|| format!("no cut observation has the handle `{handle}`"))?;
    let read = match arguments.get("jq_filter").and_then(Value::as_str) {
        Some(filter) if !filter.trim().is_empty() => Read::Jq(filter.to_owned()),
        _ => Read::Page(
            arguments
                .get("offset")
                .and_then(Value::as_u64)
                .and_then(|o| usize::try_from(o).ok())
                .unwrap_or(0),
        ),
    };
    match read {
        Read::Page(offset) => page(handle, &text, offset, limit),
        Read::Jq(filter) => {
            let sandbox =
                jq.ok_or("jq filters are not available in this run; read the pages with `offset`")?;
            let input: Value = serde_json::from_str(&text)
                .map_err(|_| "this observation is not JSON; read it with `offset`")?;
            let out = sandbox
                .run(&filter, &input)
                .await
                .map_err(|e| e.to_string())?;
            let value = match <[Value; 1]>::try_from(out.values) {
                Ok([one]) => one,
                Err(many) => Value::Array(many),
            };
            let answer = json!({"error": "", "response": value}).to_string();
            Ok(present(
                &answer,
                Hints::default(),
                limit.saturating_mul(JQ_ROOM),
                shelf,
            ))
        }
    }
}

/// How many observation limits a jq filter's output may take before it is compacted in turn:
/// the agent asked for exactly this slice, so cutting it again at the plain limit (a list of
/// 24 track URIs of 1,153 characters came back with 6 left out) sends it round in circles.
const JQ_ROOM: usize = 4;

/// Characters a page's first line (its place in the whole) takes at most.
const PAGE_HEADER: usize = 120;

/// The page of `text` from character `offset`: a first line of JSON saying where it is in
/// the whole, then the text itself, unescaped, `limit - 120` characters of it (so a reader
/// knows where each page starts).
fn page(handle: &str, text: &str, offset: usize, limit: usize) -> Result<String, String> {
    let total = text.chars().count();
    if offset > total {
        return Err(format!(
            "offset {offset} is past the end of `{handle}` ({total} characters)"
        ));
    }
    let size = page_chars(limit);
    let part: String = text.chars().skip(offset).take(size).collect();
    let end = offset + part.chars().count();
    let head = json!({"handle": handle, "offset": offset, "next_offset": (end < total).then_some(end),
                      "total_chars": total});
    Ok(format!("{head}\n{part}"))
}

/// Characters of the whole text one page holds under an observation limit of `limit`.
fn page_chars(limit: usize) -> usize {
    limit.saturating_sub(PAGE_HEADER).max(1)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn pages_fit_the_limit_and_put_together_give_the_whole_text() {
        let text = json!({"q": "\"quoted\" é ".repeat(200)}).to_string();
        let mut read = String::new();
        let mut offset = Some(0);
        while let Some(at) = offset {
            let answer = page("r1", &text, at, 300).unwrap();
            assert!(answer.chars().count() <= 300, "{answer}");
            let (head, part) = answer.split_once('\n').unwrap();
            let head: Value = serde_json::from_str(head).unwrap();
            assert_eq!(head["offset"], at);
            read.push_str(part);
            offset = head["next_offset"].as_u64().map(|o| o as usize);
        }
        assert_eq!(read, text);
        assert!(page("r1", &text, text.chars().count() + 1, 300).is_err());
    }

    #[test]
    fn a_cut_observation_names_its_handle_within_the_limit() {
        let shelf = Shelf::default();
        let small = json!({"error": "", "response": {"id": 1}}).to_string();
        assert_eq!(present(&small, Hints::default(), 1024, &shelf), small);
        assert!(shelf.is_empty());
        let items: Vec<Value> = (0..100)
            .map(|i| json!({"id": i, "name": "x".repeat(30)}))
            .collect();
        let big = json!({"error": "", "response": {"items": items}}).to_string();
        let shown = present(&big, Hints::default(), 1024, &shelf);
        assert!(shown.chars().count() <= 1024, "{shown}");
        let value: Value = serde_json::from_str(&shown).unwrap();
        assert_eq!(value["cut"]["handle"], "r1");
        assert_eq!(value["response"]["items"][0]["id"], 0);
        assert_eq!(shelf.get("r1").as_deref(), Some(big.as_str()));
        assert!(shelf.get("r2").is_none() && shelf.get("x").is_none());
        // The note says how many items the view left out, and nothing else was.
        let shown_items = value["response"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|item| item.is_object())
            .count();
        let told = value["cut"]["left_out"].as_str().unwrap();
        assert_eq!(told, format!("{} items left out", 100 - shown_items));
    }

    /// The view of `response` (in ToolBench's envelope) within `limit`, parsed, and its note
    /// of what was left out.
    fn viewed(response: Value, limit: usize) -> (Value, String) {
        let text = json!({"error": "", "response": response}).to_string();
        let shown = present(&text, Hints::default(), limit, &Shelf::default());
        assert!(shown.chars().count() <= limit, "{shown}");
        let value: Value = serde_json::from_str(&shown).unwrap();
        let told = value["cut"]["left_out"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        (value, told)
    }

    #[test]
    fn a_view_that_left_out_only_fields_names_them_and_no_items() {
        let mut thing = serde_json::Map::new();
        thing.insert("id".to_owned(), json!(7));
        for i in 0..40 {
            thing.insert(format!("stat_{i:02}"), json!(1_234_567 + i));
        }
        let (value, told) = viewed(Value::Object(thing), 400);
        let shown = value["response"].as_object().unwrap();
        let missing: Vec<String> = (0..40)
            .map(|i| format!("stat_{i:02}"))
            .filter(|name| !shown.contains_key(name))
            .collect();
        assert!(missing.len() > 5, "{value}");
        let named = missing[..5].join(", ");
        assert_eq!(
            told,
            format!("fields left out: {named} and {} more", missing.len() - 5)
        );
        assert!(value["cut"]["handle"].is_string(), "{value}");
    }

    #[test]
    fn a_view_that_shortened_a_text_says_so() {
        let overview = "Somebody goes somewhere and finds something. ".repeat(40);
        let (value, told) = viewed(json!({"id": 7, "overview": overview}), 500);
        let shown = value["response"]["overview"].as_str().unwrap();
        assert!(shown.ends_with('…'), "{value}");
        assert_eq!(told, "1 text shortened (ending in …)");
    }

    #[test]
    fn a_view_that_left_nothing_out_is_not_marked_cut() {
        // Pretty-printed, the text is over the limit; written tightly, it is all there.
        let response = json!({"id": 7, "tags": vec!["a"; 20]});
        let text =
            serde_json::to_string_pretty(&json!({"error": "", "response": response})).unwrap();
        assert!(text.chars().count() > 200);
        let shelf = Shelf::default();
        let shown = present(&text, Hints::default(), 200, &shelf);
        let value: Value = serde_json::from_str(&shown).unwrap();
        assert!(value.get("cut").is_none(), "{shown}");
        assert_eq!(value["response"], response);
        assert!(shelf.is_empty());
    }
}
