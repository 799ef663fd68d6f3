//! Per-query scores of a harness run ([`QueryScores`]), a run's summary ([`RunSummary`]) and
//! the side-by-side table of several runs ([`Comparison`]). Every number comes from the pure
//! metric functions of [`crate::metrics`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;
use toolsmith_solve::{CallCounts, Finish, Run, RunLimit, TraceEvent};

use crate::metrics::cost::{Prices, QueryCost};
use crate::metrics::errors::{ErrorKind, TaxonomyContext, classify};
use crate::metrics::funcqa::funcqa_answer_correct;
use crate::metrics::path::{
    SolutionLength, correct_path_in_steps, delta_solution_length, lcs_path_rate, offered_covers,
    path_f1, path_set, path_success,
};
use crate::metrics::{Rate, to_f64};
use crate::run::RunRecord;

/// Everything measured on one query of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueryScores {
    /// How the run ended.
    pub finish: Finish,
    /// It gave a non-empty answer.
    pub answered: bool,
    /// CP: the gold path is an ordered subsequence of the calls (RestGPT), the calls a model
    /// made together in one turn counting in any order ([`correct_path_in_steps`]).
    pub correct_path: bool,
    /// Every gold API was called, in any order (DRAFT's ToolBench script).
    pub path_set: bool,
    /// ConAgents' Path F1.
    pub path_f1: f64,
    /// ConAgents' LCS(pred, gold) rate.
    pub lcs_rate: f64,
    /// ConAgents' success: every gold API called and the run answered.
    pub success: bool,
    /// Every gold API was among the tools offered (or found through `search_tools`).
    pub offered_covers: bool,
    /// API calls made (for the Delta solution length).
    pub api_calls: usize,
    /// Length of the gold path.
    pub gold_len: usize,
    /// Prompt plus completion tokens.
    pub tokens: u64,
    /// LLM calls.
    pub llm_calls: usize,
    /// Tool calls of any kind (unknown names and `search_tools` included).
    pub tool_calls: usize,
    /// Wall time of the query, in milliseconds.
    pub wall_ms: u64,
    /// The tool calls counted apart: executed, rejected (bad arguments, never run), unknown
    /// tools, not run, searches. Zeros in scores stored before they were counted.
    #[serde(default)]
    pub calls: CallCounts,
    /// The budget or limit that ended the run, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<RunLimit>,
    /// Prompt tokens (of `tokens`), for the cost at configured prices.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// FuncQA: the answer's number is within 0.1% of the gold one (`None` for datasets
    /// without a gold answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_correct: Option<bool>,
    /// The gold path the query was scored against (empty in scores stored before it was kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gold: Vec<ApiId>,
    /// The gold answer, for datasets that have one (FuncQA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gold_answer: Option<f64>,
    /// The error taxonomy of a failed run (empty when it succeeded). The harness supplies no
    /// similarity or dependency relations yet, so tool misselection is never reported (a
    /// missing gold API counts as an incomplete invocation) and dependency neglect is found
    /// only from ids that no earlier observation or the query contained.
    pub errors: Vec<ErrorKind>,
}

impl QueryScores {
    /// Scores one run against its query's gold path and the APIs it was offered.
    pub fn of(
        run: &Run,
        record: &RunRecord,
        gold: &[ApiId],
        offered: &[ApiId],
        wall_ms: u64,
    ) -> Self {
        let called = record.api_path();
        let answered = record.answered();
        let success = path_success(&called, gold, answered);
        let errors = if success {
            Vec::new()
        } else {
            classify(
                record,
                &TaxonomyContext {
                    query: &run.query,
                    gold,
                    similar: &[],
                    depends_on: &[],
                },
            )
            .kinds
        };
        Self {
            finish: run.finish,
            answered,
            correct_path: correct_path_in_steps(&record.api_steps(), gold),
            path_set: path_set(&called, gold),
            path_f1: path_f1(&called, gold, answered).f1,
            lcs_rate: lcs_path_rate(&called, gold, answered),
            success,
            offered_covers: offered_covers(offered, gold),
            api_calls: called.len(),
            gold_len: gold.len(),
            tokens: run.tokens(),
            llm_calls: run.llm_calls(),
            tool_calls: run
                .trace
                .iter()
                .filter(|e| matches!(e.event, TraceEvent::ToolCall { .. }))
                .count(),
            wall_ms,
            calls: run.call_counts(),
            limit: run.limit(),
            prompt_tokens: run
                .trace
                .iter()
                .map(|e| match &e.event {
                    TraceEvent::LlmCall { prompt_tokens, .. } => *prompt_tokens,
                    _ => 0,
                })
                .sum(),
            answer_correct: None,
            gold: gold.to_vec(),
            gold_answer: None,
            errors,
        }
    }

    /// Scores the answer against a gold number (FuncQA's tolerance of 0.1%).
    pub fn with_gold_answer(mut self, record: &RunRecord, gold: Option<f64>) -> Self {
        self.gold_answer = gold;
        self.answer_correct = gold.map(|gold| {
            record.answered()
                && record
                    .answer
                    .as_deref()
                    .is_some_and(|a| funcqa_answer_correct(a, gold))
        });
        self
    }

    /// What the query cost, for [`Prices`].
    pub fn cost(&self) -> QueryCost {
        QueryCost {
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.tokens.saturating_sub(self.prompt_tokens),
            llm_calls: u64::try_from(self.llm_calls).unwrap_or(u64::MAX),
            tool_calls: u64::try_from(self.calls.executed).unwrap_or(u64::MAX),
            wall: std::time::Duration::from_millis(self.wall_ms),
        }
    }
}

/// The means and totals of a run's query scores. Rates are percentages; F1 and LCS rate are
/// means in [0, 1].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Queries scored.
    pub queries: usize,
    /// CP%.
    pub cp: f64,
    /// Path-set rate, %.
    pub path_set: f64,
    /// Mean Path F1.
    pub path_f1: f64,
    /// Mean LCS rate.
    pub lcs_rate: f64,
    /// Success rate, %.
    pub success: f64,
    /// Answered rate, %.
    pub answered: f64,
    /// Offered-path coverage, %.
    pub coverage: f64,
    /// Mean extra API calls over the gold path, over successful runs (RestGPT's ΔSL); `None`
    /// when no run succeeded.
    pub delta_solution_length: Option<f64>,
    /// Tokens over all queries.
    pub tokens: u64,
    /// LLM calls over all queries.
    pub llm_calls: usize,
    /// Tool calls over all queries.
    pub tool_calls: usize,
    /// Wall time summed over queries, in milliseconds.
    pub wall_ms: u64,
    /// The tool calls of all queries, counted apart (executed, rejected, unknown tools, not
    /// run, searches).
    #[serde(default)]
    pub calls: CallCounts,
    /// FuncQA accuracy, %: answers within 0.1% of the gold number, over the queries that have
    /// one (`None` when none has).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
    /// What the run cost at the configured prices (`None` without prices; see
    /// [`RunSummary::priced`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// What judging the run cost, already counted in `cost` (`None` without prices or
    /// judgements; see `RunSummary::with_judging`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judging_cost: Option<f64>,
    /// How many failed queries show each error kind.
    pub errors: BTreeMap<ErrorKind, usize>,
}

impl RunSummary {
    /// Summarizes query scores.
    pub fn of<'a>(scores: impl IntoIterator<Item = &'a QueryScores>) -> Self {
        let scores: Vec<&QueryScores> = scores.into_iter().collect();
        let rate = |f: fn(&QueryScores) -> bool| Rate::of(scores.iter().map(|s| f(s))).percent();
        let mean = |f: fn(&QueryScores) -> f64| {
            if scores.is_empty() {
                0.0
            } else {
                scores.iter().map(|s| f(s)).sum::<f64>() / to_f64(scores.len())
            }
        };
        let lengths: Vec<SolutionLength> = scores
            .iter()
            .map(|s| SolutionLength {
                called: s.api_calls,
                gold: s.gold_len,
                success: s.success,
            })
            .collect();
        let mut errors = BTreeMap::new();
        for kind in scores.iter().flat_map(|s| &s.errors) {
            *errors.entry(*kind).or_insert(0) += 1;
        }
        Self {
            queries: scores.len(),
            cp: rate(|s| s.correct_path),
            path_set: rate(|s| s.path_set),
            path_f1: mean(|s| s.path_f1),
            lcs_rate: mean(|s| s.lcs_rate),
            success: rate(|s| s.success),
            answered: rate(|s| s.answered),
            coverage: rate(|s| s.offered_covers),
            delta_solution_length: delta_solution_length(&lengths),
            tokens: scores.iter().map(|s| s.tokens).sum(),
            llm_calls: scores.iter().map(|s| s.llm_calls).sum(),
            tool_calls: scores.iter().map(|s| s.tool_calls).sum(),
            wall_ms: scores.iter().map(|s| s.wall_ms).sum(),
            calls: scores
                .iter()
                .fold(CallCounts::default(), |a, s| CallCounts {
                    executed: a.executed + s.calls.executed,
                    rejected: a.rejected + s.calls.rejected,
                    unknown_tool: a.unknown_tool + s.calls.unknown_tool,
                    not_run: a.not_run + s.calls.not_run,
                    searches: a.searches + s.calls.searches,
                }),
            accuracy: {
                let graded: Vec<bool> = scores.iter().filter_map(|s| s.answer_correct).collect();
                (!graded.is_empty()).then(|| Rate::of(graded).percent())
            },
            cost: None,
            judging_cost: None,
            errors,
        }
    }

    /// Summarizes query scores and prices their tokens (`None`: no prices configured).
    pub fn priced<'a>(
        scores: impl IntoIterator<Item = &'a QueryScores>,
        prices: Option<&Prices>,
    ) -> Self {
        let scores: Vec<&QueryScores> = scores.into_iter().collect();
        let mut summary = Self::of(scores.iter().copied());
        summary.cost = prices.map(|p| scores.iter().map(|s| p.cost(&s.cost())).sum());
        summary
    }

    /// The summary's metrics by name, in [`Comparison::METRICS`] order (`None` where
    /// undefined).
    pub fn metrics(&self) -> [Option<f64>; 10] {
        let tokens = usize::try_from(self.tokens).unwrap_or(usize::MAX);
        [
            Some(self.cp),
            Some(self.path_set),
            Some(self.path_f1),
            Some(self.lcs_rate),
            Some(self.success),
            Some(self.coverage),
            self.delta_solution_length,
            Some(to_f64(tokens)),
            Some(to_f64(self.llm_calls)),
            Some(to_f64(self.tool_calls)),
        ]
    }
}

/// One run's row of a [`Comparison`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComparedRun {
    /// The run's id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// Queries scored.
    pub queries: usize,
    /// Each metric of [`Comparison::METRICS`], by name.
    pub values: BTreeMap<&'static str, Option<f64>>,
    /// Each metric minus the first run's (`None` for the first run's own row's undefined
    /// values and where either side is undefined).
    pub deltas: BTreeMap<&'static str, Option<f64>>,
}

/// Runs side by side (methods x metrics), with deltas against the first run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The metric names, in column order.
    pub metrics: Vec<&'static str>,
    /// One row per run, in the order given.
    pub runs: Vec<ComparedRun>,
}

impl Comparison {
    /// The compared metrics: CP%, path-set %, Path F1, LCS rate, success %, offered-path
    /// coverage %, Delta solution length, tokens, LLM calls, tool calls.
    pub const METRICS: [&'static str; 10] = [
        "cp",
        "path_set",
        "path_f1",
        "lcs_rate",
        "success",
        "coverage",
        "delta_solution_length",
        "tokens",
        "llm_calls",
        "tool_calls",
    ];

    /// Compares runs given as `(id, name, summary)`; the first is the baseline.
    pub fn of(runs: &[(i64, String, RunSummary)]) -> Self {
        let base = runs.first().map(|(_, _, s)| s.metrics());
        let rows = runs
            .iter()
            .map(|(id, name, summary)| {
                let values = summary.metrics();
                let deltas = values.iter().enumerate().map(|(i, v)| {
                    let b = base.as_ref().and_then(|b| b.get(i).copied().flatten());
                    v.zip(b).map(|(v, b)| v - b)
                });
                ComparedRun {
                    id: *id,
                    name: name.clone(),
                    queries: summary.queries,
                    values: Self::METRICS.into_iter().zip(values).collect(),
                    deltas: Self::METRICS.into_iter().zip(deltas).collect(),
                }
            })
            .collect();
        Self {
            metrics: Self::METRICS.to_vec(),
            runs: rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(cp: bool, success: bool, api_calls: usize, errors: Vec<ErrorKind>) -> QueryScores {
        QueryScores {
            finish: Finish::Answered,
            answered: true,
            correct_path: cp,
            path_set: cp,
            path_f1: if cp { 1.0 } else { 0.5 },
            lcs_rate: if cp { 1.0 } else { 0.0 },
            success,
            offered_covers: true,
            api_calls,
            gold_len: 2,
            tokens: 100,
            llm_calls: 3,
            tool_calls: api_calls,
            wall_ms: 10,
            calls: CallCounts {
                executed: api_calls,
                ..CallCounts::default()
            },
            limit: None,
            prompt_tokens: 80,
            answer_correct: None,
            gold: Vec::new(),
            gold_answer: None,
            errors,
        }
    }

    #[test]
    fn a_summary_averages_rates_and_counts_error_kinds() {
        let all = [
            scores(true, true, 3, vec![]),
            scores(false, false, 1, vec![ErrorKind::IncompleteInvocation]),
        ];
        let s = RunSummary::of(&all);
        assert_eq!(s.queries, 2);
        assert!((s.cp - 50.0).abs() < 1e-9);
        assert!((s.path_f1 - 0.75).abs() < 1e-9);
        assert_eq!(s.delta_solution_length, Some(1.0));
        assert_eq!((s.tokens, s.llm_calls, s.tool_calls), (200, 6, 4));
        assert_eq!(s.errors.get(&ErrorKind::IncompleteInvocation), Some(&1));
        let empty = RunSummary::of(&[]);
        assert_eq!(
            (empty.cp, empty.path_f1, empty.delta_solution_length),
            (0.0, 0.0, None)
        );
    }

    #[test]
    fn a_comparison_gives_deltas_against_the_first_run() {
        let a = RunSummary::of(&[scores(true, true, 2, vec![])]);
        let b = RunSummary::of(&[scores(false, false, 1, vec![ErrorKind::GaveUp])]);
        let c = Comparison::of(&[(1, "a".into(), a), (2, "b".into(), b)]);
        assert_eq!(c.metrics.len(), 10);
        assert_eq!(c.runs[0].deltas["cp"], Some(0.0));
        assert_eq!(c.runs[1].deltas["cp"], Some(-100.0));
        assert_eq!(c.runs[1].values["delta_solution_length"], None);
        assert_eq!(c.runs[1].deltas["delta_solution_length"], None);
    }
}
