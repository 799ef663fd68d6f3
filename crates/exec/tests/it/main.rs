//! Integration tests of toolsmith-exec. Real data is read from the shared
//! data folder (`toolsmith_catalog::testing`: `TOOLSMITH_DATA`, by default
//! `../shared/data` beside the repository); servers are started on loopback
//! by the tests.

// clippy.toml allows these inside #[test] functions; the helpers here are test code too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod auth;
mod compact;
mod funcqa;
mod gate;
mod http;
mod mcp;
mod replay;
mod sandbox;
mod simulate;
mod simulate_drafts;
mod simulate_fixes;
mod simulate_reports;
mod simulate_shapes;
mod simulate_world;

use std::sync::Arc;

use toolsmith_catalog::testing::tmdb_catalog;
use toolsmith_exec::ApiBook;

/// The TMDB spec as an API book.
pub fn tmdb() -> Arc<ApiBook> {
    Arc::new(ApiBook::from_catalog(&tmdb_catalog()))
}
