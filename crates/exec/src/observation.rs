//! What one call returns to the agent: the outcome, the body, its size, how
//! long it took and where it came from.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

macro_rules! failure_kinds {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, retryable: $retry:literal;)+) => {
        /// Why a call failed. Each kind has a stable name (counted by eval's
        /// error taxonomy) and a retryability, both from the one table below.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum FailureKind {
            $($(#[$doc])* $variant,)+
        }

        impl FailureKind {
            /// Every kind, in table order.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)+];

            /// The stable snake_case name (`bad_parameters`, `rate_limited`, ...).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            /// Whether calling again unchanged may succeed (after a pause).
            pub fn is_retryable(self) -> bool {
                match self {
                    $(Self::$variant => $retry,)+
                }
            }
        }
    };
}

failure_kinds! {
    /// The arguments break the API's input schema, or the server rejected them (400, 422).
    BadParameters = "bad_parameters", retryable: false;
    /// The resource does not exist (404).
    NotFound = "not_found", retryable: false;
    /// Credentials are missing or wrong (401).
    Unauthorized = "unauthorized", retryable: false;
    /// Credentials are valid but not allowed this call (403).
    Forbidden = "forbidden", retryable: false;
    /// Too many requests (429).
    RateLimited = "rate_limited", retryable: true;
    /// The server failed (5xx).
    ServerError = "server_error", retryable: true;
    /// The tool ran and reported a failure of its own (an MCP result with `isError`).
    ToolFailed = "tool_failed", retryable: false;
    /// No complete response in time.
    Timeout = "timeout", retryable: true;
    /// The response claims JSON but does not parse.
    UnparsableResponse = "unparsable_response", retryable: false;
    /// The response is over the size cap; the body holds its first part.
    ResponseTooLarge = "response_too_large", retryable: false;
    /// Connecting or talking to the server failed, or the host is not allowed.
    Network = "network", retryable: true;
    /// The API name does not match any known API.
    UnknownApi = "unknown_api", retryable: false;
    /// This backend cannot serve the API at all (nothing to simulate from, no URL).
    Unsupported = "unsupported", retryable: false;
    /// The call could change a live API and the user has not allowed writes to it.
    NotAllowed = "not_allowed", retryable: false;
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a call ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Outcome {
    /// The tool answered normally.
    Ok,
    /// The tool (or the arguments) failed: the server said no, or the call
    /// was refused before it was made.
    ToolError {
        /// Why.
        kind: FailureKind,
        /// A message the agent can act on.
        message: String,
    },
    /// The tool could not be reached or its answer could not be read.
    TransportError {
        /// Why.
        kind: FailureKind,
        /// A message the agent can act on.
        message: String,
    },
}

impl Outcome {
    /// The failure kind, `None` when the call succeeded.
    pub fn failure(&self) -> Option<FailureKind> {
        match self {
            Self::Ok => None,
            Self::ToolError { kind, .. } | Self::TransportError { kind, .. } => Some(*kind),
        }
    }
}

/// The body of a response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Body {
    /// No body.
    Empty,
    /// A JSON document.
    Json(Value),
    /// Anything else, as (lossy UTF-8) text.
    Text(String),
}

impl Body {
    /// The JSON document, when the body is one.
    pub fn json(&self) -> Option<&Value> {
        match self {
            Self::Json(v) => Some(v),
            _ => None,
        }
    }

    /// The body as the text an agent would read.
    pub fn to_text(&self) -> String {
        match self {
            Self::Empty => String::new(),
            Self::Json(v) => v.to_string(),
            Self::Text(t) => t.clone(),
        }
    }
}

/// Where an observation came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provenance {
    /// A real call: an HTTP server, or a built-in function computed now.
    Live,
    /// A recorded response played back from the cache.
    Replayed,
    /// A response synthesized from the API's schema and examples.
    Simulated,
    /// A simulated response written by a language model (StableToolBench's virtual APIs):
    /// the values of a schema-valid draft (`[exec.simulate] fill = "llm"`), or the whole
    /// body of an API with no schema or example. Cached, so a re-run replays it.
    #[serde(rename = "simulated+llm", alias = "invented")]
    SimulatedLlm,
}

impl Provenance {
    /// The stable name (`live`, `replayed`, `simulated`, `simulated+llm`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Live => "live",
            Self::Replayed => "replayed",
            Self::Simulated => "simulated",
            Self::SimulatedLlm => "simulated+llm",
        }
    }
}

/// What came back from one call, and from where.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Success, or why not.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The HTTP status, when there was one.
    pub status: Option<u16>,
    /// The body (possibly cut at the size cap).
    pub body: Body,
    /// Size of the full body in bytes, as received (before any cut).
    pub bytes: usize,
    /// Whether `body` was cut at the size cap.
    pub truncated: bool,
    /// Time taken to produce the observation.
    #[serde(rename = "latency_ms", with = "millis")]
    pub latency: Duration,
    /// Where it came from.
    pub provenance: Provenance,
}

impl Observation {
    /// A successful observation with a JSON body.
    pub fn ok_json(value: Value, provenance: Provenance) -> Self {
        let bytes = value.to_string().len();
        Self {
            outcome: Outcome::Ok,
            status: None,
            body: Body::Json(value),
            bytes,
            truncated: false,
            latency: Duration::ZERO,
            provenance,
        }
    }

    /// A tool error with no body, refused or failed before any response.
    pub fn tool_error(
        kind: FailureKind,
        message: impl Into<String>,
        provenance: Provenance,
    ) -> Self {
        Self {
            outcome: Outcome::ToolError {
                kind,
                message: message.into(),
            },
            status: None,
            body: Body::Empty,
            bytes: 0,
            truncated: false,
            latency: Duration::ZERO,
            provenance,
        }
    }

    /// A transport error with no body.
    pub fn transport_error(
        kind: FailureKind,
        message: impl Into<String>,
        provenance: Provenance,
    ) -> Self {
        Self {
            outcome: Outcome::TransportError {
                kind,
                message: message.into(),
            },
            ..Self::tool_error(kind, "", provenance)
        }
    }

    /// The same observation with its latency set.
    pub fn with_latency(mut self, latency: Duration) -> Self {
        self.latency = latency;
        self
    }

    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        self.outcome == Outcome::Ok
    }

    /// The failure kind, `None` on success.
    pub fn failure(&self) -> Option<FailureKind> {
        self.outcome.failure()
    }
}

mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64() * 1000.0)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let ms = f64::deserialize(d)?;
        Ok(Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::ZERO))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn kinds_have_distinct_names() {
        let mut names: Vec<&str> = FailureKind::ALL.iter().map(|k| k.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FailureKind::ALL.len());
        for kind in FailureKind::ALL {
            let text = serde_json::to_value(kind).unwrap();
            assert_eq!(text, json!(kind.as_str()));
        }
        assert!(FailureKind::RateLimited.is_retryable());
        assert!(!FailureKind::BadParameters.is_retryable());
    }

    #[test]
    fn observation_round_trips() {
        let obs = Observation::tool_error(FailureKind::NotFound, "no movie 7", Provenance::Live)
            .with_latency(Duration::from_millis(12));
        let text = serde_json::to_value(&obs).unwrap();
        assert_eq!(text["result"], "tool_error");
        assert_eq!(text["kind"], "not_found");
        assert_eq!(text["latency_ms"], 12.0);
        let back: Observation = serde_json::from_value(text).unwrap();
        assert_eq!(back, obs);
    }
}
