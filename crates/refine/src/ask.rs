//! One way every method asks the model for a JSON reply: the prompt rendered into a request
//! with the method's role and sampling, [`ask_json`]'s repairs, and a malformed reply after
//! every repair turned into data (`Err(reason)`), never a failure of the run.

use serde::Serialize;
use serde::de::DeserializeOwned;
use toolsmith_catalog::ApiId;
use toolsmith_llm::{
    ChatModel, ChatRequest, Message, Prompt, Role, Sampling, Structured, StructuredSettings,
    ask_json,
};

use crate::error::{Error, Result};

/// Where a call happens, for errors and the ledger.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At<'a> {
    /// The API (for a tool's description: its first API).
    pub api: &'a ApiId,
    /// The round, 0 outside rounds.
    pub round: u32,
    /// The step.
    pub what: &'static str,
}

/// LLM calls one request can take at most: the first reply and each repair [`ask`] asks for
/// after a malformed one (the simulator's invented responses are repaired the same way).
pub fn max_replies_per_request() -> u64 {
    u64::from(StructuredSettings::default().max_repairs) + 1
}

/// Renders `prompt` with `ctx` as the first user message of a conversation.
pub(crate) fn first_message<S: Serialize>(prompt: &Prompt, ctx: &S) -> Result<Message> {
    Ok(Message::user(
        prompt.render(ctx).map_err(|e| Error::Prompt(Box::new(e)))?,
    ))
}

/// Asks for a `T` over `messages`. `Ok(Err(reason))` is a reply that stayed malformed.
pub(crate) async fn ask<T: DeserializeOwned>(
    llm: &dyn ChatModel,
    role: &str,
    prompt: &Prompt,
    messages: Vec<Message>,
    temperature: f32,
    at: At<'_>,
) -> Result<Result<Structured<T>, String>> {
    let request = ChatRequest::new(Role::new(role), messages)
        .with_prompt(prompt)
        .with_query(at.api.to_string())
        .with_sampling(Sampling {
            temperature: Some(temperature),
            ..Sampling::default()
        });
    match ask_json::<T, _>(llm, request, &StructuredSettings::default()).await {
        Ok(value) => Ok(Ok(value)),
        Err(toolsmith_llm::Error::Structured { reason, .. }) => {
            Ok(Err(format!("{}: unusable reply: {reason}", at.what)))
        }
        Err(source) => Err(Error::Llm {
            api: at.api.clone(),
            round: at.round,
            what: at.what,
            source: Box::new(source),
        }),
    }
}
