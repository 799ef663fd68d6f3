//! The draft a fill prompt shows, its example content made visibly neutral.
//!
//! A draft takes its names, titles, texts and image paths from the spec's examples, and
//! the models filling it kept them as facts: the credits of a 2025 film drafted from
//! another film's records named David Fincher its director, a person's draft carried Brad
//! Pitt's biography, and five people shared one profile picture.
//!
//! The rule is by source, not by key: a string that the tool's examples hold (its response
//! examples, and the `example`s of its schemas: see [`Examples`]), or that the draft made up
//! from the simulator's filler words (a namesake `Star Wars Garden`), is a placeholder, and
//! the draft shows it as one. A text becomes a tag naming its field and item
//! (`<name of crew 1>`); a path or URL keeps its shape with a name of its own at each place
//! (`/placeholder-3.jpg`), so no two things share one, and a URL keeps its host only where
//! the examples show it serving many URLs (an image store; a studio's homepage is named by
//! its host). A string stays as drafted when the call gave it (an argument), the session's
//! facts hold it, the schema enumerates it, it is the value of an id field, or it is a
//! token that states no fact on its own: a two-letter code (`US`), a lowercase kind
//! (`movie`), anything with a digit (a date, a version, a code). Numbers and booleans stay
//! too: they are formats, which the model rewrites. A token that names someone or
//! something (the value of a `name`, `title`, `author` or `username`) states who it is,
//! though: most reviews a draft showed were by the example's author `lmao7`, which looked
//! like a code.
//!
//! Only the prompt's draft is neutral: with `fill = "schema"` the user sees the draft
//! itself, and an answer is still repaired and completed from the whole draft. A
//! placeholder the model copies back into its answer (stand-ins z1-z5 returned
//! `/placeholder-2.jpg` as a film's backdrop) is told by its form ([`is_placeholder`]), and
//! the repair takes the whole draft's value there instead (`repair::unplace`).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::filler::made_up;
use super::idshape;
use crate::canonical::stable_hash;

/// Deepest level of a schema or example searched for texts (a bound on recursive specs).
const MAX_DEPTH: usize = 64;
/// Longest code kept as it is though it has capitals (`US`, `PG`); a longer one may be a
/// name (`HBO`).
const CODE_CHARS: usize = 2;
/// The last words of the fields whose value names someone or something (`name`,
/// `original_title`, `author`, `username`).
const NAMING: &[&str] = &["name", "title", "author", "login", "nickname", "label"];
/// Fewest different example URLs on one host that make it a service's (an image store,
/// the API itself), kept in a URL shown; a host fewer show names a site (`hbo.com`).
const SERVICE_URLS: u32 = 3;
/// The name a path, host or address of a placeholder starts with, before its number.
const PLACE: &str = "placeholder-";

/// The texts of a tool's examples, by hash: what a draft may have taken from them; and the
/// number of different example URLs on each host.
#[derive(Clone, Debug, Default)]
pub(crate) struct Examples {
    texts: HashSet<u64>,
    hosts: HashMap<u64, u32>,
}

impl Examples {
    /// Adds every string of an example response.
    pub(crate) fn add_example(&mut self, example: &Value) {
        let mut texts = Vec::new();
        collect_strings(example, 0, &mut texts);
        for text in texts {
            self.add(text);
        }
    }

    /// Adds the strings of the `example`s and `examples` anywhere in a schema.
    pub(crate) fn add_schema(&mut self, schema: &Value) {
        under_keys(schema, &["example", "examples"], |_, example| {
            self.add_example(example);
            true
        });
    }

    /// Adds `text`, and `text` without the line break a YAML block leaves at its end
    /// (the draft takes it so).
    fn add(&mut self, text: &str) {
        let trimmed = text.trim_end();
        if self.texts.insert(hash(trimmed))
            && let Some((host, _)) = split_url(trimmed)
        {
            *self.hosts.entry(hash(host)).or_default() += 1;
        }
        self.texts.insert(hash(text));
    }

    fn holds(&self, text: &str) -> bool {
        self.texts.contains(&hash(text))
    }

    /// Whether the examples show enough URLs on `host` to make it a service's.
    fn serves(&self, host: &str) -> bool {
        self.hosts
            .get(&hash(host))
            .is_some_and(|n| *n >= SERVICE_URLS)
    }
}

fn hash(text: &str) -> u64 {
    stable_hash(&[text.as_bytes()])
}

/// What a fill's draft keeps of the examples' texts: the call's arguments, the facts the
/// session shows the model, and the response schema's enumerated values.
pub(crate) struct Kept<'a> {
    pub(crate) args: &'a Map<String, Value>,
    pub(crate) seen: &'a [Value],
    pub(crate) schema: Option<&'a Value>,
}

/// `draft` as the fill model is shown it: each string taken from `examples` made a
/// placeholder (see the module doc), everything else as it is.
pub(crate) fn neutral(draft: &Value, examples: &Examples, kept: &Kept<'_>) -> Value {
    let mut keep = Vec::new();
    kept.args
        .values()
        .for_each(|v| collect_strings(v, 0, &mut keep));
    kept.seen
        .iter()
        .for_each(|v| collect_strings(v, 0, &mut keep));
    if let Some(schema) = kept.schema {
        collect_enums(schema, &mut keep);
    }
    let mut walk = Walk {
        examples,
        keep: keep.into_iter().collect(),
        at: Vec::new(),
        places: 0,
    };
    walk.value(draft)
}

/// One step of the way from the root to a value: a key, or a list index.
enum Step {
    Key(String),
    Index(usize),
}

/// The walk through a draft: where it is, and how many paths and URLs it has named.
struct Walk<'a> {
    examples: &'a Examples,
    keep: HashSet<&'a str>,
    at: Vec<Step>,
    places: usize,
}

impl Walk<'_> {
    fn value(&mut self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.text(text)),
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    self.at.push(Step::Index(i));
                    out.push(self.value(item));
                    self.at.pop();
                }
                Value::Array(out)
            }
            Value::Object(map) => {
                let mut out = Map::new();
                for (key, item) in map {
                    self.at.push(Step::Key(key.clone()));
                    out.insert(key.clone(), self.value(item));
                    self.at.pop();
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }

    /// The string `text` as shown: a placeholder when an example gave it and nothing
    /// keeps it.
    fn text(&mut self, text: &str) -> String {
        if self.keep.contains(text) || self.names_id() {
            return text.to_owned();
        }
        if made_up(text) {
            return tag(&self.at);
        }
        if !self.examples.holds(text) {
            return text.to_owned();
        }
        if let Some((host, path)) = split_url(text) {
            let scheme = text.split_once("://").map_or("https", |(scheme, _)| scheme);
            let bare = path.trim_matches('/').is_empty();
            let path = self.place(path);
            let path = if bare { "" } else { path.as_str() };
            return if self.examples.serves(host) {
                format!("{scheme}://{host}{path}")
            } else {
                format!("{scheme}://{PLACE}{}.example{path}", self.places)
            };
        }
        if text.starts_with('/') && !text.contains(char::is_whitespace) {
            return self.place(text);
        }
        let email = text
            .split_once('@')
            .filter(|(user, domain)| !user.is_empty() && domain.contains('.'));
        if let Some((_, domain)) = email.filter(|_| !text.contains(char::is_whitespace)) {
            self.places += 1;
            return format!("{PLACE}{}@{domain}", self.places);
        }
        if text.trim().is_empty() || states_no_fact(text) && !self.names_something() {
            return text.to_owned();
        }
        tag(&self.at)
    }

    /// Whether the value walked is a field's that names someone or something (see
    /// [`NAMING`]).
    fn names_something(&self) -> bool {
        let key = self.at.iter().rev().find_map(|step| match step {
            Step::Key(key) => Some(key.to_ascii_lowercase()),
            Step::Index(_) => None,
        });
        key.is_some_and(|k| NAMING.iter().any(|word| k.ends_with(word)))
    }

    /// Whether the value walked is an id field's (`credit_id`), or an item of a list of ids.
    fn names_id(&self) -> bool {
        let key = self.at.iter().rev().find_map(|step| match step {
            Step::Key(key) => Some(key.as_str()),
            Step::Index(_) => None,
        });
        key.is_some_and(|k| idshape::names_id(k) || k.ends_with("_ids") || k.ends_with("Ids"))
    }

    /// A path of its own in place of `path`, keeping its extension (`/placeholder-3.jpg`);
    /// counted among the draft's places.
    fn place(&mut self, path: &str) -> String {
        self.places += 1;
        let path = path.split(['?', '#']).next().unwrap_or_default();
        let last = path.rsplit('/').next().unwrap_or_default();
        let extension = last.rsplit_once('.').map(|(_, ext)| ext).filter(|ext| {
            (1..=5).contains(&ext.len()) && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        });
        match extension {
            Some(ext) => format!("/{PLACE}{}.{ext}", self.places),
            None => format!("/{PLACE}{}", self.places),
        }
    }
}

/// Whether `text` has the form of a placeholder a neutral draft shows: a tag
/// (`<name of crew 1>`), or a path, URL or address named by a numbered place
/// (`/placeholder-2.jpg`, `https://placeholder-4.example`, `placeholder-3@fox.example`),
/// the draft's own or one a model made up after them. No real value has either form.
pub(crate) fn is_placeholder(text: &str) -> bool {
    let tag = text
        .strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .is_some_and(|inner| !inner.trim().is_empty() && !inner.contains(['<', '>', '\n']));
    tag || names_a_place(text)
}

/// Whether `text` is a path, URL or address that a numbered place names (see [`PLACE`]).
fn names_a_place(text: &str) -> bool {
    let numbered = |name: &str| {
        name.strip_prefix(PLACE)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let placed_path = |path: &str| {
        path.strip_prefix('/')
            .map(|p| p.split_once('.').map_or(p, |(stem, _)| stem))
            .is_some_and(numbered)
    };
    if let Some((host, path)) = split_url(text) {
        return host.strip_suffix(".example").is_some_and(numbered) || placed_path(path);
    }
    if text.starts_with('/') {
        return placed_path(text);
    }
    text.split_once('@').is_some_and(|(user, _)| numbered(user))
}

/// The host and the path of a URL (`http://www.hbo.com/game-of-thrones`).
fn split_url(text: &str) -> Option<(&str, &str)> {
    let (_, rest) = text.split_once("://")?;
    let at = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    Some(rest.split_at(at))
}

/// Whether `text` states no fact on its own: empty, or one token of plain ASCII that is a
/// lowercase kind or word (`movie`, `en`), a short code (`US`), or has a digit (a date, a
/// version, a rating such as `PG-13`).
pub(crate) fn states_no_fact(text: &str) -> bool {
    let token = !text.is_empty() && text.bytes().all(|b| b.is_ascii_graphic());
    text.trim().is_empty()
        || token
            && (text.bytes().any(|b| b.is_ascii_digit())
                || !text.bytes().any(|b| b.is_ascii_uppercase())
                || text.len() <= CODE_CHARS && !text.bytes().any(|b| b.is_ascii_lowercase()))
}

/// The tag of the value at `at`: its field, then the items and objects it sits in,
/// innermost first, lists counted from 1 (`<title of known_for 2 of results 1>`).
fn tag(at: &[Step]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for step in at {
        match step {
            Step::Key(key) => parts.push(key.clone()),
            Step::Index(i) => match parts.last_mut() {
                Some(last) => last.push_str(&format!(" {}", i + 1)),
                None => parts.push(format!("item {}", i + 1)),
            },
        }
    }
    parts.reverse();
    match parts.split_first() {
        Some((field, within)) if !within.is_empty() => {
            format!("<{field} of {}>", within.join(" of "))
        }
        Some((field, _)) => format!("<{field}>"),
        None => "<value>".to_owned(),
    }
}

/// Every string of `value`, at any depth.
fn collect_strings<'v>(value: &'v Value, depth: usize, out: &mut Vec<&'v str>) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::String(text) => out.push(text),
        Value::Array(items) => items
            .iter()
            .for_each(|v| collect_strings(v, depth + 1, out)),
        Value::Object(map) => map
            .values()
            .for_each(|v| collect_strings(v, depth + 1, out)),
        _ => {}
    }
}

/// The strings of every `enum` and `const` in a schema.
fn collect_enums<'v>(schema: &'v Value, out: &mut Vec<&'v str>) {
    under_keys(schema, &["enum", "const"], |key, value| {
        match (key, value) {
            ("enum", Value::Array(choices)) => {
                out.extend(choices.iter().filter_map(Value::as_str));
                true
            }
            ("const", Value::String(text)) => {
                out.push(text);
                true
            }
            _ => false,
        }
    });
}

/// Walks a schema (a bounded stack walk) and hands each value under one of `keys`
/// (`example`, `enum`) to `take` with its key; a value `take` refuses is walked into like
/// any other.
fn under_keys<'v>(schema: &'v Value, keys: &[&str], mut take: impl FnMut(&str, &'v Value) -> bool) {
    let mut stack = vec![(schema, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            continue;
        }
        match node {
            Value::Object(map) => {
                for (key, sub) in map {
                    let taken = keys.contains(&key.as_str()) && take(key, sub);
                    if !taken {
                        stack.push((sub, depth + 1));
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    fn examples(example: &Value) -> Examples {
        let mut examples = Examples::default();
        examples.add_example(example);
        examples
    }

    /// `draft` as shown beside the tool's `example`, with no arguments, sightings or schema.
    fn plain(draft: &Value, example: &Value) -> Value {
        let kept = Kept {
            args: &Map::new(),
            seen: &[],
            schema: None,
        };
        neutral(draft, &examples(example), &kept)
    }

    #[test]
    fn example_texts_become_placeholders_and_the_rest_stays() {
        let example = json!({"crew": [{"name": "David Fincher", "job": "Director",
            "credit_id": "52fe4250c3a36847f80149f3", "department": "directing",
            "profile_path": "/tpEczFclQZeKAiCeKZZ0adRvtfz.jpg", "country": "US",
            "homepage": "http://www.foxmovies.com/movies/fight-club?x=1",
            "released": "1999-10-15", "email": "info@fox.example",
            "site": "http://www.lucasfilm.com", "unit": "Art", "handle": "@Fincher"}]});
        let draft = json!({"id": 550, "crew": [
            example["crew"][0].clone(),
            {"name": "Ann Lee", "job": "Director",
                "profile_path": "/tpEczFclQZeKAiCeKZZ0adRvtfz.jpg"}]});
        let shown = plain(&draft, &example);
        let first = &shown["crew"][0];
        assert_eq!(first["name"], "<name of crew 1>");
        assert_eq!(first["job"], "<job of crew 1>");
        assert_eq!(first["credit_id"], draft["crew"][0]["credit_id"], "an id");
        assert_eq!(first["department"], "directing", "a lowercase kind");
        assert_eq!(first["country"], "US", "a code");
        assert_eq!(first["released"], "1999-10-15", "a date");
        assert_eq!(first["profile_path"], "/placeholder-1.jpg");
        assert_eq!(
            first["homepage"],
            "http://placeholder-2.example/placeholder-2"
        );
        assert_eq!(first["email"], "placeholder-3@fox.example");
        assert_eq!(first["site"], "http://placeholder-4.example", "a bare site");
        assert_eq!(
            first["unit"], "<unit of crew 1>",
            "a short word, not a code"
        );
        assert_eq!(first["handle"], "<handle of crew 1>", "no email");
        let second = &shown["crew"][1];
        assert_eq!(second["name"], "Ann Lee", "not an example's");
        assert_eq!(
            second["profile_path"], "/placeholder-5.jpg",
            "a path of its own"
        );
        assert_eq!(shown["id"], 550);
    }

    #[test]
    fn texts_made_of_filler_words_become_placeholders_unless_the_call_gave_them() {
        let draft = json!({"results": [
            {"title": "Star Wars", "type": "island amber", "languages": ["garden", "en"]},
            {"title": "Star Wars Garden", "note": "Lucasfilm"}],
            "query": "Star Wars Echo"});
        let args = json!({"query": "Star Wars Echo"});
        let shown = neutral(
            &draft,
            &Examples::default(),
            &Kept {
                args: args.as_object().unwrap(),
                seen: &[],
                schema: None,
            },
        );
        let first = &shown["results"][0];
        assert_eq!(first["title"], "Star Wars", "not made up");
        assert_eq!(first["type"], "<type of results 1>");
        assert_eq!(first["languages"][0], "<languages 1 of results 1>");
        assert_eq!(first["languages"][1], "en");
        assert_eq!(shown["results"][1]["title"], "<title of results 2>");
        assert_eq!(shown["results"][1]["note"], "Lucasfilm");
        assert_eq!(shown["query"], "Star Wars Echo", "the call's own words");
    }

    #[test]
    fn a_url_keeps_the_host_of_a_service() {
        let images: Vec<String> = (0..3)
            .map(|i| format!("https://img.example/t/p/{i}.jpg"))
            .collect();
        let example = json!({"images": images, "site": "https://www.hbo.com/show"});
        let shown = plain(&example, &example);
        assert_eq!(shown["images"][2], "https://img.example/placeholder-3.jpg");
        assert_eq!(shown["site"], "https://placeholder-4.example/placeholder-4");
    }

    #[test]
    fn what_the_call_the_session_or_the_schema_gives_stays() {
        let example = json!({"name": "Fight Club", "status": "Released",
            "tagline": "Mischief. Mayhem. Soap.", "certification": "PG-13"});
        let draft = example.clone();
        let args = json!({"query": "Fight Club"});
        let seen = [json!({"id": 1, "tagline": "Mischief. Mayhem. Soap."})];
        let schema = json!({"properties": {"status": {"enum": ["Released", "Rumored"]}}});
        let shown = neutral(
            &draft,
            &examples(&example),
            &Kept {
                args: args.as_object().unwrap(),
                seen: &seen,
                schema: Some(&schema),
            },
        );
        assert_eq!(shown, draft);
    }

    #[test]
    fn every_form_a_draft_shows_is_told_as_a_placeholder() {
        let example = json!({"crew": [{"name": "David Fincher", "job": "Director",
            "profile_path": "/tpEczFclQZeKAiCeKZZ0adRvtfz.jpg",
            "homepage": "http://www.foxmovies.com/movies/fight-club",
            "email": "info@fox.example", "site": "http://www.lucasfilm.com"}]});
        let shown = plain(&example, &example);
        let texts = {
            let mut texts = Vec::new();
            collect_strings(&shown, 0, &mut texts);
            texts
        };
        assert_eq!(texts.len(), 6, "{shown}");
        assert!(texts.iter().all(|t| is_placeholder(t)), "{shown}");
        let made_up_after_them = ["/placeholder-14.png", "https://img.example/placeholder-9"];
        assert!(made_up_after_them.iter().all(|t| is_placeholder(t)));
        let real = [
            "/tpEczFclQZeKAiCeKZZ0adRvtfz.jpg",
            "/placeholder.jpg",
            "/placeholder-x.jpg",
            "https://placeholder.com/a.jpg",
            "a <b> c",
            "<>",
            "placeholder-2",
            "Director",
        ];
        for text in real {
            assert!(!is_placeholder(text), "{text}");
        }
    }

    #[test]
    fn a_one_token_name_from_an_example_is_a_placeholder_and_a_code_stays() {
        let example = json!({"results": [{"author": "lmao7", "iso_639_1": "en",
            "author_details": {"username": "lmao7", "rating": "7"}, "status": "released",
            "media_title": "Se7en"}]});
        let shown = plain(&example, &example);
        let review = &shown["results"][0];
        assert_eq!(review["author"], "<author of results 1>");
        assert_eq!(
            review["author_details"]["username"],
            "<username of author_details of results 1>"
        );
        assert_eq!(review["iso_639_1"], "en");
        assert_eq!(review["author_details"]["rating"], "7");
        assert_eq!(review["status"], "released");
        assert_eq!(review["media_title"], "<media_title of results 1>");
    }

    #[test]
    fn schema_examples_count_as_examples_and_tags_name_their_place() {
        let mut examples = Examples::default();
        examples.add_schema(&json!({"properties": {"bio": {"type": "string",
            "example": "Born in a small town.\n"}}}));
        let draft = json!([{"known_for": [{}, {"bio": "Born in a small town."}]}]);
        let kept = Kept {
            args: &Map::new(),
            seen: &[],
            schema: None,
        };
        let shown = neutral(&draft, &examples, &kept);
        assert_eq!(
            shown[0]["known_for"][1]["bio"],
            "<bio of known_for 2 of item 1>"
        );
        let root = neutral(&json!({"bio": "Born in a small town."}), &examples, &kept);
        assert_eq!(root["bio"], "<bio>");
    }
}
