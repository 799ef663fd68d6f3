//! What the set needs from a query writer: requests for a gold path, each with the calls
//! that answer it. The binary connects refine's query writer behind [`PathWriter`]; tests use
//! a scripted one.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_catalog::{ApiEntry, ApiId};

use super::path::GoldPath;

/// How a request is worded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phrasing {
    /// Short, to the point.
    Terse,
    /// As a person would say it in a chat.
    Conversational,
    /// The need surrounded by context that does not matter to it.
    WithContext,
    /// Several needs in one request.
    MultiIntent,
}

impl Phrasing {
    /// Every phrasing.
    pub const ALL: [Self; 4] = [
        Self::Terse,
        Self::Conversational,
        Self::WithContext,
        Self::MultiIntent,
    ];

    /// The stable name (`terse`, `conversational`, `with_context`, `multi_intent`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Terse => "terse",
            Self::Conversational => "conversational",
            Self::WithContext => "with_context",
            Self::MultiIntent => "multi_intent",
        }
    }
}

impl std::fmt::Display for Phrasing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One call of a request's plan. An argument value may be a reference to an earlier call's
/// response: `{"$from": <earlier call's index>, "path": "<jq path into its response>"}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedCall {
    /// The API called.
    pub api: ApiId,
    /// Its arguments (a JSON object).
    pub arguments: Value,
}

/// A written request and the calls that answer it, one per step of the path, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WrittenQuery {
    /// What the user asks.
    pub text: String,
    /// How it is worded.
    pub phrasing: Phrasing,
    /// The calls.
    pub calls: Vec<PlannedCall>,
}

/// What the writer is asked for one path.
#[derive(Clone, Debug)]
pub struct WriteAsk {
    /// The gold path.
    pub path: GoldPath,
    /// Its APIs with their docs, in path order.
    pub steps: Vec<ApiEntry>,
    /// Requests wanted.
    pub count: usize,
    /// The phrasings to spread them over.
    pub phrasings: Vec<Phrasing>,
}

/// Why a writer gave no requests.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct WriteError(pub String);

/// Writes requests for a path (an LLM in the product, a script in tests).
#[async_trait]
pub trait PathWriter: Send + Sync {
    /// Writes up to `ask.count` requests for `ask.path`; malformed ones are left out.
    async fn write(&self, ask: &WriteAsk) -> Result<Vec<WrittenQuery>, WriteError>;
}
