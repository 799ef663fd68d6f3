//! The range a number is drawn from when no example gives the value itself. Drawn from
//! `0..1000`, a track lasted 554 milliseconds and was track 973 on disc 164 (stand-ins
//! a1-a5 on Spotify), though the tool's track schema gave `duration_ms: 207959`. A
//! number of a field the tool's examples give (a response's example, or a schema
//! property's `example`, on any of its APIs) keeps their order of magnitude: from half
//! the smallest to twice the largest. A place in an order (`track_number`,
//! `disc_number`, `position`, `index`) that no example gives is small.

/// The range of a place in an order no example gives.
pub(crate) const SMALL_PLACE: (i64, i64) = (1, 20);

/// How far the drawn range reaches beyond the examples' smallest and largest, as a factor.
const WIDENING: f64 = 2.0;

/// Whether a field (lowercase) names a place in an order: a track's number on its album,
/// an item's position in a list.
pub(crate) fn is_place(lower: &str) -> bool {
    lower.ends_with("_number")
        || lower.ends_with("position")
        || lower == "index"
        || lower.ends_with("_index")
}

/// The range, in the examples' magnitude, that a number is drawn from: from half the
/// smallest positive example to twice the largest; `None` when no example is positive.
pub(crate) fn span(examples: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = examples
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(None, |range: Option<(f64, f64)>, v| match range {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })?;
    Some((lo / WIDENING, hi * WIDENING))
}

/// [`span`] in whole numbers, at least 1 where every example is.
pub(crate) fn integer_span(examples: impl IntoIterator<Item = f64>) -> Option<(i64, i64)> {
    let (lo, hi) = span(examples)?;
    let whole = |x: f64| x.round().clamp(1.0, i64::MAX as f64) as i64;
    Some((whole(lo.ceil()), whole(hi.floor()).max(whole(lo.ceil()))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_keeps_the_magnitude_and_places_are_named() {
        assert_eq!(integer_span([207_959.0]), Some((103_980, 415_918)));
        assert_eq!(integer_span([1.0]), Some((1, 2)));
        assert_eq!(integer_span([3.0, 12.0]), Some((2, 24)));
        assert_eq!(span([0.0, -4.0]), None);
        assert!(is_place("track_number") && is_place("disc_number") && is_place("position"));
        assert!(!is_place("duration_ms") && !is_place("popularity"));
    }
}
