//! The account's owner: within a session the current user is one user. A call
//! that answers about the current user (a path under `/me`, or a read whose name says
//! "current user" or "my profile") has no id argument to recall facts by,
//! so its profile drawn afresh disagreed with the `owner` of the user's own
//! playlists shown a call earlier. The first response of the session that shows the
//! user (the profile itself, the owner of the user's own things, or the owner of a
//! thing the task names as the user's, such as the playlist a search found) fixes
//! their id and name; every later such call, and every call whose draft shows owners,
//! is told them, and a draft about the user carries them.

use serde_json::{Map, Value};

use toolsmith_catalog::{HttpMethod, ParamLocation};

use super::identity::id_text;
use super::state;
use crate::executor::BookEntry;

/// Path segments that stand for the current user (`/me`, Discord's `/users/@me`).
const ME_SEGMENTS: &[&str] = &["me", "@me"];
/// Words of an API's name that say it is about the current user.
const ME_WORDS: &[&str] = &[
    "current user",
    "current_user",
    "currentuser",
    "current-user",
    "my profile",
    "authenticated user",
    "logged-in user",
    "logged in user",
];
/// Fields that name a user.
const NAMES: &[&str] = &["display_name", "name", "full_name", "username", "login"];
/// The key the user's own things name their owner under.
const OWNER: &str = "owner";
/// How deep in a response owners are looked for.
const MAX_DEPTH: usize = 6;

/// How a call is about the current user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mine {
    /// It answers with the user's profile (`GET /me`).
    Profile,
    /// It answers about the user's own things (`/me/playlists`), whose `owner` is the user.
    Things,
}

/// How `entry` is about the current user, if it is: a path with a `/me` segment, or a
/// read that names no one (no path parameter) whose name says so ("Get Current User's
/// Profile"). Its doc is not read: a doc that says where an input comes from ("the
/// current user's id, from the profile call", on a playlist-creating POST) is not about
/// what the API answers, and such a playlist was once stamped with its owner's id.
pub(crate) fn mine(entry: &BookEntry) -> Option<Mine> {
    let api = &entry.api.api;
    let path = api.endpoint.path().unwrap_or_default();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if let Some(at) = segments.iter().position(|s| ME_SEGMENTS.contains(s)) {
        return Some(if at + 1 == segments.len() {
            Mine::Profile
        } else {
            Mine::Things
        });
    }
    let names_no_one = !api.params.iter().any(|p| p.location == ParamLocation::Path);
    let reads = api.endpoint.method().is_none_or(|m| m == HttpMethod::Get);
    let name = format!("{} {}", api.name, api.source_name).to_ascii_lowercase();
    if !(names_no_one && reads && ME_WORDS.iter().any(|w| name.contains(w))) {
        return None;
    }
    Some(if name.contains("profile") {
        Mine::Profile
    } else {
        Mine::Things
    })
}

/// The current user as the session first showed them: an id and the names shown with it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Owner {
    id: Value,
    names: Map<String, Value>,
}

impl Owner {
    /// A user known only by id (`user_id` of the path a playlist was created under).
    pub(crate) fn with_id(id: Value) -> Self {
        Self {
            id,
            names: Map::new(),
        }
    }

    /// The user's id.
    pub(crate) fn id(&self) -> &Value {
        &self.id
    }

    /// What a fill prompt is told of the user (`{"current_user": {"id", "display_name"}}`).
    pub(crate) fn fact(&self) -> Value {
        let mut user = self.names.clone();
        user.insert("id".to_owned(), self.id.clone());
        serde_json::json!({ "current_user": user })
    }

    /// The user a response about them shows: the profile's own object, or the owner most
    /// of the user's own things name (the first of the most named, for a tie).
    pub(crate) fn shown(mine: Mine, body: &Value) -> Option<Self> {
        match mine {
            Mine::Profile => {
                let mut body = body.clone();
                state::main_object(&mut body).and_then(|o| Self::of(o))
            }
            Mine::Things => {
                let mut owners = Vec::new();
                owners_in(body, 0, &mut |o| owners.push(o.clone()));
                let count = |id: &Value| owners.iter().filter(|o| &o.id == id).count();
                let most = owners.iter().map(|o| count(&o.id)).max()?;
                owners.iter().find(|o| count(&o.id) == most).cloned()
            }
        }
    }

    /// The owner of the thing `task` names as the user's own: the first object of `body`
    /// with an `owner` whose name or title is a name the task quotes ("my 'My Rock'
    /// playlist"). The task presupposes the thing is the user's, and the fill prompt asks
    /// that a search for it list the user's own first: its owner is then the user, before
    /// any profile is read (a profile read later used to name another user, and the agent
    /// found only strangers' playlists). Only a quoted name counts: a public playlist whose
    /// name merely occurs in the task's words is no sign of whose it is.
    pub(crate) fn named_in(task: &str, body: &Value) -> Option<Self> {
        let names = quoted(task);
        if names.is_empty() {
            return None;
        }
        let mut found = None;
        named_owner(body, &names, 0, &mut found);
        found
    }

    /// The user of an object with an id, and the names it shows.
    fn of(object: &Map<String, Value>) -> Option<Self> {
        let id = object
            .get("id")
            .filter(|v| v.is_string() || v.is_number())?;
        let names = NAMES
            .iter()
            .filter_map(|k| {
                Some((
                    (*k).to_owned(),
                    object.get(*k).filter(|v| v.is_string())?.clone(),
                ))
            })
            .collect();
        Some(Self {
            id: id.clone(),
            names,
        })
    }

    /// Makes `body` show this user: the profile's own object, or every owner of the
    /// user's own things, takes the user's id (in its links too) and names.
    pub(crate) fn carry(&self, mine: Mine, body: &mut Value) {
        match mine {
            Mine::Profile => {
                if let Some(object) = state::main_object(body).filter(|o| o.contains_key("id")) {
                    self.stamp(object);
                }
            }
            Mine::Things => owners_mut(body, 0, &mut |o| self.stamp(o)),
        }
    }

    /// Gives `object` this user's id and names, and its links (`uri`, `href`) the id.
    fn stamp(&self, object: &mut Map<String, Value>) {
        let old = object.get("id").map(id_text).unwrap_or_default();
        let new = id_text(&self.id);
        if old.len() >= 4 && old != new {
            relink(object, &old, &new);
        }
        object.insert("id".to_owned(), self.id.clone());
        for (key, name) in &self.names {
            if let Some(slot) = object.get_mut(key).filter(|v| v.is_string()) {
                *slot = name.clone();
            }
        }
    }
}

/// Replaces `old` by `new` in the texts of `object` and of the objects without an id of
/// their own it holds (`external_urls`).
fn relink(object: &mut Map<String, Value>, old: &str, new: &str) {
    for (key, value) in object.iter_mut() {
        match value {
            Value::String(text) if key != "id" && text.contains(old) => {
                *text = text.replace(old, new);
            }
            Value::Object(inner) if !inner.contains_key("id") => relink(inner, old, new),
            _ => {}
        }
    }
}

/// Calls `found` with the user of every `owner` object in `value`.
fn owners_in(value: &Value, depth: usize, found: &mut dyn FnMut(&Owner)) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                match inner
                    .as_object()
                    .filter(|_| key == OWNER)
                    .and_then(Owner::of)
                {
                    Some(owner) => found(&owner),
                    None => owners_in(inner, depth + 1, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| owners_in(v, depth + 1, found)),
        _ => {}
    }
}

/// Calls `stamp` on every `owner` object with an id in `value`.
fn owners_mut(value: &mut Value, depth: usize, stamp: &mut dyn FnMut(&mut Map<String, Value>)) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                match inner {
                    Value::Object(owner) if key == OWNER && owner.contains_key("id") => {
                        stamp(owner);
                    }
                    other => owners_mut(other, depth + 1, stamp),
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|v| owners_mut(v, depth + 1, stamp)),
        _ => {}
    }
}

/// The names `task` quotes, lowercased: text between a quote that opens a word (`'`, `"`,
/// `‘`, `“` at the start or after a space or bracket) and the next quote that ends one
/// (before a space, punctuation or the end), so an apostrophe ("The Beatle's") is none.
fn quoted(task: &str) -> Vec<String> {
    const OPEN: &[char] = &['\'', '"', '\u{2018}', '\u{201c}'];
    const CLOSE: &[char] = &['\'', '"', '\u{2019}', '\u{201d}'];
    let chars: Vec<char> = task.chars().collect();
    let ends_word = |i: usize| {
        chars
            .get(i)
            .is_none_or(|c| c.is_whitespace() || c.is_ascii_punctuation())
    };
    let mut names = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let opens = OPEN.contains(&chars[i])
            && (i == 0 || chars[i - 1].is_whitespace() || chars[i - 1] == '(');
        let close = opens
            .then(|| (i + 1..chars.len()).find(|&j| CLOSE.contains(&chars[j]) && ends_word(j + 1)))
            .flatten();
        match close {
            Some(j) => {
                let name: String = chars[i + 1..j].iter().collect();
                let name = name.trim().to_lowercase();
                if (2..=80).contains(&name.chars().count()) {
                    names.push(name);
                }
                i = j + 1;
            }
            None => i += 1,
        }
    }
    names
}

/// Sets `found` to the owner of the first object in `value` whose `name` or `title` is one
/// of `names` (lowercased).
fn named_owner(value: &Value, names: &[String], depth: usize, found: &mut Option<Owner>) {
    if depth > MAX_DEPTH || found.is_some() {
        return;
    }
    match value {
        Value::Object(map) => {
            let named = ["name", "title"].iter().any(|k| {
                map.get(*k)
                    .and_then(Value::as_str)
                    .is_some_and(|n| names.contains(&n.trim().to_lowercase()))
            });
            let owner = map.get(OWNER).and_then(Value::as_object);
            if let Some(owner) = owner.filter(|_| named).and_then(Owner::of) {
                *found = Some(owner);
                return;
            }
            map.values()
                .for_each(|inner| named_owner(inner, names, depth + 1, found));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| named_owner(v, names, depth + 1, found)),
        _ => {}
    }
}

/// Whether `value` holds an `owner` object (within the depth owners are looked for).
pub(crate) fn holds_owner(value: &Value) -> bool {
    let mut any = false;
    owners_in(value, 0, &mut |_| any = true);
    any
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn quoted_names_are_whole_quotes_and_apostrophes_are_none() {
        assert_eq!(
            quoted("Append the first track in The Beatle's newest album to my 'My Rock' playlist"),
            ["my rock"]
        );
        assert_eq!(
            quoted("Delete all music from my \"My R&B\" playlist and rename it as 'Test'."),
            ["my r&b", "test"]
        );
        assert_eq!(
            quoted("add \u{2018}Road Trip\u{2019} to my list"),
            ["road trip"]
        );
        assert!(quoted("Follow the artist of the song which is playing right now").is_empty());
        assert!(quoted("it's the band's best album").is_empty());
    }
}
