//! What can go wrong in a refinement run. A malformed LLM reply is not an error here: the
//! round records it and the API keeps its previous doc. Errors are toolsmith's own failures.

use toolsmith_catalog::ApiId;

/// Everything a refinement run can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The catalog failed (reading APIs, storing a doc version).
    #[error("catalog")]
    Catalog(#[source] Box<toolsmith_catalog::Error>),
    /// An LLM or embedder call failed for a reason other than a bad reply.
    #[error("{api}: round {round}: {what}")]
    Llm {
        /// The API being refined.
        api: ApiId,
        /// The round (1-based; 0 for work outside the rounds).
        round: u32,
        /// Which step (`explorer`, `embedding the query`, ...).
        what: &'static str,
        /// The cause.
        #[source]
        source: Box<toolsmith_llm::Error>,
    },
    /// A prompt failed to render.
    #[error("prompt")]
    Prompt(#[source] Box<toolsmith_llm::Error>),
    /// Executing a call failed inside toolsmith (not a tool failure, which is data).
    #[error("{api}: executing a call")]
    Exec {
        /// The API called.
        api: ApiId,
        /// The cause.
        #[source]
        source: Box<toolsmith_exec::Error>,
    },
    /// The full-execution actor's solver failed inside toolsmith.
    #[error("{query:?}: the actor's solver")]
    Solve {
        /// The request it was solving.
        query: String,
        /// The cause.
        #[source]
        source: Box<toolsmith_solve::Error>,
    },
    /// The refine tables could not be opened or migrated.
    #[error("refine tables")]
    Database(#[from] toolsmith_plumbing::sqlite::Error),
    /// A refine table could not be read or written.
    #[error("refine tables: {context}")]
    Store {
        /// What was being done.
        context: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A stored record could not be written or read back.
    #[error("refine tables: corrupt {}", .0.what)]
    StoredJson(#[from] toolsmith_plumbing::store::JsonColumnError),
    /// No stored run has this id.
    #[error("no refinement run {0}")]
    UnknownRun(i64),
    /// The tool graph's tables (ToolExpNet).
    #[error("tool graph")]
    Graph(#[source] Box<toolsmith_graph::Error>),
    /// A setting is out of its range.
    #[error("setting `{field}`: {reason}")]
    Setting {
        /// The setting.
        field: &'static str,
        /// Why the value is refused.
        reason: String,
    },
}

impl From<toolsmith_catalog::Error> for Error {
    fn from(e: toolsmith_catalog::Error) -> Self {
        Self::Catalog(Box::new(e))
    }
}

impl From<toolsmith_graph::Error> for Error {
    fn from(e: toolsmith_graph::Error) -> Self {
        Self::Graph(Box::new(e))
    }
}

impl Error {
    /// Whether this is the LLM budget running out (the run stops cleanly, work kept).
    pub fn is_budget(&self) -> bool {
        matches!(
            self,
            Self::Llm {
                source,
                ..
            } if matches!(**source, toolsmith_llm::Error::Budget(_))
        )
    }
}

/// `Result` with this crate's [`Error`] as the default.
pub type Result<T, E = Error> = std::result::Result<T, E>;
