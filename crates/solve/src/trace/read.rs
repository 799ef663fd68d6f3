//! Reading traces back: a stamped event of any readable version, and JSONL files.

use std::io::BufRead;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::event::{Stamped, StampedV1, TRACE_VERSION, TraceEvent};
use crate::error::{Error, Result};

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

    use crate::agent_role::ConAgentsRole;
    use crate::trace::event::{BacktrackReason, CallOutcome, Stamped, TraceEvent};

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
                agent: named::<ConAgentsRole>("agent", agent)?,
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
