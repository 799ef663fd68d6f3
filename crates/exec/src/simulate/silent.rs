//! Writes whose API documents no response body (Spotify's `PUT /playlists/{playlist_id}`:
//! "200 Playlist updated", nothing else). The real service answers them with an empty
//! success, and so does the simulator: the agent reads `"response": ""` with no error,
//! exactly what a live call shows (`Http` makes an empty body [`Body::Empty`]), so a
//! simulated run and a live one read alike. The arguments are never shown back as if
//! the API had returned them: an agent seeing `{"name": "Test"}` takes it for the
//! service's answer. The change is still kept by the session (`state`), so a later read
//! shows it.
//!
//! [`Body::Empty`]: crate::observation::Body::Empty

use serde_json::Value;
use toolsmith_catalog::HttpMethod;

use crate::executor::BookEntry;

/// Whether a call of `entry`, an API with nothing to simulate from, is a change that
/// answers nothing: a `PUT`, `PATCH` or `DELETE`, which the simulator answers with an
/// empty success without asking a model to invent a body. A `POST` is not one: it
/// usually answers what it created, and many catalogs (RapidAPI's) send reads as `POST`.
pub(crate) fn answers_nothing(entry: &BookEntry) -> bool {
    matches!(
        entry.api.api.endpoint.method(),
        Some(HttpMethod::Put | HttpMethod::Patch | HttpMethod::Delete)
    )
}

/// Whether the spec says outright that the API answers no body (a 204, 202 or 205 without
/// content, as the importer marks it): whatever its method, the simulator answers an empty
/// success, as the live call does. Asking a model to fill its `null` draft only spent a call
/// (Spotify's follow, pause and skip, round 24).
pub(crate) fn documents_no_content(entry: &BookEntry) -> bool {
    entry
        .api
        .api
        .response_schema
        .as_ref()
        .and_then(toolsmith_catalog::lint::no_content_status)
        .is_some()
}

/// The body a model invented for an API that documents none, `None` when it wrote
/// nothing (`{}`, `null`, `""`) for a write: an empty success, not an empty object the
/// session would fill with the call's arguments.
pub(crate) fn invented(entry: &BookEntry, body: Value) -> Option<Value> {
    let empty = match &body {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        Value::String(s) => s.trim().is_empty(),
        _ => false,
    };
    (!empty || crate::gate::is_safe(entry)).then_some(body)
}
