//! What a resource holds when the call that answers with it just created it
//! (a `POST` to a collection, `POST /users/{user_id}/playlists`): in its
//! collections, only what the request gave it. A `POST` creates when the spec
//! says so (`201 Created`) or its path is a collection whose items have paths
//! of their own (`/pets` beside `/pets/{pet_id}`): a `POST /search` or
//! `/chat/completions` computes an answer and keeps its lists. Its lists of things (a new
//! playlist's `images`) are empty and its pages of things (its `tracks`)
//! hold no items and count none, whatever the draft or the model drew;
//! a field the request set keeps the request's value (see `state`).

use serde_json::{Map, Value};

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
