//! toolsmith's own failures while executing calls. A tool that fails is not
//! one of these: it is an [`Observation`](crate::Observation) with a
//! [`FailureKind`](crate::FailureKind).

use toolsmith_catalog::ApiId;

/// An error of the execution layer: something toolsmith itself could not do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The API is not in the executor's catalog snapshot.
    #[error("no API `{0}` is known to this executor")]
    UnknownApi(ApiId),
    /// Replay mode found no recorded response for this call.
    #[error("replay: no recorded response for `{api}` with arguments {args}")]
    ReplayMiss {
        /// The API called.
        api: ApiId,
        /// The canonical JSON of the arguments.
        args: String,
    },
    /// The mode needs a backend (live or simulator) that was not configured.
    #[error("mode `{mode}` needs a {backend} executor, and none was given")]
    MissingBackend {
        /// The mode asked for.
        mode: &'static str,
        /// `live` or `simulator`.
        backend: &'static str,
    },
    /// The catalog could not be read.
    #[error(transparent)]
    Catalog(#[from] toolsmith_catalog::Error),
    /// The response cache (SQLite) failed.
    #[error("response cache: {context}: {source}")]
    Cache {
        /// What the cache was doing.
        context: String,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },
    /// The response cache holds a row this build cannot read.
    #[error("response cache: {0}")]
    CacheCorrupt(String),
    /// An HTTP client could not be built (bad TLS setup, bad settings).
    #[error("HTTP client: {0}")]
    HttpClient(String),
    /// An I/O failure outside the sandbox (the example API's socket, a runtime).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn cache(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> Self {
        let context = context.into();
        move |source| Self::Cache { context, source }
    }
}

/// `Result` with this crate's [`Error`] as the default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error and its chain of causes on one line (`a: b: c`), for observation messages.
pub(crate) fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
