//! How much of a rank agreement is noise: a set of queries is a sample, so the ranking of
//! configurations it gives would shift on another sample of the same kind. Resampling the
//! queries with replacement (the bootstrap, Efron 1979) shows how far: each resample ranks the
//! configurations by their mean over the drawn queries, and Kendall's tau-b between the full
//! set's ranking and a resample's says how stable the set's own ranking is. A yardstick cannot
//! be held to agree with a reference beyond the reference's own stability.
//!
//! The same resamples tell which pairs of configurations a set separates: a pair whose mean
//! difference keeps one sign within the resamples' 5-95% band is outside the noise; only those
//! pairs a second set can fairly be asked to order the same way ([`tau_b_over_pairs`]).
//!
//! Resamples are paired: one draw of query indices serves every configuration, as every
//! configuration answered the same queries.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;

use super::rank_agreement::kendall_tau_b;
pub use super::rank_agreement::tau_b_over_pairs;

/// The bootstrap resamples of one set: per configuration, the mean over all its queries and
/// over each resample's draw.
#[derive(Clone, Debug)]
pub struct Bootstrap {
    /// Mean per configuration over every query.
    full: Vec<f64>,
    /// Per resample, the mean per configuration over the drawn queries.
    resampled: Vec<Vec<f64>>,
}

/// A statistic's spread over resamples: median and the 5th and 95th percentiles.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Band {
    /// The median.
    pub median: f64,
    /// The 5th percentile.
    pub p5: f64,
    /// The 95th percentile.
    pub p95: f64,
    /// Resamples the statistic was defined on.
    pub resamples: usize,
}

impl Bootstrap {
    /// Draws `resamples` resamples of the queries with replacement, from `seed`.
    /// `values[c][q]` is configuration `c`'s value on query `q`; every configuration has one
    /// value per query. `None` when there are no configurations, no queries, or the
    /// configurations' query counts differ.
    pub fn draw(values: &[Vec<f64>], resamples: usize, seed: u64) -> Option<Self> {
        let queries = values.first()?.len();
        if queries == 0 || values.iter().any(|v| v.len() != queries) {
            return None;
        }
        let mut rng = StdRng::seed_from_u64(seed);
        let mut resampled = Vec::with_capacity(resamples);
        let mut drawn = vec![0usize; queries];
        for _ in 0..resamples {
            drawn
                .iter_mut()
                .for_each(|d| *d = rng.random_range(0..queries));
            resampled.push(
                values
                    .iter()
                    .map(|v| drawn.iter().map(|&q| v[q]).sum::<f64>() / queries as f64)
                    .collect(),
            );
        }
        let full = values
            .iter()
            .map(|v| v.iter().sum::<f64>() / queries as f64)
            .collect();
        Some(Self { full, resampled })
    }

    /// The mean per configuration over every query.
    pub fn full(&self) -> &[f64] {
        &self.full
    }

    /// Kendall's tau-b between the full set's ranking and each resample's; `None` when it is
    /// undefined on every resample (the configurations tie throughout).
    pub fn tau_band(&self) -> Option<Band> {
        let taus = self
            .resampled
            .iter()
            .filter_map(|r| kendall_tau_b(&self.full, r))
            .collect();
        band(taus)
    }

    /// The pairs `(i, j)`, `i < j`, whose difference `mean_i - mean_j` has a 5-95% band over
    /// the resamples that excludes zero, with the full set's difference of the same sign.
    pub fn separated_pairs(&self) -> Vec<(usize, usize)> {
        let n = self.full.len();
        let mut pairs = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                let diffs = self.resampled.iter().map(|r| r[i] - r[j]).collect();
                let Some(b) = band(diffs) else { continue };
                let full = self.full[i] - self.full[j];
                if (b.p5 > 0.0 && full > 0.0) || (b.p95 < 0.0 && full < 0.0) {
                    pairs.push((i, j));
                }
            }
        }
        pairs
    }
}

/// Median and 5-95% percentiles (nearest rank on the sorted values); `None` when empty.
fn band(mut values: Vec<f64>) -> Option<Band> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let at = |p: f64| values[((values.len() - 1) as f64 * p).round() as usize];
    Some(Band {
        median: at(0.5),
        p5: at(0.05),
        p95: at(0.95),
        resamples: values.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three configurations on six queries: `a` wins every query by far, `b` and `c` differ
    /// on one query only (noise).
    fn grid() -> Vec<Vec<f64>> {
        vec![
            vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            vec![0.0, 0.0, 0.0, 0.0, 0.0, 0.5],
            vec![0.0, 0.0, 0.0, 0.0, 0.5, 0.0],
        ]
    }

    #[test]
    fn the_band_of_a_seeded_bootstrap_is_reproducible_and_spans_the_noise() {
        let boot = Bootstrap::draw(&grid(), 200, 7).unwrap();
        assert_eq!(boot.full(), &[1.0, 0.5 / 6.0, 0.5 / 6.0]);
        let band = boot.tau_band().unwrap();
        assert_eq!(
            Some(band),
            Bootstrap::draw(&grid(), 200, 7).unwrap().tau_band(),
            "the same seed draws the same resamples"
        );
        // The full ranking ties b and c; a resample that draws query 5 but not 4 (or the
        // reverse) breaks the tie (tau-b sqrt(2/3) = 0.816), one drawing both or neither keeps
        // it (1.0). Either happens in a sizeable share of 200 resamples.
        assert_eq!(band.resamples, 200);
        assert!((band.p95 - 1.0).abs() < 1e-12, "{band:?}");
        assert!((band.p5 - (2.0f64 / 3.0).sqrt()).abs() < 1e-9, "{band:?}");
        assert!(band.median >= band.p5 && band.median <= band.p95);
    }

    #[test]
    fn only_a_difference_outside_the_noise_separates_a_pair() {
        let boot = Bootstrap::draw(&grid(), 200, 7).unwrap();
        assert_eq!(boot.separated_pairs(), vec![(0, 1), (0, 2)]);
    }

    #[test]
    fn tau_over_pairs_counts_only_the_given_pairs() {
        let reference = [3.0, 2.0, 1.0, 0.0];
        let test = [3.0, 2.0, 0.0, 1.0];
        // Over all six pairs one is discordant: tau-b = (5 - 1) / 6.
        assert!((kendall_tau_b(&reference, &test).unwrap() - 4.0 / 6.0).abs() < 1e-12);
        let separated = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)];
        assert_eq!(tau_b_over_pairs(&reference, &test, &separated), Some(1.0));
        assert_eq!(tau_b_over_pairs(&reference, &test, &[(2, 3)]), Some(-1.0));
        // A tie in the tested list counts as neither: (1 - 0) / sqrt(2 * 1).
        let tied = [3.0, 3.0, 1.0, 0.0];
        let got = tau_b_over_pairs(&reference, &tied, &[(0, 1), (1, 2)]).unwrap();
        assert!((got - 1.0 / 2f64.sqrt()).abs() < 1e-12, "{got}");
        assert_eq!(tau_b_over_pairs(&reference, &test, &[]), None);
        assert_eq!(tau_b_over_pairs(&reference, &test, &[(0, 9)]), None);
    }

    #[test]
    fn a_ragged_or_empty_grid_draws_nothing() {
        assert!(Bootstrap::draw(&[], 10, 0).is_none());
        assert!(Bootstrap::draw(&[vec![], vec![]], 10, 0).is_none());
        assert!(Bootstrap::draw(&[vec![1.0], vec![1.0, 2.0]], 10, 0).is_none());
    }
}
