//! The links and numbers of the paging objects in a response (Spotify's
//! `{href, items, limit, next, offset, previous, total}`), made to agree with
//! the call and with the items shown. A spec shares one paging schema among
//! its list endpoints, so its example links name one of them (`/me/shows`)
//! whichever was called.
//!
//! - The call's own page (the response itself, or each page the response
//!   holds beside no `id` of its own, as a search holds `albums` and `tracks`):
//!   `href` is the called URL (the server, the path with its arguments, the
//!   query), `next` and `previous` that URL a page on or back (`null` past the
//!   ends); `page`, `limit` and `offset` are the call's, the page holds at most `limit`
//!   items (the first ones), and `total` counts at least the items shown (exactly, when
//!   they fall short of the limit: the page is the last), within what the list's extent
//!   allows (`extent`: a search for one name what its short page shows, another search a
//!   few pages, the user's own saved albums tens, a playlist's tracks the count the
//!   session showed for it, a listing the call narrows what the model counted; the same
//!   rule the skeleton drew the draft's total by); `total_pages` is the total over the
//!   page size, rounded up. So whatever totals a model writes (fewer than its items,
//!   more pages than the total needs), the numbers agree with each other and the page.
//! - A page inside a thing with an `href` (an album's `tracks`) is that
//!   thing's sub-collection: `href` is the thing's URL and the key, from its
//!   own offset and limit; its numbers agree with its items the same way.
//! - A cursor page (Spotify's `{cursors: {after}, href, items, limit, next,
//!   total}`: one with cursor fields, or any page of an API that takes a
//!   cursor argument and no offset or page number) is never linked by offset:
//!   `href` is the called URL with the call's own query, `next` that URL with
//!   the cursor argument set to the page's cursor (`after=...`), `null` at the
//!   end; no offset is added. Where the page's own `next` pages by a cursor argument
//!   the API takes (`before=...`: Spotify's recently played goes back in time), that
//!   argument and its value are kept.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::Url;
use serde_json::{Map, Value};
use toolsmith_catalog::ParamLocation;

use super::count;
use super::extent::Extent;
use super::request::{self, Request};
use crate::executor::BookEntry;
use crate::paging_fields::{
    CURSOR_FIELDS, LINK_FIELDS, OFFSET_FIELDS, PAGE_FIELDS, SIZE_FIELDS, TOTAL_FIELDS,
};

/// Arguments that page by cursor, the forward ones first.
const CURSOR_ARGS: &[&str] = &[
    "after",
    "cursor",
    "next_cursor",
    "starting_after",
    "page_token",
    "pageToken",
    "continuation",
    "before",
    "ending_before",
];
/// How deep in a response pages are looked for.
const MAX_DEPTH: usize = 8;

/// Everything but RFC 3986's unreserved characters (a path argument stays one segment).
const NOT_UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The call a response answers, as its pages need it.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    /// The called URL without its paging arguments (`None`: the tool has no server).
    url: Option<Url>,
    /// The query names of the offset, the size and the page number.
    offset_key: String,
    size_key: String,
    page_key: String,
    start: u64,
    size: u64,
    page: u64,
    /// How the API pages, from its parameters.
    cursor: Cursor,
    /// How many results the call's own list counts.
    extent: Extent,
}

/// Whether, and by which argument, an API pages by cursor.
#[derive(Clone, Debug)]
struct Cursor {
    /// The argument that asks for the page after a cursor (`after`), if the API has one.
    key: Option<String>,
    /// Every cursor argument the API takes (`after` and `before`), the forward ones first.
    keys: Vec<String>,
    /// Whether the API pages only by cursor: a cursor argument, no offset nor page number.
    only: bool,
    /// The called URL with every query argument of the call, paging ones included.
    href: Option<Url>,
    /// The called URL without its cursor arguments, which `next` adds its own to.
    base: Option<Url>,
}

impl Call {
    /// The call of `entry` with `args` (the defaults filled in), paged as `request` says.
    pub(crate) fn of(entry: &BookEntry, args: &Map<String, Value>, request: &Request) -> Self {
        let params = &entry.api.api.params;
        let named = |names: &[&str]| {
            params
                .iter()
                .find(|p| names.contains(&p.name.as_str()))
                .map(|p| p.name.clone())
        };
        let offset_key = named(request::OFFSET_ARGS).unwrap_or_else(|| "offset".to_owned());
        let size_key = count::size_param(entry).unwrap_or_else(|| "limit".to_owned());
        let page_key = named(PAGE_FIELDS).unwrap_or_else(|| "page".to_owned());
        let paging = [offset_key.as_str(), size_key.as_str(), page_key.as_str()];
        let has = |names: &[&str]| params.iter().any(|p| names.contains(&p.name.as_str()));
        let keys: Vec<String> = CURSOR_ARGS
            .iter()
            .filter(|name| has(&[**name]))
            .map(|name| (*name).to_owned())
            .collect();
        let cursor = Cursor {
            only: !keys.is_empty() && !has(request::OFFSET_ARGS) && !has(PAGE_FIELDS),
            key: keys.first().cloned(),
            keys,
            href: called_url(entry, args, &[]),
            base: called_url(entry, args, CURSOR_ARGS),
        };
        Self {
            cursor,
            extent: request.extent,
            url: called_url(entry, args, &paging),
            start: request.start,
            size: u64::try_from(request.page_size).unwrap_or(20).max(1),
            page: request.page,
            offset_key,
            size_key,
            page_key,
        }
    }

    /// The URL of the page starting at `start` (numbered `page`), of the call's size.
    fn link(&self, base: &Url, start: u64, page: u64, by_offset: bool) -> String {
        let mut url = base.clone();
        {
            let mut query = url.query_pairs_mut();
            if by_offset {
                query.append_pair(&self.offset_key, &start.to_string());
                query.append_pair(&self.size_key, &self.size.to_string());
            } else {
                query.append_pair(&self.page_key, &page.to_string());
            }
        }
        url.to_string()
    }
}

/// Makes every page of `body` agree with `call` (see the module doc).
pub(crate) fn settle(body: &mut Value, call: &Call) {
    let Value::Object(root) = body else {
        return;
    };
    if is_page(root) {
        own_page(root, call);
        nested(root, 0, false);
        return;
    }
    // A response that is no thing of its own (a search) holds the call's pages.
    let holds_own = !root.contains_key("id");
    if holds_own {
        for page in root.values_mut().filter_map(Value::as_object_mut) {
            if is_page(page) {
                own_page(page, call);
            }
        }
    }
    nested(root, 0, holds_own);
}

/// Whether an object is a page: a list beside an offset, a size or a page number (TMDB's
/// `page`), and a total or a link.
fn is_page(map: &Map<String, Value>) -> bool {
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    let numbered = PAGE_FIELDS
        .iter()
        .any(|k| map.get(*k).is_some_and(Value::is_number));
    items(map).is_some()
        && (numbered || has(&[OFFSET_FIELDS, SIZE_FIELDS].concat()))
        && has(&[TOTAL_FIELDS, &["next", "previous"]].concat())
}

/// The number of items a page shows: its `items`, else its one list.
fn items(map: &Map<String, Value>) -> Option<u64> {
    let list = map.get("items").and_then(Value::as_array).or_else(|| {
        let mut lists = map.values().filter_map(Value::as_array);
        let only = lists.next()?;
        lists.next().is_none().then_some(only)
    })?;
    u64::try_from(list.len()).ok()
}

/// The call's own page: its numbers the call's, its links the called URL's.
fn own_page(page: &mut Map<String, Value>, call: &Call) {
    if let Some(known) = call.extent.known() {
        keep_items(page, known.saturating_sub(call.start));
    }
    // A page holds at most its size: a model that wrote more (a longer page than the one
    // it was told) would otherwise show items the next page repeats.
    keep_items(page, call.size);
    let shown = items(page).unwrap_or(0);
    if call.cursor.only || by_cursor(page) {
        cursor_page(page, call, shown);
        return;
    }
    set_numbers(page, PAGE_FIELDS, call.page);
    set_numbers(page, OFFSET_FIELDS, call.start);
    set_numbers(page, SIZE_FIELDS, call.size);
    let total = settle_total(page, call.start, call.size, shown, call.extent);
    let Some(base) = &call.url else {
        return;
    };
    let by_offset = OFFSET_FIELDS.iter().any(|k| page.contains_key(*k))
        || !PAGE_FIELDS.iter().any(|k| page.contains_key(*k));
    let (start, size, number) = (call.start, call.size, call.page);
    let (next, previous) = if by_offset {
        (
            (start + shown < total).then(|| call.link(base, start + size, number + 1, true)),
            (start > 0).then(|| call.link(base, start.saturating_sub(size), number, true)),
        )
    } else {
        let pages = total.div_ceil(size);
        (
            (number < pages).then(|| call.link(base, start, number + 1, false)),
            (number > 1).then(|| call.link(base, start, number - 1, false)),
        )
    };
    set_links(
        page,
        call.link(base, start, number, by_offset),
        next,
        previous,
    );
}

/// Whether a page holds cursors (`cursors`, `after`, `next_cursor`...).
fn by_cursor(page: &Map<String, Value>) -> bool {
    CURSOR_FIELDS.iter().any(|k| page.contains_key(*k))
}

/// The call's own page when it is paged by cursor: its size the call's, its `href` the
/// called URL as called, its `next` that URL after the page's cursor (`null` at the end).
fn cursor_page(page: &mut Map<String, Value>, call: &Call, shown: u64) {
    set_numbers(page, SIZE_FIELDS, call.size);
    let has_total = TOTAL_FIELDS.iter().any(|k| page.contains_key(*k));
    let total = settle_total(page, call.start, call.size, shown, call.extent);
    let (Some(href), Some(base)) = (&call.cursor.href, &call.cursor.base) else {
        return;
    };
    let more = if has_total {
        call.start + shown < total
    } else {
        shown >= call.size
    };
    let forward = call.cursor.key.as_deref().unwrap_or("after");
    let next = more
        .then(|| match answered_cursor(page, &call.cursor.keys, forward) {
            Some((key, cursor)) => Some(after_cursor(base, &key, &cursor)),
            None => next_cursor(page).map(|cursor| after_cursor(base, forward, &cursor)),
        })
        .flatten();
    set_links(page, href.to_string(), next, None);
}

/// The cursor argument and value the page's own `next` link pages by, where it names one
/// the API takes (any cursor argument, where the API lists none) other than `forward`:
/// a list that pages back in time (Spotify's recently played, by `before`) keeps its
/// direction, and the page's `cursors` object is made to agree with the link. A link by
/// `forward` itself is left to [`next_cursor`] (the last item's id, where items have one).
fn answered_cursor(
    page: &mut Map<String, Value>,
    keys: &[String],
    forward: &str,
) -> Option<(String, String)> {
    let link = Url::parse(page.get("next")?.as_str()?).ok()?;
    let takes = |name: &str| {
        if keys.is_empty() {
            CURSOR_ARGS.contains(&name)
        } else {
            keys.iter().any(|k| k == name)
        }
    };
    let (key, cursor) = link
        .query_pairs()
        .find(|(name, value)| takes(name) && !value.is_empty())
        .filter(|(name, _)| name != forward)
        .map(|(name, value)| (name.into_owned(), value.into_owned()))?;
    if let Some(Value::Object(cursors)) = page.get_mut("cursors")
        && cursors.contains_key(&key)
    {
        cursors.insert(key.clone(), Value::String(cursor.clone()));
    }
    Some((key, cursor))
}

/// `base` with the cursor argument `key` set to `cursor`.
fn after_cursor(base: &Url, key: &str, cursor: &str) -> String {
    let mut url = base.clone();
    url.query_pairs_mut().append_pair(key, cursor);
    url.to_string()
}

/// The cursor of the page after this one. Where the page has a `cursors` object and
/// its items ids, the last item's id (what Spotify's `after` is), written into
/// `cursors.after` so that the two agree; else its `cursors.after`, `after`,
/// `next_cursor` or `cursor` (an opaque token, kept), else the last item's id.
fn next_cursor(page: &mut Map<String, Value>) -> Option<String> {
    let text = |v: Option<&Value>| {
        v.and_then(|v| {
            v.as_str()
                .map(str::to_owned)
                .or_else(|| v.as_u64().map(|n| n.to_string()))
        })
        .filter(|s| !s.is_empty())
    };
    let last = page
        .get("items")
        .and_then(Value::as_array)
        .and_then(|items| items.last())
        .and_then(|item| text(item.get("id")));
    if let (Some(last), Some(Value::Object(cursors))) = (&last, page.get_mut("cursors")) {
        cursors.insert("after".to_owned(), Value::String(last.clone()));
        return Some(last.clone());
    }
    let own = text(page.get("cursors").and_then(|c| c.get("after"))).or_else(|| {
        ["after", "next_cursor", "cursor"]
            .iter()
            .find_map(|k| text(page.get(*k)))
    });
    own.or(last)
}

/// Pages below the top of `map` (an album's `tracks` inside a search result, or the
/// sub-collection of the thing the response is), but the call's own (`skip` its
/// pages): numbers that agree with their items, and links under the `href` of the
/// thing that holds them.
fn nested(map: &mut Map<String, Value>, depth: usize, skip: bool) {
    if depth > MAX_DEPTH {
        return;
    }
    let owner = map
        .get("href")
        .and_then(Value::as_str)
        .and_then(|h| Url::parse(h).ok())
        .filter(|_| map.contains_key("id"));
    for (key, child) in map.iter_mut() {
        match child {
            Value::Object(inner) => {
                if !skip && is_page(inner) {
                    sub_page(inner, owner.as_ref(), key);
                }
                nested(inner, depth + 1, false);
            }
            Value::Array(list) => {
                for item in list.iter_mut().filter_map(Value::as_object_mut) {
                    nested(item, depth + 1, false);
                }
            }
            _ => {}
        }
    }
}

/// A page of the sub-collection `key` of a thing (at `owner`, when it has a URL), from
/// its own offset and limit.
fn sub_page(page: &mut Map<String, Value>, owner: Option<&Url>, key: &str) {
    let shown = items(page).unwrap_or(0);
    let start = first_number(page, OFFSET_FIELDS).unwrap_or(0);
    let size = first_number(page, SIZE_FIELDS)
        .unwrap_or(shown)
        .max(shown)
        .max(1);
    set_numbers(page, SIZE_FIELDS, size);
    let total = settle_total(page, start, size, shown, Extent::Open);
    let Some(owner) = owner else {
        return;
    };
    let mut base = owner.clone();
    base.set_query(None);
    let path = format!("{}/{key}", base.path().trim_end_matches('/'));
    base.set_path(&path);
    if by_cursor(page) {
        base.query_pairs_mut()
            .append_pair("limit", &size.to_string());
        let next = (start + shown < total)
            .then(|| next_cursor(page))
            .flatten()
            .map(|cursor| after_cursor(&base, "after", &cursor));
        set_links(page, base.to_string(), next, None);
        return;
    }
    let link = |at: u64| {
        let mut url = base.clone();
        url.query_pairs_mut()
            .append_pair("offset", &at.to_string())
            .append_pair("limit", &size.to_string());
        url.to_string()
    };
    let next = (start + shown < total).then(|| link(start + size));
    let previous = (start > 0).then(|| link(start.saturating_sub(size)));
    set_links(page, link(start), next, previous);
}

/// Sets the total of a page that shows `shown` items from `start` in pages of `size`, as
/// the list's extent says ([`Extent::total`]): exactly `start + shown` when the page is
/// short (the list ends on it), else at least that and at most what the extent allows,
/// the number the skeleton or the model drew kept within; a count the session showed
/// exactly. A search for "Christopher Nolan" thus counts a page or a few, while what is
/// popular keeps its thousands. Returns the total (that count when the page has no total
/// field).
fn settle_total(
    page: &mut Map<String, Value>,
    start: u64,
    size: u64,
    shown: u64,
    extent: Extent,
) -> u64 {
    let least = start.saturating_add(shown);
    let mut out = extent.known().map_or(least, |known| known.max(least));
    for key in TOTAL_FIELDS {
        if let Some(slot) = page.get_mut(*key).filter(|v| v.is_number()) {
            let now = slot.as_u64().unwrap_or(0);
            let total = extent.total(now, start, size, shown);
            *slot = Value::from(total);
            out = total;
        }
    }
    if let Some(slot) = page.get_mut("total_pages").filter(|v| v.is_number()) {
        *slot = Value::from(out.div_ceil(size).max(1));
    }
    out
}

/// Cuts the page's items (its `items`, else its one list) to the first `most`.
fn keep_items(page: &mut Map<String, Value>, most: u64) {
    let most = usize::try_from(most).unwrap_or(usize::MAX);
    let list = if page.get("items").is_some_and(Value::is_array) {
        page.get_mut("items")
    } else {
        let mut lists = page.values_mut().filter(|v| v.is_array());
        lists.next().filter(|_| lists.next().is_none())
    };
    if let Some(Value::Array(items)) = list {
        items.truncate(most);
    }
}

/// Sets the numeric fields among `keys` to `number`.
fn set_numbers(page: &mut Map<String, Value>, keys: &[&str], number: u64) {
    for key in keys {
        if let Some(slot) = page.get_mut(*key).filter(|v| v.is_number()) {
            *slot = Value::from(number);
        }
    }
}

/// The first numeric field among `keys`.
fn first_number(page: &Map<String, Value>, keys: &[&str]) -> Option<u64> {
    keys.iter()
        .find_map(|k| page.get(*k).and_then(Value::as_u64))
}

/// Sets the link fields a page has: `href`, and `next`/`previous` or `null`.
fn set_links(
    page: &mut Map<String, Value>,
    href: String,
    next: Option<String>,
    previous: Option<String>,
) {
    let values = [Some(href), next, previous];
    for (key, value) in LINK_FIELDS.iter().zip(values) {
        if let Some(slot) = page.get_mut(*key) {
            *slot = value.map_or(Value::Null, Value::String);
        }
    }
}

/// The called URL: the tool's server, the path with the call's path arguments, and its
/// query arguments but the paging ones (`None` when the tool has no server or the API
/// no path).
fn called_url(entry: &BookEntry, args: &Map<String, Value>, paging: &[&str]) -> Option<Url> {
    let base = entry.tool.base_url.as_deref()?;
    let mut path = entry.api.api.endpoint.path()?.to_owned();
    let mut query = Vec::new();
    for param in &entry.api.api.params {
        let Some(value) = args.get(&param.name).filter(|v| !v.is_null()) else {
            continue;
        };
        let text = text_of(value);
        match param.location {
            ParamLocation::Path => {
                let encoded = utf8_percent_encode(&text, NOT_UNRESERVED).to_string();
                path = path.replace(&format!("{{{}}}", param.name), &encoded);
            }
            ParamLocation::Query if !paging.contains(&param.name.as_str()) => {
                query.push((param.name.clone(), text));
            }
            _ => {}
        }
    }
    let joined = format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    );
    let mut url = Url::parse(&joined).ok()?;
    if !query.is_empty() {
        url.query_pairs_mut().extend_pairs(query);
    }
    Some(url)
}

/// An argument as query text: a list joined by commas.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text_of).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}
