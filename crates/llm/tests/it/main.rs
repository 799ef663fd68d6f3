//! toolsmith-llm's integration tests, one binary: each module is a topic. HTTP tests run
//! against a loopback server started by the test itself (`support::MockServer`).

// clippy.toml allows these inside #[test] functions; the helpers in `support` are test code too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod budget;
mod cache;
mod chat;
mod embed;
mod resilience;
mod structured;
mod support;
