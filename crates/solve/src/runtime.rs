//! The machinery every agent shares: asking the LLM (with accounting and a
//! trace), and running the tool calls of one turn concurrently with their ids
//! kept straight, turning every failure into an observation the agent can
//! recover from.

use std::sync::Arc;
use std::time::Instant;

use futures::future::join_all;
use serde_json::{Value, json};
use toolsmith_catalog::ApiId;
use toolsmith_exec::{
    ApiBook, Coercion, Executor, JqSandbox, Observation, Provenance, coerce_lists,
};
use toolsmith_llm::{
    ChatModel, ChatRequest, ChatResponse, Message, Sampling, ToolCall, ToolChoice, ToolSpec,
};
use toolsmith_retrieve::{Filter, Retriever};

use crate::call_ids::with_fresh_call_ids;
use crate::finish::Finish;
use crate::names::{FINISH, READ_RESULT, SEARCH_TOOLS};
use crate::results::{Shelf, present, read};
use crate::settings::AgentSettings;
use crate::settings::ObservationStyle;
use crate::toolset::{FinishCall, RenderOptions, Toolset, parse_finish};
use crate::trace::{CallOutcome, RunLimit, TraceEvent, Tracer, cut};

/// Why a run has to stop now.
#[derive(Debug)]
pub struct Stop {
    /// The final state to report.
    pub finish: Finish,
    /// What happened.
    pub detail: String,
    /// The budget or limit that ran out, when one did.
    pub limit: Option<RunLimit>,
}

impl Stop {
    /// A stop that no budget caused (an LLM or prompt failure).
    pub fn error(finish: Finish, detail: impl Into<String>) -> Self {
        Self {
            finish,
            detail: detail.into(),
            limit: None,
        }
    }

    /// A stop because `limit` ran out.
    pub fn limit(finish: Finish, limit: RunLimit, detail: impl Into<String>) -> Self {
        Self {
            finish,
            detail: detail.into(),
            limit: Some(limit),
        }
    }
}

/// What the agents need: a model, an executor, optionally a retriever for
/// `search_tools`, and the catalog entries those searches may add.
#[derive(Clone)]
pub struct Runtime {
    /// The model (wrap it in `Metered` for budgets, `CachedChat` for caching).
    pub llm: Arc<dyn ChatModel>,
    /// Runs the tools.
    pub executor: Arc<dyn Executor>,
    /// Finds tools for `search_tools`.
    pub retriever: Option<Arc<dyn Retriever>>,
    /// Catalog entries `search_tools` can add to the toolset.
    pub book: Arc<ApiBook>,
    /// Shared settings.
    pub settings: AgentSettings,
    /// Where events go.
    pub tracer: Tracer,
    /// The jq engine `read_result`'s filters run in; without one, cut observations are read
    /// by pages only. The command line gives its own binary's `__jq-sandbox`.
    pub jq: Option<Arc<JqSandbox>>,
}

/// The words of the request a tool call serves: compaction ranks the fields they name first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Asking<'a> {
    /// The user's task.
    pub task: Option<&'a str>,
    /// The model's text of the turn that made the call (its thought).
    pub thought: Option<&'a str>,
}

/// One tool call of a turn, answered.
#[derive(Debug)]
pub struct Answered {
    /// The model's id for the call.
    pub call_id: String,
    /// The text to send back as the tool message.
    pub content: String,
    /// Set when the call was `Finish`.
    pub finish: Option<FinishCall>,
    /// Whether the call failed (unknown tool, bad arguments, tool error).
    pub failed: bool,
}

impl Runtime {
    /// Answers a `read_result` call from the toolset's shelf.
    pub(crate) async fn read_result(&self, call: &ToolCall, shelf: &Shelf) -> Answered {
        let arguments = call.parsed_arguments().unwrap_or(Value::Null);
        let limit = self.settings.max_observation_chars;
        match read(&arguments, shelf, limit, self.jq.as_deref()).await {
            Ok(content) => self.record(call, None, arguments, CallOutcome::Ok, None, content),
            Err(message) => {
                let content = json!({"error": message, "response": ""}).to_string();
                self.record(call, None, arguments, CallOutcome::Rejected, None, content)
            }
        }
    }

    /// Asks the model, records the call, and maps budget and model failures to a [`Stop`].
    pub async fn ask(
        &self,
        role: &str,
        messages: Vec<Message>,
        tools: Vec<ToolSpec>,
        query: &str,
    ) -> Result<ChatResponse, Stop> {
        let sampling = Sampling {
            temperature: self.settings.temperature,
            seed: self.settings.seed,
            max_tokens: self.settings.max_tokens,
            ..Sampling::default()
        };
        let choice = (!tools.is_empty()).then_some(ToolChoice::Auto);
        let request = ChatRequest::new(role, messages)
            .with_tools(tools, choice)
            .with_sampling(sampling)
            .with_query(query);
        match self.traced().chat(&request).await {
            Ok(response) => Ok(with_fresh_call_ids(response, &request.messages)),
            Err(toolsmith_llm::Error::Budget(exhausted)) => Err(Stop::limit(
                Finish::BudgetExhausted,
                RunLimit::LlmBudget,
                exhausted.to_string(),
            )),
            Err(e) => Err(Stop::error(Finish::Error, format!("the LLM failed: {e}"))),
        }
    }

    /// The model, recording every call it answers in the trace.
    pub fn traced(&self) -> Traced {
        Traced {
            inner: self.llm.clone(),
            tracer: self.tracer.clone(),
        }
    }

    /// Runs every call of one turn, API calls concurrently, answers in call order; `thought`
    /// is the model's text of the turn (with the task `query`, it tells compaction which
    /// fields the request names).
    pub async fn answer_calls(
        &self,
        calls: &[ToolCall],
        toolset: &mut Toolset,
        query: &str,
        thought: Option<&str>,
    ) -> Vec<Answered> {
        let asking = Asking {
            task: Some(query),
            thought,
        };
        let mut answers: Vec<Option<Answered>> = calls.iter().map(|_| None).collect();
        let mut pending = Vec::new();
        for (i, call) in calls.iter().enumerate() {
            if call.name == FINISH {
                let finish = parse_finish(&call.arguments);
                let content = match &finish {
                    FinishCall::Invalid(why) => json!({"error": why, "response": ""}).to_string(),
                    _ => json!({"response": "successfully finished"}).to_string(),
                };
                let failed = matches!(finish, FinishCall::Invalid(_));
                answers[i] = Some(Answered {
                    call_id: call.id.clone(),
                    content,
                    finish: Some(finish),
                    failed,
                });
            } else if call.name == SEARCH_TOOLS && toolset.has_search_tool() {
                answers[i] = Some(self.search_tools(call, toolset, query).await);
            } else if call.name == READ_RESULT && !toolset.shelf().is_empty() {
                answers[i] = Some(self.read_result(call, toolset.shelf()).await);
            } else {
                pending.push((i, call));
            }
        }
        let toolset_ref: &Toolset = toolset;
        let results = join_all(
            pending
                .iter()
                .map(|(_, call)| self.call_api(call, toolset_ref, asking)),
        )
        .await;
        for ((i, _), answered) in pending.into_iter().zip(results) {
            answers[i] = Some(answered);
        }
        answers.into_iter().flatten().collect()
    }

    async fn call_api(&self, call: &ToolCall, toolset: &Toolset, asking: Asking<'_>) -> Answered {
        self.call_api_asking(call, toolset, asking).await.0
    }

    /// Runs one API call and returns the answer for the model with the whole observation.
    pub async fn call_api_full(
        &self,
        call: &ToolCall,
        toolset: &Toolset,
    ) -> (Answered, Option<Observation>) {
        self.call_api_asking(call, toolset, Asking::default()).await
    }

    /// [`Self::call_api_full`] serving the request of `asking`.
    pub async fn call_api_asking(
        &self,
        call: &ToolCall,
        toolset: &Toolset,
        asking: Asking<'_>,
    ) -> (Answered, Option<Observation>) {
        let (api, arguments) = match checked_call(call, toolset) {
            Ok(checked) => checked,
            Err(refusal) => return (self.refuse(call, *refusal), None),
        };
        // A list given as one comma-separated string goes as the list (the executor's
        // validation would split it too); the model is told what was sent.
        let (arguments, coerced) = match toolset.spec(api) {
            Some(spec) => coerce_lists(&spec.parameters, &arguments),
            None => (arguments, Vec::new()),
        };
        let observation = match self.executor.call(api, &arguments).await {
            Ok(observation) => observation,
            Err(e) => {
                let refusal = Refusal {
                    message: format!("toolsmith could not run {api}: {e}"),
                    outcome: CallOutcome::NotRun,
                    api: Some(api.clone()),
                    arguments,
                };
                return (self.refuse(call, refusal), None);
            }
        };
        let shown = Shown {
            api,
            arguments: &arguments,
            coerced: &coerced,
            asking,
        };
        let content = self.content(shown, &observation, toolset);
        let answered = self.record(
            call,
            Some(api.clone()),
            arguments,
            CallOutcome::of(&observation),
            Some(observation.provenance),
            content,
        );
        (answered, Some(observation))
    }

    /// Records a call that was not run as `refusal` says, its message the observation's
    /// error.
    fn refuse(&self, call: &ToolCall, refusal: Refusal) -> Answered {
        let Refusal {
            message,
            outcome,
            api,
            arguments,
        } = refusal;
        let content = json!({"error": message, "response": ""}).to_string();
        self.record(call, api, arguments, outcome, None, content)
    }

    /// The text the model is shown of `observation`: ToolBench's envelope, noting the
    /// arguments sent in another form than given, cut or compacted to the limit (knowing
    /// the call's `arguments`: the fields they select are kept first; and the request's
    /// words: the fields they name rank high), or whole when it is within the limit's slack.
    fn content(&self, call: Shown<'_>, observation: &Observation, toolset: &Toolset) -> String {
        let Shown {
            api,
            arguments,
            coerced,
            asking,
        } = call;
        let limit = self.settings.max_observation_chars;
        let text = with_note(observation_text(observation), coerced);
        match self.settings.observation_style {
            ObservationStyle::Paper => cut(&text, limit),
            ObservationStyle::Compact
                if text.chars().count() <= self.settings.whole_observation_chars() =>
            {
                text
            }
            ObservationStyle::Compact => {
                let entry = self.book.get(api).map(|e| &e.api.api);
                let hints = toolsmith_exec::compact::Hints {
                    schema: entry.and_then(|a| a.response_schema.as_ref()),
                    endpoint: entry.map(|a| match &a.endpoint {
                        toolsmith_catalog::Endpoint::Http { path, .. } => path.as_str(),
                        _ => a.name.as_str(),
                    }),
                    arguments: Some(arguments),
                    task: asking.task,
                    thought: asking.thought,
                };
                present(&text, hints, limit, toolset.shelf())
            }
        }
    }

    /// Records a tool call in the trace and makes its answer for the model
    /// (failed unless the outcome is [`CallOutcome::Ok`]).
    pub(crate) fn record(
        &self,
        call: &ToolCall,
        api: Option<ApiId>,
        arguments: Value,
        outcome: CallOutcome,
        provenance: Option<Provenance>,
        content: String,
    ) -> Answered {
        self.tracer.emit(TraceEvent::ToolCall {
            call_id: call.id.clone(),
            function: call.name.clone(),
            api,
            arguments,
            outcome,
            provenance,
            observation: content.clone(),
        });
        Answered {
            call_id: call.id.clone(),
            content,
            finish: None,
            failed: !outcome.is_ok(),
        }
    }

    async fn search_tools(&self, call: &ToolCall, toolset: &mut Toolset, query: &str) -> Answered {
        let wanted = call
            .parsed_arguments()
            .ok()
            .and_then(|v| v.get("query").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_else(|| query.to_owned());
        // Under toolsmith's protocol searches have a budget of their own; paper mode has none
        // (its searches count as nodes).
        let budget = (!self.settings.paper()).then_some(self.settings.max_searches);
        let within = budget.is_none_or(|max| toolset.searches() < max);
        toolset.note_search(within);
        if !within {
            let message = format!(
                "search budget spent: {} searches per task. Call the functions found, or Finish.",
                self.settings.max_searches
            );
            let content = json!({"error": message, "response": ""}).to_string();
            return self.record(
                call,
                None,
                json!({"query": wanted}),
                CallOutcome::NotRun,
                None,
                content,
            );
        }
        let last = budget.is_some_and(|max| toolset.searches() == max);
        let (content, outcome) = match &self.retriever {
            None => (
                json!({"error": "search_tools is not available", "response": ""}).to_string(),
                CallOutcome::UnknownTool,
            ),
            Some(retriever) => match retriever
                .search(&wanted, self.settings.search_k, &Filter::default())
                .await
            {
                Ok(hits) => {
                    let mut found = Vec::new();
                    for hit in hits {
                        if let Some(entry) = self.book.get(&hit.api) {
                            toolset.add(&entry.api, &RenderOptions::default());
                            found.push(json!({"function": toolsmith_catalog::export::function_name(&hit.api), "about": hit.text}));
                        }
                    }
                    let mut answer = json!({"error": "", "response": found});
                    if last {
                        answer["note"] = json!(
                            "That was the last search of this task: use the functions found so far."
                        );
                    }
                    (answer.to_string(), CallOutcome::Ok)
                }
                Err(e) => (
                    json!({"error": format!("search failed: {e}"), "response": ""}).to_string(),
                    CallOutcome::NotRun,
                ),
            },
        };
        self.record(call, None, json!({"query": wanted}), outcome, None, content)
    }
}

/// A call toolsmith did not run: why (for the model), the outcome recorded, the API it named
/// (when one of the toolset's) and the arguments as given.
struct Refusal {
    message: String,
    outcome: CallOutcome,
    api: Option<ApiId>,
    arguments: Value,
}

/// The API `call` names in `toolset` and its arguments as a JSON object (none given: an
/// empty one), or why the call cannot be run: an unknown function, or arguments that are no
/// JSON object (boxed: the error path is rare and the refusal large).
fn checked_call<'t>(
    call: &ToolCall,
    toolset: &'t Toolset,
) -> Result<(&'t ApiId, Value), Box<Refusal>> {
    let Some(api) = toolset.resolve(&call.name) else {
        return Err(Box::new(Refusal {
            message: format!(
                "No such function name: {}. Use only the functions offered.",
                call.name
            ),
            outcome: CallOutcome::UnknownTool,
            api: None,
            arguments: Value::Null,
        }));
    };
    let rejected = |message: String, arguments: Value| {
        Box::new(Refusal {
            message,
            outcome: CallOutcome::Rejected,
            api: Some(api.clone()),
            arguments,
        })
    };
    match call.parsed_arguments() {
        Ok(Value::Object(map)) => Ok((api, Value::Object(map))),
        Ok(Value::Null) => Ok((api, json!({}))),
        Ok(other) => Err(rejected(
            format!("The arguments must be a JSON object, got {other}"),
            other,
        )),
        Err(e) => Err(rejected(
            format!("The arguments are not valid JSON ({e}); send a JSON object"),
            Value::String(call.arguments.clone()),
        )),
    }
}

/// What a call's observation is shown for: the API, the arguments sent, how they were coerced,
/// and the request's words.
#[derive(Clone, Copy)]
struct Shown<'a> {
    api: &'a ApiId,
    arguments: &'a Value,
    coerced: &'a [Coercion],
    asking: Asking<'a>,
}

/// `text` (an observation's JSON object) with a `note` first that says which arguments were
/// sent in another form than the model gave them; `text` itself when none were.
fn with_note(text: String, coerced: &[Coercion]) -> String {
    if coerced.is_empty() {
        return text;
    }
    let note: Vec<String> = coerced.iter().map(ToString::to_string).collect();
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(fields)) => {
            let mut noted = serde_json::Map::new();
            noted.insert("note".to_owned(), Value::String(note.join("; ")));
            noted.extend(fields);
            Value::Object(noted).to_string()
        }
        _ => text,
    }
}

/// ToolBench's observation format: `{"error": "...", "response": ...}`.
pub(crate) fn observation_text(observation: &Observation) -> String {
    let error = match &observation.outcome {
        toolsmith_exec::Outcome::Ok => String::new(),
        other => {
            let kind = observation.failure().map_or("error", |k| k.as_str());
            let message = match other {
                toolsmith_exec::Outcome::ToolError { message, .. }
                | toolsmith_exec::Outcome::TransportError { message, .. } => message.clone(),
                _ => String::new(),
            };
            format!("{kind}: {message}")
        }
    };
    let response = match observation.body.json() {
        Some(value) => value.clone(),
        None => Value::String(observation.body.to_text()),
    };
    json!({"error": error, "response": response}).to_string()
}

/// A model that records each call it answers as a [`TraceEvent::LlmCall`].
pub struct Traced {
    inner: Arc<dyn ChatModel>,
    tracer: Tracer,
}

#[async_trait::async_trait]
impl ChatModel for Traced {
    async fn chat(&self, request: &ChatRequest) -> toolsmith_llm::Result<ChatResponse> {
        let started = Instant::now();
        let response = self.inner.chat(request).await?;
        self.tracer.emit(TraceEvent::LlmCall {
            role: request.role.clone(),
            messages: request.messages.len(),
            last_message: cut(request.last_message(), 2000),
            reply: cut(response.text(), 2000),
            tool_calls: response
                .tool_calls
                .iter()
                .map(|c| format!("{}({})", c.name, cut(&c.arguments, 300)))
                .collect(),
            prompt_tokens: response.usage.prompt_tokens,
            completion_tokens: response.usage.completion_tokens,
            latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            cache_hit: response.cache_hit,
        });
        Ok(response)
    }

    fn model_name(&self) -> &str {
        self.inner.model_name()
    }
}
