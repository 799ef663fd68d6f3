//! AnyTool's small labels (agent levels and states, token parts, verdicts): leaf types the
//! trace names as well as the agents.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Where an agent sits in the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentLevel {
    /// Picks categories.
    Meta,
    /// Picks tools of one category.
    Category,
    /// Picks APIs of at most 5 tools.
    Tool,
}

impl AgentLevel {
    /// The role of its LLM calls.
    pub fn role(self) -> &'static str {
        match self {
            Self::Meta => "anytool_meta",
            Self::Category => "anytool_category",
            Self::Tool => "anytool_tool",
        }
    }
}

impl fmt::Display for AgentLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Meta => "meta",
            Self::Category => "category",
            Self::Tool => "tool",
        })
    }
}

/// An agent's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    /// Running.
    Active,
    /// Stopped by the search (solvable, pool full, budget): reflection re-activates it.
    Paused,
    /// Called `finish_search`: never re-activated.
    Finished,
    /// Used its rounds.
    OutOfRounds,
}

/// The parts AnyTool's tokens are counted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// The search stage: the solvability check of the seeded pool.
    Search,
    /// The meta agent.
    Meta,
    /// Category agents.
    Category,
    /// Tool agents (their solvability checks included).
    Tool,
    /// DFSDT over the pool.
    Solver,
    /// The answer check.
    Judge,
    /// Agents re-activated by self-reflection.
    Reflection,
}

/// A judge's verdict on an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The answer resolves the query.
    Solved,
    /// It does not.
    Unsolved,
    /// The judge cannot tell.
    Unsure,
}
