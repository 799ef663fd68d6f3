//! toolsmith-refine's integration tests: scripted LLM, bag-of-words embedder, simulated tools.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

mod draft;
mod draft_inputs;
mod draft_prompts;
mod easytool;
mod expnet;
mod invented;
mod lint;
mod queries;
mod queries_batch;
mod queries_pack;
mod queries_refine;
mod runs;
