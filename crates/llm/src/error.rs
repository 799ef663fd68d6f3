//! The crate's one error type: every way a call to a model, the cache or the embedder can fail.
//!
//! [`Error::is_retryable`] is the single place that decides whether trying again can help; the
//! HTTP client retries exactly those errors.

use std::path::PathBuf;
use std::time::Duration;

use toolsmith_plumbing::retry::is_retryable_status;

use crate::limits::BudgetExhausted;

/// Longest server message kept in an error; the rest is cut (HTML error pages are long).
pub(crate) const MAX_MESSAGE_CHARS: usize = 300;

/// An error and its causes on one line, `: `-separated.
fn error_chain(err: &Error) -> String {
    let mut text = err.to_string();
    let mut cause = std::error::Error::source(err);
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

/// Everything that can go wrong while talking to an LLM or an embedder.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with a non-success HTTP status.
    #[error("{url}: HTTP {status}: {message}")]
    Status {
        /// The HTTP status code.
        status: u16,
        /// The endpoint, with credentials and query removed.
        url: String,
        /// The server's error message (from its JSON `error.message` when present), truncated.
        message: String,
        /// The server's `Retry-After`, in whole seconds, when it sent one.
        retry_after: Option<Duration>,
    },
    /// No answer within the request timeout.
    #[error("{url}: no answer within {after:?}")]
    Timeout {
        /// The endpoint, with credentials and query removed.
        url: String,
        /// The configured timeout.
        after: Duration,
    },
    /// The connection failed or broke before a full answer arrived.
    #[error("{url}: connection failed")]
    Connection {
        /// The endpoint, with credentials and query removed.
        url: String,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// A success status, but a body that is not the expected JSON (an HTML page, a proxy's text).
    #[error("{url}: malformed response ({reason}): {body_start}")]
    MalformedResponse {
        /// The endpoint, with credentials and query removed.
        url: String,
        /// What was wrong with it.
        reason: String,
        /// The first characters of the body.
        body_start: String,
    },
    /// The model stopped because it hit `max_tokens` (finish_reason `length`).
    #[error("model `{model}` was cut off at the token limit after {completion_tokens} tokens")]
    Truncated {
        /// The model that answered.
        model: String,
        /// Completion tokens it produced.
        completion_tokens: u64,
        /// The text it produced before the cut, if any.
        partial: Option<String>,
    },
    /// A retryable error kept happening until the retry limit. The message carries the last
    /// error with its causes (which name the endpoint), since callers often show only this line.
    #[error("gave up after {attempts} attempts; the last: {}", error_chain(.last))]
    GaveUp {
        /// Requests sent, the first one included.
        attempts: u32,
        /// The error of the last attempt.
        last: Box<Error>,
    },
    /// The run's budget of calls or tokens is spent; the run should stop cleanly.
    #[error(transparent)]
    Budget(#[from] BudgetExhausted),
    /// The request does not fit the model's configured context; it was not sent.
    #[error(
        "the {role} request for model `{model}` has about {prompt_tokens} prompt tokens (+{reserved} reserved for the reply), over the model's context of {context_tokens} tokens; it was not sent (raise `[llm] context_tokens` if the model takes more)"
    )]
    ContextExceeded {
        /// The model it was for.
        model: String,
        /// The request's role.
        role: String,
        /// Its prompt tokens (counted with cl100k_base).
        prompt_tokens: u64,
        /// Tokens it reserved for the reply (`max_tokens`).
        reserved: u64,
        /// The configured context.
        context_tokens: u64,
    },
    /// Replay mode found no cached response for a request.
    #[error(
        "replay cache has no response for model `{model}`, last message starting {last_message_start:?}"
    )]
    ReplayMiss {
        /// The model the request was for.
        model: String,
        /// The first characters of the request's last message.
        last_message_start: String,
    },
    /// The SQLite cache failed.
    #[error("cache database {path}")]
    Cache {
        /// The database file (`:memory:` for an in-memory one).
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// The cache database could not be opened or migrated.
    #[error("cache database")]
    Database(#[from] toolsmith_plumbing::sqlite::Error),
    /// A cached row could not be read back.
    #[error("cache database {path}: corrupt entry {key}: {reason}")]
    CacheCorrupt {
        /// The database file.
        path: PathBuf,
        /// The entry's key.
        key: String,
        /// What was wrong with it.
        reason: String,
    },
    /// The model did not produce a usable JSON value after every repair attempt.
    #[error("no valid `{type_name}` after {attempts} replies: {reason}")]
    Structured {
        /// The Rust type that was asked for.
        type_name: &'static str,
        /// Replies received.
        attempts: u32,
        /// Why the last reply was rejected.
        reason: String,
        /// The last raw reply.
        last_reply: String,
    },
    /// A prompt template failed to render (a missing slot, a syntax error).
    #[error("prompt `{name}` failed to render")]
    Prompt {
        /// The prompt's name.
        name: String,
        /// minijinja's error, which names the slot and line.
        #[source]
        source: minijinja::Error,
    },
    /// The local embedding model's files are not installed.
    #[error(
        "embedding model files missing: {path} (run `scripts/install-model.sh`, or set TOOLSMITH_MODELS)"
    )]
    ModelMissing {
        /// The first missing file.
        path: PathBuf,
    },
    /// The local embedding model failed to load or run.
    #[error("local embedding model: {what}")]
    LocalModel {
        /// What it was doing.
        what: String,
        /// The candle, tokenizer or I/O error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An embedder returned the wrong number of vectors or the wrong dimension.
    #[error("embedder `{model}` returned {got}, expected {expected}")]
    EmbeddingShape {
        /// The embedding model.
        model: String,
        /// What was expected ("3 vectors", "384 dimensions").
        expected: String,
        /// What came back.
        got: String,
    },
    /// Settings that cannot work (an unparsable base URL, zero concurrency).
    #[error("invalid LLM setting `{field}`: {reason}")]
    Config {
        /// The setting's name.
        field: &'static str,
        /// Why it is rejected.
        reason: String,
    },
    /// A background task (SQLite, the local model) panicked or was cancelled.
    #[error("background task failed: {0}")]
    Task(String),
}

/// `Result` with this crate's [`Error`] as the default.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether sending the same request again can help: timeouts, broken connections, 429 and
    /// 5xx. Never a 4xx other than 429, a malformed body, a budget or a cache error.
    pub fn is_retryable(&self) -> bool {
        match self {
            Error::Status { status, .. } => is_retryable_status(*status),
            Error::Timeout { .. } | Error::Connection { .. } => true,
            _ => false,
        }
    }

    /// The HTTP status, when the error is one (also looks inside [`Error::GaveUp`]).
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Status { status, .. } => Some(*status),
            Error::GaveUp { last, .. } => last.status(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16) -> Error {
        Error::Status {
            status: code,
            url: "http://x/v1/chat/completions".into(),
            message: String::new(),
            retry_after: None,
        }
    }

    #[test]
    fn only_429_and_5xx_statuses_are_retryable() {
        assert!(status(429).is_retryable());
        assert!(status(500).is_retryable());
        assert!(status(503).is_retryable());
        assert!(!status(400).is_retryable());
        assert!(!status(401).is_retryable());
        assert!(!status(404).is_retryable());
    }
}
