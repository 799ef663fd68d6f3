//! What the set needs from a query writer: requests for a gold path, each with the calls
//! that answer it. The binary connects refine's query writer behind [`PathWriter`]; tests use
//! a scripted one.

use async_trait::async_trait;
use toolsmith_catalog::ApiEntry;

use super::path::GoldPath;

/// The request's wording, its plan and the written request are refine's query writer's own
/// types: one definition of each, shared by `refine --method queries` and the sets.
pub use toolsmith_refine::{Phrasing, PlannedCall, WrittenQuery};

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
