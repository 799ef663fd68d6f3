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
//! | yardsticks | `rank_agreement` | Kendall's tau-b between two rankings of configurations |
//! | yardstick noise | `rank_noise` | bootstrap band of a set's own ranking, pairs it separates |

pub mod cost;
pub mod errors;
pub mod funcqa;
pub mod pass_rate;
pub mod path;
pub mod rank_agreement;
pub mod rank_noise;
mod rate;
pub mod retrieval;
pub mod variance;
pub mod win_rate;

pub use rate::Rate;
pub(crate) use rate::to_f64;

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
