//! The judge behind pass rate and win rate: typed verdicts on a run's answer, on a task's
//! solvability and on which of two runs is better. An LLM-backed judge implements [`Judge`]
//! with ToolEval's prompts; the aggregation in `metrics::pass_rate` and `metrics::win_rate`
//! only sees the verdicts.

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;

use crate::error::Result;
use crate::run::RunRecord;

/// ToolEval's verdict on whether an answer solves its query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    /// The answer solves the query.
    Solved,
    /// It does not (a refusal, a wrong or empty answer).
    Unsolved,
    /// The judge cannot tell.
    Unsure,
}

/// ToolEval's verdict on whether a query can be solved with the tools offered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskSolvability {
    /// The tools suffice.
    Solvable,
    /// They do not, or the query lacks or has invalid information.
    Unsolvable,
    /// The judge cannot tell.
    Unsure,
}

/// Which of two runs, in the order shown to the judge, answers the query better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preference {
    /// The one shown first.
    First,
    /// The one shown second.
    Second,
    /// Neither (a judge may refuse to choose).
    Tie,
}

/// What a judge looks at: the query, the tools the solver was offered and the run.
#[derive(Clone, Copy, Debug)]
pub struct JudgeCase<'a> {
    /// The user's query.
    pub query: &'a str,
    /// The APIs the solver could call.
    pub offered: &'a [ApiId],
    /// The run to judge.
    pub run: &'a RunRecord,
}

/// What a judge has spent so far: the questions that reached a model and their tokens. Stored
/// with each judgement so a run's cost counts its judging.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct JudgeUsage {
    /// Requests sent to a model (repairs of unreadable replies included; cache hits not).
    pub calls: u64,
    /// Requests answered from the LLM cache.
    pub cache_hits: u64,
    /// Prompt tokens of the requests sent.
    pub prompt_tokens: u64,
    /// Completion tokens of the requests sent.
    pub completion_tokens: u64,
}

impl JudgeUsage {
    /// What was spent between `earlier` and `self` (two readings of one judge's meter).
    pub fn since(&self, earlier: &Self) -> Self {
        Self {
            calls: self.calls.saturating_sub(earlier.calls),
            cache_hits: self.cache_hits.saturating_sub(earlier.cache_hits),
            prompt_tokens: self.prompt_tokens.saturating_sub(earlier.prompt_tokens),
            completion_tokens: self
                .completion_tokens
                .saturating_sub(earlier.completion_tokens),
        }
    }

    /// The sum of two usages.
    pub fn plus(&self, other: &Self) -> Self {
        Self {
            calls: self.calls.saturating_add(other.calls),
            cache_hits: self.cache_hits.saturating_add(other.cache_hits),
            prompt_tokens: self.prompt_tokens.saturating_add(other.prompt_tokens),
            completion_tokens: self
                .completion_tokens
                .saturating_add(other.completion_tokens),
        }
    }

    /// Prompt plus completion tokens.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }

    /// What it cost at `prices`.
    pub fn cost(&self, prices: &crate::metrics::cost::Prices) -> f64 {
        prices.cost(&crate::metrics::cost::QueryCost {
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.completion_tokens,
            llm_calls: self.calls,
            ..crate::metrics::cost::QueryCost::default()
        })
    }
}

/// Gives verdicts on runs. `Err` is the judge's own failure (an LLM error, a reply it could
/// not read), never a verdict.
#[async_trait]
pub trait Judge: Send + Sync {
    /// Whether the run's answer solves the query. ToolEval's LLM judge asks twice, first from
    /// the final answer and, when unsure, again from the whole trajectory; it returns the
    /// second verdict then.
    async fn answer_status(&self, case: &JudgeCase<'_>) -> Result<AnswerStatus>;

    /// Which of two runs on the same query is better, in the order given.
    async fn prefer(
        &self,
        query: &str,
        first: &RunRecord,
        second: &RunRecord,
    ) -> Result<Preference>;

    /// Whether the query can be solved with the offered tools. A judge that cannot assess
    /// this says [`TaskSolvability::Unsure`], which leaves ToolEval's undecided cases to its
    /// coin flip.
    async fn task_solvability(&self, query: &str, offered: &[ApiId]) -> Result<TaskSolvability> {
        let _ = (query, offered);
        Ok(TaskSolvability::Unsure)
    }

    /// What this judge has spent since it was made (zero for a judge that asks no model).
    fn usage(&self) -> JudgeUsage {
        JudgeUsage::default()
    }
}

#[async_trait]
impl<J: Judge + ?Sized> Judge for Arc<J> {
    async fn answer_status(&self, case: &JudgeCase<'_>) -> Result<AnswerStatus> {
        (**self).answer_status(case).await
    }

    async fn prefer(
        &self,
        query: &str,
        first: &RunRecord,
        second: &RunRecord,
    ) -> Result<Preference> {
        (**self).prefer(query, first, second).await
    }

    async fn task_solvability(&self, query: &str, offered: &[ApiId]) -> Result<TaskSolvability> {
        (**self).task_solvability(query, offered).await
    }

    fn usage(&self) -> JudgeUsage {
        (**self).usage()
    }
}
