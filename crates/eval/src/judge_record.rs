//! A run as the LLM judge is shown it: each call named (an API, the solver's own helper, or a
//! name no tool has), its outcome, its arguments and observation cut to size so that what the
//! final answer cites survives ([`excerpt`](crate::judge_excerpt::excerpt)), and the final
//! answer whole.

use serde::Serialize;

use crate::judge_excerpt::excerpt;
use crate::run::{CallRecord, CallStatus, CalledApi, HelperTool, RunRecord};

/// Arguments shown to the judge are cut to this many characters.
const ARGUMENT_CHARS: usize = 300;

/// A call as the prompts show it.
#[derive(Debug, Serialize)]
pub(crate) struct ShownCall {
    pub(crate) api: String,
    pub(crate) arguments: String,
    pub(crate) outcome: &'static str,
    pub(crate) observation: String,
}

/// A run as the prompts show it.
#[derive(Debug, Serialize)]
pub(crate) struct ShownRun {
    pub(crate) calls: Vec<ShownCall>,
    pub(crate) failed: usize,
    pub(crate) answer: String,
}

/// `run` for a judge prompt, each observation cut to about `observation_chars` characters.
pub(crate) fn shown(run: &RunRecord, observation_chars: usize) -> ShownRun {
    let answer = final_answer(run);
    let calls: Vec<ShownCall> = run
        .calls
        .iter()
        .map(|c| shown_call(c, &answer, observation_chars))
        .collect();
    ShownRun {
        failed: calls.iter().filter(|c| c.outcome != "ok").count(),
        calls,
        answer,
    }
}

fn shown_call(call: &CallRecord, answer: &str, observation_chars: usize) -> ShownCall {
    ShownCall {
        api: label(call),
        arguments: toolsmith_plumbing::text::truncate_with(
            &call.arguments.to_string(),
            ARGUMENT_CHARS,
            "...",
        ),
        outcome: match call.outcome {
            CallStatus::Ok => "ok",
            CallStatus::InvalidParameters => "invalid parameters",
            CallStatus::Failed => "failed",
            CallStatus::NotAllowed => "not allowed (a write the user did not allow)",
        },
        observation: excerpt(&call.observation, answer, observation_chars),
    }
}

/// How the judge is told what a call named. A helper is described as what it is, so a
/// `read_result` the solver was offered and used is not mistaken for a made-up tool (runs
/// stored before helpers had a kind of their own name it as unknown: one that worked is read
/// by its name).
fn label(call: &CallRecord) -> String {
    let helper = match &call.api {
        CalledApi::Known(id) => return id.to_string(),
        CalledApi::Helper(helper) => Some(*helper),
        CalledApi::Unknown(name) if call.outcome == CallStatus::Ok => HelperTool::named(name),
        CalledApi::Unknown(_) => None,
    };
    match (helper, &call.api) {
        (Some(helper), _) => format!("{} ({})", helper.name(), helper.about()),
        (None, api) => format!("{} (no such tool)", api_name(api)),
    }
}

/// The name a call used.
fn api_name(api: &CalledApi) -> String {
    match api {
        CalledApi::Known(id) => id.to_string(),
        CalledApi::Helper(helper) => helper.name().to_owned(),
        CalledApi::Unknown(name) => name.clone(),
    }
}

/// The run's answer as the judge sees it, whole; a run without one says how it ended.
pub(crate) fn final_answer(run: &RunRecord) -> String {
    match run.answer.as_deref().filter(|a| !a.trim().is_empty()) {
        Some(answer) => answer.to_owned(),
        None => format!("(no answer: the run ended {})", run.finish.as_str()),
    }
}
