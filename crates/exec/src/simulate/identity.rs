//! How a record a response shows is told apart: its id and the fields that name it
//! (`name`, `title`, ...), and whether a text is a date. The session's memory (`session`)
//! and the records an entity holds (`held`) read records by these.

use serde_json::Value;

use crate::canonical::canonical_json;
use crate::dates::{Precision, starts_as_date};

/// Fields that name an entity.
pub(crate) const LABELS: &[&str] = &[
    "name",
    "title",
    "original_title",
    "full_name",
    "display_name",
];

/// An id as text, the way it appears in a link or beside another id (`12`, `"a1"`: `a1`).
pub(crate) fn id_text(id: &Value) -> String {
    id.as_str()
        .map_or_else(|| canonical_json(id), str::to_owned)
}

/// Whether `text` starts as a date: a year and a month at least (`1999-03`, `1999-03-31`,
/// `1999-03-31T20:00:00Z`).
pub(crate) fn is_dated(text: &str) -> bool {
    starts_as_date(text, Precision::Month)
}
