//! The paired sign test's one-sided tail: how likely at least `worse` of `worse + better`
//! untied pairs go against the candidate if each pair were a fair coin.

/// `P(X >= worse)` for `X ~ Binomial(worse + better, 1/2)`: the p-value of "the candidate is
/// worse" (ties dropped, as the sign test does). 1 when there is no untied pair.
pub fn p_worse(worse: usize, better: usize) -> f64 {
    let n = worse + better;
    if n == 0 {
        return 1.0;
    }
    // In logs, so that long runs of pairs do not underflow 0.5^n.
    let mut ln_pmf = -(n as f64) * std::f64::consts::LN_2;
    let mut tail = 0.0;
    for k in 0..=n {
        if k > 0 {
            ln_pmf += ((n - k + 1) as f64).ln() - (k as f64).ln();
        }
        if k >= worse {
            tail += ln_pmf.exp();
        }
    }
    tail.min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_matches_hand_counts() {
        // 5 of 5 worse: 1/32.
        assert!((p_worse(5, 0) - 1.0 / 32.0).abs() < 1e-12);
        // 4 of 5 worse: (5 + 1) / 32.
        assert!((p_worse(4, 1) - 6.0 / 32.0).abs() < 1e-12);
        // None worse: certain.
        assert!((p_worse(0, 3) - 1.0).abs() < 1e-12);
        assert_eq!(p_worse(0, 0), 1.0);
        // Large n does not underflow: 600 of 1,200 worse is about one half.
        assert!((p_worse(600, 600) - 0.5).abs() < 0.02);
    }
}
