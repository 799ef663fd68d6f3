//! The solvability filter: a request is kept only when its planned calls run along the gold
//! path (every call succeeds, every reference resolves) and the last response is not empty.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_exec::{Body, Executor};

use super::path::GoldPath;
use super::reference::resolve_arguments;
use super::writer::PlannedCall;

/// Why a written request left the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// Its calls are not the gold path's APIs in order.
    WrongPath,
    /// A call failed (or the executor could not make it).
    CallFailed,
    /// A reference to an earlier response found nothing.
    UnresolvedReference,
    /// The last call answered with nothing.
    EmptyAnswer,
    /// Too close to a request already in the set.
    Duplicate,
    /// The model judged that the responses do not answer the request.
    NotAnswered,
    /// It repeats its gold APIs' docs more than the set allows ([`doc_echo`](super::doc_echo)).
    DocEcho,
    /// It shares fewer of its gold APIs' words than real users' requests do: a paraphrase no
    /// user would type ([`doc_echo`](super::doc_echo), under the set's floor).
    DocEchoLow,
}

impl DropReason {
    /// Every reason.
    pub const ALL: [Self; 8] = [
        Self::WrongPath,
        Self::CallFailed,
        Self::UnresolvedReference,
        Self::EmptyAnswer,
        Self::Duplicate,
        Self::NotAnswered,
        Self::DocEcho,
        Self::DocEchoLow,
    ];

    /// The stable name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::WrongPath => "wrong_path",
            Self::CallFailed => "call_failed",
            Self::UnresolvedReference => "unresolved_reference",
            Self::EmptyAnswer => "empty_answer",
            Self::Duplicate => "duplicate",
            Self::NotAnswered => "not_answered",
            Self::DocEcho => "doc_echo",
            Self::DocEchoLow => "doc_echo_low",
        }
    }
}

impl std::fmt::Display for DropReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Runs `calls` along `path` through `executor`, resolving references as it goes; the
/// responses in order, or why the request is not solvable.
pub async fn run_planned(
    executor: &dyn Executor,
    path: &GoldPath,
    calls: &[PlannedCall],
) -> Result<Vec<Value>, DropReason> {
    let apis: Vec<_> = calls.iter().map(|c| &c.api).collect();
    if apis.len() != path.apis.len() || apis.iter().zip(&path.apis).any(|(a, b)| *a != b) {
        return Err(DropReason::WrongPath);
    }
    let mut responses: Vec<Value> = Vec::with_capacity(calls.len());
    for call in calls {
        let args = resolve_arguments(&call.arguments, &responses)
            .map_err(|_| DropReason::UnresolvedReference)?;
        let obs = executor
            .call(&call.api, &args)
            .await
            .map_err(|_| DropReason::CallFailed)?;
        if !obs.is_ok() {
            return Err(DropReason::CallFailed);
        }
        responses.push(match obs.body {
            Body::Json(v) => v,
            Body::Text(t) => Value::String(t),
            Body::Empty => Value::Null,
        });
    }
    match responses.last() {
        Some(last) if !is_empty(last) => Ok(responses),
        _ => Err(DropReason::EmptyAnswer),
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}
