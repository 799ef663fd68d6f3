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
    /// A trace could not be read (not JSON, or not a trace format this version reads).
    #[error("reading a trace, line {line}: {message}")]
    ReadTrace {
        /// The line (1-based) of a JSONL trace; 1 for a stored run's trace.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
