//! Whether a text starts as an ISO 8601 date (`1999-03`, `1999-03-31`,
//! `1999-03-31T20:00:00Z`): one check for the simulator (a record's date, a dated version
//! that is no token) and for compaction (a column of dates).

/// How much of a date a text must start with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Precision {
    /// A year and a month (`1999-03`), or more.
    Month,
    /// A full date (`1999-03-31`), or more (a date-time).
    Day,
}

/// Whether `text` starts with an ISO date of at least `precision`: four digits of a year,
/// then `-` and two digits of a month, then, for a day, `-` and two digits. What follows
/// (`T20:00:00Z`) is not read; the numbers are not checked against the calendar.
pub(crate) fn starts_as_date(text: &str, precision: Precision) -> bool {
    let pattern: &[u8] = match precision {
        Precision::Month => b"dddd-dd",
        Precision::Day => b"dddd-dd-dd",
    };
    let bytes = text.as_bytes();
    bytes.len() >= pattern.len()
        && pattern.iter().zip(bytes).all(|(want, got)| match want {
            b'd' => got.is_ascii_digit(),
            other => got == other,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_year_and_month_a_full_date_and_a_date_time() {
        use Precision::{Day, Month};
        // A year and a month: a record's date (`simulate::identity`).
        for dated in ["2024-01", "1990-09-12", "1999-03-31T20:00:00Z"] {
            assert!(starts_as_date(dated, Month), "{dated}");
        }
        for undated in ["1990", "GoodFellas", "19-09-1990", "2024-1", "2024-ab", ""] {
            assert!(!starts_as_date(undated, Month), "{undated}");
        }
        // A full date: a dated version, a column of dates (`version`, `compact::columns`).
        for dated in ["2024-01-15", "2024-01-15T10:00:00Z", "2024-05-01 12:00"] {
            assert!(starts_as_date(dated, Day), "{dated}");
        }
        for undated in [
            "2024-01",
            "2024-01-1",
            "2024/01/15",
            "2024-01-xx",
            "15-01-2024",
        ] {
            assert!(!starts_as_date(undated, Day), "{undated}");
        }
    }
}
