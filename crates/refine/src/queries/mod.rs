//! The query writer: diverse user requests for a path of one or more APIs, each with the
//! calls that answer it. One API: synthetic requests that retrieval indexes as views of its
//! doc (Re-Invoke's document expansion, `refine --method queries`). Several: a request whose
//! answer needs the calls in order, a producer's output feeding the next call (the synthetic
//! evaluation set). A [`Voice`] picks the instructions: views close to the API for the index,
//! or a user's own words for a yardstick. Items that do not fit the path are dropped with a warning, and the rest
//! are de-duplicated by cosine (by exact text without an embedder); a later ask fills what
//! was dropped, shown the requests kept so far. With `apis_per_call` above 1, views are
//! written for a chunk of a tool's APIs at once, texts only (`batch`, `chunk`); with
//! `pack_tools`, a chunk may hold several small tools (`crate::chunking`).

mod batch;
mod check;
mod chunk;
mod dedup;
mod doc;
mod expansion;
mod settings;
mod types;
mod writer;

pub use expansion::QueryExpansion;
pub use settings::QueryWriterSettings;
pub use types::{
    Discarded, PathStep, Phrasing, PlannedCall, Voice, WriteReport, WriteRequest, WrittenQuery,
};
pub use writer::QueryWriter;
