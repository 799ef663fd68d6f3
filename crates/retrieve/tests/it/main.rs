//! Integration tests of retrieval: BM25, dense and hybrid on a tiny hand-made catalog with
//! known answers, incremental re-embedding, and BM25 (and, with the model installed, dense and
//! hybrid) on RestBench TMDB.
// Helpers outside `#[test]` functions unwrap too: a fixture that fails should stop the test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod data;
mod incremental;
mod model;
mod restbench;
mod tiny;
