//! Integration tests of the eval crate: metrics worked by hand, and the loaders on the real
//! benchmark files in `../shared/data`.
// Helpers outside `#[test]` functions unwrap too: a fixture that fails should stop the test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod datasets;
mod metrics;
