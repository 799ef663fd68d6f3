//! Integration tests of the tool graph.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod graph;
