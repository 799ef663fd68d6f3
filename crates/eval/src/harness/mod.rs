//! The evaluation harness: run any solver over a dataset, score every query, store it, resume.
//!
//! A [`BenchSpec`] says what runs (dataset, solver, doc version, tools offered, limit,
//! concurrency, mode, seed). A [`Harness`] runs it: queries go through the
//! [`Solver`](toolsmith_solve::Solver) trait concurrently (bounded by the spec's
//! concurrency), each with a fresh toolset and tracer from a [`SolverFactory`]; each finished
//! query is scored ([`QueryScores`]) and written to the [`BenchStore`] in its own transaction
//! at once, and a [`BenchObserver`] hears about it. Resuming a run skips every query already
//! stored. [`RunSummary`] and [`Comparison`] are the tables `bench run` and `bench compare`
//! print.

mod judged;
mod observer;
pub(crate) mod offered;
mod query;
mod runner;
mod score;
mod spec;
pub(crate) mod store;

pub use judged::{
    JudgeSettings, PassRates, WinRateReport, judge_pass_rates, judge_win_rate, solvability_scope,
};
pub use observer::{BenchObserver, Quiet};
pub use offered::{BadToolsOffered, ToolsOffered};
pub use query::{QueryJudgement, QueryResult};
pub use runner::{Harness, SolverFactory};
pub use score::{ComparedRun, Comparison, QueryScores, RunSummary};
pub use spec::{BenchSpec, Expansion, SolverKind};
pub use store::{BenchRun, BenchStore, RetrievalResult, RunId, StoredResult, StoredRetrieval};
