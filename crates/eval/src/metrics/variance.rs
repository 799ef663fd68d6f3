//! Judge variance: LLM judges are not deterministic (ToolEval re-judges at temperature 0.2, and
//! its issue tracker reports pass rates moving with the evaluator model), so a judged score is
//! reported as the mean ± sample standard deviation of N repeated judgements.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::metrics::rate::to_f64;

/// Mean and sample standard deviation of repeated scores.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MeanStd {
    /// Number of scores.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
    /// Their sample standard deviation, `sqrt(Σ (x - mean)² / (n - 1))`; 0 for a single score
    /// (no spread observed, not a claim that there is none).
    pub std: f64,
}

/// The mean ± sample standard deviation of `scores`; `None` when there are none.
pub fn mean_std(scores: &[f64]) -> Option<MeanStd> {
    let n = scores.len();
    if n == 0 {
        return None;
    }
    let mean = scores.iter().sum::<f64>() / to_f64(n);
    let std = if n < 2 {
        0.0
    } else {
        let squares: f64 = scores.iter().map(|x| (x - mean).powi(2)).sum();
        (squares / to_f64(n - 1)).sqrt()
    };
    Some(MeanStd { n, mean, std })
}

impl fmt::Display for MeanStd {
    /// `mean ± std`, with the precision given (`{:.1}`), else two decimals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = f.precision().unwrap_or(2);
        write!(f, "{:.p$} ± {:.p$}", self.mean, self.std)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sample_std_by_hand() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum 32, sample variance 32/7.
        let m = mean_std(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap_or(MeanStd {
            n: 0,
            mean: f64::NAN,
            std: f64::NAN,
        });
        assert_eq!(m.n, 8);
        assert!((m.mean - 5.0).abs() < 1e-12);
        assert!((m.std - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!(format!("{m:.1}"), "5.0 ± 2.1");
        // Pass rates of three judge repeats: 60, 62, 64 -> 62 ± 2.
        assert_eq!(
            mean_std(&[60.0, 62.0, 64.0]).map(|m| m.to_string()),
            Some("62.00 ± 2.00".to_owned())
        );
        // One score: no spread; none: nothing.
        assert_eq!(
            mean_std(&[0.5]),
            Some(MeanStd {
                n: 1,
                mean: 0.5,
                std: 0.0
            })
        );
        assert_eq!(mean_std(&[]), None);
    }
}
