//! Test doubles for every crate's tests (feature `test-utils`): [`ScriptedLlm`] and
//! [`ScriptedEmbedder`].
//!
//! `ScriptedLlm` answers from rules on the request first (role, a substring of the last
//! message, a tool offered), then from an ordered script. A request that neither covers is
//! answered with an [`Error::Config`] on the field `ScriptedLlm script` (the double was set up
//! with too short a script), whose message names the request, so the test fails with a
//! clear `Err` instead of a hang or a panic deep in library code. It records every request
//! ([`ScriptedLlm::requests`]); call [`ScriptedLlm::assert_finished`] at the end of a test to
//! check the whole script was used.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use async_trait::async_trait;
use toolsmith_plumbing::text::truncate_chars;

use crate::chat::{ChatModel, ChatRequest, ChatResponse, FinishReason, ToolCall, Usage};
use crate::embed::embedder::Embedder;
use crate::error::{Error, Result};
use crate::role::Role;
use crate::tokens::estimate_usage;

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A text answer (malformed output is just text: bad JSON, a broken ReAct step, `""`).
    Text(String),
    /// Tool calls, optionally with text; arguments are raw, so invalid JSON can be scripted.
    ToolCalls {
        /// Text beside the calls.
        content: Option<String>,
        /// The calls.
        calls: Vec<ToolCall>,
    },
    /// A reply cut off at the token limit: [`Error::Truncated`] with this partial text.
    Truncated(String),
    /// An HTTP error with this status and message.
    Status(u16, String),
    /// A timeout.
    Timeout,
}

impl Reply {
    /// A text answer.
    pub fn text(text: impl Into<String>) -> Self {
        Reply::Text(text.into())
    }

    /// One tool call with id `call_0` and raw `arguments`.
    pub fn tool_call(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Reply::ToolCalls {
            content: None,
            calls: vec![ToolCall::new("call_0", name, arguments)],
        }
    }

    /// Several tool calls in one turn, with ids `call_0`, `call_1`, ...
    pub fn tool_calls<N: Into<String>, A: Into<String>>(
        calls: impl IntoIterator<Item = (N, A)>,
    ) -> Self {
        let calls = calls
            .into_iter()
            .enumerate()
            .map(|(i, (n, a))| ToolCall::new(format!("call_{i}"), n, a))
            .collect();
        Reply::ToolCalls {
            content: None,
            calls,
        }
    }

    /// An HTTP error.
    pub fn status(status: u16, message: impl Into<String>) -> Self {
        Reply::Status(status, message.into())
    }
}

/// A condition on a request; every part that is set must hold.
#[derive(Clone, Debug, Default)]
pub struct When {
    role: Option<Role>,
    last_message_contains: Option<String>,
    tool_offered: Option<String>,
}

impl When {
    /// Requests of this role.
    pub fn role(role: impl Into<Role>) -> Self {
        Self {
            role: Some(role.into()),
            ..Self::default()
        }
    }

    /// Requests whose last message contains `needle`.
    pub fn last_message_contains(needle: impl Into<String>) -> Self {
        Self {
            last_message_contains: Some(needle.into()),
            ..Self::default()
        }
    }

    /// Requests offering a tool with this name.
    pub fn tool_offered(name: impl Into<String>) -> Self {
        Self {
            tool_offered: Some(name.into()),
            ..Self::default()
        }
    }

    /// Also requires the role.
    pub fn and_role(mut self, role: impl Into<Role>) -> Self {
        self.role = Some(role.into());
        self
    }

    /// Also requires the last message to contain `needle`.
    pub fn and_last_message_contains(mut self, needle: impl Into<String>) -> Self {
        self.last_message_contains = Some(needle.into());
        self
    }

    /// Also requires the tool to be offered.
    pub fn and_tool_offered(mut self, name: impl Into<String>) -> Self {
        self.tool_offered = Some(name.into());
        self
    }

    fn matches(&self, req: &ChatRequest) -> bool {
        self.role.as_ref().is_none_or(|r| *r == req.role)
            && self
                .last_message_contains
                .as_ref()
                .is_none_or(|n| req.last_message().contains(n.as_str()))
            && self
                .tool_offered
                .as_ref()
                .is_none_or(|n| req.tools.iter().any(|t| t.name == *n))
    }
}

#[derive(Debug)]
struct Rule {
    when: When,
    reply: Reply,
    /// Uses left; `None` is unlimited.
    uses_left: Option<usize>,
}

#[derive(Debug, Default)]
struct State {
    script: VecDeque<Reply>,
    rules: Vec<Rule>,
    requests: Vec<ChatRequest>,
}

/// A [`ChatModel`] that answers from rules and a script and records what it was asked.
/// Clones share the script and the record.
#[derive(Clone, Debug)]
pub struct ScriptedLlm {
    state: Arc<Mutex<State>>,
    model: String,
    delay: Duration,
}

impl ScriptedLlm {
    /// A model answering `replies` in order.
    pub fn new(replies: impl IntoIterator<Item = Reply>) -> Self {
        let state = State {
            script: replies.into_iter().collect(),
            ..State::default()
        };
        Self {
            state: Arc::new(Mutex::new(state)),
            model: "scripted".into(),
            delay: Duration::ZERO,
        }
    }

    /// Answers every matching request with `reply`, before the script is consulted. Rules are
    /// tried in the order they were added.
    pub fn with_rule(self, when: When, reply: Reply) -> Self {
        self.lock().rules.push(Rule {
            when,
            reply,
            uses_left: None,
        });
        self
    }

    /// Like [`ScriptedLlm::with_rule`], for the first `times` matching requests only.
    pub fn with_rule_times(self, when: When, reply: Reply, times: usize) -> Self {
        self.lock().rules.push(Rule {
            when,
            reply,
            uses_left: Some(times),
        });
        self
    }

    /// Names the model (`scripted` by default); it goes into responses and cache keys.
    pub fn with_model_name(mut self, name: impl Into<String>) -> Self {
        self.model = name.into();
        self
    }

    /// Waits this long before each answer (for concurrency tests).
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.lock().requests.clone()
    }

    /// Scripted replies not used yet.
    pub fn remaining(&self) -> usize {
        self.lock().script.len()
    }

    /// Panics (test code only) unless every scripted reply was used.
    #[allow(clippy::panic)]
    pub fn assert_finished(&self) {
        let left = self.remaining();
        if left > 0 {
            panic!("ScriptedLlm: {left} scripted replies were never requested");
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    fn next_reply(&self, req: &ChatRequest) -> Result<Reply> {
        let mut state = self.lock();
        state.requests.push(req.clone());
        let n = state.requests.len();
        let rule = state
            .rules
            .iter_mut()
            .find(|r| r.uses_left != Some(0) && r.when.matches(req));
        if let Some(rule) = rule {
            if let Some(left) = rule.uses_left.as_mut() {
                *left -= 1;
            }
            return Ok(rule.reply.clone());
        }
        state.script.pop_front().ok_or_else(|| {
            let tools: Vec<&str> = req.tools.iter().map(|t| t.name.as_str()).collect();
            Error::Config {
                field: "ScriptedLlm script",
                reason: format!(
                    "unexpected request #{n} (role `{}`, tools {tools:?}, last message {:?}): the script is exhausted and no rule matches",
                    req.role,
                    truncate_chars(req.last_message(), 120)
                ),
            }
        })
    }
}

#[async_trait]
impl ChatModel for ScriptedLlm {
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse> {
        let reply = self.next_reply(req)?;
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        let (content, tool_calls, finish_reason) = match reply {
            Reply::Text(t) => (Some(t), Vec::new(), FinishReason::Stop),
            Reply::ToolCalls { content, calls } => (content, calls, FinishReason::ToolCalls),
            Reply::Truncated(partial) => {
                let usage = estimate_usage(req, Some(&partial), &[]);
                return Err(Error::Truncated {
                    model: self.model.clone(),
                    completion_tokens: usage.completion_tokens,
                    partial: Some(partial),
                });
            }
            Reply::Status(status, message) => {
                return Err(Error::Status {
                    status,
                    url: "scripted://chat/completions".into(),
                    message,
                    retry_after: None,
                });
            }
            Reply::Timeout => {
                return Err(Error::Timeout {
                    url: "scripted://chat/completions".into(),
                    after: Duration::ZERO,
                });
            }
        };
        let usage = Usage {
            estimated: false,
            ..estimate_usage(req, content.as_deref(), &tool_calls)
        };
        let mut response = ChatResponse {
            content,
            tool_calls,
            finish_reason,
            usage,
            cache_hit: false,
            model: self.model.clone(),
            raw: String::new(),
        };
        response.raw = serde_json::to_string(&response).unwrap_or_default();
        Ok(response)
    }

    fn model_name(&self) -> &str {
        &self.model
    }
}

/// A deterministic embedder: a hashed bag of lowercase words, L2-normalized, so texts sharing
/// words get similar vectors. Counts the texts it embedded.
#[derive(Clone, Debug)]
pub struct ScriptedEmbedder {
    dimensions: usize,
    embedded: Arc<Mutex<usize>>,
}

impl Default for ScriptedEmbedder {
    /// 64 dimensions.
    fn default() -> Self {
        Self::new(64)
    }
}

impl ScriptedEmbedder {
    /// An embedder of `dimensions` (at least 1).
    pub fn new(dimensions: usize) -> Self {
        Self {
            dimensions: dimensions.max(1),
            embedded: Arc::new(Mutex::new(0)),
        }
    }

    /// Texts embedded so far (cache tests assert on this).
    pub fn texts_embedded(&self) -> usize {
        match self.embedded.lock() {
            Ok(g) => *g,
            Err(p) => *p.into_inner(),
        }
    }

    /// The vector of one text.
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; self.dimensions];
        for word in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            let h = fnv1a(word.to_lowercase().as_bytes());
            let slot = usize::try_from(h % self.dimensions as u64).unwrap_or(0);
            let sign = if (h >> 63) == 0 { 1.0 } else { -1.0 };
            v[slot] += sign;
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[async_trait]
impl Embedder for ScriptedEmbedder {
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        match self.embedded.lock() {
            Ok(mut g) => *g += texts.len(),
            Err(p) => *p.into_inner() += texts.len(),
        }
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }

    fn model_id(&self) -> &str {
        "scripted-bow"
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{Message, ToolSpec};
    use crate::embed::cosine;

    fn req(role: &str, text: &str) -> ChatRequest {
        ChatRequest::new(role, vec![Message::user(text)])
    }

    #[tokio::test]
    async fn rules_then_script_then_a_clear_error() {
        let llm = ScriptedLlm::new([
            Reply::text("first"),
            Reply::tool_calls([("a", "{}"), ("b", "{")]),
        ])
        .with_rule(When::role("judge"), Reply::text("score: 5"))
        .with_rule_times(
            When::last_message_contains("special"),
            Reply::text("once"),
            1,
        );
        assert_eq!(
            llm.chat(&req("judge", "x")).await.unwrap().text(),
            "score: 5"
        );
        assert_eq!(
            llm.chat(&req("agent", "a special one"))
                .await
                .unwrap()
                .text(),
            "once"
        );
        assert_eq!(
            llm.chat(&req("agent", "special again"))
                .await
                .unwrap()
                .text(),
            "first"
        );
        let calls = llm.chat(&req("agent", "go")).await.unwrap().tool_calls;
        assert_eq!(calls[1].id, "call_1");
        assert!(calls[1].parsed_arguments().is_err());
        let err = llm.chat(&req("agent", "one too many")).await.unwrap_err();
        assert!(err.to_string().contains("one too many"), "{err}");
        assert_eq!(llm.requests().len(), 5);
        llm.assert_finished();
    }

    #[tokio::test]
    async fn tool_rules_match_offered_tools() {
        let spec = ToolSpec {
            name: "weather".into(),
            description: String::new(),
            parameters: serde_json::json!({}),
        };
        let llm = ScriptedLlm::new([]).with_rule(
            When::tool_offered("weather"),
            Reply::tool_call("weather", "{}"),
        );
        let r = llm
            .chat(&req("agent", "hi").with_tools(vec![spec], None))
            .await
            .unwrap();
        assert_eq!(r.tool_calls[0].name, "weather");
        assert!(llm.chat(&req("agent", "hi")).await.is_err());
    }

    #[tokio::test]
    async fn scripted_errors_are_typed() {
        let llm = ScriptedLlm::new([
            Reply::status(503, "busy"),
            Reply::Truncated("half".into()),
            Reply::Timeout,
        ]);
        assert_eq!(
            llm.chat(&req("a", "x")).await.unwrap_err().status(),
            Some(503)
        );
        assert!(matches!(
            llm.chat(&req("a", "x")).await,
            Err(Error::Truncated { .. })
        ));
        assert!(matches!(
            llm.chat(&req("a", "x")).await,
            Err(Error::Timeout { .. })
        ));
    }

    #[tokio::test]
    async fn doubles_work_behind_trait_objects() {
        let llm: Arc<dyn ChatModel> = Arc::new(ScriptedLlm::new([Reply::text("dyn")]));
        let cached = crate::CachedChat::new(
            llm,
            crate::CacheDb::in_memory().unwrap(),
            crate::CacheMode::ReadWrite,
        );
        assert_eq!(cached.chat(&req("a", "x")).await.unwrap().text(), "dyn");
        assert!(cached.chat(&req("a", "x")).await.unwrap().cache_hit);
        let e: Arc<dyn Embedder> = Arc::new(ScriptedEmbedder::new(8));
        assert_eq!(
            e.embed(&["x".to_owned()]).await.unwrap()[0].len(),
            e.dimensions()
        );
    }

    #[tokio::test]
    async fn bag_of_words_vectors_are_similar_for_shared_words() {
        let e = ScriptedEmbedder::default();
        let v = e
            .embed(&[
                "search movies by title".into(),
                "search a movie by its title".into(),
                "convert currency".into(),
            ])
            .await
            .unwrap();
        assert!(cosine(&v[0], &v[1]) > cosine(&v[0], &v[2]));
        assert!((cosine(&v[0], &v[0]) - 1.0).abs() < 1e-5);
        assert_eq!(e.texts_embedded(), 3);
        assert_eq!(e.embed_one("convert currency").await.unwrap(), v[2]);
    }
}
