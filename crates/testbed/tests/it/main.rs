//! Integration tests of toolsmith-testbed: the example API imported into a
//! catalog and driven through toolsmith's executors.

// clippy.toml allows these inside #[test] functions; the helpers here are test code too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod example_api;
