//! What can go wrong while serving a request, each with a stable code that the HTTP API and
//! the MCP tools report.

use toolsmith_catalog::ApiId;

/// Everything that can go wrong in a request.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No API of the catalog has this id or name; `closest` holds the nearest ones by search.
    #[error("no tool `{id}` in the catalog{}", closest_list(closest))]
    UnknownTool {
        /// The id or name asked for.
        id: String,
        /// The APIs that best match it, best first.
        closest: Vec<ApiId>,
    },
    /// A `read_result` handle that was never issued or has been evicted.
    #[error("no stored result `{0}`: it was never issued or has expired; call the tool again")]
    UnknownHandle(String),
    /// The request itself is wrong: a missing or ill-typed field.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// A jq filter failed (the message is for whoever wrote it).
    #[error(transparent)]
    Jq(#[from] toolsmith_exec::JqError),
    /// jq filters need the sandbox, which this server was started without.
    #[error("jq filters are not available on this server; page with `offset` instead")]
    NoSandbox,
    /// The server has no solver (no LLM configured).
    #[error("solving is not available: the server runs without an LLM (configure [llm])")]
    SolveUnavailable,
    /// No stored run with this id.
    #[error("no run {0}")]
    RunNotFound(i64),
    /// Searching failed.
    #[error("search failed")]
    Retrieve(#[from] toolsmith_retrieve::Error),
    /// The executor failed (not the tool: toolsmith's own failure, such as a missing recording).
    #[error("the call could not be made")]
    Exec(#[from] toolsmith_exec::Error),
    /// The solver or the run store failed.
    #[error("the solver failed")]
    Solve(#[from] toolsmith_solve::Error),
    /// A blocking task (the run store) did not finish.
    #[error("a background task failed: {0}")]
    Task(String),
}

fn closest_list(closest: &[ApiId]) -> String {
    if closest.is_empty() {
        return String::new();
    }
    let names: Vec<String> = closest.iter().map(ToString::to_string).collect();
    format!("; closest matches: {}", names.join(", "))
}

impl Error {
    /// The stable machine-readable code (`unknown_tool`, `bad_request`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownTool { .. } => "unknown_tool",
            Self::UnknownHandle(_) => "unknown_handle",
            Self::BadRequest(_) => "bad_request",
            Self::Jq(_) => "jq_failed",
            Self::NoSandbox => "jq_unavailable",
            Self::SolveUnavailable => "solve_unavailable",
            Self::RunNotFound(_) => "run_not_found",
            Self::Retrieve(_) | Self::Exec(_) | Self::Solve(_) | Self::Task(_) => "internal",
        }
    }

    /// Whether the caller caused it (and may see the message), rather than the server.
    pub fn is_client_error(&self) -> bool {
        self.code() != "internal"
    }
}

/// `Result` with this crate's [`Error`] as the default.
pub type Result<T, E = Error> = std::result::Result<T, E>;
