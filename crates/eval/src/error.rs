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
        "unknown dataset `{0}`: use restbench-tmdb, toolbench-draft282, toolbench-g1, toolbench-g2, funcqa, synth:NAME or a file path"
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
    /// A benchmark spec or one of its parts (tools offered, run id) does not parse.
    #[error("{0}")]
    BadSpec(String),
    /// The tools offered are the query's candidates, and the dataset gives it none.
    #[error("query {query} has no candidate list: offer --tools all, retrieve:K or search-tool")]
    NoCandidates {
        /// The query's id.
        query: String,
    },
    /// The tools offered need a retriever and the harness was given none.
    #[error("tools offered `{tools}` need a retriever")]
    NoRetriever {
        /// What was asked for.
        tools: crate::harness::offered::ToolsOffered,
    },
    /// Retrieving a query's tools failed.
    #[error("retrieving tools for query {query}")]
    Retrieve {
        /// The query's id.
        query: String,
        /// Why.
        #[source]
        source: Box<toolsmith_retrieve::Error>,
    },
    /// A solver failed on its own account (not a run that ended without an answer).
    #[error("solving query {query}")]
    Solve {
        /// The query's id.
        query: String,
        /// Why.
        #[source]
        source: Box<toolsmith_solve::Error>,
    },
    /// No stored benchmark run has this id.
    #[error("no benchmark run {0} in the database")]
    UnknownRun(toolsmith_plumbing::store::RunId),
    /// Opening or migrating eval's tables failed.
    #[error("opening the benchmark tables")]
    Sqlite(#[from] toolsmith_plumbing::sqlite::Error),
    /// Reading or writing eval's tables failed.
    #[error("{context}")]
    Store {
        /// What was being done.
        context: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A stored JSON column could not be written or read back.
    #[error(transparent)]
    StoredJson(#[from] toolsmith_plumbing::store::JsonColumnError),
    /// A report file or folder could not be written.
    #[error("writing {path}")]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A report plot could not be drawn.
    #[error("drawing the plot {plot}")]
    Plot {
        /// Which plot (`tokens`, `metric-cp`, ...).
        plot: String,
        /// The plotting library's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// `Result` with this crate's [`Error`] as the default.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps a SQLite error of eval's tables with what was being done (for `map_err`).
    pub(crate) fn store(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> Self {
        let context = context.into();
        move |source| Self::Store { context, source }
    }
}
