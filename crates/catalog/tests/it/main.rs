//! Integration tests of the catalog: importers on hand-written specs and on
//! the real benchmark data in `../shared/data`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should fail loudly

mod bad_input;
mod big_specs;
mod data;
mod export_scale;
mod export_valid;
mod lint;
mod mcp;
mod multi_file;
mod openapi;
mod real_data;
mod store;
