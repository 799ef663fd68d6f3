//! The solvers against a scripted LLM and scripted tools: what each loop did,
//! which branch it took, what it stored.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test code: a failure should fail loudly

mod anytool;
mod anytool_measure;
mod coerce;
mod conagents;
mod dfsdt;
mod item_records;
mod protocol;
mod react;
mod read_result;
mod support;
mod today;
mod trace;
