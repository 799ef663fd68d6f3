//! Names of the environment variables toolsmith reads.

/// Path of the catalog database.
pub const DB: &str = "TOOLSMITH_DB";

/// The embedder of dense and hybrid search: `local` or `http`.
pub const EMBEDDER: &str = "TOOLSMITH_EMBEDDER";

/// Path of the config file (default: `./toolsmith.toml` when present).
pub const CONFIG: &str = "TOOLSMITH_CONFIG";

/// The shared benchmark data of `bench` (default: `../shared/data`).
pub const DATA: &str = "TOOLSMITH_DATA";

/// Log filter in `tracing-subscriber`'s syntax; overrides `-v`.
pub const LOG: &str = "RUST_LOG";

/// Set to anything: no colors (<https://no-color.org>).
pub const NO_COLOR: &str = "NO_COLOR";
