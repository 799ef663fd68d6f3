//! The chat contract: [`ChatModel`], what goes in ([`ChatRequest`]) and what comes out
//! ([`ChatResponse`]).
//!
//! These are toolsmith's normalized types; the OpenAI wire format stays inside the HTTP client.
//! Every wrapper (cache, metering) and the test double speak these types, so an agent never
//! knows which one it talks to.

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Result;
use crate::prompt::Prompt;
use crate::role::Role;

/// Anything that answers chat requests: the HTTP client, the cache wrapper, the scripted double.
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// Sends one request and returns the normalized answer.
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse>;

    /// The default model's name (used in cache keys and reports).
    fn model_name(&self) -> &str;

    /// The model that would answer a request of this role. By default, [`ChatModel::model_name`];
    /// clients with a per-role model map override it.
    fn model_for(&self, role: &Role) -> &str {
        let _ = role;
        self.model_name()
    }
}

#[async_trait]
impl<T: ChatModel + ?Sized> ChatModel for Arc<T> {
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse> {
        (**self).chat(req).await
    }
    fn model_name(&self) -> &str {
        (**self).model_name()
    }
    fn model_for(&self, role: &Role) -> &str {
        (**self).model_for(role)
    }
}

#[async_trait]
impl<T: ChatModel + ?Sized> ChatModel for &T {
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse> {
        (**self).chat(req).await
    }
    fn model_name(&self) -> &str {
        (**self).model_name()
    }
    fn model_for(&self, role: &Role) -> &str {
        (**self).model_for(role)
    }
}

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Message {
    /// Instructions for the model.
    System(String),
    /// What the user (or the agent loop, speaking for the environment) says.
    User(String),
    /// What the model said earlier, text and/or tool calls.
    Assistant {
        /// The text, if any.
        content: Option<String>,
        /// The tool calls, in order; their ids link them to [`Message::Tool`] results.
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call.
    Tool {
        /// The [`ToolCall::id`] this answers.
        call_id: String,
        /// The tool's output, as text.
        content: String,
    },
}

impl Message {
    /// A system message.
    pub fn system(text: impl Into<String>) -> Self {
        Self::System(text.into())
    }

    /// A user message.
    pub fn user(text: impl Into<String>) -> Self {
        Self::User(text.into())
    }

    /// An assistant message with text only.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::Assistant {
            content: Some(text.into()),
            tool_calls: Vec::new(),
        }
    }

    /// A tool result answering `call_id`.
    pub fn tool(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self::Tool {
            call_id: call_id.into(),
            content: content.into(),
        }
    }

    /// The message's text (empty for an assistant turn with only tool calls).
    pub fn text(&self) -> &str {
        match self {
            Message::System(t) | Message::User(t) => t,
            Message::Assistant { content, .. } => content.as_deref().unwrap_or(""),
            Message::Tool { content, .. } => content,
        }
    }
}

/// A tool offered to the model, with its parameters as a JSON Schema object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The function name the model calls.
    pub name: String,
    /// What the tool does, as the model reads it.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// One tool call the model asked for. `arguments` is the raw string the model wrote, kept so
/// the agent can show it back when it does not parse.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id that the tool result must echo.
    pub id: String,
    /// The tool's name, as the model wrote it; it may not be one that was offered.
    pub name: String,
    /// The arguments, raw.
    pub arguments: String,
}

/// A tool call whose arguments are not a JSON object.
#[derive(Debug, thiserror::Error)]
#[error("tool call `{call_id}` to `{tool}`: arguments are not valid JSON ({source}): {raw}")]
pub struct ToolArgumentsError {
    /// The call's id.
    pub call_id: String,
    /// The tool called.
    pub tool: String,
    /// The raw arguments.
    pub raw: String,
    /// The JSON error.
    #[source]
    pub source: serde_json::Error,
}

impl ToolCall {
    /// A call with the given id, name and raw arguments.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// The arguments parsed as JSON; empty arguments are `{}`.
    pub fn parsed_arguments(&self) -> Result<Value, ToolArgumentsError> {
        if self.arguments.trim().is_empty() {
            return Ok(Value::Object(serde_json::Map::new()));
        }
        serde_json::from_str(&self.arguments).map_err(|source| ToolArgumentsError {
            call_id: self.id.clone(),
            tool: self.name.clone(),
            raw: self.arguments.clone(),
            source,
        })
    }

    /// Whether the called tool is one of `offered`.
    pub fn is_offered(&self, offered: &[ToolSpec]) -> bool {
        offered.iter().any(|t| t.name == self.name)
    }
}

/// Whether and which tool the model must call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// The model must call some tool.
    Required,
    /// The model must not call a tool.
    None,
    /// The model must call this tool.
    Tool(String),
}

/// The shape of the model's text output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseFormat {
    /// Free text (the server's default).
    Text,
    /// A JSON object (`{"type": "json_object"}`); the prompt must mention JSON.
    JsonObject,
    /// A JSON object following a schema, where the server supports it.
    JsonSchema {
        /// The schema's name.
        name: String,
        /// The JSON Schema.
        schema: Value,
    },
}

/// Sampling parameters; `None` leaves the server's default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sampling {
    /// Temperature.
    pub temperature: Option<f32>,
    /// Nucleus sampling mass.
    pub top_p: Option<f32>,
    /// Seed, for servers that honour it.
    pub seed: Option<u64>,
    /// Most completion tokens.
    pub max_tokens: Option<u32>,
    /// Stop sequences.
    pub stop: Vec<String>,
}

impl Sampling {
    /// Temperature 0: as deterministic as the server allows.
    pub fn greedy() -> Self {
        Self {
            temperature: Some(0.0),
            ..Self::default()
        }
    }
}

/// One request to a chat model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// Who is asking: picks the model and groups the accounting.
    pub role: Role,
    /// The conversation so far.
    pub messages: Vec<Message>,
    /// Tools offered (empty: no tool calling).
    pub tools: Vec<ToolSpec>,
    /// Whether a tool must be called; `None` leaves the server's default.
    pub tool_choice: Option<ToolChoice>,
    /// The output shape; `None` is free text.
    pub response_format: Option<ResponseFormat>,
    /// Sampling parameters.
    pub sampling: Sampling,
    /// The prompt's `name@hash` ([`Prompt::id`]); part of the cache key, so an edited prompt
    /// misses the cache.
    pub prompt_id: Option<String>,
    /// The query (task) this call works on, for per-query accounting; not part of the cache key.
    pub query: Option<String>,
}

impl ChatRequest {
    /// A request of `role` with these messages and everything else default.
    pub fn new(role: impl Into<Role>, messages: Vec<Message>) -> Self {
        Self {
            role: role.into(),
            messages,
            ..Self::default()
        }
    }

    /// Offers tools.
    pub fn with_tools(mut self, tools: Vec<ToolSpec>, choice: Option<ToolChoice>) -> Self {
        self.tools = tools;
        self.tool_choice = choice;
        self
    }

    /// Records the prompt this request was built from.
    pub fn with_prompt(mut self, prompt: &Prompt) -> Self {
        self.prompt_id = Some(prompt.id());
        self
    }

    /// Tags the request with the query it works on.
    pub fn with_query(mut self, query: impl Into<String>) -> Self {
        self.query = Some(query.into());
        self
    }

    /// Sets the sampling parameters.
    pub fn with_sampling(mut self, sampling: Sampling) -> Self {
        self.sampling = sampling;
        self
    }

    /// The last message's text, or `""`.
    pub fn last_message(&self) -> &str {
        self.messages.last().map_or("", Message::text)
    }

    /// Whether any message (or tool call argument) contains `needle`; for tests and traces.
    pub fn contains(&self, needle: &str) -> bool {
        self.messages.iter().any(|m| {
            m.text().contains(needle)
                || matches!(m, Message::Assistant { tool_calls, .. }
                    if tool_calls.iter().any(|c| c.arguments.contains(needle) || c.name.contains(needle)))
        })
    }
}

/// Why the model stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A natural end or a stop sequence.
    Stop,
    /// The token limit (the client turns this into [`crate::Error::Truncated`]).
    Length,
    /// The model called tools.
    ToolCalls,
    /// The server's content filter.
    ContentFilter,
    /// Anything else the server said, or nothing.
    Other(String),
}

impl FinishReason {
    /// Parses the wire value (`None` becomes `Other("")`).
    pub fn from_wire(raw: Option<&str>) -> Self {
        match raw {
            Some("stop") | Some("eos") | Some("end_turn") => Self::Stop,
            Some("length") | Some("max_tokens") => Self::Length,
            Some("tool_calls") | Some("function_call") => Self::ToolCalls,
            Some("content_filter") => Self::ContentFilter,
            other => Self::Other(other.unwrap_or("").to_owned()),
        }
    }
}

/// Tokens of one call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of the prompt.
    pub prompt_tokens: u64,
    /// Tokens of the completion.
    pub completion_tokens: u64,
    /// True when counted locally with cl100k_base because the server sent no `usage`.
    pub estimated: bool,
}

impl Usage {
    /// Prompt plus completion.
    pub fn total(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

/// The normalized answer to a [`ChatRequest`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The text, if any.
    pub content: Option<String>,
    /// Tool calls, in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
    /// Why it stopped.
    pub finish_reason: FinishReason,
    /// Tokens used.
    pub usage: Usage,
    /// True when this came from the response cache.
    pub cache_hit: bool,
    /// The model that answered, as the server named it.
    pub model: String,
    /// The response body exactly as received (the server's JSON for the HTTP client); a cache
    /// hit returns these same bytes.
    #[serde(skip)]
    pub raw: String,
}

impl ChatResponse {
    /// The text, or `""`.
    pub fn text(&self) -> &str {
        self.content.as_deref().unwrap_or("")
    }

    /// The assistant message to append to the conversation for this answer.
    pub fn to_message(&self) -> Message {
        Message::Assistant {
            content: self.content.clone(),
            tool_calls: self.tool_calls.clone(),
        }
    }

    /// The tool calls to tools that were not offered in `req` (the agent decides what to do).
    pub fn unknown_tool_calls<'a>(&'a self, req: &ChatRequest) -> Vec<&'a ToolCall> {
        self.tool_calls
            .iter()
            .filter(|c| !c.is_offered(&req.tools))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_tool_arguments_keep_the_raw_string() {
        let call = ToolCall::new("c1", "search", "{\"q\": ");
        let err = call.parsed_arguments().unwrap_err();
        assert_eq!(err.raw, "{\"q\": ");
        assert_eq!(err.tool, "search");
        assert!(err.to_string().contains("c1"));
        assert_eq!(
            ToolCall::new("c2", "t", " ").parsed_arguments().unwrap(),
            serde_json::json!({})
        );
    }

    #[test]
    fn unknown_tool_calls_are_exposed_by_name() {
        let req = ChatRequest::new("agent", vec![Message::user("hi")]).with_tools(
            vec![ToolSpec {
                name: "a".into(),
                description: String::new(),
                parameters: Value::Null,
            }],
            None,
        );
        let resp = ChatResponse {
            content: None,
            tool_calls: vec![
                ToolCall::new("1", "a", "{}"),
                ToolCall::new("2", "made_up", "{}"),
            ],
            finish_reason: FinishReason::ToolCalls,
            usage: Usage::default(),
            cache_hit: false,
            model: "m".into(),
            raw: String::new(),
        };
        let unknown: Vec<&str> = resp
            .unknown_tool_calls(&req)
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(unknown, ["made_up"]);
    }

    #[test]
    fn contains_looks_into_tool_call_arguments() {
        let req = ChatRequest::new(
            "agent",
            vec![Message::Assistant {
                content: None,
                tool_calls: vec![ToolCall::new("1", "t", "{\"id\": 438631}")],
            }],
        );
        assert!(req.contains("438631"));
        assert!(!req.contains("nope"));
    }
}
