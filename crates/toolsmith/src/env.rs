//! Names of the environment variables toolsmith reads.

/// Path of the catalog database.
pub const DB: &str = "TOOLSMITH_DB";
