//! The trace's events and their stamped, versioned form (what is written).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use toolsmith_catalog::ApiId;
use toolsmith_exec::{FailureKind, Provenance};
use toolsmith_llm::Role;

use crate::agent_role::ConAgentsRole;
use crate::finish::Finish;

/// The trace format this version writes (the `"v"` of every event).
pub const TRACE_VERSION: u32 = 1;

/// How one tool call ended, as the trace records it.
///
/// Serialized as one snake_case name: `ok`, `unknown_tool`, `rejected`,
/// `not_run`, or the [`FailureKind`]'s own name (`bad_parameters`,
/// `not_found`, ...) for [`CallOutcome::Failed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallOutcome {
    /// The tool answered normally (or `search_tools` found tools).
    Ok,
    /// The tool answered with a failure, or the executor refused the
    /// arguments before calling it.
    Failed(FailureKind),
    /// The model named a function that is not offered.
    UnknownTool,
    /// The arguments were not a JSON object (or not JSON at all); the call
    /// reached no executor.
    Rejected,
    /// toolsmith could not carry the call out at all: the executor failed
    /// (an API it does not know, no recording to replay, a cache failure),
    /// or the tool search failed.
    NotRun,
}

impl CallOutcome {
    /// The outcome of an observation the executor returned.
    pub fn of(observation: &toolsmith_exec::Observation) -> Self {
        observation.failure().map_or(Self::Ok, Self::Failed)
    }

    /// Whether the call succeeded.
    pub fn is_ok(self) -> bool {
        self == Self::Ok
    }

    /// The failure kind, for [`CallOutcome::Failed`].
    pub fn failure(self) -> Option<FailureKind> {
        match self {
            Self::Failed(kind) => Some(kind),
            _ => None,
        }
    }
}

/// The outcomes that are not a [`FailureKind`], by their serialized names.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum OwnOutcome {
    Ok,
    UnknownTool,
    Rejected,
    NotRun,
}

/// A [`CallOutcome`] as written: one of its own names or a failure kind's.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum OutcomeName {
    Own(OwnOutcome),
    Failed(FailureKind),
}

impl From<CallOutcome> for OutcomeName {
    fn from(outcome: CallOutcome) -> Self {
        match outcome {
            CallOutcome::Ok => Self::Own(OwnOutcome::Ok),
            CallOutcome::Failed(kind) => Self::Failed(kind),
            CallOutcome::UnknownTool => Self::Own(OwnOutcome::UnknownTool),
            CallOutcome::Rejected => Self::Own(OwnOutcome::Rejected),
            CallOutcome::NotRun => Self::Own(OwnOutcome::NotRun),
        }
    }
}

impl From<OutcomeName> for CallOutcome {
    fn from(name: OutcomeName) -> Self {
        match name {
            OutcomeName::Own(OwnOutcome::Ok) => Self::Ok,
            OutcomeName::Own(OwnOutcome::UnknownTool) => Self::UnknownTool,
            OutcomeName::Own(OwnOutcome::Rejected) => Self::Rejected,
            OutcomeName::Own(OwnOutcome::NotRun) => Self::NotRun,
            OutcomeName::Failed(kind) => Self::Failed(kind),
        }
    }
}

impl Serialize for CallOutcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        OutcomeName::from(*self).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for CallOutcome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        OutcomeName::deserialize(deserializer).map(Self::from)
    }
}

impl fmt::Display for CallOutcome {
    /// The serialized name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match serde_json::to_value(self) {
            Ok(Value::String(name)) => f.write_str(&name),
            _ => Err(fmt::Error),
        }
    }
}

/// Why DFSDT left a branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BacktrackReason {
    /// The model gave up on the branch.
    GiveUp,
    /// The branch reached the depth limit.
    DepthLimit,
    /// The branch failed (the model could not continue it).
    Error,
}

impl fmt::Display for BacktrackReason {
    /// The serialized name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match serde_json::to_value(self) {
            Ok(Value::String(name)) => f.write_str(&name),
            _ => Err(fmt::Error),
        }
    }
}

/// One thing that happened in a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TraceEvent {
    /// The run began.
    Started {
        /// The solver.
        solver: String,
        /// The user's query.
        query: String,
        /// The function tools offered at the start.
        tools: Vec<String>,
    },
    /// One LLM call.
    LlmCall {
        /// Who asked (agent, grounding, execution, observing, ...).
        role: Role,
        /// How many messages were sent.
        messages: usize,
        /// The last message sent (cut to 2,000 characters).
        last_message: String,
        /// The reply's text (cut to 2,000 characters).
        reply: String,
        /// Tool calls in the reply: `name(arguments)`.
        tool_calls: Vec<String>,
        /// Prompt tokens.
        prompt_tokens: u64,
        /// Completion tokens.
        completion_tokens: u64,
        /// Milliseconds taken.
        latency_ms: u64,
        /// Whether the response came from the cache.
        cache_hit: bool,
    },
    /// One tool call and what came back.
    ToolCall {
        /// The model's id of the call.
        call_id: String,
        /// The function name the model used.
        function: String,
        /// The API it resolved to (`null` for unknown tools and `search_tools`).
        api: Option<ApiId>,
        /// The arguments.
        arguments: Value,
        /// How the call ended.
        outcome: CallOutcome,
        /// Where the observation came from; `null` when no executor answered.
        provenance: Option<Provenance>,
        /// What the model was shown (cut to the observation length).
        observation: String,
    },
    /// A retry after an error (ConAgents' calibration, a repaired reply).
    Retry {
        /// Which agent retried.
        agent: ConAgentsRole,
        /// The attempt number (1 = first retry).
        attempt: u32,
        /// What went wrong.
        error: String,
    },
    /// DFSDT left a branch.
    Backtrack {
        /// Depth (in nodes) of the node abandoned.
        depth: usize,
        /// Why.
        reason: BacktrackReason,
    },
    /// AnyTool created an agent.
    AgentCreated {
        /// The agent's number in its run.
        agent: usize,
        /// The agent that created it (`null` for the meta agent).
        parent: Option<usize>,
        /// Its level.
        level: crate::anytool::labels::AgentLevel,
        /// Its category (category and tool agents).
        category: Option<String>,
        /// The tools it manages (tool agents).
        tools: Vec<toolsmith_catalog::ToolId>,
    },
    /// AnyTool's candidate pool changed.
    PoolChanged {
        /// The tool agent that added (`null` for reflection's pruning).
        agent: Option<usize>,
        /// APIs added.
        added: Vec<ApiId>,
        /// APIs removed as failing.
        removed: Vec<ApiId>,
        /// The pool's size after.
        size: usize,
    },
    /// AnyTool's search stage seeded the pool, and a check judged it.
    Seeded {
        /// The APIs the search put in the pool (hits, then dependency producers).
        apis: Vec<ApiId>,
        /// Whether the check found them enough (then the solver runs without agents).
        solvable: bool,
        /// The check's reason.
        reason: String,
    },
    /// AnyTool's solver got only the pooled APIs the solvability check named (`trim_pool`).
    PoolTrimmed {
        /// The APIs the solver's first attempt is given.
        kept: Vec<ApiId>,
        /// The pool's size.
        pool: usize,
        /// Whether it fell back to the whole pool.
        whole: bool,
        /// What the check named, or why the whole pool.
        reason: String,
    },
    /// AnyTool reflected on a failed attempt.
    Reflection {
        /// The round (1 = first reflection).
        round: usize,
        /// Why the attempt failed.
        reason: String,
        /// APIs named as failing, pruned from the pool.
        failing: Vec<ApiId>,
        /// Agents re-activated, in order (tool, category, meta).
        reactivated: Vec<usize>,
    },
    /// AnyTool's check of an answer.
    Judged {
        /// The majority verdict.
        verdict: crate::anytool::labels::Verdict,
        /// Its reason.
        reason: String,
    },
    /// AnyTool's tokens and LLM calls by part, at the end of a run.
    PartTokens {
        /// Tokens (prompt + completion) per part.
        parts: std::collections::BTreeMap<crate::anytool::labels::Part, u64>,
        /// LLM calls per part.
        calls: std::collections::BTreeMap<crate::anytool::labels::Part, usize>,
        /// The final candidate pool.
        pool: Vec<ApiId>,
    },
    /// The run ended.
    Finished {
        /// How.
        finish: Finish,
        /// The answer, if any.
        answer: Option<String>,
        /// Why it ended without an answer.
        detail: Option<String>,
        /// The budget or limit that ended the run, when one did (absent in traces written
        /// before it was recorded).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<RunLimit>,
        /// The run's tool calls counted by how they ended (absent in older traces; then
        /// [`CallCounts::of`] counts them from the events).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        calls: Option<CallCounts>,
        /// DFSDT: how many children of the root were expanded (absent for other solvers).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        root_branches: Option<usize>,
    },
}

/// The budget or limit that ended a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunLimit {
    /// ToolBench's node limit of a chain or branch (12 nodes), under the paper's protocol.
    Nodes,
    /// The step limit of a chain or branch under toolsmith's protocol (`max_steps`, 10).
    Steps,
    /// The `search_tools` budget of [`Protocol::Toolsmith`](crate::Protocol).
    Searches,
    /// DFSDT's LLM calls for the whole search (200).
    SearchLlmCalls,
    /// The LLM budget the caller set (calls or tokens, `--max-llm-calls`, `--max-tokens`).
    LlmBudget,
    /// ConAgents' grounding turns.
    Turns,
}

impl RunLimit {
    /// Stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Nodes => "nodes",
            Self::Steps => "steps",
            Self::Searches => "searches",
            Self::SearchLlmCalls => "search_llm_calls",
            Self::LlmBudget => "llm_budget",
            Self::Turns => "turns",
        }
    }
}

impl fmt::Display for RunLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A run's tool calls, counted apart by how they ended: a model that sends six calls with
/// broken JSON made six rejected calls, not six API calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct CallCounts {
    /// Calls an executor carried out (the API answered, successfully or with its own error).
    pub executed: usize,
    /// Calls refused for their arguments and never carried out: not JSON, not an object, or
    /// breaking the API's input schema (`bad_parameters`; an API's own refusal of its
    /// parameters is counted here too, as the model sees no difference).
    pub rejected: usize,
    /// Calls of a function that is not offered.
    pub unknown_tool: usize,
    /// Calls toolsmith could not carry out (no recording to replay, an executor failure).
    pub not_run: usize,
    /// `search_tools` calls (tool searches, not API calls).
    pub searches: usize,
}

impl CallCounts {
    /// Counts the tool calls of a trace.
    pub fn of(events: &[Stamped]) -> Self {
        let mut counts = Self::default();
        for stamped in events {
            if let TraceEvent::ToolCall {
                function,
                api,
                outcome,
                ..
            } = &stamped.event
            {
                counts.add(function, api.is_some(), *outcome);
            }
        }
        counts
    }

    fn add(&mut self, function: &str, known: bool, outcome: CallOutcome) {
        match outcome {
            CallOutcome::UnknownTool => self.unknown_tool += 1,
            _ if !known && function == crate::names::SEARCH_TOOLS => self.searches += 1,
            CallOutcome::Rejected | CallOutcome::Failed(FailureKind::BadParameters) => {
                self.rejected += 1;
            }
            CallOutcome::NotRun => self.not_run += 1,
            CallOutcome::Ok | CallOutcome::Failed(_) => self.executed += 1,
        }
    }

    /// Every tool call counted (searches included).
    pub fn total(&self) -> usize {
        self.executed + self.rejected + self.unknown_tool + self.not_run + self.searches
    }
}

impl fmt::Display for CallCounts {
    /// `3 API calls executed, 6 rejected, 1 unknown tool, 2 searches` (zero counts other
    /// than the executed calls left out).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} API call{} executed",
            self.executed,
            if self.executed == 1 { "" } else { "s" }
        )?;
        for (n, what) in [
            (self.rejected, "rejected"),
            (self.unknown_tool, "unknown tool"),
            (self.not_run, "not run"),
            (self.searches, "tool searches"),
        ] {
            if n > 0 {
                write!(f, ", {n} {what}")?;
            }
        }
        Ok(())
    }
}

/// An event with its time (Unix milliseconds).
///
/// Serialized as the event's fields plus `"v"` ([`TRACE_VERSION`]) and
/// `"at_ms"`; reads version 0 (no `"v"`) and version 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Stamped {
    /// Unix milliseconds.
    pub at_ms: u64,
    /// The event.
    pub event: TraceEvent,
}

/// A [`Stamped`] event as version 1 writes it.
#[derive(Serialize, Deserialize)]
pub(super) struct StampedV1<E> {
    pub(super) v: u32,
    pub(super) at_ms: u64,
    #[serde(flatten)]
    pub(super) event: E,
}

impl Serialize for Stamped {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        StampedV1 {
            v: TRACE_VERSION,
            at_ms: self.at_ms,
            event: &self.event,
        }
        .serialize(serializer)
    }
}
