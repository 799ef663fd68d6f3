//! Names of the environment variables the binary reads, from the one list in
//! `toolsmith_plumbing::env` (documented in `docs/environment.md`).

/// Path of the catalog database.
pub(crate) const DB: &str = toolsmith_plumbing::env::TOOLSMITH_DB;

/// The embedder of dense and hybrid search: `local` or `http`.
pub(crate) const EMBEDDER: &str = toolsmith_plumbing::env::TOOLSMITH_EMBEDDER;

/// Path of the config file (default: `./toolsmith.toml` when present).
pub(crate) const CONFIG: &str = toolsmith_plumbing::env::TOOLSMITH_CONFIG;

/// The shared benchmark data of `bench` (default: `../shared/data`).
pub(crate) const DATA: &str = toolsmith_plumbing::env::TOOLSMITH_DATA;

/// Log filter in `tracing-subscriber`'s syntax; overrides `-v`.
pub(crate) const LOG: &str = toolsmith_plumbing::env::RUST_LOG;

/// Set to anything: no colors (<https://no-color.org>).
pub(crate) const NO_COLOR: &str = toolsmith_plumbing::env::NO_COLOR;

/// The bearer token `toolsmith serve` requires on every HTTP route (unless `--token-env` names
/// another variable).
pub(crate) const SERVE_TOKEN: &str = toolsmith_plumbing::env::TOOLSMITH_SERVE_TOKEN;
