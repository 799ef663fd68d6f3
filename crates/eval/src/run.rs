//! What the metrics and judges need to know about one run, independent of the solver that
//! produced it: the calls it made and how it ended. [`RunRecord::from_run`] is the one
//! conversion from a solver's typed trace; the metrics never see a trace.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_catalog::ApiId;
use toolsmith_exec::FailureKind;
use toolsmith_solve::{CallOutcome, Finish, READ_RESULT, Run, SEARCH_TOOLS, TraceEvent};

/// The API a call named.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CalledApi {
    /// An API of the catalog.
    Known(ApiId),
    /// A name that matches no API offered: the model made it up (a tool-name error).
    Unknown(String),
    /// A helper the solver offers besides the APIs (not an API call, not a tool-name error).
    Helper(HelperTool),
}

/// A tool a solver offers besides the catalog's APIs that appears in a run's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HelperTool {
    /// `read_result`: reads more of an observation the solver was shown cut.
    ReadResult,
}

impl HelperTool {
    /// The helper a function name names.
    pub fn named(name: &str) -> Option<Self> {
        (name == READ_RESULT).then_some(Self::ReadResult)
    }

    /// Its function name.
    pub fn name(self) -> &'static str {
        match self {
            Self::ReadResult => READ_RESULT,
        }
    }

    /// What it is, for a reader of the run (the judge).
    pub fn about(self) -> &'static str {
        match self {
            Self::ReadResult => {
                "not an API: the solver's helper that reads more of an earlier observation it \
                 was shown cut, from the result kept whole"
            }
        }
    }
}

/// How one call went, as far as the error taxonomy cares: the coarse status read from the
/// trace's `toolsmith_solve::CallOutcome`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// The API answered.
    Ok,
    /// The arguments were refused (schema check, or the API said they were invalid).
    InvalidParameters,
    /// Any other failure (not found, server error, timeout, ...).
    Failed,
    /// The call would have changed a live API the user did not open to writes, and was
    /// refused before it was made.
    NotAllowed,
}

/// One API call of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    /// Which API.
    pub api: CalledApi,
    /// The arguments as the model sent them (a JSON object, usually).
    pub arguments: Value,
    /// How it went.
    pub outcome: CallStatus,
    /// What the model was shown afterwards.
    pub observation: String,
    /// The model turn that made the call (0 for the first): calls of one turn were made
    /// together, in no order between them. `None` in records stored before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
}

/// One run of a solver on one query.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The calls, in order.
    pub calls: Vec<CallRecord>,
    /// How it ended (the solver's own [`Finish`]).
    pub finish: Finish,
    /// The final answer, when it gave one.
    pub answer: Option<String>,
}

impl RunRecord {
    /// The record of a solver's run, from its typed trace: every tool call in order except
    /// `search_tools` (a tool search, not an API call), an unknown function kept by name, a
    /// `read_result` the toolset answered as a [`HelperTool`].
    /// Refused arguments (a schema check, an API's `bad_parameters`, arguments that are not a
    /// JSON object) count as [`CallStatus::InvalidParameters`].
    pub fn from_run(run: &Run) -> Self {
        let mut turns = 0u32;
        let calls = run
            .trace
            .iter()
            .filter_map(|stamped| match &stamped.event {
                TraceEvent::LlmCall { .. } => {
                    turns += 1;
                    None
                }
                TraceEvent::ToolCall {
                    function,
                    api,
                    arguments,
                    outcome,
                    observation,
                    ..
                } if api.is_some() || function != SEARCH_TOOLS => Some(CallRecord {
                    api: called(function, api.as_ref(), *outcome),
                    arguments: arguments.clone(),
                    outcome: call_outcome(*outcome),
                    observation: observation.clone(),
                    step: Some(turns.saturating_sub(1)),
                }),
                _ => None,
            })
            .collect();
        Self {
            calls,
            finish: run.finish,
            answer: run.answer.clone(),
        }
    }

    /// The catalog APIs called, in order, repeats and failed calls included (calls of unknown
    /// names left out): the `called` list of the path metrics.
    pub fn api_path(&self) -> Vec<ApiId> {
        self.calls
            .iter()
            .filter_map(|c| match &c.api {
                CalledApi::Known(id) => Some(id.clone()),
                CalledApi::Unknown(_) | CalledApi::Helper(_) => None,
            })
            .collect()
    }

    /// [`api_path`](Self::api_path) grouped by the model turn that made each call: a turn's
    /// calls in one group, in the order made; a call of unknown turn (an old record) alone.
    pub fn api_steps(&self) -> Vec<Vec<ApiId>> {
        let mut steps: Vec<(Option<u32>, Vec<ApiId>)> = Vec::new();
        for call in &self.calls {
            let CalledApi::Known(id) = &call.api else {
                continue;
            };
            match steps.last_mut() {
                Some((step, ids)) if step.is_some() && *step == call.step => ids.push(id.clone()),
                _ => steps.push((call.step, vec![id.clone()])),
            }
        }
        steps.into_iter().map(|(_, ids)| ids).collect()
    }

    /// Whether it ended with a non-empty answer.
    pub fn answered(&self) -> bool {
        self.finish == Finish::Answered && self.answer.as_deref().is_some_and(non_blank)
    }
}

/// What a traced call named: an API, a helper the toolset offered (one it did not offer is
/// answered as an unknown tool), or an unknown name.
fn called(function: &str, api: Option<&ApiId>, outcome: CallOutcome) -> CalledApi {
    match (api, HelperTool::named(function)) {
        (Some(id), _) => CalledApi::Known(id.clone()),
        (None, Some(helper)) if outcome != CallOutcome::UnknownTool => CalledApi::Helper(helper),
        (None, _) => CalledApi::Unknown(function.to_owned()),
    }
}

fn call_outcome(outcome: toolsmith_solve::CallOutcome) -> CallStatus {
    use toolsmith_solve::CallOutcome as Traced;
    match outcome {
        Traced::Ok => CallStatus::Ok,
        Traced::Failed(FailureKind::BadParameters) | Traced::Rejected => {
            CallStatus::InvalidParameters
        }
        Traced::Failed(FailureKind::NotAllowed) => CallStatus::NotAllowed,
        Traced::Failed(_) | Traced::UnknownTool | Traced::NotRun => CallStatus::Failed,
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
            outcome: CallStatus::Ok,
            observation: String::new(),
            step: None,
        }
    }

    fn tool_call(
        function: &str,
        api: Option<ApiId>,
        outcome: toolsmith_solve::CallOutcome,
    ) -> toolsmith_solve::Stamped {
        toolsmith_solve::Stamped {
            at_ms: 0,
            event: TraceEvent::ToolCall {
                call_id: "c".into(),
                function: function.into(),
                api,
                arguments: json!({"query": "Dune"}),
                outcome,
                provenance: None,
                observation: "{}".into(),
            },
        }
    }

    #[test]
    fn a_record_from_a_trace_keeps_api_calls_and_unknown_names_but_not_tool_searches()
    -> Result<(), Box<dyn std::error::Error>> {
        use toolsmith_solve::CallOutcome as Traced;
        let a: ApiId = "tmdb/search_movie".parse()?;
        let run = Run {
            solver: "react".into(),
            query: "Who directed Dune?".into(),
            finish: Finish::Answered,
            answer: Some("Villeneuve".into()),
            detail: None,
            trace: vec![
                tool_call(SEARCH_TOOLS, None, Traced::Ok),
                tool_call("made_up", None, Traced::UnknownTool),
                tool_call("search_movie_for_tmdb", Some(a.clone()), Traced::Rejected),
                tool_call(
                    "search_movie_for_tmdb",
                    Some(a.clone()),
                    Traced::Failed(FailureKind::BadParameters),
                ),
                tool_call(
                    "search_movie_for_tmdb",
                    Some(a.clone()),
                    Traced::Failed(FailureKind::NotFound),
                ),
                tool_call(
                    "search_movie_for_tmdb",
                    Some(a.clone()),
                    Traced::Failed(FailureKind::NotAllowed),
                ),
                tool_call("search_movie_for_tmdb", Some(a.clone()), Traced::Ok),
            ],
        };
        let record = RunRecord::from_run(&run);
        let outcomes: Vec<CallStatus> = record.calls.iter().map(|c| c.outcome).collect();
        assert_eq!(
            outcomes,
            [
                CallStatus::Failed,
                CallStatus::InvalidParameters,
                CallStatus::InvalidParameters,
                CallStatus::Failed,
                CallStatus::NotAllowed,
                CallStatus::Ok
            ]
        );
        assert_eq!(record.calls[0].api, CalledApi::Unknown("made_up".into()));
        assert_eq!(record.api_path().len(), 5);
        assert_eq!(record.finish, Finish::Answered);
        assert!(record.answered());
        Ok(())
    }

    /// A ReAct run that answered, with `trace`.
    fn answered(trace: Vec<toolsmith_solve::Stamped>) -> Run {
        Run {
            solver: "react".into(),
            query: "q".into(),
            finish: Finish::Answered,
            answer: Some("a".into()),
            detail: None,
            trace,
        }
    }

    fn turn() -> toolsmith_solve::Stamped {
        toolsmith_solve::Stamped {
            at_ms: 0,
            event: TraceEvent::LlmCall {
                role: toolsmith_llm::Role::new(toolsmith_llm::Role::AGENT),
                messages: 1,
                last_message: String::new(),
                reply: String::new(),
                tool_calls: Vec::new(),
                prompt_tokens: 0,
                completion_tokens: 0,
                latency_ms: 0,
                cache_hit: false,
            },
        }
    }

    #[test]
    fn calls_are_grouped_by_the_model_turn_that_made_them() -> Result<(), Box<dyn std::error::Error>>
    {
        use toolsmith_solve::CallOutcome as Traced;
        let [a, b, c]: [ApiId; 3] = [
            "tmdb/search_movie".parse()?,
            "tmdb/movie_credits".parse()?,
            "tmdb/season_credits".parse()?,
        ];
        let run = answered(vec![
            turn(),
            tool_call("search", Some(a.clone()), Traced::Ok),
            turn(),
            tool_call("season", Some(c.clone()), Traced::Ok),
            tool_call(READ_RESULT, None, Traced::Ok),
            tool_call("credits", Some(b.clone()), Traced::Ok),
            turn(),
            tool_call("credits", Some(b.clone()), Traced::Ok),
        ]);
        let record = RunRecord::from_run(&run);
        let steps: Vec<Option<u32>> = record.calls.iter().map(|c| c.step).collect();
        assert_eq!(steps, [Some(0), Some(1), Some(1), Some(1), Some(2)]);
        assert_eq!(
            record.api_steps(),
            vec![vec![a.clone()], vec![c.clone(), b.clone()], vec![b.clone()]]
        );
        // A record stored before steps were kept: every call is its own step.
        let mut old = record.clone();
        old.calls.iter_mut().for_each(|c| c.step = None);
        assert_eq!(old.api_steps().len(), 4);
        Ok(())
    }

    #[test]
    fn a_read_result_the_toolset_answered_is_a_helper_not_an_unknown_tool() {
        use toolsmith_solve::CallOutcome as Traced;
        let run = answered(vec![
            tool_call(READ_RESULT, None, Traced::Ok),
            tool_call(READ_RESULT, None, Traced::UnknownTool),
        ]);
        let record = RunRecord::from_run(&run);
        assert_eq!(
            record.calls[0].api,
            CalledApi::Helper(HelperTool::ReadResult)
        );
        // Called when nothing was cut, it was not offered: an unknown name.
        assert_eq!(record.calls[1].api, CalledApi::Unknown(READ_RESULT.into()));
        assert!(record.api_path().is_empty());
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
            finish: Finish::Answered,
            answer: Some("Dune".into()),
        };
        assert_eq!(run.api_path(), vec![a.clone(), a]);
        assert!(run.answered());
        run.answer = Some("  ".into());
        assert!(!run.answered());
        run.answer = Some("Dune".into());
        run.finish = Finish::GaveUp;
        assert!(!run.answered());
        let text = serde_json::to_string(&run.calls[1].api)?;
        assert_eq!(text, r#"{"unknown":"made_up"}"#);
        Ok(())
    }
}
