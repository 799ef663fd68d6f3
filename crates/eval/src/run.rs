//! What the metrics and judges need to know about one run, independent of the solver that
//! produced it: the calls it made and how it ended. The harness converts solver traces into a
//! [`RunRecord`]; the metrics never see a trace.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_catalog::ApiId;

/// The API a call named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CalledApi {
    /// An API of the catalog.
    Known(ApiId),
    /// A name that matches no API offered: the model made it up (a tool-name error).
    Unknown(String),
}

/// How one call went, as far as the error taxonomy cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// The API answered.
    Ok,
    /// The arguments were refused (schema check, or the API said they were invalid).
    InvalidParameters,
    /// Any other failure (not found, server error, timeout, ...).
    Failed,
}

/// One API call of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// Which API.
    pub api: CalledApi,
    /// The arguments as the model sent them (a JSON object, usually).
    pub arguments: Value,
    /// How it went.
    pub outcome: CallOutcome,
    /// What the model was shown afterwards.
    pub observation: String,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishKind {
    /// It gave a final answer.
    Answered,
    /// It gave up (a give-up `Finish`, or every branch abandoned).
    GaveUp,
    /// A call, token or LLM-call budget ran out.
    BudgetExhausted,
    /// The step or depth limit was reached without an answer.
    StepLimit,
    /// The solver itself failed (LLM error).
    Error,
}

/// One run of a solver on one query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The calls, in order.
    pub calls: Vec<CallRecord>,
    /// How it ended.
    pub finish: FinishKind,
    /// The final answer, when it gave one.
    pub answer: Option<String>,
}

impl RunRecord {
    /// The catalog APIs called, in order, repeats and failed calls included (calls of unknown
    /// names left out): the `called` list of the path metrics.
    pub fn api_path(&self) -> Vec<ApiId> {
        self.calls
            .iter()
            .filter_map(|c| match &c.api {
                CalledApi::Known(id) => Some(id.clone()),
                CalledApi::Unknown(_) => None,
            })
            .collect()
    }

    /// Whether it ended with a non-empty answer.
    pub fn answered(&self) -> bool {
        self.finish == FinishKind::Answered && self.answer.as_deref().is_some_and(non_blank)
    }
}

fn non_blank(s: &str) -> bool {
    !s.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(api: CalledApi) -> CallRecord {
        CallRecord {
            api,
            arguments: json!({}),
            outcome: CallOutcome::Ok,
            observation: String::new(),
        }
    }

    #[test]
    fn the_api_path_skips_unknown_names_and_answered_needs_text()
    -> Result<(), Box<dyn std::error::Error>> {
        let a: ApiId = "tmdb/search_movie".parse()?;
        let mut run = RunRecord {
            calls: vec![
                call(CalledApi::Known(a.clone())),
                call(CalledApi::Unknown("made_up".into())),
                call(CalledApi::Known(a.clone())),
            ],
            finish: FinishKind::Answered,
            answer: Some("Dune".into()),
        };
        assert_eq!(run.api_path(), vec![a.clone(), a]);
        assert!(run.answered());
        run.answer = Some("  ".into());
        assert!(!run.answered());
        run.answer = Some("Dune".into());
        run.finish = FinishKind::GaveUp;
        assert!(!run.answered());
        let text = serde_json::to_string(&run.calls[1].api)?;
        assert_eq!(text, r#"{"unknown":"made_up"}"#);
        Ok(())
    }
}
