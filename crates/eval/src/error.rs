//! Everything that can go wrong while loading a benchmark, resolving its gold answers or
//! judging a run.

use std::path::PathBuf;

/// A failure of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A dataset file could not be read.
    #[error("reading {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A dataset file is not JSON.
    #[error("{path}: not JSON")]
    Json {
        /// The file.
        path: PathBuf,
        /// The parser's complaint.
        #[source]
        source: serde_json::Error,
    },
    /// A dataset file is JSON but not in a format this crate knows.
    #[error("{path}: {reason}")]
    BadDataset {
        /// The file.
        path: PathBuf,
        /// What was expected and what was found.
        reason: String,
    },
    /// A benchmark name that is neither a known dataset nor an existing file.
    #[error(
        "unknown dataset `{0}`: use restbench-tmdb, toolbench-draft282, toolbench-g1, toolbench-g2 or a file path"
    )]
    UnknownBenchmark(String),
    /// A judge failed to give a verdict (an LLM error, an unreadable reply, an exhausted
    /// script).
    #[error("judge: {message}")]
    Judge {
        /// What went wrong.
        message: String,
    },
    /// The catalog failed while resolving gold API names.
    #[error("resolving gold APIs")]
    Catalog(#[from] toolsmith_catalog::Error),
}

/// `Result` with this crate's [`Error`] as the default.
pub type Result<T, E = Error> = std::result::Result<T, E>;
