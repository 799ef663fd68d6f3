//! [`Role`]: what a model call is for, below the settings, the clients and the accounting
//! that all name it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a call is for (agent, explorer, judge, ...): picks the model and groups the accounting.
///
/// Any non-empty name is valid; the constants name the roles toolsmith's methods use.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Role(String);

impl Role {
    /// The tool-using agent (ReAct, DFSDT, ...).
    pub const AGENT: &'static str = "agent";
    /// DRAFT's explorer, which writes queries to probe a tool.
    pub const EXPLORER: &'static str = "explorer";
    /// DRAFT's analyzer, which reads the exploration results.
    pub const ANALYZER: &'static str = "analyzer";
    /// The documentation rewriter.
    pub const REWRITER: &'static str = "rewriter";
    /// The evaluation judge.
    pub const JUDGE: &'static str = "judge";
    /// The query writer, which invents user requests for an API or a path of APIs.
    pub const QUERIES: &'static str = "queries";
    /// The yardstick's request writer (`synth`'s eval and index requests, in a user's voice).
    /// Its own role so that it can run on a model other than the refiners': a synthetic set
    /// written by the model that also rewrote the docs rates those docs too well.
    pub const SYNTH: &'static str = "synth";
    /// Intent extraction at query time: a request's tool-related intents as search queries.
    pub const INTENTS: &'static str = "intents";
    /// Listwise reranking at query time: the first stage's candidates reordered by a model.
    pub const RERANK: &'static str = "rerank";

    /// A role by name.
    pub fn new(name: impl Into<String>) -> Self {
        Self(name.into())
    }

    /// The agent role.
    pub fn agent() -> Self {
        Self::new(Self::AGENT)
    }

    /// The role's name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Role {
    /// [`Role::AGENT`].
    fn default() -> Self {
        Self::agent()
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Role {
    fn from(name: &str) -> Self {
        Self::new(name)
    }
}
