//! One retry policy for every HTTP client: which failures to retry, how many times, and how
//! long to wait (exponential backoff with jitter, a server's `Retry-After` honoured up to a cap).

use std::time::Duration;

use rand::Rng;
use serde::{Deserialize, Serialize};

/// When and how to retry a failed request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetrySettings {
    /// Retries after the first attempt, for retryable failures only. By default, 4.
    pub max_retries: u32,
    /// Backoff before the first retry, doubled each time; each wait is drawn between half and
    /// all of it. By default, 500 ms.
    pub initial_backoff_ms: u64,
    /// Upper bound of one backoff. By default, 30 s.
    pub max_backoff_ms: u64,
    /// Longest `Retry-After` honoured; a longer one is cut to this. By default, 120 s.
    pub max_retry_after_ms: u64,
}

impl RetrySettings {
    /// The defaults documented on each field.
    pub const DEFAULT: Self = Self {
        max_retries: 4,
        initial_backoff_ms: 500,
        max_backoff_ms: 30_000,
        max_retry_after_ms: 120_000,
    };

    /// No retries at all.
    pub const NONE: Self = Self {
        max_retries: 0,
        ..Self::DEFAULT
    };

    /// Whether a failed attempt number `attempt` (1 for the first request) may be followed by
    /// another one.
    pub fn allows_retry_after(&self, attempt: u32) -> bool {
        attempt <= self.max_retries
    }

    /// The backoff ceiling before retry number `attempt` (1-based): `initial * 2^(attempt-1)`,
    /// capped at `max_backoff_ms`. [`RetrySettings::delay`] draws the actual wait below it.
    pub fn backoff_ceiling(&self, attempt: u32) -> Duration {
        let exp = attempt.saturating_sub(1).min(30);
        Duration::from_millis(
            self.initial_backoff_ms
                .saturating_mul(1u64 << exp)
                .min(self.max_backoff_ms),
        )
    }

    /// How long to wait before retry number `attempt` (1-based): the server's `Retry-After`
    /// when it sent one (cut to `max_retry_after_ms`), else a uniform draw between half of
    /// [`RetrySettings::backoff_ceiling`] and all of it, so clients that failed together do
    /// not retry together.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(Duration::from_millis(self.max_retry_after_ms));
        }
        let ceiling = u64::try_from(self.backoff_ceiling(attempt).as_millis()).unwrap_or(u64::MAX);
        if ceiling == 0 {
            return Duration::ZERO;
        }
        Duration::from_millis(rand::rng().random_range(ceiling / 2..=ceiling))
    }
}

impl Default for RetrySettings {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Whether an HTTP status is worth retrying: 429 (rate limited) and every 5xx.
pub fn is_retryable_status(status: u16) -> bool {
    status == 429 || (500..=599).contains(&status)
}

/// The wait a `Retry-After` header value asks for, in (possibly fractional) seconds. HTTP dates
/// and malformed values give `None`.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let secs: f64 = value.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0)
        .then(|| Duration::try_from_secs_f64(secs).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_is_capped_and_jittered_within_half() {
        let retry = RetrySettings {
            initial_backoff_ms: 100,
            max_backoff_ms: 350,
            ..RetrySettings::DEFAULT
        };
        assert_eq!(retry.backoff_ceiling(1), Duration::from_millis(100));
        assert_eq!(retry.backoff_ceiling(2), Duration::from_millis(200));
        assert_eq!(retry.backoff_ceiling(3), Duration::from_millis(350));
        assert_eq!(retry.backoff_ceiling(u32::MAX), Duration::from_millis(350));
        for _ in 0..50 {
            let first = retry.delay(1, None);
            assert!(first >= Duration::from_millis(50) && first <= Duration::from_millis(100));
            assert!(retry.delay(5, None) <= Duration::from_millis(350));
        }
    }

    #[test]
    fn retry_after_wins_up_to_its_cap() {
        let retry = RetrySettings::DEFAULT;
        assert_eq!(
            retry.delay(1, Some(Duration::from_secs(3))),
            Duration::from_secs(3)
        );
        assert_eq!(
            retry.delay(1, Some(Duration::from_secs(1000))),
            Duration::from_millis(120_000)
        );
    }

    #[test]
    fn zero_backoff_never_waits() {
        let retry = RetrySettings {
            initial_backoff_ms: 0,
            ..RetrySettings::DEFAULT
        };
        assert_eq!(retry.delay(3, None), Duration::ZERO);
    }

    #[test]
    fn retries_stop_after_max() {
        let retry = RetrySettings {
            max_retries: 2,
            ..RetrySettings::DEFAULT
        };
        assert!(retry.allows_retry_after(1));
        assert!(retry.allows_retry_after(2));
        assert!(!retry.allows_retry_after(3));
        assert!(!RetrySettings::NONE.allows_retry_after(1));
    }

    #[test]
    fn only_429_and_5xx_are_retryable() {
        for status in [429, 500, 502, 503, 599] {
            assert!(is_retryable_status(status), "{status}");
        }
        for status in [200, 301, 400, 401, 404, 428, 600] {
            assert!(!is_retryable_status(status), "{status}");
        }
    }

    #[test]
    fn retry_after_parses_seconds_only() {
        assert_eq!(parse_retry_after(" 2 "), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("NaN"), None);
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    }
}
