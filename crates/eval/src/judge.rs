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
}
