//! The date the simulated world is at (`[exec.simulate] today`): the fill prompt
//! states it, so that what is "now" (on the air, trending, upcoming, playing now)
//! is true to one date. Unset, it is the real UTC date when a session starts.

use jiff::civil::Date;
use serde::Deserialize;

/// The real current date in UTC.
pub(crate) fn utc_today() -> Date {
    jiff::Timestamp::now()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date()
}

/// Reads `today = "2026-11-29"` (a calendar date, `YYYY-MM-DD`).
pub(crate) fn deserialize<'de, D>(deserializer: D) -> Result<Option<Date>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    let text = String::deserialize(deserializer)?;
    text.parse::<Date>().map(Some).map_err(|e| {
        serde::de::Error::custom(format!(
            "`today` must be a date as YYYY-MM-DD, not {text:?}: {e}"
        ))
    })
}
