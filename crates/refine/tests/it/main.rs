//! toolsmith-refine's integration tests: scripted LLM, bag-of-words embedder, simulated tools.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

mod draft;
mod easytool;
mod expnet;
mod lint;
mod queries;
mod runs;
