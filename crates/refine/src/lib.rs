//! Documentation refinement: the stage between catalog and retrieve. It writes new doc
//! versions into the catalog, so every solver, the retriever and every exporter can use them,
//! and every change can be compared, diffed and rolled back.
//!
//! - [`Refiner`] is the contract a method meets: refine one API from its stored rounds, and
//!   describe a tool from its refined APIs. [`EasyTool`] (concise instructions with executed
//!   usage examples, label `easytool`) and [`Draft`] (explore, analyze, rewrite until the doc
//!   settles, label `draft`) implement it.
//! - [`Runner`] drives a refiner over many APIs with bounded concurrency: each finished
//!   [`Round`] is stored in one transaction ([`RefineStore`], the `refine` tables of the
//!   catalog file), a resumed run redoes no finished round, and an exhausted LLM budget ends
//!   the run cleanly ([`RunEnd::Budget`]) with everything done kept.
//! - [`InventedValues`] (`[refine] invented_values`) says what DRAFT and EasyTool may learn
//!   from a response the simulator or a model made up: its shape (the default; a rewritten
//!   sentence quoting one of its distinctive values, a name, id, URL or number, never an
//!   ordinary word, is removed and flagged as an [`InventedQuote`]), its skeleton only, or
//!   everything (`trust`, the behaviour before).
//! - [`QueryWriter`] writes diverse user requests, each with the calls that answer it, for
//!   one API or a path of several (model role `queries`), de-duplicated by cosine;
//!   [`QueryExpansion`] is the refiner that stores them as an API doc's views (label `queries`);
//!   with `apis_per_call` above 1 one request writes the views (texts only) of a chunk of a
//!   tool's APIs (with `pack_tools`, of several small tools), which wait for it together and
//!   each store their own round.
//! - Progress goes to a [`RefineObserver`]; [`sentence_bleu`] is NLTK's BLEU-4 with smoothing
//!   method 4, DRAFT's stop criterion's text half.
//!
//! ```
//! assert!((toolsmith_refine::sentence_bleu("movie details", "movie details by id") - 0.1682).abs() < 1e-4);
//! ```
//!
//! # Measured
//! Docs written by a stand-in model (a loopback endpoint answered by hand), simulate mode,
//! the paper's defaults; hybrid NDCG@10 of `toolsmith bench retrieval` (BM25 in brackets):
//!
//! | docs | RestBench TMDB (100 queries) | ToolBench's 282 tools (193 G2 queries) | tokens/API, 282 tools |
//! |---|---|---|---|
//! | original | 57.1 | 61.4 (62.8) | 101 |
//! | `easytool` (this crate) | 58.7 | 62.5 (64.9) | 171 |
//! | `draft` (this crate) | 57.4 | 57.7 (57.6) | 290 |
//! | `easytool-ref` (EasyTool's published) | 52.3 | 65.8 (66.6) | 125 |
//! | `draft-ref` (DRAFT's published) | 53.6 | 59.4 (59.9) | 159 |
//!
//! On the 282 tools DRAFT took 2.07 rounds per API (at most 4, all settled before the cap).
//! Its analyzer learns from responses the simulator had the model invent (most of these
//! tools have no response schema), and its docs grew to almost three times the original.
//! Those docs predate [`InventedValues`]; the rerun with a model is still to be done. For
//! scale, DRAFT's published docs of the 282 tools (written against live RapidAPI) quote, in
//! 63 of 1,006 API docs (6.3%), 90 literal values (quoted strings of 4+ characters, numbers of
//! 3+ digits) that the original doc lacks; 52 of them are error texts or status codes.

pub use crate::ask::max_replies_per_request;
pub use crate::bleu::sentence_bleu;
pub use crate::draft::Draft;
pub use crate::easytool::EasyTool;
pub use crate::error::{Error, Result};
pub use crate::expnet::{ActorMode, ExpNet, ExpNetReport, ExpNetSettings, MakeSolver};
pub use crate::invented::{InventedQuote, InventedValues};
pub use crate::observer::{NoObserver, RefineObserver};
pub use crate::queries::{
    Discarded, PathStep, Phrasing, PlannedCall, QueryExpansion, QueryWriter, QueryWriterSettings,
    Voice, WriteReport, WriteRequest, WrittenQuery,
};
pub use crate::record::{Dropped, Method, Rejected, Round, RunEnd, RunId, Stop, Trial};
pub use crate::run::{ApiJob, Estimate, Refiner, RoundSink, RunReport, Runner, jobs, plan};
pub use crate::settings::{DraftSettings, EasyToolSettings};
pub use crate::store::{RefineStore, RunInfo, RunSpec, StoredRound};

mod ask;
mod bleu;
mod chunking;
mod defaults;
mod draft;
mod easytool;
mod error;
mod expnet;
mod guard;
mod invented;
mod observer;
mod prompts;
mod queries;
mod record;
mod run;
mod settings;
mod status_body;
mod store;
mod tool_doc;
