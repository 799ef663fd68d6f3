//! Names of the environment variables toolsmith reads.

/// Path of the catalog database.
pub const DB: &str = "TOOLSMITH_DB";

/// The embedder of dense and hybrid search: `local` or `http`.
pub const EMBEDDER: &str = "TOOLSMITH_EMBEDDER";

/// Path of the config file (default: `./toolsmith.toml` when present).
pub const CONFIG: &str = "TOOLSMITH_CONFIG";
