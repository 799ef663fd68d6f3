//! Everything that can go wrong while importing, storing or exporting tools.

use std::path::PathBuf;

use crate::id::{ApiId, DocTarget, InvalidId, ToolId};

/// An error of the catalog. Each variant names what failed and where (file,
/// line and column, JSON pointer or archive member).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read.
    #[error("{path}: cannot read")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A file is not valid JSON or YAML.
    #[error("{path}:{line}:{column}: malformed {syntax}: {reason}")]
    Syntax {
        /// The file (or `archive.tar.gz!member`).
        path: PathBuf,
        /// `JSON` or `YAML`.
        syntax: &'static str,
        /// 1-based line of the problem (0 when unknown).
        line: usize,
        /// 1-based column of the problem (0 when unknown).
        column: usize,
        /// The parser's message.
        reason: String,
    },
    /// A well-formed file whose content toolsmith cannot use.
    #[error("{path}: at {pointer}: {reason}")]
    BadSource {
        /// The file.
        path: PathBuf,
        /// JSON pointer of the offending value (`#/paths/~1pets/get`).
        pointer: String,
        /// What is wrong.
        reason: String,
    },
    /// The format of a file could not be recognized.
    #[error("{path}: unknown format: {reason} (name one with --format)")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// What was seen.
        reason: String,
    },
    /// An archive or one of its members could not be read.
    #[error("{path}: archive member `{member}`: {reason}")]
    Archive {
        /// The archive.
        path: PathBuf,
        /// The member (empty when the archive itself is broken).
        member: String,
        /// What went wrong.
        reason: String,
    },
    /// Some files of an import failed; with `keep_going` the rest was imported.
    #[error("{} file(s) failed to import:\n{}", .0.len(), list(.0))]
    Several(Vec<Error>),
    /// The SQLite store failed.
    #[error("catalog store: {context}")]
    Store {
        /// What the store was doing.
        context: String,
        /// The cause.
        #[source]
        source: rusqlite::Error,
    },
    /// The store's database could not be opened or migrated.
    #[error("catalog store")]
    Database(#[from] toolsmith_plumbing::sqlite::Error),
    /// The store holds data this build cannot read.
    #[error("catalog store: {0}")]
    Corrupt(String),
    /// A name is not a valid identifier.
    #[error(transparent)]
    InvalidId(#[from] InvalidId),
    /// No tool has this id.
    #[error("no tool `{0}` in the catalog")]
    UnknownTool(ToolId),
    /// No API has this id.
    #[error("no API `{0}` in the catalog")]
    UnknownApi(ApiId),
    /// No such doc version.
    #[error("{target} has no doc version {version}")]
    UnknownDocVersion {
        /// The tool or API.
        target: DocTarget,
        /// The version asked for.
        version: u32,
    },
    /// An export was asked for something it cannot produce.
    #[error("export: {0}")]
    Export(String),
}

fn list(errors: &[Error]) -> String {
    errors
        .iter()
        .map(|e| format!("  - {e}"))
        .collect::<Vec<_>>()
        .join("\n")
}

impl Error {
    pub(crate) fn store(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> Self {
        let context = context.into();
        move |source| Self::Store { context, source }
    }

    pub(crate) fn bad(
        path: &std::path::Path,
        pointer: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Self::BadSource {
            path: path.to_owned(),
            pointer: pointer.into(),
            reason: reason.into(),
        }
    }
}

/// `Result` with this crate's [`Error`] as the default error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
