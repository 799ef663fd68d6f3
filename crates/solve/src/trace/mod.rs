//! Structured traces of a run: every LLM call, tool call, calibration retry,
//! backtrack, and the final state. Sinks receive events as they happen (the
//! terminal renderer, a JSONL file); the run keeps them all.
//!
//! The trace is the record the evaluation harness scores, so its fields are
//! typed ([`ApiId`], [`Role`], [`CallOutcome`], [`Provenance`], [`Finish`],
//! [`BacktrackReason`]) and serialize under stable snake_case names.
//!
//! # Format and versions
//!
//! A trace is a sequence of [`Stamped`] events: one JSON object per line in a
//! JSONL file ([`JsonlSink`], read back with [`read_jsonl`]), or a JSON array
//! in the run store. Every event carries its format version in a `"v"` field
//! ([`TRACE_VERSION`], now 1), so one line can be read without the others:
//!
//! ```json
//! {"v":1,"at_ms":1700000000000,"event":"tool_call","call_id":"c1","function":"search_movie_for_movies","api":"movies/search_movie","arguments":{"query":"Dune"},"outcome":"not_found","provenance":"live","observation":"..."}
//! ```
//!
//! Events without `"v"` are version 0, the untyped format written before
//! (the same fields, as free strings, with `"provenance": "none"` for calls
//! that made no observation); they are read and converted to the types.
//!
//! Version 1 grows only by optional fields (`limit`, `calls` and `root_branches` of
//! `finished`), which older readers of version 1 ignore and this one reads as absent from
//! traces written before them; so the version stays 1. AnyTool's runs add event kinds of
//! their own (`agent_created`, `pool_changed`, `reflection`, `judged`, `part_tokens`); the
//! other solvers never write them, so their traces read as before.

pub(crate) mod event;
mod read;
mod render;
mod sink;

pub use self::event::{
    BacktrackReason, CallCounts, CallOutcome, RunLimit, Stamped, TRACE_VERSION, TraceEvent,
};
pub use self::read::read_jsonl;
pub use self::render::{cut, render};
pub use self::sink::{JsonlSink, TraceSink, Tracer};
