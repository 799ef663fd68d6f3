//! Integration tests of retrieval: BM25, dense and hybrid on a tiny hand-made catalog with
//! known answers, and incremental re-embedding. Retrieval quality on the benchmarks is measured
//! by toolsmith-eval's tests (the stage that judges retrieval), not here.
// Helpers outside `#[test]` functions unwrap too: a fixture that fails should stop the test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod data;
mod expand;
mod explain;
mod incremental;
mod intents;
mod rerank;
mod rerank_needs;
mod resume;
mod source;
mod tiny;
mod views;
