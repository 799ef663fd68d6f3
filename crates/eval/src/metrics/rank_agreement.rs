//! Agreement between two rankings of the same methods: Kendall's tau-b, which asks whether a
//! yardstick (a synthetic eval set) orders configurations as another (a human set) does.
//!
//! Over every pair of items `(i, j)`: concordant when both score lists order them the same way,
//! discordant when they disagree, tied when either list scores them equal. With `C`
//! concordant and `D` discordant pairs, the tie-corrected statistic is
//! `tau_b = (C - D) / sqrt((n0 - n1) * (n0 - n2))`, where `n0 = n(n-1)/2`, `n1` is the number of
//! pairs tied in `x` and `n2` the number tied in `y` (Kendall 1945; what `scipy.stats.kendalltau`
//! computes by default). It is 1 for identical orders, -1 for reversed ones.

/// Kendall's tau-b of two score lists over the same items (`x[i]` and `y[i]` score item `i`).
/// `None` when the lists differ in length, hold fewer than two items, or one of them ties
/// every pair (the statistic is undefined then).
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 {
        return None;
    }
    let pairs: Vec<(usize, usize)> = (0..x.len())
        .flat_map(|i| (i + 1..x.len()).map(move |j| (i, j)))
        .collect();
    tau_b_over_pairs(x, y, &pairs)
}

/// Kendall's tau-b of two score lists counted over `pairs` only (each `(i, j)` indexes both
/// lists): `(C - D) / sqrt((n - tied_x) * (n - tied_y))` over the `n` pairs. `None` when no
/// pair is given, an index is out of range, or one list ties every pair.
pub fn tau_b_over_pairs(x: &[f64], y: &[f64], pairs: &[(usize, usize)]) -> Option<f64> {
    let (mut concordant, mut discordant, mut tied_x, mut tied_y) = (0i64, 0i64, 0i64, 0i64);
    for &(i, j) in pairs {
        let dx = sign(*x.get(i)? - *x.get(j)?);
        let dy = sign(*y.get(i)? - *y.get(j)?);
        tied_x += i64::from(dx == 0);
        tied_y += i64::from(dy == 0);
        match dx * dy {
            1 => concordant += 1,
            -1 => discordant += 1,
            _ => {}
        }
    }
    let n = pairs.len() as i64;
    let denominator = (((n - tied_x) * (n - tied_y)) as f64).sqrt();
    (denominator > 0.0).then(|| (concordant - discordant) as f64 / denominator)
}

/// -1, 0 or 1; a difference within 1e-12 is a tie (scores are means of floats).
fn sign(d: f64) -> i64 {
    if d.abs() <= 1e-12 {
        0
    } else if d > 0.0 {
        1
    } else {
        -1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn identical_and_reversed_orders_give_one_and_minus_one() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert!(close(kendall_tau_b(&x, &[10.0, 20.0, 30.0, 40.0]), 1.0));
        assert!(close(kendall_tau_b(&x, &[4.0, 3.0, 2.0, 1.0]), -1.0));
    }

    #[test]
    fn a_hand_example_with_ties_matches_tau_b() {
        // Five configurations. Pairs (10 in all), by hand:
        // x = [1, 2, 2, 3, 4], y = [1, 3, 2, 2, 4]
        // (0,1) C  (0,2) C  (0,3) C  (0,4) C
        // (1,2) tie in x  (1,3) D (x 2<3, y 3>2)  (1,4) C
        // (2,3) tie in y  (2,4) C
        // (3,4) C
        // C = 7, D = 1, tied in x: 1, tied in y: 1.
        // tau_b = (7 - 1) / sqrt((10 - 1) * (10 - 1)) = 6 / 9.
        let x = [1.0, 2.0, 2.0, 3.0, 4.0];
        let y = [1.0, 3.0, 2.0, 2.0, 4.0];
        assert!(close(kendall_tau_b(&x, &y), 6.0 / 9.0));
        // tau-b is symmetric in its arguments.
        assert!(close(kendall_tau_b(&y, &x), 6.0 / 9.0));
    }

    #[test]
    fn undefined_cases_are_none() {
        assert_eq!(kendall_tau_b(&[1.0], &[1.0]), None);
        assert_eq!(kendall_tau_b(&[1.0, 2.0], &[1.0]), None);
        // Every pair tied in y.
        assert_eq!(kendall_tau_b(&[1.0, 2.0, 3.0], &[5.0, 5.0, 5.0]), None);
    }
}
