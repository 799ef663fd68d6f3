//! The dates a draft draws. A date an example gives belongs to the thing the example
//! shows, and copied it gave every entity drawn after it that date: every person the
//! stand-in runs y and z were shown was born on the example's `1963-12-18`. So a date
//! taken from an example is drawn anew for each entity, from the entity's own seed (one
//! entity keeps one date wherever it is shown), in the example's form (a date, or a
//! date and time).
//!
//! A time the user or the service acted at (`added_at`, `played_at`: a `*_at` field)
//! is recent: within [`RECENT_DAYS`] before the simulated world's today (see `today`),
//! not anywhere in the century (saved tracks were added in 1979-1993). Times of a
//! thing's own life (`released_at`, `published_at`, `expires_at`) are drawn as any date.

use jiff::civil::Date;

use super::rng::Rng;

/// The earliest year a drawn date falls in.
const EARLIEST_YEAR: i64 = 1970;
/// The latest year a drawn date falls in.
const LATEST_YEAR: i64 = 2024;
/// The length of a date (`YYYY-MM-DD`).
const DATE_CHARS: usize = 10;

/// How many days before today a recent time falls at most: about two years.
const RECENT_DAYS: i64 = 730;

/// Stems of `*_at` fields that time a thing's own life, not an act on it.
const LIFE_STEMS: &[&str] = &[
    "release", "publish", "premier", "air", "born", "died", "expire", "due", "end", "start",
    "schedule",
];

/// Whether a field (lowercase) times an act of the user or the service: `added_at`,
/// `played_at`, `created_at`; not `released_at` or `expires_at`.
pub(crate) fn times_an_act(lower: &str) -> bool {
    lower
        .strip_suffix("_at")
        .is_some_and(|stem| !stem.is_empty() && !LIFE_STEMS.iter().any(|s| stem.starts_with(s)))
}

/// `text`, when it starts with a date, with that date drawn from `rng` within
/// [`RECENT_DAYS`] before `today` and the rest (a time) kept; else `text` as it is.
pub(crate) fn recent(text: String, today: Date, rng: &mut Rng) -> String {
    if !is_dated(&text) {
        return text;
    }
    let back = jiff::Span::new().days(rng.range(0, RECENT_DAYS));
    let day = today.checked_sub(back).unwrap_or(today);
    let rest = text.get(DATE_CHARS..).unwrap_or_default();
    format!("{day}{rest}")
}

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

    #[test]
    fn an_act_is_timed_recently() {
        assert!(times_an_act("added_at") && times_an_act("played_at"));
        assert!(!times_an_act("released_at") && !times_an_act("expires_at"));
        assert!(!times_an_act("release_date") && !times_an_act("_at"));
        let today = jiff::civil::date(2026, 11, 30);
        for seed in 0..20 {
            let at = recent(
                "1981-02-03T10:11:12Z".to_owned(),
                today,
                &mut Rng::new(seed),
            );
            let day: Date = at.get(..DATE_CHARS).unwrap().parse().unwrap();
            assert!(
                day <= today && day >= jiff::civil::date(2024, 11, 30),
                "{at}"
            );
            assert!(at.ends_with("T10:11:12Z"), "{at}");
        }
    }
}
