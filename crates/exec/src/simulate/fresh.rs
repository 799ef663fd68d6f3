//! What a resource holds when the call that answers with it just created it
//! (a `POST` to a collection, `POST /users/{user_id}/playlists`): in its
//! collections, only what the request gave it. A `POST` creates when the spec
//! says so (`201 Created`) or its path is a collection whose items have paths
//! of their own (`/pets` beside `/pets/{pet_id}`): a `POST /search` or
//! `/chat/completions` computes an answer and keeps its lists. Its lists of things (a new
//! playlist's `images`) are empty and its pages of things (its `tracks`)
//! hold no items and count none, whatever the draft or the model drew; so do its counts
//! of things it lists nowhere (a playlist's `followers: {href, total}`, `tracks: {href,
//! total}`, a `comment_count`: a playlist just made had 255-4,708 followers and tracks);
//! a field the request set keeps the request's value (see `state`).
//!
//! It also agrees with the request that made it, in the draft the model is shown and in
//! the answer: a thing created under an owner's path parameter is that owner's (the
//! playlist `POST /users/{user_id}/playlists` makes has `owner.id` = `user_id`: its
//! `owner` is stamped by `me`; a `user_id` field, or a `user` object's id, here), and a
//! boolean body parameter the request sets, or documents a default for (Spotify's
//! `public`: "Defaults to `true`"), is the created thing's same-named field.

use serde_json::{Map, Value};
use toolsmith_catalog::{Param, ParamLocation, id_entity};

use super::{request, state};
use crate::executor::BookEntry;
use crate::paging_fields::{OFFSET_FIELDS, TOTAL_FIELDS};

/// Whether a call of `entry` creates the resource it answers with: a `POST` to a
/// collection that documents `201 Created`, or whose items have a path in `paths`
/// (`METHOD path` of the APIs of its tool).
pub(crate) fn creates<'a>(entry: &BookEntry, mut paths: impl Iterator<Item = &'a str>) -> bool {
    let Some(path) = entry.api.api.endpoint.path() else {
        return false;
    };
    if !request::creates(entry) {
        return false;
    }
    let schema = entry.api.api.response_schema.as_ref();
    // A `201` that answers with a receipt (Spotify's add-tracks: `{snapshot_id}`) changed a
    // thing that already was; only one that answers with a thing of its own id made it.
    let created = schema.and_then(toolsmith_catalog::lint::success_status) == Some(201)
        && schema.is_some_and(answers_with_an_identity);
    let prefix = format!("{}/{{", path.trim_end_matches('/'));
    created
        || paths.any(|key| {
            key.split_once(' ')
                .and_then(|(_, p)| p.strip_prefix(&prefix))
                .is_some_and(|rest| !rest.contains('/'))
        })
}

/// Whether a response schema describes a thing with an `id` of its own.
fn answers_with_an_identity(schema: &Value) -> bool {
    schema.pointer("/properties/id").is_some()
}

/// How a parameter's description states a boolean default (lowercase, before `true` or
/// `false`): "Defaults to `true`.", "Default: false".
const DEFAULT_SAYINGS: &[&str] = &["defaults to ", "default: ", "default is ", "default "];

/// What a path parameter naming the account a thing is created for is named after
/// (`user_id`, `owner`, `account_id`, `username`).
const OWNER_STEMS: &[&str] = &["user", "owner", "account", "member", "username", "login"];

/// Whether a path parameter names the account a thing created under it belongs to.
pub(crate) fn names_owner(param: &str) -> bool {
    let lower = param.to_ascii_lowercase();
    let stem = lower
        .strip_suffix("_id")
        .or_else(|| lower.strip_suffix("id"))
        .unwrap_or(&lower);
    OWNER_STEMS.contains(&stem)
}

/// The parent a creating call's path names, and the call's value for it: the last path
/// parameter (`user_id` of `/users/{user_id}/playlists`, `post_id` of a comment's).
pub(crate) fn path_owner(entry: &BookEntry, args: &Map<String, Value>) -> Option<(String, Value)> {
    let name = request::path_params(entry.api.api.endpoint.path()?).next_back()?;
    Some((name.to_owned(), args.get(name)?.clone()))
}

/// Gives the created thing (one with an id) the path's parent in a field named for its
/// parameter: `user_id` (`post_id`) itself, or the id of a `user` (`post`) object. (An
/// `owner` object is stamped by `me` when the parameter [`names_owner`].)
pub(crate) fn owned_by(param: &str, id: &Value, body: &mut Value) {
    let Some(thing) = state::main_object(body).filter(|t| t.contains_key("id")) else {
        return;
    };
    match (thing.get_mut(param), id_entity(param)) {
        (Some(slot), _) if !slot.is_object() && !slot.is_array() => *slot = id.clone(),
        (_, Some(stem)) => {
            if let Some(Value::Object(owner)) = thing.get_mut(&stem) {
                owner.insert("id".to_owned(), id.clone());
            }
        }
        _ => {}
    }
}

/// Gives the created thing (one with an id) each boolean body parameter the request sets,
/// else the default it documents, in its same-named boolean field.
pub(crate) fn documented_flags(entry: &BookEntry, args: &Map<String, Value>, body: &mut Value) {
    let Some(thing) = state::main_object(body).filter(|t| t.contains_key("id")) else {
        return;
    };
    for param in &entry.api.api.params {
        let is_flag = param.schema.get("type").and_then(Value::as_str) == Some("boolean");
        if param.location != ParamLocation::Body || !is_flag {
            continue;
        }
        let value = match args.get(&param.name) {
            Some(Value::Bool(set)) => Some(*set),
            Some(_) => None,
            None => flag_default(param),
        };
        if let (Some(value), Some(slot)) = (value, thing.get_mut(&param.name))
            && (slot.is_boolean() || slot.is_null())
        {
            *slot = Value::Bool(value);
        }
    }
}

/// A boolean parameter's default: its schema's, else the one its description states.
fn flag_default(param: &Param) -> Option<bool> {
    if let Some(set) = param.schema.get("default").and_then(Value::as_bool) {
        return Some(set);
    }
    let text = param.description.to_ascii_lowercase().replace('`', "");
    DEFAULT_SAYINGS.iter().find_map(|saying| {
        let (_, after) = text.split_once(saying)?;
        match after.split(|c: char| !c.is_ascii_alphabetic()).next()? {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }
    })
}

/// Fields of a page that link pages on and back.
const LINK_FIELDS: &[&str] = &["next", "previous"];

/// Empties the collections of the resource (one with an `id`) a creating call answers
/// with; the ones the request gave (by name, at the resource's level) stay.
pub(crate) fn empty_collections(entry: &BookEntry, args: &Map<String, Value>, body: &mut Value) {
    let given: Vec<String> = state::same_level_args(entry, args)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let Some(resource) = state::main_object(body).filter(|r| r.contains_key("id")) else {
        return;
    };
    for (key, value) in resource.iter_mut() {
        if given.contains(key) || args.contains_key(key) {
            continue;
        }
        match value {
            Value::Array(items) if items.iter().all(Value::is_object) => items.clear(),
            Value::Object(page) if is_page(page) => empty_page(page),
            Value::Object(tally) if is_tally(tally) => zero_totals(tally),
            Value::Number(_) if is_count_name(key) => *value = Value::from(0),
            _ => {}
        }
    }
}

/// Whether an object is a page of things: a list of objects beside a count or a link.
fn is_page(map: &Map<String, Value>) -> bool {
    let listed = map
        .get("items")
        .and_then(Value::as_array)
        .is_some_and(|items| items.iter().all(Value::is_object));
    listed
        && TOTAL_FIELDS
            .iter()
            .chain(LINK_FIELDS)
            .chain(&["limit"])
            .any(|k| map.contains_key(*k))
}

/// Whether an object only counts things it does not list (`{href, total}`): a total,
/// and no list.
fn is_tally(map: &Map<String, Value>) -> bool {
    TOTAL_FIELDS
        .iter()
        .any(|k| map.get(*k).is_some_and(Value::is_number))
        && !map.values().any(Value::is_array)
}

/// Whether a field's name says it counts things (`comment_count`, `followerCount`; not
/// an `account`).
fn is_count_name(key: &str) -> bool {
    key.ends_with("_count") || key.ends_with("Count")
}

/// Sets a tally's totals to zero.
fn zero_totals(map: &mut Map<String, Value>) {
    for key in TOTAL_FIELDS {
        if let Some(slot) = map.get_mut(*key).filter(|v| v.is_number()) {
            *slot = Value::from(0);
        }
    }
}

/// A page with no items: counts of zero, from the start, linking nowhere.
fn empty_page(page: &mut Map<String, Value>) {
    if let Some(Value::Array(items)) = page.get_mut("items") {
        items.clear();
    }
    for key in TOTAL_FIELDS.iter().chain(OFFSET_FIELDS) {
        if let Some(slot) = page.get_mut(*key).filter(|v| v.is_number()) {
            *slot = Value::from(0);
        }
    }
    for key in LINK_FIELDS {
        if let Some(slot) = page.get_mut(*key) {
            *slot = Value::Null;
        }
    }
}
