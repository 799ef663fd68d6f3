//! Integration tests of the eval crate: retrieval metrics worked by hand, the loaders on the
//! real benchmark files in `../shared/data`, and retrieval quality measured on RestBench TMDB
//! (BM25 always; dense and hybrid with the MiniLM model installed). The other metrics are unit
//! tested at the bottom of their modules.
// Helpers outside `#[test]` functions unwrap too: a fixture that fails should stop the test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod data;
mod datasets;
mod example_queries;
mod gold_categories;
mod harness;
mod judging;
mod metrics;
mod report;
mod retrieval;
mod retrieval_model;
mod sessions;
mod synth;
