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
    /// The response cache (SQLite) failed. The message names what was being done; the SQLite
    /// error is the source, so `{:#}` shows each once.
    #[error("response cache: {context}")]
    Cache {
        /// What the cache was doing.
        context: String,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },
    /// The response cache's database could not be opened or migrated.
    #[error("response cache")]
    Database(#[from] toolsmith_plumbing::sqlite::Error),
    /// The response cache holds a row this build cannot read.
    #[error("response cache: {0}")]
    CacheCorrupt(String),
    /// An `allow_writes` entry (or `--allow-write` value) is not a tool or API id.
    #[error("allow-write entry `{entry}` is not a tool id or a `tool/api` id: {reason}")]
    AllowWrite {
        /// The entry as given.
        entry: String,
        /// Why it is not an id.
        reason: String,
    },
    /// An HTTP client could not be built (bad TLS setup, bad settings).
    #[error("HTTP client: {0}")]
    HttpClient(String),
    /// An I/O failure outside the sandbox (the example API's socket, a runtime). The I/O
    /// error is the source, not part of the message.
    #[error("{context}")]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_and_io_errors_show_their_cause_once_in_the_chain() {
        let cache = Error::cache("looking up tmdb/search")(rusqlite::Error::QueryReturnedNoRows);
        assert_eq!(cache.to_string(), "response cache: looking up tmdb/search");
        assert_eq!(
            error_chain(&cache),
            "response cache: looking up tmdb/search: Query returned no rows"
        );
        let io = Error::Io {
            context: "binding 127.0.0.1:0".into(),
            source: std::io::Error::new(std::io::ErrorKind::AddrInUse, "address in use"),
        };
        assert_eq!(error_chain(&io), "binding 127.0.0.1:0: address in use");
    }

    #[test]
    fn database_errors_chain_through_the_shared_sqlite_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-folder");
        std::fs::write(&file, "").unwrap();
        let Err(err) = crate::ResponseCache::open(&file.join("cache.db")) else {
            panic!("a database under a regular file cannot open");
        };
        let chain = error_chain(&err);
        assert!(
            chain.starts_with("response cache: cannot create the folder "),
            "{chain}"
        );
        assert_eq!(chain.matches("response cache").count(), 1, "{chain}");
    }
}
