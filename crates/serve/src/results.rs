//! The output-size contract: a result longer than the limit is cut, and the whole of it is
//! kept under a [`ResultHandle`] that `read_result` pages through or runs a jq filter over.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_plumbing::json::sha256_hex;
use toolsmith_plumbing::text::char_prefix;

use crate::error::{Error, Result};

/// The name of a stored full result, unguessable across sessions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ResultHandle(String);

impl ResultHandle {
    /// Wraps a handle a client sent.
    pub fn new(raw: impl Into<String>) -> Self {
        Self(raw.into())
    }

    /// The handle as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ResultHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A result as the caller receives it: whole when it fits, else its first page and a handle.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Clipped {
    /// The result fits.
    Whole(Value),
    /// The result was cut.
    Cut(CutResult),
}

/// The first page of a result over the limit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CutResult {
    /// Always true: tells a reader this is not the whole result.
    pub truncated: bool,
    /// Pass it to `read_result` for more.
    pub handle: ResultHandle,
    /// Length of the whole result (its JSON text), in characters.
    pub total_chars: usize,
    /// The first characters of the result's JSON text.
    pub text: String,
    /// Where the next page starts.
    pub next_offset: usize,
    /// What to do next, in words.
    pub hint: String,
}

/// One page of a stored result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Page {
    /// The result read.
    pub handle: ResultHandle,
    /// Where this page starts, in characters.
    pub offset: usize,
    /// The page.
    pub text: String,
    /// Where the next page starts; absent on the last page.
    pub next_offset: Option<usize>,
    /// Length of the whole result, in characters.
    pub total_chars: usize,
}

/// A full result kept for `read_result`.
#[derive(Debug)]
pub(crate) struct Stored {
    pub(crate) text: String,
    pub(crate) chars: usize,
    pub(crate) value: Value,
}

/// The kept results, oldest dropped first.
#[derive(Debug)]
pub(crate) struct ResultStore {
    max_chars: usize,
    page_chars: usize,
    capacity: usize,
    next: AtomicU64,
    salt: String,
    kept: Mutex<VecDeque<(ResultHandle, Arc<Stored>)>>,
}

impl ResultStore {
    pub(crate) fn new(max_chars: usize, page_chars: usize, capacity: usize) -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        Self {
            max_chars: max_chars.max(1),
            page_chars: page_chars.max(1),
            capacity: capacity.max(1),
            next: AtomicU64::new(1),
            salt: format!("{now}:{}", std::process::id()),
            kept: Mutex::new(VecDeque::new()),
        }
    }

    /// `value` whole when its JSON text fits the limit, else cut and kept under a new handle.
    pub(crate) fn clip(&self, value: Value) -> Clipped {
        let text = value.to_string();
        let chars = text.chars().count();
        if chars <= self.max_chars {
            return Clipped::Whole(value);
        }
        let first = char_prefix(&text, self.page_chars.min(self.max_chars)).to_owned();
        let next_offset = first.chars().count();
        let handle = self.keep(Stored { text, chars, value });
        Clipped::Cut(CutResult {
            truncated: true,
            hint: format!(
                "result cut at {next_offset} of {chars} characters: call read_result with handle \
                 `{handle}` and offset {next_offset} for the next page, or a jq_filter to extract \
                 what you need"
            ),
            handle,
            total_chars: chars,
            text: first,
            next_offset,
        })
    }

    fn keep(&self, stored: Stored) -> ResultHandle {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let digest = sha256_hex(format!("{}:{n}", self.salt));
        let handle = ResultHandle(format!("res_{n}_{}", digest.get(..12).unwrap_or(&digest)));
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= self.capacity {
            kept.pop_front();
        }
        kept.push_back((handle.clone(), Arc::new(stored)));
        handle
    }

    /// The stored result of `handle`.
    pub(crate) fn get(&self, handle: &ResultHandle) -> Result<Arc<Stored>> {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|(h, _)| h == handle)
            .map(|(_, s)| Arc::clone(s))
            .ok_or_else(|| Error::UnknownHandle(handle.to_string()))
    }

    /// The page of `handle` starting at character `offset`.
    pub(crate) fn page(&self, handle: &ResultHandle, offset: usize) -> Result<Page> {
        let stored = self.get(handle)?;
        if offset > stored.chars {
            return Err(Error::BadRequest(format!(
                "offset {offset} is past the end of `{handle}` ({} characters)",
                stored.chars
            )));
        }
        let start = stored
            .text
            .char_indices()
            .nth(offset)
            .map_or(stored.text.len(), |(i, _)| i);
        let rest = stored.text.get(start..).unwrap_or_default();
        let text = char_prefix(rest, self.page_chars).to_owned();
        let end = offset + text.chars().count();
        Ok(Page {
            handle: handle.clone(),
            offset,
            text,
            next_offset: (end < stored.chars).then_some(end),
            total_chars: stored.chars,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use serde_json::json;

    use super::*;

    #[test]
    fn small_results_pass_whole_and_large_ones_page_to_the_end() {
        let store = ResultStore::new(20, 10, 2);
        assert_eq!(store.clip(json!({"a": 1})), Clipped::Whole(json!({"a": 1})));
        let big = json!({"text": "é".repeat(30)});
        let whole = big.to_string();
        let Clipped::Cut(cut) = store.clip(big) else {
            panic!("not cut")
        };
        assert_eq!(cut.total_chars, whole.chars().count());
        assert_eq!(cut.next_offset, 10);
        let mut read = cut.text.clone();
        let mut offset = Some(cut.next_offset);
        while let Some(at) = offset {
            let page = store.page(&cut.handle, at).unwrap();
            read.push_str(&page.text);
            offset = page.next_offset;
        }
        assert_eq!(read, whole, "the pages put together are the whole result");
        assert!(matches!(
            store.page(&cut.handle, 1000),
            Err(Error::BadRequest(_))
        ));
    }

    #[test]
    fn the_oldest_results_are_dropped_past_capacity() {
        let store = ResultStore::new(5, 5, 2);
        let handles: Vec<ResultHandle> = (0..3)
            .map(|i| match store.clip(json!(format!("result number {i}"))) {
                Clipped::Cut(c) => c.handle,
                Clipped::Whole(_) => panic!("not cut"),
            })
            .collect();
        assert!(matches!(
            store.page(&handles[0], 0),
            Err(Error::UnknownHandle(_))
        ));
        assert!(store.page(&handles[2], 0).is_ok());
        assert_ne!(handles[1], handles[2]);
    }
}
