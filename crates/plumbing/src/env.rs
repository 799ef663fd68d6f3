//! Every environment variable toolsmith reads, named once. Code that reads a variable names it
//! through these constants, and `docs/environment.md` lists each one (a test keeps the two
//! equal).
//!
//! Settings follow flag > environment > file > default; the binary reads the variables that
//! are settings, the libraries only those they document below.

/// Path of the catalog database (default: `toolsmith.db`).
pub const TOOLSMITH_DB: &str = "TOOLSMITH_DB";

/// Path of the config file (default: `./toolsmith.toml` when present).
pub const TOOLSMITH_CONFIG: &str = "TOOLSMITH_CONFIG";

/// The shared benchmark data folder (default: the first `shared/data` found walking up from
/// the working folder); see [`crate::data::data_dir`].
pub const TOOLSMITH_DATA: &str = "TOOLSMITH_DATA";

/// The embedder of dense and hybrid search: `local` or `http`. Overrides
/// `[retrieve] embedder` of the config file.
pub const TOOLSMITH_EMBEDDER: &str = "TOOLSMITH_EMBEDDER";

/// The default chat model (overrides `[llm] model`).
pub const TOOLSMITH_MODEL: &str = "TOOLSMITH_MODEL";

/// Where local models live (default: `${XDG_DATA_HOME:-$HOME/.local/share}/toolsmith/models`,
/// as `scripts/install-model.sh` installs them).
pub const TOOLSMITH_MODELS: &str = "TOOLSMITH_MODELS";

/// Set to `1` to skip the tests that need the local embedding model (each skipped test says
/// so on stderr).
pub const TOOLSMITH_SKIP_MODEL_TESTS: &str = "TOOLSMITH_SKIP_MODEL_TESTS";

/// The bearer token `toolsmith serve` requires on every HTTP route (unless `--token-env`
/// names another variable).
pub const TOOLSMITH_SERVE_TOKEN: &str = "TOOLSMITH_SERVE_TOKEN";

/// Prefix of a tool's API key or bearer token: `TOOLSMITH_KEY_<TOOL>_<SCHEME>`, else
/// `TOOLSMITH_KEY_<TOOL>` (tool and scheme upper-cased, other characters as `_`).
pub const TOOLSMITH_KEY_PREFIX: &str = "TOOLSMITH_KEY_";

/// Prefix of a tool's HTTP basic user name: `TOOLSMITH_USERNAME_<TOOL>[_<SCHEME>]`.
pub const TOOLSMITH_USERNAME_PREFIX: &str = "TOOLSMITH_USERNAME_";

/// Prefix of a tool's HTTP basic password: `TOOLSMITH_PASSWORD_<TOOL>[_<SCHEME>]`.
pub const TOOLSMITH_PASSWORD_PREFIX: &str = "TOOLSMITH_PASSWORD_";

/// The key RapidAPI tools fall back to when no `TOOLSMITH_KEY_<TOOL>` is set.
pub const RAPIDAPI_KEY: &str = "RAPIDAPI_KEY";

/// Base URL of the OpenAI-compatible server, including `/v1`.
pub const OPENAI_BASE_URL: &str = "OPENAI_BASE_URL";

/// The API key of the OpenAI-compatible server, sent as `Authorization: Bearer …`.
pub const OPENAI_API_KEY: &str = "OPENAI_API_KEY";

/// Log filter in `tracing-subscriber`'s syntax; overrides `-v`.
pub const RUST_LOG: &str = "RUST_LOG";

/// Set to anything: no colours (<https://no-color.org>).
pub const NO_COLOR: &str = "NO_COLOR";

/// Every variable above, in the order `docs/environment.md` lists them.
pub const ALL: &[&str] = &[
    TOOLSMITH_DB,
    TOOLSMITH_CONFIG,
    TOOLSMITH_DATA,
    TOOLSMITH_EMBEDDER,
    TOOLSMITH_MODEL,
    TOOLSMITH_MODELS,
    TOOLSMITH_SKIP_MODEL_TESTS,
    TOOLSMITH_SERVE_TOKEN,
    TOOLSMITH_KEY_PREFIX,
    TOOLSMITH_USERNAME_PREFIX,
    TOOLSMITH_PASSWORD_PREFIX,
    RAPIDAPI_KEY,
    OPENAI_BASE_URL,
    OPENAI_API_KEY,
    RUST_LOG,
    NO_COLOR,
];

#[cfg(test)]
mod tests {
    /// The table of `docs/environment.md`, one row per variable, in [`super::ALL`]'s order.
    #[test]
    fn the_docs_list_every_variable_in_order() {
        let doc = include_str!("../../../docs/environment.md");
        let listed: Vec<&str> = doc
            .lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .filter_map(|rest| rest.split('`').next())
            .map(|name| name.trim_end_matches("<TOOL>…"))
            .collect();
        assert_eq!(listed, super::ALL);
    }
}
