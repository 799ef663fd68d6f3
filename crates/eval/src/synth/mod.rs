//! Synthesized evaluation sets: requests with gold API paths made from any catalog, for a
//! user whose own APIs have no benchmark (`toolsmith synth`).
//!
//! 1. **Sampling** ([`sample_paths`]): single APIs, chains along the tool graph's dependency
//!    edges (a producer's output feeds the next API's required parameter), and ToolBench's
//!    within-tool, within-category and cross-category combinations; deterministic by seed.
//! 2. **Writing** ([`PathWriter`]): requests for each path in several [`Phrasing`]s, each with
//!    its [`PlannedCall`]s, written from the imported docs only ([`blind_to_refinement`]); an argument may refer to an earlier response
//!    (`{"$from": i, "path": ".results[0].id"}`, [`resolve_arguments`]).
//! 3. **Filtering** ([`run_planned`]): a request is kept only when its calls run along the
//!    gold path through an executor (simulated by default), every reference resolves and the
//!    last response is not empty, and its words echo its gold APIs' docs as much as real
//!    users' do, no more and no less ([`doc_echo`]); optionally a model confirms the responses answer it
//!    ([`AnswerCheck`]) and writes a reference answer. Requests close to one already kept
//!    are dropped too. Every drop has a [`DropReason`].
//! 4. **Storage** ([`SynthStore`], eval's tables in the catalog file): kept requests go to the
//!    `eval` split (held out: never indexed, never shown to a refiner) or the `index` split
//!    ([`Split`]) by a seeded draw at the set's `eval_share`.
//! 5. **Use**: `--dataset synth:NAME` reads the eval split as a [`Dataset`](crate::Dataset)
//!    ([`eval_dataset`]); [`export`] writes RestBench's or ToolBench's query files.
//!
//! The run ([`Synthesizer`]) works a bounded number of paths at once and stores each path's
//! requests in one transaction, so a killed run resumes without asking the writer again.

mod blind;
mod check;
mod dedup;
mod echo;
mod estimate;
mod export;
mod filter;
mod llm_check;
mod path;
mod reference;
mod run;
mod sample;
mod spec;
mod store;
mod writer;

pub use blind::blind_to_refinement;
pub use check::{AnswerCheck, Answered};
pub use echo::{DEFAULT_DOC_ECHO_MAX, DEFAULT_DOC_ECHO_MIN, HUMAN_TMDB_ECHO_P10, doc_echo};
pub use estimate::{Estimate, estimate};
pub use export::{ExportFormat, eval_dataset, export};
pub use filter::{DropReason, run_planned};
pub use llm_check::LlmAnswerCheck;
pub use path::{GoldPath, PathKind};
pub use reference::{RefError, has_reference, resolve_arguments};
pub use run::{SetSummary, SynthObserver, Synthesizer};
pub use sample::{ChainStart, DEFAULT_TWO_STEP_SHARE, SampleSizes, sample_paths};
pub use spec::SetSpec;
pub use store::{Fate, Split, StoredPath, SynthQuery, SynthSet, SynthStore};
pub use writer::{PathWriter, Phrasing, PlannedCall, WriteAsk, WriteError, WrittenQuery};
