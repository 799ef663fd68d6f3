//! What can go wrong while building, storing or reading a graph.

/// The graph crate's error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A value is out of range or malformed.
    #[error("invalid {what}: {why}")]
    Invalid {
        /// What was read (`phi`, `edge kind`, `stored evidence of edge 3`).
        what: String,
        /// Why it is rejected.
        why: String,
    },
    /// Opening or migrating the database failed.
    #[error(transparent)]
    Open(#[from] toolsmith_plumbing::sqlite::Error),
    /// A statement on the graph tables failed.
    #[error("{context}")]
    Store {
        /// What was being done.
        context: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// The embedder failed on the node docs.
    #[error("embedding the docs of {what}")]
    Embed {
        /// Which docs.
        what: String,
        /// The embedder's error.
        #[source]
        source: toolsmith_llm::Error,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn store_err(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> Error {
    let context = context.into();
    move |source| Error::Store { context, source }
}

impl From<toolsmith_plumbing::store::JsonColumnError> for Error {
    /// A stored JSON column that does not read back is invalid stored data.
    fn from(e: toolsmith_plumbing::store::JsonColumnError) -> Self {
        Self::Invalid {
            why: e.source.to_string(),
            what: e.what,
        }
    }
}
