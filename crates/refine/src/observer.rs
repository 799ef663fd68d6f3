//! Progress of a refinement run, pushed to an observer whose methods default to doing
//! nothing (ripgrep's `Sink`): the binary draws bars from it, tests record the events.

use toolsmith_catalog::{ApiId, ToolId};
use toolsmith_graph::EdgeKey;

use crate::record::RunEnd;
use crate::record::{Round, RunId};

/// Told what a run does as it does it. Every method defaults to nothing.
pub trait RefineObserver: Send + Sync {
    /// The run starts: `apis` in all, `done` of them finished by an earlier attempt.
    fn run_started(&self, run: RunId, apis: usize, done: usize) {
        let _ = (run, apis, done);
    }
    /// An API's refinement starts (or resumes after `rounds_done` stored rounds).
    fn api_started(&self, api: &ApiId, rounds_done: usize) {
        let _ = (api, rounds_done);
    }
    /// A round was stored.
    fn round_finished(&self, api: &ApiId, round: &Round) {
        let _ = (api, round);
    }
    /// An API is done; `version` is the doc version stored (`None`: nothing changed).
    fn api_finished(&self, api: &ApiId, version: Option<u32>) {
        let _ = (api, version);
    }
    /// An API failed (the run goes on with the others).
    fn api_failed(&self, api: &ApiId, error: &str) {
        let _ = (api, error);
    }
    /// A tool's description was rewritten.
    fn tool_finished(&self, tool: &ToolId, version: Option<u32>) {
        let _ = (tool, version);
    }
    /// The run ended.
    fn stopped(&self, end: &RunEnd) {
        let _ = end;
    }
    /// ToolExpNet: iteration `iteration`'s trial step starts with `edges` sampled edges.
    fn trial_started(&self, iteration: u32, edges: usize) {
        let _ = (iteration, edges);
    }
    /// ToolExpNet: an edge's trial is stored, with (right, requests); `None` when an earlier
    /// attempt of the run stored it.
    fn edge_tried(&self, edge: &EdgeKey, outcome: Option<(usize, usize)>) {
        let _ = (edge, outcome);
    }
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl RefineObserver for NoObserver {}
