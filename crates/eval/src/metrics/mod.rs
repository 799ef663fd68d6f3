//! The metrics the five papers report, one module per family. Every metric is a pure function
//! of ids (`T: PartialEq`, in practice [`ApiId`](toolsmith_catalog::ApiId)), numbers or typed
//! verdicts; its doc names the paper it comes from and the exact definition used.
//!
//! | family | module | metrics |
//! |---|---|---|
//! | retrieval | `retrieval` | NDCG@k, Recall@k (ToolBench, DRAFT, EasyTool) |
//! | call paths | `path` | CP, path-set rate, Path F1, LCS rate, success, ΔSL, offered-path coverage |
//! | judged pass | `pass_rate` | ToolEval's decision table and per-query vote, AnyTool's 3-vote rule |
//! | judged preference | `win_rate` | win / tie / loss against a reference run, both orders |
//! | FuncQA | `funcqa` | tolerance accuracy, number extraction |
//! | cost | `cost` | tokens, LLM and tool calls, wall time, money |
//! | failures | `errors` | the error taxonomy of ToolExpNet and EasyTool |
//! | judge spread | `variance` | mean ± sample standard deviation of repeated scores |

use serde::Serialize;

pub mod cost;
pub mod errors;
pub mod funcqa;
pub mod pass_rate;
pub mod path;
pub mod retrieval;
pub mod variance;
pub mod win_rate;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rate_counts_trues_and_is_zero_when_empty() {
        let r = Rate::of([true, false, true, true]);
        assert_eq!((r.hits, r.total), (3, 4));
        assert!((r.value() - 0.75).abs() < 1e-12);
        assert!((r.percent() - 75.0).abs() < 1e-9);
        assert_eq!(Rate::of([]).value(), 0.0);
    }
}
