//! What a run produces: its final state, answer and trace.

use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;

use crate::finish::Finish;
use crate::trace::{CallCounts, RunLimit, Stamped, TraceEvent};

/// One solved (or not) query.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Run {
    /// The solver that ran.
    pub solver: String,
    /// The query.
    pub query: String,
    /// How it ended.
    pub finish: Finish,
    /// The final answer, when there is one.
    pub answer: Option<String>,
    /// Why it ended without an answer.
    pub detail: Option<String>,
    /// Every event, in order.
    pub trace: Vec<Stamped>,
}

impl Run {
    /// The APIs called, in order (unknown tools excluded).
    pub fn api_calls(&self) -> Vec<ApiId> {
        self.trace
            .iter()
            .filter_map(|e| match &e.event {
                TraceEvent::ToolCall { api: Some(api), .. } => Some(api.clone()),
                _ => None,
            })
            .collect()
    }

    /// The tool calls counted by how they ended: executed, rejected, unknown tools, not
    /// run, searches. Read from the trace's `finished` event when it has them, else counted
    /// from the calls (older traces).
    pub fn call_counts(&self) -> CallCounts {
        self.trace
            .iter()
            .rev()
            .find_map(|e| match &e.event {
                TraceEvent::Finished {
                    calls: Some(calls), ..
                } => Some(*calls),
                _ => None,
            })
            .unwrap_or_else(|| CallCounts::of(&self.trace))
    }

    /// The budget or limit that ended the run, if one did.
    pub fn limit(&self) -> Option<RunLimit> {
        self.trace.iter().rev().find_map(|e| match &e.event {
            TraceEvent::Finished { limit, .. } => *limit,
            _ => None,
        })
    }

    /// DFSDT: how many children of the root the search expanded.
    pub fn root_branches(&self) -> Option<usize> {
        self.trace.iter().rev().find_map(|e| match &e.event {
            TraceEvent::Finished { root_branches, .. } => *root_branches,
            _ => None,
        })
    }

    /// Number of LLM calls made.
    pub fn llm_calls(&self) -> usize {
        self.trace
            .iter()
            .filter(|e| matches!(e.event, TraceEvent::LlmCall { .. }))
            .count()
    }

    /// Prompt plus completion tokens over all LLM calls.
    pub fn tokens(&self) -> u64 {
        self.trace
            .iter()
            .map(|e| match &e.event {
                TraceEvent::LlmCall {
                    prompt_tokens,
                    completion_tokens,
                    ..
                } => prompt_tokens + completion_tokens,
                _ => 0,
            })
            .sum()
    }
}
