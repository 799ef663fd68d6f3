//! ConAgents: a grounding agent plans one tool use at a time, an execution
//! agent fills in the arguments and calls the tool (recalibrating from tool
//! errors up to alpha times), and an observing agent writes a jq filter over
//! the response's pseudo-schema to extract what was asked (recalibrating from
//! interpreter errors, and from filters that find only null, up to beta
//! times). The outline's top is named `response` and the filter runs on
//! `{"response": <the response>}`, so a path read off the outline
//! (`.response.results[0].id`) is the path the filter takes. The extracted
//! value goes back to the grounding agent.

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_exec::{JqSandbox, pseudo_schema};
use toolsmith_llm::{ChatModel, ChatRequest, Message, StructuredSettings, ToolChoice, ask_json};

use crate::agent_role::ConAgentsRole;
use crate::error::Result;
use crate::finish::Finish;
use crate::prompts::{EXECUTION, GROUNDING, GROUNDING_USER, OBSERVING, stated_today, tool_lines};
use crate::run::Run;
use crate::runtime::{Runtime, Stop, observation_text};
use crate::settings::ConAgentsSettings;
use crate::solver::{End, Solver, finished};
use crate::toolset::Toolset;
use crate::trace::{RunLimit, TraceEvent, cut};

/// The key the observing agent's filters find the response under: the top of the outline
/// it is shown (`pseudo_schema` names it so), so that a path read off the outline works.
const FILTER_ROOT: &str = "response";

/// The ConAgents solver.
pub struct ConAgents {
    runtime: Runtime,
    sandbox: Arc<JqSandbox>,
    settings: ConAgentsSettings,
}

impl ConAgents {
    /// ConAgents over `runtime`, running filters in `sandbox`.
    pub fn new(runtime: Runtime, sandbox: Arc<JqSandbox>, settings: ConAgentsSettings) -> Self {
        Self {
            runtime,
            sandbox,
            settings,
        }
    }
}

/// The grounding agent's decision.
#[derive(Debug, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
enum Grounding {
    Call { tool: String, instruction: String },
    Finish { answer: String },
}

#[derive(Debug, Deserialize)]
struct FilterReply {
    filter: String,
}

/// One completed step, as the grounding agent sees it.
#[derive(Debug, Serialize)]
struct Step {
    tool: String,
    instruction: String,
    result: String,
}

#[derive(Serialize)]
struct CallError {
    arguments: String,
    message: String,
}

#[derive(Serialize)]
struct FilterError {
    filter: String,
    message: String,
}

/// Whether a filter's output is nothing but nulls: a path that missed (most often one that
/// did not start at the root shown), not an extraction.
fn only_nulls(values: &[Value]) -> bool {
    !values.is_empty() && values.iter().all(Value::is_null)
}

fn stop_from(e: toolsmith_llm::Error) -> Stop {
    match e {
        toolsmith_llm::Error::Budget(exhausted) => Stop::limit(
            Finish::BudgetExhausted,
            RunLimit::LlmBudget,
            exhausted.to_string(),
        ),
        other => Stop::error(Finish::Error, format!("the LLM failed: {other}")),
    }
}

fn render_error(e: toolsmith_llm::Error) -> Stop {
    Stop::error(Finish::Error, e.to_string())
}

impl ConAgents {
    async fn turns(
        &self,
        query: &str,
        toolset: &mut Toolset,
    ) -> std::result::Result<(Finish, Option<String>, Option<String>), Stop> {
        let mut steps: Vec<Step> = Vec::new();
        let system = GROUNDING
            .render(&serde_json::json!({
                "tools": tool_lines(&toolset.api_specs()),
                "today": stated_today(&self.runtime.settings),
                "item_records": self.runtime.settings.states_item_records(),
            }))
            .map_err(render_error)?;
        let model = self.runtime.traced();
        for _ in 0..self.settings.max_turns {
            let user = GROUNDING_USER
                .render(&serde_json::json!({"query": query, "steps": &steps}))
                .map_err(render_error)?;
            let request = ChatRequest::new(
                ConAgentsRole::Grounding.as_str(),
                vec![Message::system(system.clone()), Message::user(user)],
            )
            .with_prompt(&GROUNDING)
            .with_query(query);
            let decision =
                match ask_json::<Grounding, _>(&model, request, &StructuredSettings::default())
                    .await
                {
                    Ok(d) => d.value,
                    Err(toolsmith_llm::Error::Structured { reason, .. }) => {
                        return Ok((
                            Finish::Error,
                            None,
                            Some(format!(
                                "the grounding agent's replies could not be read: {reason}"
                            )),
                        ));
                    }
                    Err(e) => return Err(stop_from(e)),
                };
            let (tool, instruction) = match decision {
                Grounding::Finish { answer } => return Ok((Finish::Answered, Some(answer), None)),
                Grounding::Call { tool, instruction } => (tool, instruction),
            };
            let result = match toolset.resolve(&tool).cloned() {
                None => format!("There is no tool named `{tool}`; choose one from the list."),
                Some(api) => match self.execute(query, &api, &instruction, toolset).await? {
                    Err(failure) => failure,
                    Ok(body) => self.observe(query, &instruction, body).await?,
                },
            };
            steps.push(Step {
                tool,
                instruction,
                result,
            });
        }
        Ok((
            Finish::StepLimit,
            None,
            Some(format!(
                "no answer within {} grounding turns",
                self.settings.max_turns
            )),
        ))
    }

    /// The execution agent: calls the tool, recalibrating from tool errors.
    /// `Ok(Ok(body))` is the response; `Ok(Err(text))` is a failure to report to grounding.
    async fn execute(
        &self,
        query: &str,
        api: &toolsmith_catalog::ApiId,
        instruction: &str,
        toolset: &Toolset,
    ) -> std::result::Result<std::result::Result<Value, String>, Stop> {
        let Some(spec) = toolset.spec(api).cloned() else {
            return Ok(Err(format!("{api} is not offered")));
        };
        let model = self.runtime.traced();
        let mut errors: Vec<CallError> = Vec::new();
        let mut attempt = 0;
        loop {
            let system = EXECUTION
                .render(&serde_json::json!({"errors": &errors}))
                .map_err(render_error)?;
            let user =
                format!("Instruction: {instruction}\nThe user's request, for context: {query}");
            let request = ChatRequest::new(
                ConAgentsRole::Execution.as_str(),
                vec![Message::system(system), Message::user(user)],
            )
            .with_tools(
                vec![spec.clone()],
                Some(ToolChoice::Tool(spec.name.clone())),
            )
            .with_prompt(&EXECUTION)
            .with_query(query);
            let response = model.chat(&request).await.map_err(stop_from)?;
            let error = match response.tool_calls.first() {
                None => ("(none)".to_owned(), "you did not call the tool".to_owned()),
                Some(call) => {
                    let (answered, observation) = self.runtime.call_api_full(call, toolset).await;
                    match observation {
                        Some(observation) if observation.is_ok() => {
                            let body = match observation.body.json() {
                                Some(value) => value.clone(),
                                None => Value::String(observation.body.to_text()),
                            };
                            return Ok(Ok(body));
                        }
                        Some(observation) => {
                            (call.arguments.clone(), observation_text(&observation))
                        }
                        None => (call.arguments.clone(), answered.content),
                    }
                }
            };
            attempt += 1;
            if attempt > self.settings.alpha {
                return Ok(Err(format!(
                    "the tool kept failing after {} retries; last error: {}",
                    self.settings.alpha,
                    cut(&error.1, 500)
                )));
            }
            self.runtime.tracer.emit(TraceEvent::Retry {
                agent: ConAgentsRole::Execution,
                attempt,
                error: cut(&error.1, 500),
            });
            errors.push(CallError {
                arguments: error.0,
                message: cut(&error.1, 500),
            });
        }
    }

    /// The observing agent: extracts what the instruction asked for.
    async fn observe(
        &self,
        query: &str,
        instruction: &str,
        body: Value,
    ) -> std::result::Result<String, Stop> {
        let whole = match &body {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        if whole.chars().count() <= self.settings.observe_above_chars
            || !matches!(body, Value::Object(_) | Value::Array(_))
        {
            return Ok(cut(&whole, self.settings.observe_above_chars));
        }
        // The outline names its top `response`; the filter runs on that same root.
        let schema = pseudo_schema(&body);
        let root = serde_json::json!({ FILTER_ROOT: body });
        let model = self.runtime.traced();
        let mut errors: Vec<FilterError> = Vec::new();
        let mut attempt = 0;
        loop {
            let prompt = OBSERVING.render(&serde_json::json!({"schema": &schema, "root": FILTER_ROOT, "instruction": instruction, "errors": &errors})).map_err(render_error)?;
            let request = ChatRequest::new(
                ConAgentsRole::Observing.as_str(),
                vec![Message::user(prompt)],
            )
            .with_prompt(&OBSERVING)
            .with_query(query);
            let failure = match ask_json::<FilterReply, _>(
                &model,
                request,
                &StructuredSettings::default(),
            )
            .await
            {
                Err(toolsmith_llm::Error::Structured { reason, .. }) => FilterError {
                    filter: "(unreadable reply)".to_owned(),
                    message: reason,
                },
                Err(e) => return Err(stop_from(e)),
                Ok(reply) => match self.sandbox.run(&reply.value.filter, &root).await {
                    Ok(output) if only_nulls(&output.values) => FilterError {
                        filter: reply.value.filter,
                        message: format!(
                            "the filter found nothing (only null); paths start at `.{FILTER_ROOT}`, \
                                 the top of the structure shown"
                        ),
                    },
                    Ok(output) => {
                        let values: Vec<String> =
                            output.values.iter().map(Value::to_string).collect();
                        return Ok(cut(&values.join("\n"), self.settings.observe_above_chars));
                    }
                    Err(e) => FilterError {
                        filter: reply.value.filter,
                        message: e.to_string(),
                    },
                },
            };
            attempt += 1;
            if attempt > self.settings.beta {
                return Ok(format!(
                    "(extraction failed after {} retries: {}) {}",
                    self.settings.beta,
                    cut(&failure.message, 300),
                    cut(&whole, self.settings.observe_above_chars)
                ));
            }
            self.runtime.tracer.emit(TraceEvent::Retry {
                agent: ConAgentsRole::Observing,
                attempt,
                error: cut(&failure.message, 500),
            });
            errors.push(failure);
        }
    }
}

#[async_trait]
impl Solver for ConAgents {
    fn name(&self) -> &str {
        "conagents"
    }

    async fn solve(&self, query: &str, mut toolset: Toolset) -> Result<Run> {
        let tracer = &self.runtime.tracer;
        crate::solver::started(tracer, self.name(), query, &toolset);
        let end = match self.turns(query, &mut toolset).await {
            // The only step limit of ConAgents is its grounding turns.
            Ok((Finish::StepLimit, answer, detail)) => End {
                answer,
                detail,
                limit: Some(RunLimit::Turns),
                ..End::new(Finish::StepLimit)
            },
            Ok((finish, answer, detail)) => End {
                answer,
                detail,
                ..End::new(finish)
            },
            Err(stop) => End::stopped(stop),
        };
        Ok(finished(tracer, self.name(), query, end))
    }
}
