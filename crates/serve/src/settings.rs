//! The server's knobs. Serving follows no paper: the defaults are sized for an agent's context
//! window and a laptop, and every one is a setting (`[serve]` of toolsmith.toml).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Limits and defaults of the MCP server and the HTTP API.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServeSettings {
    /// A tool result longer than this many characters is cut, with a handle to read the rest.
    pub max_result_chars: usize,
    /// Characters per `read_result` page.
    pub page_chars: usize,
    /// Full results kept for `read_result`; the oldest is dropped past this.
    pub max_stored_results: usize,
    /// Results of `search_tools` when the caller gives no `k`.
    pub default_k: usize,
    /// The most results one search may ask for.
    pub max_k: usize,
    /// The first N APIs of the catalog (in id order) offered as MCP tools from the start.
    pub expose_top_n: usize,
    /// Closest matches suggested for an unknown tool id.
    pub closest_matches: usize,
    /// Largest HTTP request body, in bytes.
    pub max_body_bytes: usize,
    /// HTTP requests served at once; more wait for a turn.
    pub max_concurrent_requests: usize,
    /// Tools offered to a solver run of `POST /v1/solve` (its top hits for the query).
    pub solve_tools: usize,
    /// Largest page of `GET /v1/tools`.
    pub max_page: usize,
    /// MCP sessions open at once over HTTP; a new one past this is refused (503 with
    /// `Retry-After`) until a client ends its session or one idles out.
    pub max_sessions: usize,
    /// Seconds an MCP HTTP session may stay without a message before it is closed.
    pub session_idle_secs: u64,
    /// `Host` names (or `host:port`) answered besides the loopback ones. Empty: loopback hosts
    /// only without a token, any host with one. `serve --allowed-host` adds to these.
    pub allowed_hosts: Vec<String>,
    /// Rows of the call log (`tool_calls`) kept: `serve` drops the oldest past this at start,
    /// every minute and at shutdown.
    pub call_log_keep: usize,
    /// LLM answers of `/v1/solve` runs kept in memory, the least recently used dropped first
    /// (0: none). `serve` never writes them to the db's `llm_cache`: a client's tasks could
    /// grow it without bound.
    pub solve_cache_entries: usize,
    /// Runs of `/v1/solve` kept in the db for `GET /v1/runs/{id}` (their solver name ends in
    /// `@serve`); the oldest are dropped past this. Other runs are not touched.
    pub solve_runs_keep: usize,
}

impl Default for ServeSettings {
    /// 8,000 characters per result (about 2k tokens: a result never crowds out an agent's
    /// context), 256 stored results, 5 search hits, 1 MiB bodies, 64 requests at once; 256 MCP
    /// sessions (about 60 KB each) idle out after 2 minutes; the newest 100,000 logged calls;
    /// 1,024 LLM answers of solver runs in memory and the newest 1,000 of their runs in the db.
    fn default() -> Self {
        Self {
            max_result_chars: 8_000,
            page_chars: 8_000,
            max_stored_results: 256,
            default_k: 5,
            max_k: 50,
            expose_top_n: 0,
            closest_matches: 3,
            max_body_bytes: 1024 * 1024,
            max_concurrent_requests: 64,
            solve_tools: 5,
            max_page: 500,
            max_sessions: 256,
            session_idle_secs: 120,
            allowed_hosts: Vec::new(),
            call_log_keep: 100_000,
            solve_cache_entries: 1_024,
            solve_runs_keep: 1_000,
        }
    }
}

/// How long graceful shutdown waits for requests in flight before giving up on them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);
