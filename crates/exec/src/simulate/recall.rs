//! Which of the entities a session showed a call recalls: those an id-like
//! argument names, of the kind of thing that argument names, shown by the
//! same tool. A `page=2` or `year=1999` names no record, `movie_id=2` names a
//! movie (never a person with id 2), and another API's records never come back.
//!
//! An argument is id-like when its name is `id` or `ids`, ends in `_id`, `_ids`,
//! `Id` or `Ids`, or it is a path parameter (`{username}` names a user). Its
//! kind is its name's stem (`movie_id`: movie), else the path segment before it
//! (`/artists/{id}`: artist), else what the path is about. A shown entity's
//! kinds are where it stood (the response's kind, the key it sat under: see
//! [`request::entity_of`]) and its own `type`.

use serde_json::{Map, Value};
use toolsmith_catalog::ParamLocation;

use super::request;
use crate::executor::BookEntry;

/// Where a response was shown: the tool, the kinds its top stands for, its path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Place {
    pub(crate) tool: String,
    /// What the response is about: the entity of [`request::api_entity`] and, for a
    /// sub-collection (`/artists/{id}/albums`), the collection's.
    pub(crate) tops: Vec<String>,
    pub(crate) path: String,
}

impl Place {
    /// The place of a response of `entry` to `args`.
    pub(crate) fn of(entry: &BookEntry, args: &Map<String, Value>) -> Self {
        let path = request::path_of(entry).to_owned();
        let mut tops = vec![resource(entry, args)];
        let mut segments = path.split('/').filter(|s| !s.is_empty()).rev();
        if let (Some(last), Some(before)) = (segments.next(), segments.next())
            && !last.starts_with('{')
            && before.starts_with('{')
        {
            tops.push(request::singular(&last.to_ascii_lowercase()));
        }
        tops.dedup();
        Self {
            tool: entry.api.api.id.tool().to_string(),
            tops,
            path,
        }
    }

    /// The kinds of an entity shown under `key` (`None`: the response's top), with
    /// its own `type` or `media_type` when it has one.
    pub(crate) fn kinds(&self, key: Option<&str>, entity: &Map<String, Value>) -> Vec<String> {
        let mut out: Vec<String> = self
            .tops
            .iter()
            .map(|top| request::entity_of(key, top, &self.path))
            .collect();
        for field in ["type", "media_type"] {
            if let Some(kind) = entity.get(field).and_then(Value::as_str).and_then(one_word) {
                out.push(kind);
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// An id a call's argument names, and the kind of thing it names (`None`: any the
/// tool has; an API with no path to tell).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Wanted {
    pub(crate) id: String,
    pub(crate) kind: Option<String>,
}

/// The ids the call's id-like arguments name (a list's each, `ids=a,b` both).
pub(crate) fn wanted(entry: &BookEntry, args: &Map<String, Value>) -> Vec<Wanted> {
    ids_passed(entry, args, Names::IdLike)
}

/// The kind an argument names when it is id-like (`Some(None)`: a kind the API does
/// not tell), `None` when it names no record.
fn kind_named(entry: &BookEntry, args: &Map<String, Value>, name: &str) -> Option<Option<String>> {
    let in_path = entry
        .api
        .api
        .params
        .iter()
        .any(|p| p.name == name && p.location == ParamLocation::Path);
    let stem = id_stem(name);
    if stem.is_none() && !in_path {
        return None;
    }
    if let Some(stem) = stem.filter(|s| !s.is_empty()) {
        return Some(Some(request::singular(&stem)));
    }
    let path = request::path_of(entry);
    if path.is_empty() {
        return Some(None);
    }
    let placeholder = format!("{{{name}}}");
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let before = segments
        .iter()
        .position(|s| *s == placeholder)
        .and_then(|at| at.checked_sub(1))
        .and_then(|at| segments.get(at))
        .filter(|s| !s.starts_with('{'));
    Some(Some(match before {
        Some(segment) => request::singular(&segment.to_ascii_lowercase()),
        None => resource(entry, args),
    }))
}

/// The stem of an id-like name (`movie_id`: `movie`, `artistIds`: `artist`, `id`: empty),
/// `None` for a name that is no id's.
fn id_stem(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if lower == "id" || lower == "ids" {
        return Some(String::new());
    }
    let snake = ["_ids", "_id"]
        .iter()
        .find_map(|end| lower.strip_suffix(end));
    let camel = ["Ids", "Id"].iter().find_map(|end| name.strip_suffix(end));
    let stem = snake.or(camel.filter(|s| !s.is_empty()))?;
    let stem = stem.to_ascii_lowercase();
    Some(stem.rsplit('_').next().unwrap_or(&stem).to_owned())
}

/// The kind of thing a field holding a list of ids refers to (`genre_ids`: genre,
/// `artistIds`: artist), `None` for a field not named as a list of ids (`id`, `ids`,
/// `genre_id`, `genres`).
pub(crate) fn listed_ids_kind(field: &str) -> Option<String> {
    let plural = field.to_ascii_lowercase().ends_with("_ids") || field.ends_with("Ids");
    id_stem(field)
        .filter(|stem| plural && !stem.is_empty())
        .map(|stem| request::singular(&stem))
}

/// The kind of thing a field holding one id or a list of ids refers to (`person_id`,
/// `genre_ids`: genre), `None` for a field not so named (`id`, `ids`, `genres`).
pub(crate) fn id_field_kind(field: &str) -> Option<String> {
    id_stem(field)
        .filter(|stem| !stem.is_empty())
        .map(|stem| request::singular(&stem))
}

/// What a path is about, singular, with a bare `{id}` read by the segment before it
/// (`/artists/{id}`: artist), where [`request::api_entity`] would say `id`.
fn resource(entry: &BookEntry, args: &Map<String, Value>) -> String {
    let entity = request::api_entity(entry, args);
    if entity != "id" {
        return request::singular(&entity);
    }
    let path = request::path_of(entry);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    segments
        .iter()
        .rposition(|s| *s == "{id}")
        .and_then(|at| at.checked_sub(1))
        .and_then(|at| segments.get(at))
        .map_or(entity, |s| request::singular(&s.to_ascii_lowercase()))
}

/// Parts of argument names that never pass a record's id: a page, a count, a size, a
/// date or a bound (`page=2`, `year=1999`, `vote_count.gte=100`).
const NOT_IDS: &[&str] = &[
    "page", "limit", "offset", "count", "size", "year", "date", "total", "gte", "lte", "min",
    "max", "vote", "runtime",
];

/// The ids a call's arguments pass, whatever the arguments are named (`person_id=31`,
/// `with_crew=66185`, `with_cast=1|2`, `ids=a,b`), each of the kind an id-like argument
/// names (see [`wanted`]; any kind for another name), but for arguments whose names say
/// they page, count, date or bound, and free texts (a `query` with spaces). Which of them
/// name a record is for the caller to say: the session counts only ids it showed.
pub(crate) fn passed(entry: &BookEntry, args: &Map<String, Value>) -> Vec<Wanted> {
    ids_passed(entry, args, Names::Any)
}

/// Which arguments [`ids_passed`] reads ids from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Names {
    /// Only id-like arguments ([`wanted`]).
    IdLike,
    /// Any argument that may pass ids, free texts aside ([`passed`]).
    Any,
}

/// The ids the call's arguments pass, sorted and each once.
fn ids_passed(entry: &BookEntry, args: &Map<String, Value>, names: Names) -> Vec<Wanted> {
    let any = names == Names::Any;
    let mut out = Vec::new();
    for (name, value) in args {
        let kind = match kind_named(entry, args, name) {
            Some(kind) => kind,
            None if any && passes_ids(name) => None,
            None => continue,
        };
        for id in ids_in(value) {
            if !(any && id.contains(char::is_whitespace)) {
                out.push(Wanted {
                    id,
                    kind: kind.clone(),
                });
            }
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out.dedup();
    out
}

/// Whether an argument not named as an id may still pass ids: not one whose name says it
/// pages, counts, dates or bounds.
fn passes_ids(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    !NOT_IDS.iter().any(|part| lower.contains(part))
}

/// The ids in an argument's value: a scalar, the items of a list, or the parts of a
/// comma- or `|`-separated text (TMDB's `with_crew=1|2` is either of two people).
fn ids_in(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => s
            .split([',', '|'])
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_owned)
            .collect(),
        Value::Number(n) => vec![n.to_string()],
        Value::Array(items) => items.iter().flat_map(ids_in).collect(),
        _ => Vec::new(),
    }
}

/// The kind an entity says it is, by its own `type` or `media_type` (`artist`, `tv`).
pub(crate) fn own_kind(entity: &Map<String, Value>) -> Option<String> {
    ["type", "media_type"].iter().find_map(|field| {
        entity
            .get(*field)
            .and_then(Value::as_str)
            .and_then(one_word)
    })
}

/// A kind written as one short lowercase word (`artist`, `tv`), singular.
fn one_word(text: &str) -> Option<String> {
    let word = text.trim().to_ascii_lowercase();
    let short = !word.is_empty() && word.len() <= 24;
    (short && word.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .then(|| request::singular(&word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_names_its_kind_and_a_page_none() {
        assert_eq!(id_stem("movie_id").as_deref(), Some("movie"));
        assert_eq!(id_stem("artistIds").as_deref(), Some("artist"));
        assert_eq!(id_stem("primary_artist_id").as_deref(), Some("artist"));
        assert_eq!(id_stem("ids").as_deref(), Some(""));
        for other in ["page", "year", "paid", "valid"] {
            assert_eq!(id_stem(other).filter(|s| !s.is_empty()), None, "{other}");
        }
        assert_eq!(ids_in(&serde_json::json!("a, b")), ["a", "b"]);
        assert_eq!(listed_ids_kind("genre_ids").as_deref(), Some("genre"));
        assert_eq!(listed_ids_kind("artistIds").as_deref(), Some("artist"));
        for other in ["ids", "genre_id", "genres", "paid"] {
            assert_eq!(listed_ids_kind(other), None, "{other}");
        }
        assert_eq!(id_field_kind("person_id").as_deref(), Some("person"));
        assert_eq!(id_field_kind("genre_ids").as_deref(), Some("genre"));
        assert_eq!(id_field_kind("id"), None);
        for name in ["page", "year", "vote_count.gte", "primary_release_date.lte"] {
            assert!(!passes_ids(name), "{name}");
        }
        assert!(passes_ids("with_crew") && passes_ids("with_cast"));
        assert_eq!(one_word("Artist").as_deref(), Some("artist"));
        assert_eq!(one_word("a premium plan"), None);
    }
}
