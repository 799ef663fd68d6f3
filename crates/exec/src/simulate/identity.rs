//! How a record a response shows is told apart: its id and the fields that name it
//! (`name`, `title`, ...), and whether a text is a date. The session's memory (`session`)
//! and the records an entity holds (`held`) read records by these.

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
    let bytes = text.as_bytes();
    bytes.len() >= 7 && bytes[..4].iter().all(u8::is_ascii_digit) && bytes[4] == b'-'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_starts_with_a_year_and_a_month() {
        assert!(is_dated("1990-09-12") && is_dated("2024-01"));
        assert!(!is_dated("1990") && !is_dated("GoodFellas") && !is_dated("19-09-1990"));
    }
}
