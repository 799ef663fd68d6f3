//! How a record a response shows is told apart: its id and the fields that name it
//! (`name`, `title`, ...), and whether a text is a date. The session's memory (`session`)
//! and the records an entity holds (`held`) read records by these.

use crate::dates::{Precision, starts_as_date};

/// Fields that name an entity.
pub(crate) const LABELS: &[&str] = &[
    "name",
    "title",
    "original_title",
    "full_name",
    "display_name",
];

/// Whether `text` starts as a date: a year and a month at least (`1999-03`, `1999-03-31`,
/// `1999-03-31T20:00:00Z`).
pub(crate) fn is_dated(text: &str) -> bool {
    starts_as_date(text, Precision::Month)
}
