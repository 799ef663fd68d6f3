//! What a refinement run stores: its id and method, and one [`Round`] per API round, so a
//! user can see why a doc says what it says (DRAFT's revision trajectories, Tables 9-12).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use toolsmith_catalog::{DocLabel, UsageExample};
use toolsmith_exec::{FailureKind, Provenance};

use crate::invented::InventedQuote;

/// A stored refinement run's id (the one run id type, shared with eval's benchmark runs).
pub use toolsmith_plumbing::store::RunId;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum RunEnd {
    /// Every API and tool is done (some may have failed; see the report).
    Finished,
    /// The LLM budget ran out; what was done is kept and `--resume` continues.
    Budget(String),
}

impl RunEnd {
    /// Its stored name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Finished => "finished",
            Self::Budget(_) => "budget",
        }
    }
}

/// A refinement method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// EasyTool: clean-up, a concise tool description, executed usage examples.
    EasyTool,
    /// DRAFT: explore, analyze, rewrite per API until the doc settles.
    Draft,
    /// ToolExpNet: contrastive trial and error on the tool graph, then per-API insights.
    ExpNet,
    /// Re-Invoke's document expansion: synthetic user requests stored as the doc's views.
    Queries,
}

impl Method {
    /// The method's name (`easytool`, `draft`), also the label of the docs it writes.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::EasyTool => "easytool",
            Self::Draft => "draft",
            Self::ExpNet => "expnet",
            Self::Queries => "queries",
        }
    }

    /// The model role whose replies become the doc text: the model whose wording a yardstick
    /// written by the same model would favour (see `RunSpec::writer`).
    pub fn writer_role(self) -> &'static str {
        match self {
            Self::Queries => toolsmith_llm::Role::QUERIES,
            Self::EasyTool | Self::Draft | Self::ExpNet => toolsmith_llm::Role::REWRITER,
        }
    }

    /// The label of the doc versions it writes.
    pub fn label(self) -> DocLabel {
        DocLabel::try_from(self.as_str().to_owned()).unwrap_or_else(|_| DocLabel::original())
    }

    /// The label of the doc version one round wrote (`draft.r2`), so each step of a revision
    /// trajectory can be shown, diffed and activated; the final doc keeps [`Method::label`].
    pub fn round_label(self, round: u32) -> DocLabel {
        DocLabel::try_from(format!("{}.r{round}", self.as_str())).unwrap_or_else(|_| self.label())
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One call made while refining: the user request it served, the arguments and what came back.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredTrial")]
pub struct Trial {
    /// The user request the call serves.
    pub query: String,
    /// The arguments sent.
    pub arguments: Value,
    /// The schema defaults the simulator added for parameters the arguments left out (a
    /// simulated call only): the prompts show them beside the arguments.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub defaults: Map<String, Value>,
    /// The arguments the explorer gave under names the API documents no input for: left out
    /// of the call (DRAFT), so the doc learns nothing from a parameter the API may not have.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub undocumented: Map<String, Value>,
    /// Whether the call succeeded.
    pub ok: bool,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    /// The response as the model was shown it (cut to the observation limit).
    pub observation: String,
    /// Where the response came from: a simulated one (from the spec, or written by a model)
    /// is no evidence of the API's values, only of its shape.
    pub provenance: Provenance,
}

impl Trial {
    /// Whether the response was made up rather than returned by the API.
    pub fn invented(&self) -> bool {
        crate::invented::is_invented(self.provenance)
    }
}

/// A trial as stored: rounds stored before provenance was recorded carry only `synthetic`.
#[derive(Deserialize)]
struct StoredTrial {
    query: String,
    arguments: Value,
    #[serde(default)]
    defaults: Map<String, Value>,
    #[serde(default)]
    undocumented: Map<String, Value>,
    ok: bool,
    #[serde(default)]
    failure: Option<FailureKind>,
    observation: String,
    #[serde(default)]
    provenance: Option<Provenance>,
    #[serde(default)]
    synthetic: bool,
}

impl From<StoredTrial> for Trial {
    fn from(t: StoredTrial) -> Self {
        let legacy = if t.synthetic {
            Provenance::Simulated
        } else {
            Provenance::Live
        };
        Self {
            query: t.query,
            arguments: t.arguments,
            defaults: t.defaults,
            undocumented: t.undocumented,
            ok: t.ok,
            failure: t.failure,
            observation: t.observation,
            provenance: t.provenance.unwrap_or(legacy),
        }
    }
}

/// An exploration query the diversity check turned down.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rejected {
    /// The query.
    pub query: String,
    /// Its highest cosine with an earlier query of the API.
    pub cosine: f32,
    /// That earlier query.
    pub similar_to: String,
}

/// An example EasyTool dropped, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Dropped {
    /// The example.
    pub example: UsageExample,
    /// The failure of its last call.
    pub reason: String,
}

/// Why an API's refinement ended at this round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// DRAFT: Delta exceeded tau; the doc settled.
    Settled,
    /// DRAFT: the last allowed round.
    MaxRounds,
    /// DRAFT: the API takes no input, so every later call would repeat the first round's and
    /// could show nothing new.
    NoParameters,
    /// The model's output was unusable; the API keeps its last good doc.
    Malformed,
    /// A single-pass method (EasyTool) is done.
    Done,
}

impl Stop {
    /// The stop's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Settled => "settled",
            Self::MaxRounds => "max_rounds",
            Self::NoParameters => "no_parameters",
            Self::Malformed => "malformed",
            Self::Done => "done",
        }
    }
}

/// One round of one API, stored in one transaction as soon as it is done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    /// 1-based.
    pub round: u32,
    /// DRAFT: the exploration call of this round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exploration: Option<Trial>,
    /// DRAFT: queries the diversity check turned down before the one explored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected_queries: Vec<Rejected>,
    /// DRAFT: the analyzer's suggestions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<String>,
    /// The API's description after this round (unchanged when the rewrite was refused).
    pub description: String,
    /// EasyTool: the usage examples kept (each one executed successfully).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<UsageExample>,
    /// EasyTool: the examples dropped after failing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dropped: Vec<Dropped>,
    /// The synthetic requests written (`queries`); empty: the doc keeps the ones it had.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<String>,
    /// DRAFT: the rewriter's direction for the next exploration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    /// DRAFT: (cosine + BLEU) / 2 of the previous and the new description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<f64>,
    /// Literals of the new doc that only an invented response held, with their sentences.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invented_quotes: Vec<InventedQuote>,
    /// Why a model output was refused (bad JSON, empty or overlong doc), when one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Set on the API's last round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
}

impl Round {
    /// A round that only carries a description.
    pub fn new(round: u32, description: impl Into<String>) -> Self {
        Self {
            round,
            exploration: None,
            rejected_queries: Vec::new(),
            suggestions: None,
            description: description.into(),
            examples: Vec::new(),
            dropped: Vec::new(),
            queries: Vec::new(),
            direction: None,
            delta: None,
            invented_quotes: Vec::new(),
            refused: None,
            stop: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_method_writes_docs_under_its_own_label() {
        assert_eq!(Method::Draft.label().as_str(), "draft");
        assert_eq!(Method::EasyTool.label().as_str(), "easytool");
        assert_eq!(Method::Draft.round_label(3).as_str(), "draft.r3");
        assert_eq!(
            serde_json::to_string(&Method::EasyTool).unwrap(),
            "\"easytool\""
        );
        assert_eq!("12".parse::<RunId>().unwrap(), RunId(12));
        assert!("x".parse::<RunId>().is_err());
    }

    #[test]
    fn a_trial_stored_before_provenance_reads_its_synthetic_flag() {
        let old = r#"{"query": "q", "arguments": {}, "ok": true, "observation": "{}", "synthetic": true}"#;
        let trial: Trial = serde_json::from_str(old).unwrap();
        assert_eq!(trial.provenance, Provenance::Simulated);
        assert!(trial.invented());
        let text = serde_json::to_string(&Trial {
            provenance: Provenance::SimulatedLlm,
            ..trial
        })
        .unwrap();
        assert!(text.contains(r#""provenance":"simulated+llm""#), "{text}");
        let back: Trial = serde_json::from_str(&text).unwrap();
        assert_eq!(back.provenance, Provenance::SimulatedLlm);
    }
}
