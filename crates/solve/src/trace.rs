//! Structured traces of a run: every LLM call, tool call, calibration retry,
//! backtrack, and the final state. Sinks receive events as they happen (the
//! terminal renderer, a JSONL file); the run keeps them all.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
        role: String,
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
        /// The API it resolved to (absent for unknown tools).
        api: Option<String>,
        /// The arguments.
        arguments: Value,
        /// `ok` or a failure kind (`bad_parameters`, `not_found`, `unknown_tool`, ...).
        outcome: String,
        /// `live`, `replayed`, `simulated` or `none`.
        provenance: String,
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
        /// Why: `give_up`, `depth_limit`, `error`.
        reason: String,
    },
    /// The run ended.
    Finished {
        /// `answered`, `gave_up`, `budget_exhausted`, `step_limit` or `error`.
        finish: String,
        /// The answer, if any.
        answer: Option<String>,
        /// Why it ended without an answer.
        detail: Option<String>,
    },
}

/// An event with its time (Unix milliseconds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stamped {
    /// Unix milliseconds.
    pub at_ms: u64,
    /// The event.
    #[serde(flatten)]
    pub event: TraceEvent,
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
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max).collect();
    out.push_str("...");
    out
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
            format!(
                "    {function}: {outcome} [{provenance}] {}",
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
        TraceEvent::Finished {
            finish,
            answer,
            detail,
        } => match (answer, detail) {
            (Some(answer), _) => format!("■ {finish}: {answer}"),
            (None, Some(detail)) => format!("■ {finish}: {detail}"),
            (None, None) => format!("■ {finish}"),
        },
    }
}
