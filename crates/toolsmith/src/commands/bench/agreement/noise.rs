//! The noise figures of `bench agreement`, secondary to the plain taus: how stable each set's
//! own ranking is under bootstrap resamples of its queries, and the tau-b over only the pairs
//! of configurations the reference orders beyond its noise (the pairs a yardstick can be held
//! to). Computed from the per-query values kept while scoring, without retrieving again.

use std::fmt;

use serde::Serialize;
use toolsmith_eval::{Band, Bootstrap, tau_b_over_pairs};

/// A configuration's value of each measure on every query of one set (%), in the set's order.
#[derive(Clone, Debug, Default)]
pub(super) struct PerQuery {
    pub(super) ndcg_10: Vec<f64>,
    pub(super) coverage: Vec<f64>,
    pub(super) recall_10: Vec<f64>,
}

/// The noise figures per measure.
#[derive(Debug, Serialize)]
pub(super) struct Noise {
    /// Bootstrap resamples drawn from each set.
    resamples: usize,
    /// The seed of the draws.
    seed: u64,
    ndcg_10: MeasureNoise,
    coverage: MeasureNoise,
    recall_10: MeasureNoise,
}

/// One measure's noise figures.
#[derive(Debug, Serialize)]
struct MeasureNoise {
    /// Tau-b between each set's ranking and its resamples' rankings (reference, then the set
    /// under test); `None` where undefined on every resample.
    self_tau: [Option<Band>; 2],
    /// Configuration pairs whose reference difference has a 5-95% bootstrap band excluding 0.
    separated_pairs: usize,
    /// All configuration pairs.
    pairs: usize,
    /// Tau-b between the two sets' rankings counted over the separated pairs only.
    tau_separated: Option<f64>,
}

impl Noise {
    /// The figures of the configurations whose per-query values on the reference and on the
    /// tested set are `configs`, from `resamples` draws seeded by `seed`.
    pub(super) fn of(configs: &[&[PerQuery; 2]], resamples: usize, seed: u64) -> Self {
        Self {
            resamples,
            seed,
            ndcg_10: MeasureNoise::of(configs, |p| &p.ndcg_10, resamples, seed),
            coverage: MeasureNoise::of(configs, |p| &p.coverage, resamples, seed),
            recall_10: MeasureNoise::of(configs, |p| &p.recall_10, resamples, seed),
        }
    }

    /// The figures as text, `names` being the reference's and the tested set's.
    pub(super) fn write(
        &self,
        f: &mut fmt::Formatter<'_>,
        names: &[&str; 2],
        k: usize,
    ) -> fmt::Result {
        let measures = [
            ("NDCG@10".to_owned(), &self.ndcg_10),
            (format!("offered-path coverage@{k}"), &self.coverage),
            ("Recall@10".to_owned(), &self.recall_10),
        ];
        writeln!(
            f,
            "Noise, secondary ({} bootstrap resamples of each set's queries, seed {}):",
            self.resamples, self.seed
        )?;
        writeln!(
            f,
            "  tau-b of a set's own ranking against its resamples', median [5%, 95%]:"
        )?;
        for (label, m) in &measures {
            writeln!(
                f,
                "    {label}: {} {}; {} {}",
                names[0],
                band(m.self_tau[0]),
                names[1],
                band(m.self_tau[1])
            )?;
        }
        writeln!(
            f,
            "  tau-b over the pairs {} orders beyond its noise (5-95% band of the difference excludes 0):",
            names[0]
        )?;
        for (label, m) in &measures {
            writeln!(
                f,
                "    {label}: {} over {} of {} pairs",
                m.tau_separated
                    .map_or_else(|| "undefined".to_owned(), |t| format!("{t:.3}")),
                m.separated_pairs,
                m.pairs
            )?;
        }
        Ok(())
    }
}

impl MeasureNoise {
    fn of(
        configs: &[&[PerQuery; 2]],
        values: fn(&PerQuery) -> &Vec<f64>,
        resamples: usize,
        seed: u64,
    ) -> Self {
        let draw = |set: usize| {
            let grid: Vec<Vec<f64>> = configs.iter().map(|c| values(&c[set]).clone()).collect();
            Bootstrap::draw(&grid, resamples, seed)
        };
        let boots = [draw(0), draw(1)];
        let separated = boots[0]
            .as_ref()
            .map(Bootstrap::separated_pairs)
            .unwrap_or_default();
        let tau_separated = match &boots {
            [Some(reference), Some(tested)] => {
                tau_b_over_pairs(reference.full(), tested.full(), &separated)
            }
            _ => None,
        };
        let n = configs.len();
        Self {
            self_tau: [
                boots[0].as_ref().and_then(Bootstrap::tau_band),
                boots[1].as_ref().and_then(Bootstrap::tau_band),
            ],
            separated_pairs: separated.len(),
            pairs: n * n.saturating_sub(1) / 2,
            tau_separated,
        }
    }
}

fn band(b: Option<Band>) -> String {
    b.map_or_else(
        || "undefined".to_owned(),
        |b| format!("{:.3} [{:.3}, {:.3}]", b.median, b.p5, b.p95),
    )
}
