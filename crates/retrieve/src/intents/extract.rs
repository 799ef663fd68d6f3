//! Turning a request into its tool-related intents: the [`IntentExtractor`] contract and the
//! LLM-backed [`LlmIntents`].

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;
use toolsmith_llm::{
    ChatModel, ChatRequest, Message, Prompt, Role, Sampling, StructuredSettings, ask_json,
};

use crate::error::{Error, Result};

/// The prompt asking for a request's intents.
pub const INTENTS_PROMPT: Prompt =
    Prompt::new("retrieve/intents", include_str!("../../prompts/intents.j2"));

/// Finds the tool-related intents of a request, each a short search query.
#[async_trait]
pub trait IntentExtractor: Send + Sync {
    /// The intents of `request`, at most `max` of them, in the request's order. An error
    /// makes the caller search the request as written.
    async fn intents(&self, request: &str, max: usize) -> Result<Vec<String>>;
}

/// What the model replies: `{"intents": [...]}`, or a bare array of queries.
#[derive(Deserialize)]
#[serde(untagged)]
enum Reply {
    Object { intents: Vec<String> },
    List(Vec<String>),
}

/// Asks a chat model (role [`Role::INTENTS`], greedy, [`INTENTS_PROMPT`]) for the intents;
/// wrap the model in `toolsmith_llm::CachedChat` so an identical request costs nothing the
/// second time, and in `Metered` to count its calls and tokens.
pub struct LlmIntents<M> {
    model: M,
    structured: StructuredSettings,
}

impl<M: ChatModel> LlmIntents<M> {
    /// Extraction by `model`, re-asking once when a reply does not parse.
    pub fn new(model: M) -> Self {
        Self {
            model,
            structured: StructuredSettings {
                max_repairs: 1,
                ..StructuredSettings::default()
            },
        }
    }
}

#[async_trait]
impl<M: ChatModel> IntentExtractor for LlmIntents<M> {
    async fn intents(&self, request: &str, max: usize) -> Result<Vec<String>> {
        let llm = |source| Error::Intents { source };
        let text = INTENTS_PROMPT
            .render(&json!({"request": request, "max_intents": max}))
            .map_err(llm)?;
        let req = ChatRequest::new(Role::INTENTS, vec![Message::user(text)])
            .with_prompt(&INTENTS_PROMPT)
            .with_query(request)
            .with_sampling(Sampling::greedy());
        let reply = ask_json::<Reply, _>(&self.model, req, &self.structured)
            .await
            .map_err(llm)?;
        Ok(match reply.value {
            Reply::Object { intents } | Reply::List(intents) => intents,
        })
    }
}
