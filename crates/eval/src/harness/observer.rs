//! [`BenchObserver`]: what a long benchmark run tells its caller as it goes. Methods default to
//! doing nothing; the binary draws a progress bar from them and tests record them.

use crate::harness::score::QueryScores;

/// Receives a run's progress. Called from the task driving the run, one call at a time.
pub trait BenchObserver: Send + Sync {
    /// The run starts: `total` queries selected, `done` of them finished before (a resume).
    fn run_started(&self, _total: usize, _done: usize) {}
    /// A query's solver starts.
    fn query_started(&self, _query_id: &str) {}
    /// A query finished and its result is stored.
    fn query_finished(&self, _query_id: &str, _scores: &QueryScores) {}
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl BenchObserver for Quiet {}
