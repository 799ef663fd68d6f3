//! ConAgents' three agents (a leaf type: the agents use it for their LLM roles, the trace
//! for the agent that retried).

use std::fmt;

use serde::{Deserialize, Serialize};

/// One of ConAgents' cooperating agents (Shi et al., 2024).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConAgentsRole {
    /// Breaks the query into the next tool-use instruction.
    Grounding,
    /// Turns an instruction into a call and calibrates it on errors.
    Execution,
    /// Extracts what the instruction needs from a long observation.
    Observing,
}

impl ConAgentsRole {
    /// Its stable name: the role of its LLM calls and its name in traces.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Grounding => "grounding",
            Self::Execution => "execution",
            Self::Observing => "observing",
        }
    }
}

impl fmt::Display for ConAgentsRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
