//! The activation gate's decision: is an API's candidate doc no worse than its active doc on
//! the eval queries whose gold path touches the API?
//!
//! The measure is the gold API's rank for each such query, once in a corpus of the active docs
//! and once in a corpus of the candidates ([`PairedRank`]). The rule ([`GateRule`], the
//! `[refine.gate]` setting) reads those pairs:
//!
//! - **sign test** (default): the candidate is worse when it ranks the gold API lower in more
//!   pairs than it ranks it higher, or when a one-sided paired sign test rejects "no worse" at
//!   `alpha` (0.05): among the untied pairs, the share where the candidate ranks the gold API
//!   lower is improbably high for a fair coin. Robust to a few large rank swings, it needs no
//!   assumption on how ranks are distributed. The test alone cannot show "worse" on few
//!   queries (5 of 5 worse is the fewest that can at 0.05), so a candidate that lost its only
//!   query would pass; the balance of the pairs keeps it out.
//! - **margin**: the candidate is worse when its mean rank exceeds the active doc's by more
//!   than `margin` ranks (0 by default: any loss in the mean keeps the active doc). Decides on
//!   one query, and is stricter than the test on small sets.
//!
//! A gold API missing from a ranking's top `depth` ranks `depth + 1`.
//!
//! The scope ([`GateScope`]) says what one decision covers: the whole label (default), from
//! the pairs of every eval query's gold APIs pooled, or each API on its own pairs.
//!
//! For a label whose docs carry views, eval requests within `view_cosine` of any of its views
//! are left out of the decision first ([`near_views`]), and how many is stored with it.

mod decontaminate;
mod sign_test;

use std::fmt;

use serde::{Deserialize, Serialize};

pub use decontaminate::{near_views, word_cosine};
pub use sign_test::p_worse;

/// The gate's settings (`[refine.gate]` of `toolsmith.toml`).
///
/// ```toml
/// [refine.gate]
/// rule = "sign_test"   # sign_test | margin
/// alpha = 0.05         # the sign test's significance level
/// margin = 0.0         # the margin rule's allowance, in mean rank
/// depth = 100          # how deep each ranking is read
/// view_cosine = 0.9    # an eval request this close to a view of the label is left out
/// scope = "label"      # label | api: one decision for the label, or one per API
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GateSettings {
    /// Which rule decides.
    pub rule: RuleKind,
    /// The sign test's significance level.
    pub alpha: f64,
    /// The margin rule's allowance in mean rank.
    pub margin: f64,
    /// How deep each ranking is read (a gold API below ranks `depth + 1`).
    pub depth: usize,
    /// Cosine (with the configured embedder; word sets without one) at or above which an eval
    /// request repeats a view of the label under test and is left out of its decision
    /// (DRAFT's near-duplicate threshold, 0.9, as the query writer's).
    pub view_cosine: f32,
    /// What one decision covers.
    pub scope: GateScope,
}

impl GateSettings {
    /// The defaults: a one-sided sign test at 0.05, rankings read 100 deep.
    pub const DEFAULT: Self = Self {
        rule: RuleKind::SignTest,
        alpha: 0.05,
        margin: 0.0,
        depth: 100,
        view_cosine: 0.9,
        scope: GateScope::Label,
    };

    /// The rule these settings name, with its parameter.
    pub fn rule(&self) -> GateRule {
        match self.rule {
            RuleKind::SignTest => GateRule::SignTest { alpha: self.alpha },
            RuleKind::Margin => GateRule::Margin {
                margin: self.margin,
            },
        }
    }
}

impl Default for GateSettings {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What one gate decision covers.
///
/// The pairs are measured with every candidate of the label in the corpus at once, so only a
/// decision for the whole label applies to the corpus that was measured: activated API by
/// API, the docs of one label compete with the other label's, which no pair saw. With the
/// tens of eval requests a synthetic set gives, most APIs have 0 to 3 pairs, and per-API
/// decisions are close to chance: on Spotify (stand-in model) per-API gating of EasyTool's
/// docs left NDCG@10 at 72.5, below both the original docs (73.5) and all EasyTool docs
/// (74.6); on ToolBench's 282-tool set at 60.5, below the original (61.9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GateScope {
    /// One decision for every candidate of the label, from the pairs of every eval query's
    /// gold APIs (candidates or not: a label can also push other APIs down) pooled.
    #[default]
    Label,
    /// One decision per API, from the pairs of the eval queries whose gold path touches it
    /// (a label with views is still decided as a whole).
    Api,
}

impl fmt::Display for GateScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Label => "label",
            Self::Api => "api",
        })
    }
}

/// The name of a rule in the settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleKind {
    /// [`GateRule::SignTest`].
    SignTest,
    /// [`GateRule::Margin`].
    Margin,
}

/// A decision rule with its parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GateRule {
    /// Worse when more pairs are worse than better, or the one-sided paired sign test
    /// rejects "no worse" at `alpha`.
    SignTest {
        /// Significance level.
        alpha: f64,
    },
    /// Worse when the mean candidate rank exceeds the mean active rank by more than `margin`.
    Margin {
        /// Allowance in mean rank.
        margin: f64,
    },
}

impl fmt::Display for GateRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SignTest { alpha } => write!(f, "sign_test alpha={alpha}"),
            Self::Margin { margin } => write!(f, "margin {margin}"),
        }
    }
}

/// One eval query's rank of a gold API (1-based) with the active docs and with the candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairedRank {
    /// With the active docs.
    pub active: usize,
    /// With the candidate docs.
    pub candidate: usize,
}

/// What the rule found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The candidate is no worse: it may become active.
    NoWorse,
    /// The candidate is worse: the active doc stays.
    Worse,
}

/// The figures a decision rests on (stored with it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateFigures {
    /// Eval queries (query, gold API pairs) measured.
    pub queries: usize,
    /// Pairs where the candidate ranks the gold API higher.
    pub better: usize,
    /// Pairs where it ranks it lower.
    pub worse: usize,
    /// Pairs with the same rank.
    pub ties: usize,
    /// Mean rank with the active docs.
    pub mean_active_rank: f64,
    /// Mean rank with the candidates.
    pub mean_candidate_rank: f64,
    /// The sign test's one-sided p-value of "worse".
    pub p_worse: f64,
    /// What the rule found.
    pub verdict: Verdict,
    /// Eval requests left out as near-duplicates of the label's views (decisions stored
    /// before decontamination read 0).
    #[serde(default)]
    pub near_views: usize,
}

/// Applies `rule` to an API's paired ranks. No pair at all is "no worse" (nothing measured
/// against it); callers decide untested APIs by their own policy before asking.
pub fn judge(rule: GateRule, pairs: &[PairedRank]) -> GateFigures {
    let better = pairs.iter().filter(|p| p.candidate < p.active).count();
    let worse = pairs.iter().filter(|p| p.candidate > p.active).count();
    let n = pairs.len().max(1) as f64;
    let mean = |f: fn(&PairedRank) -> usize| pairs.iter().map(f).sum::<usize>() as f64 / n;
    let mean_active_rank = mean(|p| p.active);
    let mean_candidate_rank = mean(|p| p.candidate);
    let p = p_worse(worse, better);
    let is_worse = match rule {
        GateRule::SignTest { alpha } => worse > better || p < alpha,
        GateRule::Margin { margin } => mean_candidate_rank - mean_active_rank > margin + 1e-12,
    };
    GateFigures {
        queries: pairs.len(),
        better,
        worse,
        ties: pairs.len() - better - worse,
        mean_active_rank,
        mean_candidate_rank,
        p_worse: p,
        verdict: if is_worse {
            Verdict::Worse
        } else {
            Verdict::NoWorse
        },
        near_views: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(ranks: &[(usize, usize)]) -> Vec<PairedRank> {
        ranks
            .iter()
            .map(|&(active, candidate)| PairedRank { active, candidate })
            .collect()
    }

    const SIGN: GateRule = GateRule::SignTest { alpha: 0.05 };

    #[test]
    fn the_sign_test_keeps_a_consistently_worse_candidate() {
        let worse = pairs(&[(1, 3), (2, 5), (1, 2), (4, 9), (1, 101)]);
        let figures = judge(SIGN, &worse);
        assert_eq!((figures.worse, figures.better, figures.ties), (5, 0, 0));
        assert_eq!(figures.verdict, Verdict::Worse);
    }

    #[test]
    fn the_sign_test_passes_a_better_or_balanced_candidate() {
        let better = pairs(&[(3, 1), (5, 2), (2, 1), (9, 4), (101, 1)]);
        assert_eq!(judge(SIGN, &better).verdict, Verdict::NoWorse);
        let balanced = pairs(&[(1, 2), (1, 2), (3, 1), (4, 1), (2, 2)]);
        assert_eq!(judge(SIGN, &balanced).verdict, Verdict::NoWorse);
    }

    #[test]
    fn the_sign_test_keeps_a_candidate_worse_on_balance_even_where_the_test_cannot_tell() {
        // 4 worse, 1 better: p = 6/32, not below 0.05, yet worse in most pairs.
        let mixed = pairs(&[(1, 2), (1, 2), (1, 2), (1, 2), (3, 1)]);
        let figures = judge(SIGN, &mixed);
        assert!((figures.p_worse - 6.0 / 32.0).abs() < 1e-12);
        assert_eq!(figures.verdict, Verdict::Worse);
        // Its only query lost: no test can show it at 0.05, the balance does.
        assert_eq!(judge(SIGN, &pairs(&[(2, 4)])).verdict, Verdict::Worse);
    }

    #[test]
    fn the_margin_rule_reads_the_mean_rank() {
        let slightly = pairs(&[(1, 2), (2, 2)]); // mean 1.5 -> 2.0
        assert_eq!(
            judge(GateRule::Margin { margin: 0.0 }, &slightly).verdict,
            Verdict::Worse
        );
        assert_eq!(
            judge(GateRule::Margin { margin: 0.5 }, &slightly).verdict,
            Verdict::NoWorse
        );
        let same = pairs(&[(2, 2)]);
        assert_eq!(
            judge(GateRule::Margin { margin: 0.0 }, &same).verdict,
            Verdict::NoWorse
        );
    }

    #[test]
    fn settings_name_their_rule() {
        let margin = GateSettings {
            rule: RuleKind::Margin,
            margin: 1.0,
            ..GateSettings::DEFAULT
        };
        assert_eq!(margin.rule(), GateRule::Margin { margin: 1.0 });
        assert_eq!(
            GateSettings::DEFAULT.rule().to_string(),
            "sign_test alpha=0.05"
        );
    }
}
