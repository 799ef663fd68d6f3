//! What the query writer is asked for and what it returns.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_catalog::{ApiEntry, ApiId};

/// How a written request is worded, so a set of them covers how users really ask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phrasing {
    /// A few words, as typed into a search box.
    Terse,
    /// A full sentence or two, as said to an assistant.
    Conversational,
    /// The need wrapped in details that do not matter to it (who asks, why, what else).
    WithContext,
    /// Several asks in one message, each served by one call of the path.
    MultiIntent,
}

impl Phrasing {
    /// Every phrasing, in order.
    pub const ALL: [Self; 4] = [
        Self::Terse,
        Self::Conversational,
        Self::WithContext,
        Self::MultiIntent,
    ];

    /// Its name (`with_context`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Terse => "terse",
            Self::Conversational => "conversational",
            Self::WithContext => "with_context",
            Self::MultiIntent => "multi_intent",
        }
    }

    /// What the model is told this phrasing means.
    pub(crate) fn guide(self) -> &'static str {
        match self {
            Self::Terse => "a few words, the way people type into a search box",
            Self::Conversational => "one or two natural sentences addressed to an assistant",
            Self::WithContext => {
                "the need buried among details that do not matter to it (who is asking, \
                 why, what else is going on in their day)"
            }
            Self::MultiIntent => {
                "several separate asks in one message, each one served by one of the calls"
            }
        }
    }

    /// The phrasings a path of `steps` calls can take: a single call has one intent.
    pub fn for_steps(steps: usize) -> Vec<Self> {
        Self::ALL
            .into_iter()
            .filter(|p| *p != Self::MultiIntent || steps > 1)
            .collect()
    }
}

impl fmt::Display for Phrasing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whom written requests are for. The writer is one component; only its instructions differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Voice {
    /// Views indexed with a doc (`refine --method queries`): requests close to what the API
    /// does, so a search for such a need finds it.
    #[default]
    View,
    /// A yardstick's requests (`synth`): a user who has never seen the API, naming concrete
    /// entities and the goal, none of the doc's names or phrases, so that measuring on them
    /// does not reward docs for sharing the writer's words; but in the plain words users have
    /// for the service's things, which docs share too (paraphrasing them away rewards docs
    /// rewritten by the same writer).
    User,
}

impl Voice {
    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::View => "view",
            Self::User => "user",
        }
    }
}

/// One call of a path: the API (with the doc the model reads) and, when one was seen, a
/// response of it, so the requests name entities that exist.
#[derive(Clone, Debug)]
pub struct PathStep {
    /// The API and its doc.
    pub api: ApiEntry,
    /// A response of this API seen before (executed or replayed), to take values from.
    pub observed: Option<Value>,
    /// The earlier step (0-based) whose response supplies one of this call's arguments (a
    /// dependency edge of the tool graph); the prompt claims a dependency only here.
    pub fed_by: Option<usize>,
}

impl PathStep {
    /// A step with no observed response, fed by no earlier step.
    pub fn new(api: ApiEntry) -> Self {
        Self {
            api,
            observed: None,
            fed_by: None,
        }
    }
}

/// What to write: requests answered by exactly `steps`' calls, in order.
#[derive(Clone, Debug)]
pub struct WriteRequest {
    /// The path: one API (a view of it), or several whose outputs feed later calls.
    pub steps: Vec<PathStep>,
    /// Requests wanted.
    pub count: usize,
    /// Phrasings, cycled over the requests; empty: [`Phrasing::for_steps`].
    pub phrasings: Vec<Phrasing>,
    /// Requests already written for this path elsewhere: neither repeated nor paraphrased.
    pub avoid: Vec<String>,
    /// Whom the requests are for.
    pub voice: Voice,
}

/// One call a written request needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedCall {
    /// The API called (the step's).
    pub api: ApiId,
    /// Its arguments. A value taken from an earlier call's response is
    /// `{"$from": <0-based index of that earlier step>, "path": "<jq path into its response>"}`.
    pub arguments: Value,
}

/// A written request with the calls that answer it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WrittenQuery {
    /// What the user says.
    pub text: String,
    /// How it is worded.
    pub phrasing: Phrasing,
    /// One call per step, in order.
    pub calls: Vec<PlannedCall>,
}

/// Why a written item was not kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Discarded {
    /// The item did not fit the path (missing text, wrong calls, unknown or missing
    /// parameters, a `$from` pointing forward).
    Malformed {
        /// The item as the model wrote it.
        item: Value,
        /// What was wrong.
        reason: String,
    },
    /// Too close to a request kept or avoided.
    NearDuplicate {
        /// The request.
        text: String,
        /// The request it repeats.
        similar_to: String,
        /// Their cosine (1 for an exact repeat without an embedder).
        cosine: f32,
    },
    /// A whole reply stayed unparseable after its repairs.
    Unusable {
        /// Why.
        reason: String,
    },
}

/// What one [`QueryWriter::write_report`](super::QueryWriter::write_report) did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WriteReport {
    /// The requests kept, at most the count asked for.
    pub queries: Vec<WrittenQuery>,
    /// What was written and not kept.
    pub discarded: Vec<Discarded>,
    /// Model requests made.
    pub asks: u32,
}
