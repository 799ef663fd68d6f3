//! Names of the environment variables toolsmith reads.

/// Path of the catalog database.
pub(crate) const DB: &str = "TOOLSMITH_DB";

/// The embedder of dense and hybrid search: `local` or `http`.
pub(crate) const EMBEDDER: &str = "TOOLSMITH_EMBEDDER";

/// Path of the config file (default: `./toolsmith.toml` when present).
pub(crate) const CONFIG: &str = "TOOLSMITH_CONFIG";

/// The shared benchmark data of `bench` (default: `../shared/data`).
pub(crate) const DATA: &str = "TOOLSMITH_DATA";

/// Log filter in `tracing-subscriber`'s syntax; overrides `-v`.
pub(crate) const LOG: &str = "RUST_LOG";

/// Set to anything: no colors (<https://no-color.org>).
pub(crate) const NO_COLOR: &str = "NO_COLOR";

/// The bearer token `toolsmith serve` requires on every HTTP route (unless `--token-env` names
/// another variable).
pub(crate) const SERVE_TOKEN: &str = "TOOLSMITH_SERVE_TOKEN";
