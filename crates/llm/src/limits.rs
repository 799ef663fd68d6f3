//! A run's budget limits and the error of reaching one: plain values, below the meter
//! ([`crate::budget`]) and the crate's error that carries them.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The limits of one run; `None` is unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetLimits {
    /// Most model calls (cache hits excluded). By default, unlimited.
    pub max_calls: Option<u64>,
    /// Most prompt + completion tokens (cache hits excluded). By default, unlimited.
    pub max_tokens: Option<u64>,
}

/// Which limit was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetLimit {
    /// The call limit.
    Calls(u64),
    /// The token limit.
    Tokens(u64),
}

impl fmt::Display for BudgetLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BudgetLimit::Calls(n) => write!(f, "{n} calls"),
            BudgetLimit::Tokens(n) => write!(f, "{n} tokens"),
        }
    }
}

/// What the budget has paid for so far (cache hits excluded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BudgetUsed {
    /// Model calls started.
    pub calls: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
}

impl BudgetUsed {
    /// Prompt plus completion tokens.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

/// The run's budget is spent: stop the run and report `used`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "budget exhausted: limit of {limit} reached ({} calls, {} tokens used)",
    used.calls,
    used.tokens()
)]
pub struct BudgetExhausted {
    /// The limit that was reached.
    pub limit: BudgetLimit,
    /// What was used when it was reached.
    pub used: BudgetUsed,
}
