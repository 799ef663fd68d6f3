//! [`LlmAnswerCheck`]: the answer check asked of a chat model (role `judge`), which also
//! writes the request's short reference answer.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use toolsmith_llm::{
    ChatModel, ChatRequest, Message, Prompt, Role, Sampling, StructuredSettings, ask_json,
};
use toolsmith_plumbing::text::truncate_chars;

use super::check::{AnswerCheck, Answered};
use super::writer::WriteError;

const ANSWER: Prompt = Prompt::new(
    "eval/synth_answer",
    include_str!("../../prompts/synth_answer.j2"),
);

/// Characters of each response shown to the model (DRAFT's observation cut, 2,048).
const RESPONSE_CHARS: usize = 2048;

/// Asks a chat model whether the responses answer the request.
pub struct LlmAnswerCheck {
    llm: Arc<dyn ChatModel>,
}

impl LlmAnswerCheck {
    /// A check over `llm`.
    pub fn new(llm: Arc<dyn ChatModel>) -> Self {
        Self { llm }
    }
}

#[derive(Deserialize)]
struct Reply {
    answered: bool,
    #[serde(default)]
    answer: String,
}

#[async_trait]
impl AnswerCheck for LlmAnswerCheck {
    async fn check(&self, request: &str, responses: &[Value]) -> Result<Answered, WriteError> {
        let shown: Vec<String> = responses
            .iter()
            .map(|r| truncate_chars(&r.to_string(), RESPONSE_CHARS))
            .collect();
        let text = ANSWER
            .render(&json!({"request": request, "responses": shown}))
            .map_err(|e| WriteError(format!("rendering the answer check: {e}")))?;
        let req = ChatRequest::new(Role::JUDGE, vec![Message::user(text)])
            .with_sampling(Sampling {
                temperature: Some(0.0),
                ..Sampling::default()
            })
            .with_query(request);
        let reply = ask_json::<Reply, _>(self.llm.as_ref(), req, &StructuredSettings::default())
            .await
            .map_err(|e| WriteError(format!("answer check: {e}")))?
            .value;
        Ok(match (reply.answered, reply.answer.trim()) {
            (true, answer) if !answer.is_empty() => Answered::Yes(answer.to_owned()),
            _ => Answered::No,
        })
    }
}
