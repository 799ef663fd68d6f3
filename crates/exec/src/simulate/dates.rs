//! The dates a draft draws. A date an example gives belongs to the thing the example
//! shows, and copied it gave every entity drawn after it that date: every person the
//! stand-in runs y and z were shown was born on the example's `1963-12-18`. So a date
//! taken from an example is drawn anew for each entity, from the entity's own seed (one
//! entity keeps one date wherever it is shown), in the example's form (a date, or a
//! date and time).

use super::rng::Rng;

/// The earliest year a drawn date falls in.
const EARLIEST_YEAR: i64 = 1970;
/// The latest year a drawn date falls in.
const LATEST_YEAR: i64 = 2024;
/// The length of a date (`YYYY-MM-DD`).
const DATE_CHARS: usize = 10;

/// A date (`YYYY-MM-DD`) drawn from `rng`.
pub(crate) fn drawn(rng: &mut Rng) -> String {
    format!(
        "{}-{:02}-{:02}",
        rng.range(EARLIEST_YEAR, LATEST_YEAR),
        rng.range(1, 12),
        rng.range(1, 28)
    )
}

/// Whether `text` starts with a date (`2016-08-22`, `2017-02-13T23:16:19.538Z`).
pub(crate) fn is_dated(text: &str) -> bool {
    text.get(..DATE_CHARS).is_some_and(|date| {
        date.bytes().enumerate().all(|(i, b)| match i {
            4 | 7 => b == b'-',
            _ => b.is_ascii_digit(),
        })
    })
}

/// `text`, when it starts with a date, with that date drawn from `rng` and the rest
/// (a time) kept; else `text` as it is.
pub(crate) fn redrawn(text: String, rng: &mut Rng) -> String {
    if !is_dated(&text) {
        return text;
    }
    let rest = text.get(DATE_CHARS..).unwrap_or_default();
    format!("{}{rest}", drawn(rng))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_is_drawn_anew_in_its_form() {
        assert!(is_dated("1963-12-18") && is_dated("2017-02-13T23:16:19.538Z"));
        assert!(!is_dated("1981-12") && !is_dated("PG-13") && !is_dated("19631218xx"));
        let days: Vec<String> = (0..6)
            .map(|seed| redrawn("1963-12-18".to_owned(), &mut Rng::new(seed)))
            .collect();
        assert!(days.iter().all(|d| is_dated(d) && d.len() == DATE_CHARS));
        assert!(days.iter().any(|d| d != &days[0]), "{days:?}");
        let time = redrawn("2017-02-13T23:16:19.538Z".to_owned(), &mut Rng::new(1));
        assert!(
            is_dated(&time) && time.ends_with("T23:16:19.538Z"),
            "{time}"
        );
        assert_eq!(redrawn("1981-12".to_owned(), &mut Rng::new(1)), "1981-12");
    }
}
