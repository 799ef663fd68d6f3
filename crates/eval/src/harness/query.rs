//! What one query leaves behind: its finished work ([`QueryResult`]) and a judge run's
//! verdicts on it ([`QueryJudgement`]), the rows the store keeps, below the runner and the
//! judging loop that make them.

use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;
use toolsmith_solve::Run;

use crate::harness::score::QueryScores;
use crate::judge::JudgeUsage;
use crate::metrics::pass_rate::SampleVerdict;
use crate::run::RunRecord;

/// One query's finished work: the solver's run (the typed trace), the record the metrics
/// read, and the scores.
#[derive(Clone, Debug)]
pub struct QueryResult {
    /// The query's id in the dataset.
    pub query_id: String,
    /// The solver's run, trace included.
    pub run: Run,
    /// What the metrics read of it.
    pub record: RunRecord,
    /// The APIs offered (at the start, plus those `search_tools` found).
    pub offered: Vec<ApiId>,
    /// Its scores.
    pub scores: QueryScores,
}

/// One judge run's verdicts on one query.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryJudgement {
    /// ToolEval's samples.
    pub tooleval_samples: Vec<SampleVerdict>,
    /// ToolEval's per-query vote (`None`: no samples).
    pub tooleval_pass: Option<bool>,
    /// AnyTool's 3-vote majority of Solved.
    pub anytool_pass: bool,
    /// What judging this query cost (zero in judgements stored before it was counted).
    #[serde(default)]
    pub usage: JudgeUsage,
}
