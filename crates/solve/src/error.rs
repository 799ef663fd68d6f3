//! toolsmith's own failures while solving (tool and model failures are part of the run).

/// An error of the solve stage.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The run store failed.
    #[error("run store: {context}")]
    Store {
        /// What it was doing.
        context: String,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },
    /// The run store's database could not be opened or migrated.
    #[error("run store")]
    Database(#[from] toolsmith_plumbing::sqlite::Error),
    /// A trace could not be written.
    #[error("writing a trace: {0}")]
    Trace(String),
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
