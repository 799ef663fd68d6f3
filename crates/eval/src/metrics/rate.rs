//! [`Rate`] and the count conversion every metric shares, below the metric families.

use serde::Serialize;

/// A count as `f64`. Counts stay far below 2^53, where every integer is exact.
pub(crate) fn to_f64(n: usize) -> f64 {
    n as f64
}

/// A share of items that met a condition: CP%, success rate, pass rate, accuracy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Rate {
    /// Items that met it.
    pub hits: usize,
    /// Items counted.
    pub total: usize,
}

impl Rate {
    /// Counts the `true`s of one boolean per item.
    pub fn of(outcomes: impl IntoIterator<Item = bool>) -> Self {
        outcomes.into_iter().fold(Self::default(), |acc, hit| Self {
            hits: acc.hits + usize::from(hit),
            total: acc.total + 1,
        })
    }

    /// `hits / total` in [0, 1]; 0 when nothing was counted (not NaN).
    pub fn value(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            to_f64(self.hits) / to_f64(self.total)
        }
    }

    /// The same in percent, as the papers print it.
    pub fn percent(&self) -> f64 {
        self.value() * 100.0
    }
}
