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
//! - Progress goes to a [`RefineObserver`]; [`sentence_bleu`] is NLTK's BLEU-4 with smoothing
//!   method 4, DRAFT's stop criterion's text half.
//!
//! ```
//! assert!((toolsmith_refine::sentence_bleu("movie details", "movie details by id") - 0.1682).abs() < 1e-4);
//! ```

pub use crate::bleu::sentence_bleu;
pub use crate::draft::Draft;
pub use crate::easytool::EasyTool;
pub use crate::error::{Error, Result};
pub use crate::expnet::{ActorMode, ExpNet, ExpNetReport, ExpNetSettings, SolverFactory};
pub use crate::observer::{NoObserver, RefineObserver};
pub use crate::record::{Dropped, Method, Rejected, Round, RunId, Stop, Trial};
pub use crate::run::{ApiJob, Estimate, Refiner, RoundSink, RunEnd, RunReport, Runner, jobs, plan};
pub use crate::settings::{DraftSettings, EasyToolSettings};
pub use crate::store::{RefineStore, RunInfo, RunSpec, StoredRound};

mod ask;
mod bleu;
mod draft;
mod easytool;
mod error;
mod expnet;
mod guard;
mod observer;
mod prompts;
mod record;
mod run;
mod settings;
mod store;
mod tool_doc;
