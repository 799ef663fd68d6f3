//! The OpenAI-compatible chat client (`POST {base_url}/chat/completions`), for OpenAI, vLLM,
//! Ollama and llama.cpp's server. The wire format lives only here.

use std::collections::BTreeMap;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolsmith_plumbing::text::truncate_chars;

use crate::chat::{
    ChatModel, ChatRequest, ChatResponse, FinishReason, Message, ResponseFormat, ToolCall,
    ToolChoice, Usage,
};
use crate::context::check_context;
use crate::error::{Error, MAX_MESSAGE_CHARS, Result};
use crate::http::HttpCore;
use crate::redact::redact_url;
use crate::role::Role;
use crate::settings::LlmSettings;
use crate::tokens::estimate_usage;

/// A chat client for any OpenAI-compatible server. Cheap to clone; clones share the connection
/// pool and the in-flight limit.
#[derive(Clone, Debug)]
pub struct OpenAiClient {
    http: HttpCore,
    model: String,
    role_models: BTreeMap<Role, String>,
    context_tokens: Option<u64>,
}

impl OpenAiClient {
    /// A client for `settings` (validated here; nothing is sent yet).
    pub fn new(settings: &LlmSettings) -> Result<Self> {
        Ok(Self {
            http: HttpCore::new(settings)?,
            model: settings.model.clone(),
            role_models: settings.role_models.clone(),
            context_tokens: settings.context_tokens,
        })
    }

    fn request_body(&self, req: &ChatRequest) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), json!(self.model_for(&req.role)));
        body.insert(
            "messages".into(),
            Value::Array(req.messages.iter().map(wire_message).collect()),
        );
        if !req.tools.is_empty() {
            let tools = req
                .tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t.name, "description": t.description, "parameters": t.parameters,
                    }})
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
        }
        if let Some(choice) = &req.tool_choice {
            let choice = match choice {
                ToolChoice::Auto => json!("auto"),
                ToolChoice::Required => json!("required"),
                ToolChoice::None => json!("none"),
                ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
            };
            body.insert("tool_choice".into(), choice);
        }
        if let Some(format) = &req.response_format {
            let format = match format {
                ResponseFormat::Text => json!({"type": "text"}),
                ResponseFormat::JsonObject => json!({"type": "json_object"}),
                ResponseFormat::JsonSchema { name, schema } => json!({
                    "type": "json_schema", "json_schema": {"name": name, "schema": schema},
                }),
            };
            body.insert("response_format".into(), format);
        }
        let s = &req.sampling;
        if let Some(t) = s.temperature {
            body.insert("temperature".into(), json!(t));
        }
        if let Some(p) = s.top_p {
            body.insert("top_p".into(), json!(p));
        }
        if let Some(seed) = s.seed {
            body.insert("seed".into(), json!(seed));
        }
        if let Some(max) = s.max_tokens {
            body.insert("max_tokens".into(), json!(max));
        }
        if !s.stop.is_empty() {
            body.insert("stop".into(), json!(s.stop));
        }
        Value::Object(body)
    }
}

fn wire_message(message: &Message) -> Value {
    match message {
        Message::System(text) => json!({"role": "system", "content": text}),
        Message::User(text) => json!({"role": "user", "content": text}),
        Message::Assistant {
            content,
            tool_calls,
        } => {
            let mut m = Map::new();
            m.insert("role".into(), json!("assistant"));
            m.insert("content".into(), json!(content));
            if !tool_calls.is_empty() {
                let calls = tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function",
                               "function": {"name": c.name, "arguments": c.arguments}})
                    })
                    .collect();
                m.insert("tool_calls".into(), Value::Array(calls));
            }
            Value::Object(m)
        }
        Message::Tool { call_id, content } => {
            json!({"role": "tool", "tool_call_id": call_id, "content": content})
        }
    }
}

#[derive(Deserialize)]
struct WireResponse {
    model: Option<String>,
    choices: Vec<WireChoice>,
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireChoice {
    message: WireMessage,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireMessage {
    content: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Deserialize)]
struct WireToolCall {
    id: Option<String>,
    function: WireFunction,
}

#[derive(Deserialize)]
struct WireFunction {
    name: String,
    /// A string per the spec; some servers send an object.
    #[serde(default)]
    arguments: Value,
}

#[derive(Deserialize)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

/// Parses a `/chat/completions` body into a [`ChatResponse`] (without checking the finish reason).
pub(crate) fn parse_chat_body(
    raw: &str,
    url: &str,
    req: &ChatRequest,
    requested_model: &str,
) -> Result<ChatResponse> {
    let malformed = |reason: String| Error::MalformedResponse {
        url: url.to_owned(),
        reason,
        body_start: truncate_chars(raw.trim(), MAX_MESSAGE_CHARS),
    };
    let wire: WireResponse =
        serde_json::from_str(raw).map_err(|e| malformed(format!("not a chat completion: {e}")))?;
    let choice = wire
        .choices
        .into_iter()
        .next()
        .ok_or_else(|| malformed("no choices".into()))?;
    let tool_calls: Vec<ToolCall> = choice
        .message
        .tool_calls
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, c)| ToolCall {
            id: c
                .id
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| format!("call_{i}")),
            name: c.function.name,
            arguments: match c.function.arguments {
                Value::String(s) => s,
                Value::Null => String::new(),
                other => other.to_string(),
            },
        })
        .collect();
    let content = choice.message.content;
    let usage = match wire.usage {
        Some(WireUsage {
            prompt_tokens: Some(p),
            completion_tokens: Some(c),
        }) => Usage {
            prompt_tokens: p,
            completion_tokens: c,
            estimated: false,
        },
        _ => estimate_usage(req, content.as_deref(), &tool_calls),
    };
    Ok(ChatResponse {
        content,
        tool_calls,
        finish_reason: FinishReason::from_wire(choice.finish_reason.as_deref()),
        usage,
        cache_hit: false,
        model: wire.model.unwrap_or_else(|| requested_model.to_owned()),
        raw: raw.to_owned(),
    })
}

#[async_trait]
impl ChatModel for OpenAiClient {
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse> {
        check_context(req, self.model_for(&req.role), self.context_tokens)?;
        let body = self.request_body(req);
        let raw = self.http.post_json("chat/completions", &body).await?;
        let url = redact_url(&self.http.endpoint("chat/completions"));
        let model = self.model_for(&req.role).to_owned();
        let response = parse_chat_body(&raw, &url, req, &model)?;
        if response.finish_reason == FinishReason::Length {
            return Err(Error::Truncated {
                model: response.model,
                completion_tokens: response.usage.completion_tokens,
                partial: response.content,
            });
        }
        Ok(response)
    }

    fn model_name(&self) -> &str {
        &self.model
    }

    fn model_for(&self, role: &Role) -> &str {
        self.role_models
            .get(role)
            .map_or(self.model.as_str(), String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{Sampling, ToolSpec};

    fn client() -> OpenAiClient {
        OpenAiClient::new(&LlmSettings::default()).unwrap()
    }

    #[test]
    fn request_body_carries_tools_choice_format_and_sampling() {
        let req = ChatRequest {
            messages: vec![
                Message::system("s"),
                Message::user("u"),
                Message::Assistant {
                    content: None,
                    tool_calls: vec![ToolCall::new("c1", "t", "{}")],
                },
                Message::tool("c1", "result"),
            ],
            tools: vec![ToolSpec {
                name: "t".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
            }],
            tool_choice: Some(ToolChoice::Tool("t".into())),
            response_format: Some(ResponseFormat::JsonObject),
            sampling: Sampling {
                temperature: Some(0.0),
                seed: Some(7),
                max_tokens: Some(10),
                stop: vec!["\nObs".into()],
                top_p: None,
            },
            ..ChatRequest::default()
        };
        let body = client().request_body(&req);
        assert_eq!(body["model"], "gpt-4o-mini");
        assert_eq!(body["messages"][2]["tool_calls"][0]["id"], "c1");
        assert_eq!(body["messages"][3]["tool_call_id"], "c1");
        assert_eq!(body["tools"][0]["function"]["name"], "t");
        assert_eq!(body["tool_choice"]["function"]["name"], "t");
        assert_eq!(body["response_format"]["type"], "json_object");
        assert_eq!(body["seed"], 7);
        assert_eq!(body["stop"][0], "\nObs");
        assert!(body.get("top_p").is_none());
    }

    #[test]
    fn missing_ids_and_object_arguments_are_normalized() {
        let raw = r#"{"choices":[{"message":{"content":null,"tool_calls":[
            {"function":{"name":"a","arguments":{"x":1}}},
            {"id":"","function":{"name":"b","arguments":"{\"y\":2}"}}]},"finish_reason":"tool_calls"}]}"#;
        let req = ChatRequest::new("agent", vec![Message::user("hello there")]);
        let r = parse_chat_body(raw, "u", &req, "m").unwrap();
        assert_eq!(r.tool_calls[0].id, "call_0");
        assert_eq!(r.tool_calls[0].arguments, r#"{"x":1}"#);
        assert_eq!(r.tool_calls[1].id, "call_1");
        assert_eq!(r.model, "m");
        assert!(r.usage.estimated);
        assert!(r.usage.prompt_tokens > 0);
    }

    #[test]
    fn html_bodies_are_malformed_responses() {
        let req = ChatRequest::default();
        let err = parse_chat_body(
            "<html>oops</html>",
            "http://x/v1/chat/completions",
            &req,
            "m",
        )
        .unwrap_err();
        assert!(
            matches!(err, Error::MalformedResponse { ref body_start, .. } if body_start.contains("oops"))
        );
        assert!(!err.is_retryable());
    }
}
