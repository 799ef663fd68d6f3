//! What each field of an observation is to compaction: an identity (id, name, type), the
//! content the API exists to return, a holder of identities, a plain value, or a link.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::asked::Asked;
use crate::paging_fields::is_paging_name;

/// Field names that identify an entity by a key.
const ID_NAMES: &[&str] = &["id", "uuid", "guid", "uri", "urn", "sha", "slug"];

/// Key names that locate an entity in a longer text (`spotify:track:<id>`).
const LOCATOR_NAMES: &[&str] = &["uri", "urn"];

/// Field names that label an entity, the one that names it best first.
const NAME_FIELDS: &[&str] = &[
    "name",
    "title",
    "label",
    "full_name",
    "display_name",
    "username",
    "login",
    "original_name",
    "original_title",
];

/// Words of a field name that mark an opaque version token or position (`snapshot_id`,
/// `etag`, `next_cursor`, `page_token`): it changes as the entity does, so it says which
/// state an entity is in, not which entity it is, and ranks as an ordinary field.
const VERSION_WORDS: &[&str] = &[
    "snapshot", "etag", "cursor", "token", "version", "checksum", "hash", "nonce",
];

/// Field names that count something (a playlist's `tracks.total`).
const COUNT_NAMES: &[&str] = &["total", "count"];

/// Field names that say what kind of entity an object is.
const TYPE_FIELDS: &[&str] = &["type", "object", "kind"];

/// Field-name fragments that mark a URL or an image.
const LINK_NAMES: &[&str] = &[
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

/// Words of an endpoint that say it exists to return images.
const IMAGE_WORDS: &[&str] = &[
    "image",
    "images",
    "photo",
    "photos",
    "picture",
    "pictures",
    "poster",
    "posters",
    "logo",
    "logos",
    "avatar",
    "avatars",
    "thumbnail",
    "thumbnails",
    "backdrop",
    "backdrops",
    "cover",
    "covers",
    "artwork",
    "still",
    "stills",
];

/// Words of an endpoint that say it exists to return texts people wrote (singular, as
/// [`endpoint_words`] gives them).
const TEXT_WORDS: &[&str] = &[
    "review",
    "comment",
    "message",
    "post",
    "note",
    "lyric",
    "description",
    "reply",
    "tweet",
    "article",
    "story",
    "transcript",
    "caption",
    "summary",
    "text",
    "quote",
    "email",
    "chat",
    "thread",
    "discussion",
    "feedback",
    "answer",
];

/// Names of the fields that hold the text of an item of such an endpoint.
const TEXT_FIELDS: &[&str] = &[
    "content",
    "body",
    "text",
    "message",
    "comment",
    "review",
    "snippet",
    "lyrics",
    "description",
    "summary",
    "note",
    "caption",
    "transcript",
];

/// Names of the fields that carry a response's payload, whatever the API.
const PAYLOAD_NAMES: &[&str] = &[
    "response", "results", "result", "items", "item", "data", "hits", "entries", "records",
    "content", "values",
];

/// Names of the arguments that select the fields a response carries (`fields=name,job`,
/// OData's `$select`), or the parts it includes (TMDB's `append_to_response=credits`).
const SELECTING_ARGUMENTS: &[&str] = &[
    "fields",
    "field",
    "select",
    "$select",
    "include",
    "$include",
    "append_to_response",
];

/// Endpoint words that say nothing of what it returns.
const STOP_WORDS: &[&str] = &[
    "get", "list", "me", "my", "v1", "v2", "v3", "api", "by", "for", "of", "the", "all",
];

/// Fields that only size or describe an image beside its url: its dimensions, its kind, its
/// format, its language.
const IMAGE_DETAIL_FIELDS: &[&str] = &[
    "height",
    "width",
    "size",
    "type",
    "kind",
    "format",
    "mime_type",
    "content_type",
    "aspect_ratio",
    "iso_639_1",
];

/// Fields that give an image's size: one of them marks an object as an image.
const IMAGE_SIZES: &[&str] = &["height", "width", "aspect_ratio"];

/// Extensions of image files.
const IMAGE_EXTENSIONS: &[&str] = &[".jpg", ".jpeg", ".png", ".gif", ".webp", ".svg"];

/// Longest text of a paging field kept whole (a `next` URL, a cursor).
const PAGING_TEXT: usize = 400;

/// Schema formats of URL-valued strings.
const URL_FORMATS: &[&str] = &["uri", "url", "uri-reference", "iri", "iri-reference"];

/// How much a field matters, most first; fields are kept and grown in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Class {
    /// An identity field with a scalar value: its rank (ids, then names, then types).
    Identity(u8),
    /// What the API exists to return (a search's results, an images endpoint's images).
    Purpose,
    /// An object or list with identities inside.
    Holder,
    /// Any other scalar.
    Plain,
    /// Any other object or list.
    Other,
    /// An object of booleans only (Spotify's `actions.disallows`): switches, not content.
    Flags,
    /// A URL or an image, when the API is not for them.
    Link,
    /// A null, an empty list or an empty object: it says nothing, so a cut view leaves it
    /// out first and its note does not count it.
    Empty,
}

/// The identity rank of a field name: 0 for keys, 1 for names, 2 for kinds.
pub(crate) fn identity_rank(name: &str) -> Option<u8> {
    let lower = name.to_ascii_lowercase();
    if is_version_token(name) {
        None
    } else if ID_NAMES.contains(&lower.as_str())
        || lower.ends_with("_id")
        || (name.ends_with("Id") && name.len() > 2)
    {
        Some(0)
    } else if NAME_FIELDS.contains(&lower.as_str()) {
        Some(1)
    } else if TYPE_FIELDS.contains(&lower.as_str()) {
        Some(KIND_RANK)
    } else {
        None
    }
}

/// Whether field `name` holds an opaque version token (see [`VERSION_WORDS`]): one of its
/// words, split at `_`, `-` and lower-to-upper case changes (`snapshotId`), is one of them.
pub(crate) fn is_version_token(name: &str) -> bool {
    let mut words: Vec<String> = vec![String::new()];
    let mut previous_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' {
            words.push(String::new());
        } else {
            if c.is_ascii_uppercase() && previous_lower {
                words.push(String::new());
            }
            if let Some(word) = words.last_mut() {
                word.push(c.to_ascii_lowercase());
            }
        }
        previous_lower = c.is_ascii_lowercase();
    }
    words.iter().any(|w| VERSION_WORDS.contains(&w.as_str()))
}

/// Whether `map` is an object counting something of its holder (a playlist's
/// `tracks: {href, total}`, an artist's `followers`), of scalars only: its count is content,
/// as the holder's own numbers are, not a map of details.
pub(crate) fn is_count_holder(map: &Map<String, Value>) -> bool {
    // A page of items (an album's `tracks: {items, total}`) is a holder, not a count.
    let flat = map.values().all(|v| !v.is_object() && !v.is_array());
    flat && map.iter().any(|(name, v)| {
        let lower = name.to_ascii_lowercase();
        v.is_number() && (COUNT_NAMES.contains(&lower.as_str()) || lower.ends_with("_count"))
    })
}

/// Whether an identity field is a locator (`uri`, `urn`): a key that mostly restates the
/// object's id inside a longer text, shown after the object's core identities.
pub(crate) fn is_locator(name: &str) -> bool {
    LOCATOR_NAMES.contains(&name.to_ascii_lowercase().as_str())
}

/// How good a name field is at naming its entity, best (lowest) first: the order of
/// [`NAME_FIELDS`], any other name-ranked field (an image's url) after them.
pub(crate) fn name_preference(name: &str) -> usize {
    let lower = name.to_ascii_lowercase();
    NAME_FIELDS
        .iter()
        .position(|n| *n == lower)
        .unwrap_or(NAME_FIELDS.len())
}

/// A value an identity field can hold: a string, number or boolean.
pub(crate) fn is_identity_value(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// What compaction knows of the API: what it exists to return and which fields are URLs.
#[derive(Clone, Debug, Default)]
pub(crate) struct Context {
    /// Singular words of the endpoint's path or name (`album` for `/me/albums`).
    words: Vec<String>,
    /// The endpoint exists to return images.
    images: bool,
    /// The endpoint exists to return texts (reviews, comments, messages): their text fields
    /// are its content.
    texts: bool,
    /// Properties the schema marks as URLs.
    url_fields: BTreeSet<String>,
    /// Fields the call asked for by a field-selection argument, lowercased.
    requested: BTreeSet<String>,
    /// The stems of the request's words (the task, the model's thought).
    asked: Asked,
}

impl Context {
    /// The context of an endpoint (a path template or a function name) and its schema.
    pub(crate) fn new(endpoint: Option<&str>, schema: Option<&Value>) -> Self {
        let mut url_fields = BTreeSet::new();
        if let Some(schema) = schema {
            collect_url_fields(schema, &mut url_fields, 0);
        }
        let words = endpoint.map(endpoint_words).unwrap_or_default();
        let images = words
            .iter()
            .any(|w| IMAGE_WORDS.contains(&w.as_str()) || IMAGE_WORDS.contains(&plural(w)));
        let texts = words.iter().any(|w| TEXT_WORDS.contains(&w.as_str()));
        Self {
            words,
            images,
            texts,
            url_fields,
            requested: BTreeSet::new(),
            asked: Asked::default(),
        }
    }

    /// This context knowing the request: the user's `task` and the model's `thought` when it
    /// made the call (see [`super::asked`]).
    pub(crate) fn with_request(mut self, task: Option<&str>, thought: Option<&str>) -> Self {
        self.asked = Asked::of([task, thought]);
        self
    }

    /// This context with the request's words naming the lists of objects `value` holds left
    /// out (see [`Asked::without_kinds`]).
    pub(crate) fn with_kinds_of(mut self, value: &Value) -> Self {
        let mut kinds = BTreeSet::new();
        list_names(value, &mut kinds, 0);
        self.asked = self.asked.without_kinds(kinds.iter().map(String::as_str));
        self
    }

    /// The request's words (see [`super::asked`]).
    pub(crate) fn request(&self) -> &Asked {
        &self.asked
    }

    /// Whether field `name` shares a word stem with the request.
    pub(crate) fn is_asked(&self, name: &str) -> bool {
        self.asked.names(name)
    }

    /// This context knowing the call's arguments: the fields a field-selection argument
    /// names (see [`SELECTING_ARGUMENTS`]) are what the call exists to return.
    pub(crate) fn with_arguments(mut self, arguments: Option<&Value>) -> Self {
        let selections = arguments
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter(|(name, _)| SELECTING_ARGUMENTS.contains(&name.to_ascii_lowercase().as_str()));
        for (_, value) in selections {
            self.requested.extend(requested_fields(value));
        }
        self
    }

    /// The class of field `name` holding `value`.
    pub(crate) fn class(&self, name: &str, value: &Value) -> Class {
        if let Some(rank) = identity_rank(name).filter(|_| is_identity_value(value)) {
            return Class::Identity(rank);
        }
        let link = self.is_link(name, value);
        if self.is_purpose(name, link) || self.is_text(name, value) {
            return Class::Purpose;
        }
        match value {
            _ if says_nothing(value) => Class::Empty,
            Value::Object(_) if is_flag_map(value) => Class::Flags,
            Value::Object(_) | Value::Array(_) if holds_identity(value, 3) => Class::Holder,
            _ if link => Class::Link,
            Value::Object(_) | Value::Array(_) => Class::Other,
            _ => Class::Plain,
        }
    }

    /// The field holding an image-like object's url: the object's one link-valued string,
    /// beside only numbers, nulls and fields that size or describe an image. That url is
    /// what the object is for, so it is the object's identity.
    pub(crate) fn image_url_field<'m>(&self, map: &'m Map<String, Value>) -> Option<&'m str> {
        // A link beside a count (`{href, total}`) is a page of something, not an image.
        let sized = map.keys().any(|k| IMAGE_SIZES.contains(&k.as_str()));
        let mut url = None;
        for (name, value) in map {
            let detail = IMAGE_DETAIL_FIELDS.contains(&name.to_ascii_lowercase().as_str());
            match value {
                Value::String(_) if !detail && self.is_link(name, value) => {
                    if url.replace(name.as_str()).is_some() {
                        return None;
                    }
                }
                Value::Number(_) | Value::Null => {}
                Value::String(_) if detail => {}
                _ => return None,
            }
        }
        url.filter(|name| {
            sized
                || map
                    .get(*name)
                    .and_then(Value::as_str)
                    .is_some_and(is_image_path)
        })
    }

    fn is_purpose(&self, name: &str, link: bool) -> bool {
        let lower = name.to_ascii_lowercase();
        if PAYLOAD_NAMES.contains(&lower.as_str())
            || (self.images && link)
            || self.requested.contains(&lower)
        {
            return true;
        }
        // A count of what the API returns (an album's `total_tracks` in a playlist's tracks)
        // is a number of its holder, not the content.
        let counts = lower
            .split('_')
            .next()
            .is_some_and(|first| COUNT_NAMES.contains(&first));
        let single = singular(&lower);
        !counts
            && self
                .words
                .iter()
                .any(|w| w.len() > 2 && (single == *w || single.ends_with(&format!("_{w}"))))
    }

    /// Whether field `name` holding `value` is the text of an endpoint that exists to return
    /// texts (a review's `content`, a comment's `body`).
    fn is_text(&self, name: &str, value: &Value) -> bool {
        self.texts && value.is_string() && TEXT_FIELDS.contains(&name.to_ascii_lowercase().as_str())
    }

    fn is_link(&self, name: &str, value: &Value) -> bool {
        let lower = name.to_ascii_lowercase();
        if self.url_fields.contains(name) || LINK_NAMES.iter().any(|f| lower.contains(f)) {
            return true;
        }
        value.as_str().is_some_and(|s| {
            let s = s.to_ascii_lowercase();
            s.starts_with("http://") || s.starts_with("https://") || is_image_path(&s)
        })
    }
}

/// The field names a field-selection argument's value names, lowercased: a comma- or
/// space-separated text or a list of them; of a dotted path (`owner.login`), its last field.
fn requested_fields(value: &Value) -> Vec<String> {
    match value {
        Value::String(text) => selected_leaves(text),
        Value::Array(items) => items.iter().flat_map(requested_fields).collect(),
        _ => Vec::new(),
    }
}

/// The leaf names of a field selection: comma- or space-separated paths (`crew.job`,
/// `owner/bio`: the last part), and Spotify's nesting (`items(track(name,uri))`: `name` and
/// `uri`; a name opening a parenthesis only holds what it selects).
fn selected_leaves(text: &str) -> Vec<String> {
    let mut leaves = Vec::new();
    let mut part = String::new();
    for c in text.chars().chain(std::iter::once(',')) {
        if c == ',' || c == '(' || c == ')' || c.is_whitespace() {
            let name = part.rsplit(['.', '/']).next().unwrap_or("").trim();
            if c != '(' && !name.is_empty() && name != "*" {
                leaves.push(name.to_ascii_lowercase());
            }
            part.clear();
        } else {
            part.push(c);
        }
    }
    leaves
}

/// Whether field `name` holding `value` pages a list (its name one of
/// [`is_paging_name`]'s, in any spelling: tiny, and they tell the agent there is more and how
/// to ask for it): a scalar, or an object of scalars (Spotify's `cursors`), short enough to
/// be kept whole.
pub(crate) fn is_paging(name: &str, value: &Value) -> bool {
    let small = |v: &Value| match v {
        Value::String(s) => s.chars().count() <= PAGING_TEXT,
        Value::Object(_) | Value::Array(_) => false,
        _ => true,
    };
    let fits = match value {
        Value::Object(map) => !map.is_empty() && map.values().all(small),
        other => small(other),
    };
    is_paging_name(name) && fits
}

/// Whether `path` names an image file by its extension.
fn is_image_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    IMAGE_EXTENSIONS.iter().any(|ext| lower.ends_with(ext))
}

/// The words of an endpoint's last two literal path segments (or of a function name),
/// lowercased and singular, without words that say nothing.
fn endpoint_words(endpoint: &str) -> Vec<String> {
    let literal: Vec<&str> = endpoint
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{') && !s.starts_with(':'))
        .collect();
    let tail = literal
        .get(literal.len().saturating_sub(2)..)
        .unwrap_or(&[]);
    let mut words = Vec::new();
    for segment in tail {
        for word in segment.split(|c: char| !c.is_ascii_alphanumeric()) {
            let lower = word.to_ascii_lowercase();
            if !lower.is_empty() && !STOP_WORDS.contains(&lower.as_str()) {
                words.push(singular(&lower).to_owned());
            }
        }
    }
    words
}

/// `albums` -> `album`, `categories` -> `category`; other words unchanged.
fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = word.strip_suffix('s').filter(|s| !s.ends_with('s')) {
        stem.to_owned()
    } else {
        word.to_owned()
    }
}

/// A static plural for membership tests of [`IMAGE_WORDS`].
fn plural(word: &str) -> &'static str {
    IMAGE_WORDS
        .iter()
        .find(|w| w.strip_suffix('s') == Some(word))
        .copied()
        .unwrap_or("")
}

/// Whether `value` is a non-empty object whose every value is a boolean or such an object.
fn is_flag_map(value: &Value) -> bool {
    value.as_object().is_some_and(|map| {
        !map.is_empty()
            && map
                .values()
                .all(|v| v.is_boolean() || (v.is_object() && is_flag_map(v)))
    })
}

/// The identity rank of a field saying an object's kind (`type`).
pub(crate) const KIND_RANK: u8 = 2;

/// Whether `map` says which entity it is by its kind alone, beside content of its own: a
/// copyright's `{"text": "...", "type": "C"}`. Shown by its identities, it would be a bare
/// code (`{"type":"C"}`) that says nothing, so it holds no identities: it is a plain value.
pub(crate) fn only_kinded(map: &Map<String, Value>) -> bool {
    let ranks: Vec<Option<u8>> = map.keys().map(|name| identity_rank(name)).collect();
    let content = map
        .iter()
        .any(|(name, v)| identity_rank(name).is_none() && !says_nothing(v));
    content && ranks.iter().all(|r| r.is_none_or(|r| r == KIND_RANK))
}

/// Whether an identity field appears in `value` within `depth` levels (a kind alone beside
/// content of its own does not count, see [`only_kinded`]).
pub(crate) fn holds_identity(value: &Value, depth: usize) -> bool {
    if depth == 0 {
        return false;
    }
    match value {
        Value::Object(map) => map.iter().any(|(name, sub)| {
            let identity = match identity_rank(name) {
                Some(KIND_RANK) => !only_kinded(map),
                rank => rank.is_some(),
            };
            (identity && is_identity_value(sub)) || holds_identity(sub, depth - 1)
        }),
        Value::Array(items) => items.iter().take(3).any(|i| holds_identity(i, depth - 1)),
        _ => false,
    }
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

/// Deepest level [`list_names`] looks at.
const KIND_DEPTH: usize = 6;

/// Adds to `out` the names of the fields of `value` that hold lists of objects, down to
/// [`KIND_DEPTH`] levels.
fn list_names(value: &Value, out: &mut BTreeSet<String>, depth: usize) {
    if depth > KIND_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (name, sub) in map {
                if sub
                    .as_array()
                    .is_some_and(|items| items.first().is_some_and(Value::is_object))
                {
                    out.insert(name.clone());
                }
                list_names(sub, out, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items.iter().take(3) {
                list_names(item, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Whether `value` says nothing: a null, an empty list or an empty object (see
/// [`Class::Empty`]).
pub(crate) fn says_nothing(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn endpoints_name_what_they_return() {
        let images = Context::new(Some("/collection/{collection_id}/images"), None);
        assert!(images.images);
        assert_eq!(images.class("file_path", &json!("/a.jpg")), Class::Purpose);
        let albums = Context::new(Some("/me/albums"), None);
        assert_eq!(albums.words, ["album"]);
        assert_eq!(albums.class("albums", &json!([])), Class::Purpose);
        assert_eq!(albums.class("file_path", &json!("/a.jpg")), Class::Link);
        assert_eq!(albums.class("uri", &json!("spotify:x")), Class::Identity(0));
        assert_eq!(albums.class("added_at", &json!("2020")), Class::Plain);
        assert_eq!(
            albums.class("album", &json!({"id": "a", "x": 1})),
            Class::Purpose
        );
        assert_eq!(
            albums.class("artist", &json!({"id": "a", "x": 1})),
            Class::Holder
        );
        assert!(!Context::new(Some("get_movie_details"), None).images);
        let flags = json!({"disallows": {"pausing": true, "seeking": false}});
        assert_eq!(albums.class("actions", &flags), Class::Flags);
        assert_eq!(
            albums.class("device", &json!({"id": "d", "is_active": true})),
            Class::Holder
        );
        assert_eq!(albums.class("empty", &json!({})), Class::Empty);
        assert_eq!(singular("categories"), "category");
        let image = json!({"height": 64, "url": "https://i.example/a", "width": 64});
        let image = image.as_object().unwrap();
        assert_eq!(albums.image_url_field(image), Some("url"));
        let tmdb = json!({"file_path": "/a.jpg", "iso_639_1": null, "vote_average": 5.3});
        assert_eq!(
            albums.image_url_field(tmdb.as_object().unwrap()),
            Some("file_path")
        );
        let page = json!({"href": "https://x.example/t", "total": 12});
        assert_eq!(albums.image_url_field(page.as_object().unwrap()), None);
        let track = json!({"href": "https://x.example/t", "name": "Song", "duration_ms": 1});
        assert_eq!(albums.image_url_field(track.as_object().unwrap()), None);
        assert_eq!(singular("address"), "address");
    }

    #[test]
    fn the_fields_a_call_selects_are_its_content_at_any_depth() {
        let plain = Context::new(Some("/movie/{movie_id}/credits"), None);
        assert_eq!(plain.class("job", &json!("Director")), Class::Plain);
        let args = json!({"movie_id": 7, "fields": "crew.job, gender", "query": "job"});
        let asked = plain.clone().with_arguments(Some(&args));
        assert_eq!(asked.class("job", &json!("Director")), Class::Purpose);
        assert_eq!(asked.class("GENDER", &json!(2)), Class::Purpose);
        assert_eq!(asked.class("crew", &json!([1])), Class::Other);
        // A list of names, under OData's name; an argument that selects nothing is no
        // selection.
        let args = json!({"$select": ["Budget", "owner/bio"], "query": "name,adult"});
        let asked = plain.with_arguments(Some(&args));
        assert_eq!(asked.class("budget", &json!(3)), Class::Purpose);
        assert_eq!(asked.class("bio", &json!("writes")), Class::Purpose);
        assert_eq!(asked.class("adult", &json!(false)), Class::Plain);
    }

    #[test]
    fn the_text_of_an_endpoint_for_texts_is_its_content() {
        let comments = Context::new(Some("/posts/{post_id}/comments"), None);
        assert!(comments.texts);
        assert_eq!(comments.class("body", &json!("Nice post")), Class::Purpose);
        assert_eq!(comments.class("body", &json!({"x": 1})), Class::Other);
        assert_eq!(comments.class("email", &json!("a@b.example")), Class::Plain);
        let lyrics = Context::new(Some("get_track_lyrics"), None);
        assert_eq!(lyrics.class("text", &json!("la la")), Class::Purpose);
        let movies = Context::new(Some("/movie/{movie_id}"), None);
        assert!(!movies.texts);
        assert_eq!(movies.class("body", &json!("x")), Class::Plain);
    }

    #[test]
    fn version_tokens_are_no_identities() {
        for name in [
            "snapshot_id",
            "snapshotId",
            "etag",
            "next_cursor",
            "page_token",
            "hash",
        ] {
            assert!(is_version_token(name), "{name}");
            assert_eq!(identity_rank(name), None, "{name}");
        }
        for name in ["id", "album_id", "playlistId", "sha", "uri", "hashtag_id"] {
            assert!(!is_version_token(name), "{name}");
            assert_eq!(identity_rank(name), Some(0), "{name}");
        }
        let ctx = Context::new(None, None);
        assert_eq!(ctx.class("images", &json!([])), Class::Empty);
        assert_eq!(ctx.class("preview_url", &json!(null)), Class::Empty);
        assert_eq!(ctx.class("followers", &json!({"total": 3})), Class::Other);
    }

    #[test]
    fn paging_fields_are_known_by_name_and_small_values() {
        assert!(is_paging("next", &json!("https://x.example/p?offset=20")));
        assert!(is_paging("next_page_token", &json!("abc")));
        assert!(is_paging("nextPageToken", &json!("abc")));
        assert!(is_paging("total_results", &json!(180)));
        assert!(is_paging("previous", &json!(null)));
        assert!(is_paging("cursors", &json!({"after": "a", "before": null})));
        assert!(!is_paging("cursors", &json!({"after": {"deep": 1}})));
        assert!(!is_paging("next", &json!("x".repeat(500))));
        assert!(!is_paging("items", &json!(3)));
    }

    #[test]
    fn spotify_nested_selections_name_their_leaves() {
        assert_eq!(
            selected_leaves("total,items(track(name,uri),added_by.id)"),
            ["total", "name", "uri", "id"]
        );
        assert_eq!(selected_leaves("crew.job, gender"), ["job", "gender"]);
        assert_eq!(selected_leaves("*"), Vec::<String>::new());
    }
}
