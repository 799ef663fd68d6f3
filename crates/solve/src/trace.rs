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

use std::fmt;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use toolsmith_catalog::ApiId;
use toolsmith_exec::{FailureKind, Provenance};
use toolsmith_llm::Role;

use crate::error::{Error, Result};
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
        agent: String,
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
struct StampedV1<E> {
    v: u32,
    at_ms: u64,
    #[serde(flatten)]
    event: E,
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

impl<'de> Deserialize<'de> for Stamped {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        match value.get("v").map(Value::as_u64) {
            None => v0::read(value).map_err(D::Error::custom),
            Some(Some(1)) => {
                let read: StampedV1<TraceEvent> =
                    serde_json::from_value(value).map_err(D::Error::custom)?;
                Ok(Self {
                    at_ms: read.at_ms,
                    event: read.event,
                })
            }
            Some(_) => Err(D::Error::custom(format!(
                "trace format version {} is not one this toolsmith reads (0 to {TRACE_VERSION})",
                value["v"]
            ))),
        }
    }
}

/// Reads a JSONL trace (one event per line, any readable version; blank
/// lines skipped).
pub fn read_jsonl(reader: impl BufRead) -> Result<Vec<Stamped>> {
    let mut events = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let bad = |message: String| Error::ReadTrace {
            line: i + 1,
            message,
        };
        let line = line.map_err(|e| bad(e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        events.push(serde_json::from_str(&line).map_err(|e| bad(e.to_string()))?);
    }
    Ok(events)
}

/// Version 0: the untyped events written before the format had a version.
mod v0 {
    use serde::Deserialize;
    use serde_json::Value;
    use toolsmith_exec::Provenance;
    use toolsmith_llm::Role;

    use crate::trace::{BacktrackReason, CallOutcome, Stamped, TraceEvent};

    /// A version 0 event: the same fields as version 1, as free strings.
    #[derive(Deserialize)]
    #[serde(tag = "event", rename_all = "snake_case")]
    enum Event {
        Started {
            solver: String,
            query: String,
            tools: Vec<String>,
        },
        LlmCall {
            role: String,
            messages: usize,
            last_message: String,
            reply: String,
            tool_calls: Vec<String>,
            prompt_tokens: u64,
            completion_tokens: u64,
            latency_ms: u64,
            cache_hit: bool,
        },
        ToolCall {
            call_id: String,
            function: String,
            api: Option<String>,
            arguments: Value,
            outcome: String,
            provenance: String,
            observation: String,
        },
        Retry {
            agent: String,
            attempt: u32,
            error: String,
        },
        Backtrack {
            depth: usize,
            reason: String,
        },
        Finished {
            finish: String,
            answer: Option<String>,
            detail: Option<String>,
        },
    }

    #[derive(Deserialize)]
    struct Stamped0 {
        at_ms: u64,
        #[serde(flatten)]
        event: Event,
    }

    /// A name version 0 wrote, read as the type that now holds it.
    fn named<T: serde::de::DeserializeOwned>(field: &str, name: String) -> Result<T, String> {
        serde_json::from_value(Value::String(name.clone()))
            .map_err(|_| format!("version 0 trace: `{name}` is not a known {field}"))
    }

    /// Reads one version 0 event and converts its strings to the types.
    pub(super) fn read(value: Value) -> Result<Stamped, String> {
        let old: Stamped0 =
            serde_json::from_value(value).map_err(|e| format!("version 0 trace: {e}"))?;
        let event = match old.event {
            Event::Started {
                solver,
                query,
                tools,
            } => TraceEvent::Started {
                solver,
                query,
                tools,
            },
            Event::LlmCall {
                role,
                messages,
                last_message,
                reply,
                tool_calls,
                prompt_tokens,
                completion_tokens,
                latency_ms,
                cache_hit,
            } => TraceEvent::LlmCall {
                role: Role::new(role),
                messages,
                last_message,
                reply,
                tool_calls,
                prompt_tokens,
                completion_tokens,
                latency_ms,
                cache_hit,
            },
            Event::ToolCall {
                call_id,
                function,
                api,
                arguments,
                outcome,
                provenance,
                observation,
            } => TraceEvent::ToolCall {
                call_id,
                function,
                api: api.map(|api| named("API id", api)).transpose()?,
                arguments,
                // Version 0 had no `rejected` or `not_run`: its names are all
                // outcomes or failure kinds today.
                outcome: named::<CallOutcome>("call outcome", outcome)?,
                // Version 0 wrote `none` where no executor answered.
                provenance: named::<ProvenanceV0>("provenance", provenance)?.into_provenance(),
                observation,
            },
            Event::Retry {
                agent,
                attempt,
                error,
            } => TraceEvent::Retry {
                agent,
                attempt,
                error,
            },
            Event::Backtrack { depth, reason } => TraceEvent::Backtrack {
                depth,
                reason: named::<BacktrackReason>("backtrack reason", reason)?,
            },
            Event::Finished {
                finish,
                answer,
                detail,
            } => TraceEvent::Finished {
                finish: named("finish", finish)?,
                answer,
                detail,
                limit: None,
                calls: None,
                root_branches: None,
            },
        };
        Ok(Stamped {
            at_ms: old.at_ms,
            event,
        })
    }

    /// Version 0's provenance names: the three of today and `none`.
    #[derive(Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum ProvenanceV0 {
        Live,
        Replayed,
        Simulated,
        None,
    }

    impl ProvenanceV0 {
        fn into_provenance(self) -> Option<Provenance> {
            match self {
                Self::Live => Some(Provenance::Live),
                Self::Replayed => Some(Provenance::Replayed),
                Self::Simulated => Some(Provenance::Simulated),
                Self::None => None,
            }
        }
    }
}

/// Receives events as they happen. Methods default to doing nothing.
pub trait TraceSink: Send + Sync {
    /// One event.
    fn event(&self, _event: &Stamped) {}
}

/// Collects a run's events and forwards them to sinks.
#[derive(Clone, Default)]
pub struct Tracer {
    events: Arc<Mutex<Vec<Stamped>>>,
    sinks: Vec<Arc<dyn TraceSink>>,
}

impl std::fmt::Debug for Tracer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracer")
            .field("events", &self.events().len())
            .finish()
    }
}

impl Tracer {
    /// A tracer with no sinks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Also send events to `sink`.
    pub fn with_sink(mut self, sink: Arc<dyn TraceSink>) -> Self {
        self.sinks.push(sink);
        self
    }

    /// Records an event.
    pub fn emit(&self, event: TraceEvent) {
        let at_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        let stamped = Stamped { at_ms, event };
        for sink in &self.sinks {
            sink.event(&stamped);
        }
        if let Ok(mut events) = self.events.lock() {
            events.push(stamped);
        }
    }

    /// Everything recorded so far.
    pub fn events(&self) -> Vec<Stamped> {
        self.events.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

/// Writes each event as one JSON line.
pub struct JsonlSink<W: Write + Send> {
    out: Mutex<W>,
}

impl<W: Write + Send> JsonlSink<W> {
    /// Writes to `out` (a file, usually).
    pub fn new(out: W) -> Self {
        Self {
            out: Mutex::new(out),
        }
    }
}

impl<W: Write + Send> TraceSink for JsonlSink<W> {
    fn event(&self, event: &Stamped) {
        if let (Ok(line), Ok(mut out)) = (serde_json::to_string(event), self.out.lock()) {
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }
}

/// Cuts text to at most `max` characters, marking the cut.
pub fn cut(text: &str, max: usize) -> String {
    toolsmith_plumbing::text::truncate_with(text, max, "...")
}

/// A one-line human rendering of an event, for the terminal.
pub fn render(event: &TraceEvent) -> String {
    match event {
        TraceEvent::Started {
            solver,
            query,
            tools,
        } => format!("▶ {solver}: {query} ({} tools)", tools.len()),
        TraceEvent::LlmCall {
            role,
            reply,
            tool_calls,
            prompt_tokens,
            completion_tokens,
            latency_ms,
            cache_hit,
            ..
        } => {
            let said = if reply.is_empty() {
                String::new()
            } else {
                format!(" \"{}\"", cut(&reply.replace('\n', " "), 160))
            };
            format!(
                "  [{role}] {}+{} tokens, {latency_ms} ms{}{said}{}",
                prompt_tokens,
                completion_tokens,
                if *cache_hit { " (cached)" } else { "" },
                if tool_calls.is_empty() {
                    String::new()
                } else {
                    format!(" -> {}", tool_calls.join(", "))
                }
            )
        }
        TraceEvent::ToolCall {
            function,
            outcome,
            provenance,
            observation,
            ..
        } => {
            let from = provenance.map_or("none", Provenance::as_str);
            format!(
                "    {function}: {outcome} [{from}] {}",
                cut(&observation.replace('\n', " "), 200)
            )
        }
        TraceEvent::Retry {
            agent,
            attempt,
            error,
        } => format!("    ↻ {agent} retry {attempt}: {}", cut(error, 200)),
        TraceEvent::Backtrack { depth, reason } => {
            format!("  ↩ backtrack from depth {depth} ({reason})")
        }
        TraceEvent::AgentCreated {
            agent,
            parent,
            level,
            category,
            tools,
        } => {
            let indent = match level {
                crate::anytool::labels::AgentLevel::Meta => "",
                crate::anytool::labels::AgentLevel::Category => "  ",
                crate::anytool::labels::AgentLevel::Tool => "    ",
            };
            let from = parent.map_or_else(String::new, |p| format!(" (from {p})"));
            let scope = if tools.is_empty() {
                category.clone().unwrap_or_default()
            } else {
                tools
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            format!("  {indent}◆ {level} agent {agent}{from}: {scope}")
        }
        TraceEvent::PoolChanged {
            agent,
            added,
            removed,
            size,
        } => {
            let who = agent.map_or_else(|| "reflection".to_owned(), |a| format!("agent {a}"));
            let list = |ids: &[ApiId]| {
                ids.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if removed.is_empty() {
                format!("  + pool {size}: {who} added {}", list(added))
            } else {
                format!("  - pool {size}: {who} removed {}", list(removed))
            }
        }
        TraceEvent::Seeded {
            apis,
            solvable,
            reason,
        } => {
            let list: Vec<String> = apis.iter().map(ToString::to_string).collect();
            let then = if *solvable {
                "solvable: to the solver without agents"
            } else {
                "not solvable: the agents search on"
            };
            format!(
                "  ⌕ search seeded the pool with {} APIs: {}\n  ⌕ {then} ({})",
                apis.len(),
                list.join(", "),
                cut(reason, 200)
            )
        }
        TraceEvent::PoolTrimmed {
            kept,
            pool,
            whole,
            reason,
        } => {
            let list: Vec<String> = kept.iter().map(ToString::to_string).collect();
            if *whole {
                format!("  ✂ solver gets the whole pool ({pool} APIs): {reason}")
            } else {
                format!(
                    "  ✂ solver gets {} of {pool} pooled APIs ({reason}): {}",
                    kept.len(),
                    list.join(", ")
                )
            }
        }
        TraceEvent::Reflection {
            round,
            reason,
            reactivated,
            ..
        } => format!(
            "⟲ reflection {round}: {}; re-activating {:?}",
            cut(reason, 200),
            reactivated
        ),
        TraceEvent::Judged { verdict, reason } => {
            format!("  ⚖ {verdict:?}: {}", cut(reason, 200))
        }
        TraceEvent::PartTokens { parts, calls, pool } => {
            let each: Vec<String> = parts
                .iter()
                .map(|(part, tokens)| {
                    format!(
                        "{part:?} {tokens} ({} calls)",
                        calls.get(part).copied().unwrap_or(0)
                    )
                })
                .collect();
            format!(
                "  Σ tokens by part: {}; pool {} APIs",
                each.join(", "),
                pool.len()
            )
        }
        TraceEvent::Finished {
            finish,
            answer,
            detail,
            limit,
            ..
        } => {
            let ended = limit.map_or_else(String::new, |l| format!(" [limit: {l}]"));
            match (answer, detail) {
                (Some(answer), _) => format!("■ {}: {answer}", finish.as_str()),
                (None, Some(detail)) => format!("■ {}{ended}: {detail}", finish.as_str()),
                (None, None) => format!("■ {}{ended}", finish.as_str()),
            }
        }
    }
}
