//! How a run ended: a leaf type the trace, the runtime and every agent name.

use serde::{Deserialize, Serialize};

/// How a run ended. Every run ends in one of these, with a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finish {
    /// The agent gave an answer.
    Answered,
    /// The agent gave up (every branch or try).
    GaveUp,
    /// A call, token or LLM-call budget ran out.
    BudgetExhausted,
    /// The step or depth limit was reached without an answer.
    StepLimit,
    /// The LLM failed in a way retrying could not fix.
    Error,
}

impl Finish {
    /// Stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Answered => "answered",
            Self::GaveUp => "gave_up",
            Self::BudgetExhausted => "budget_exhausted",
            Self::StepLimit => "step_limit",
            Self::Error => "error",
        }
    }
}
