//! Win rate against a reference run (ToolEval's `eval_preference.py`; DRAFT and ToolExpNet
//! report it against ReAct): a judge compares the candidate's and the reference's run on each
//! query, and the candidate wins the query when it collects more votes.
//!
//! Each round is judged in both orders (candidate first, then reference first), so a judge
//! that always prefers the first position gives one vote to each side and the round ties
//! instead of deciding the query. ToolEval shuffles the order once per round; judging both
//! orders removes position bias instead of averaging it out. Ties are reported apart, never
//! counted as half a win unless asked for ([`WinRate::rate_ties_half`]).

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::judge::{Judge, Preference};
use crate::metrics::rate::to_f64;
use crate::run::RunRecord;

/// One round of pairwise judging: the judge's preference with each run shown first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairedVerdict {
    /// The verdict when the candidate was shown first.
    pub candidate_first: Preference,
    /// The verdict when the reference was shown first.
    pub reference_first: Preference,
}

impl PairedVerdict {
    /// Votes for (candidate, reference) in this round: one per order, none for a tie.
    pub fn votes(&self) -> (usize, usize) {
        let (mut candidate, mut reference) = (0, 0);
        match self.candidate_first {
            Preference::First => candidate += 1,
            Preference::Second => reference += 1,
            Preference::Tie => {}
        }
        match self.reference_first {
            Preference::First => reference += 1,
            Preference::Second => candidate += 1,
            Preference::Tie => {}
        }
        (candidate, reference)
    }

    /// ToolEval's shortcut: when exactly one of the two runs passed the pass-rate judgement,
    /// it wins the round outright, without asking the judge. `None` when both or neither
    /// passed (then the judge decides).
    pub fn from_pass_labels(candidate_passed: bool, reference_passed: bool) -> Option<Self> {
        let winner = match (candidate_passed, reference_passed) {
            (true, false) => true,
            (false, true) => false,
            _ => return None,
        };
        let (candidate_first, reference_first) = if winner {
            (Preference::First, Preference::Second)
        } else {
            (Preference::Second, Preference::First)
        };
        Some(Self {
            candidate_first,
            reference_first,
        })
    }
}

/// How the candidate did on one query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PairOutcome {
    /// More votes than the reference.
    Win,
    /// As many.
    Tie,
    /// Fewer.
    Loss,
}

/// The candidate's outcome on a query over all its judged rounds: votes summed, more wins,
/// equal ties (also when there were no rounds).
pub fn pair_outcome(rounds: &[PairedVerdict]) -> PairOutcome {
    let (candidate, reference) = rounds
        .iter()
        .map(PairedVerdict::votes)
        .fold((0, 0), |(c, r), (dc, dr)| (c + dc, r + dr));
    match candidate.cmp(&reference) {
        std::cmp::Ordering::Greater => PairOutcome::Win,
        std::cmp::Ordering::Equal => PairOutcome::Tie,
        std::cmp::Ordering::Less => PairOutcome::Loss,
    }
}

/// Wins, ties and losses over queries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WinRate {
    /// Queries the candidate won.
    pub wins: usize,
    /// Queries tied.
    pub ties: usize,
    /// Queries lost.
    pub losses: usize,
}

impl WinRate {
    /// Counts per-query outcomes.
    pub fn of(outcomes: impl IntoIterator<Item = PairOutcome>) -> Self {
        let mut out = Self::default();
        for outcome in outcomes {
            match outcome {
                PairOutcome::Win => out.wins += 1,
                PairOutcome::Tie => out.ties += 1,
                PairOutcome::Loss => out.losses += 1,
            }
        }
        out
    }

    /// Queries counted.
    pub fn total(&self) -> usize {
        self.wins + self.ties + self.losses
    }

    fn share(&self, n: usize) -> f64 {
        match self.total() {
            0 => 0.0,
            total => to_f64(n) / to_f64(total),
        }
    }

    /// ToolEval's win rate: wins over all queries, ties counting as not won. In [0, 1].
    pub fn rate(&self) -> f64 {
        self.share(self.wins)
    }

    /// The share of tied queries, reported beside the win rate.
    pub fn tie_rate(&self) -> f64 {
        self.share(self.ties)
    }

    /// Wins plus half the ties over all queries: the normalisation under which the reference
    /// compared with itself scores 0.5, as ToolExpNet prints ReAct's row at 50.00.
    pub fn rate_ties_half(&self) -> f64 {
        (to_f64(self.wins) + to_f64(self.ties) / 2.0) / to_f64(self.total().max(1))
    }
}

/// Judges one round in both orders.
pub async fn judge_pair<J: Judge + ?Sized>(
    judge: &J,
    query: &str,
    candidate: &RunRecord,
    reference: &RunRecord,
) -> Result<PairedVerdict> {
    let candidate_first = judge.prefer(query, candidate, reference).await?;
    let reference_first = judge.prefer(query, reference, candidate).await?;
    Ok(PairedVerdict {
        candidate_first,
        reference_first,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ScriptedJudge;
    use toolsmith_solve::Finish;

    use Preference::{First, Second, Tie};

    fn round(candidate_first: Preference, reference_first: Preference) -> PairedVerdict {
        PairedVerdict {
            candidate_first,
            reference_first,
        }
    }

    #[test]
    fn votes_follow_the_order_shown() {
        // Consistent preference for the candidate: 2 votes to 0.
        assert_eq!(round(First, Second).votes(), (2, 0));
        assert_eq!(round(Second, First).votes(), (0, 2));
        // Position bias (always the first shown): one each, cancelled.
        assert_eq!(round(First, First).votes(), (1, 1));
        assert_eq!(round(Second, Second).votes(), (1, 1));
        assert_eq!(round(Tie, Second).votes(), (1, 0));
        assert_eq!(round(Tie, Tie).votes(), (0, 0));
    }

    #[test]
    fn outcomes_and_rates_by_hand() {
        // q1: 2-0 win; q2: position bias both rounds, tie; q3: 1-2 loss; q4: no rounds, tie.
        let queries = [
            vec![round(First, Second)],
            vec![round(First, First), round(Second, Second)],
            vec![round(Tie, Second), round(Second, Tie), round(Tie, First)],
            vec![],
        ];
        let outcomes: Vec<PairOutcome> = queries.iter().map(|q| pair_outcome(q)).collect();
        assert_eq!(
            outcomes,
            [
                PairOutcome::Win,
                PairOutcome::Tie,
                PairOutcome::Loss,
                PairOutcome::Tie
            ]
        );
        let rate = WinRate::of(outcomes);
        assert_eq!(
            (rate.wins, rate.ties, rate.losses, rate.total()),
            (1, 2, 1, 4)
        );
        assert!((rate.rate() - 0.25).abs() < 1e-12);
        assert!((rate.tie_rate() - 0.5).abs() < 1e-12);
        assert!((rate.rate_ties_half() - 0.5).abs() < 1e-12);
        // No queries: 0, not NaN.
        assert_eq!(WinRate::default().rate(), 0.0);
        assert_eq!(WinRate::default().rate_ties_half(), 0.0);
    }

    #[test]
    fn pass_labels_decide_without_a_judge_when_they_differ() {
        assert_eq!(
            PairedVerdict::from_pass_labels(true, false).map(|v| v.votes()),
            Some((2, 0))
        );
        assert_eq!(
            PairedVerdict::from_pass_labels(false, true).map(|v| v.votes()),
            Some((0, 2))
        );
        assert_eq!(PairedVerdict::from_pass_labels(true, true), None);
        assert_eq!(PairedVerdict::from_pass_labels(false, false), None);
    }

    #[tokio::test]
    async fn judge_pair_asks_both_orders() -> Result<()> {
        let judge = ScriptedJudge::new().preferences([First, First]);
        let run = RunRecord {
            calls: Vec::new(),
            finish: Finish::Answered,
            answer: Some("42".into()),
        };
        let verdict = judge_pair(&judge, "q", &run, &run).await?;
        assert_eq!(verdict, round(First, First));
        assert_eq!(pair_outcome(&[verdict]), PairOutcome::Tie);
        assert_eq!(judge.requests().len(), 2);
        Ok(())
    }
}
