//! [`LlmAnswerCheck`]: the answer check asked of a chat model (role `judge`), which also
//! writes the request's short reference answer.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};
use toolsmith_exec::compact::compact;
use toolsmith_llm::{
    ChatModel, ChatRequest, Message, Prompt, Role, Sampling, StructuredSettings, ask_json,
};

use super::check::{AnswerCheck, Answered};
use super::writer::WriteError;

const ANSWER: Prompt = Prompt::new(
    "eval/synth_answer",
    include_str!("../../prompts/synth_answer.j2"),
);

/// Characters of each response shown to the model (twice DRAFT's observation cut, 2,048):
/// compacted as the solver's observations are, so every list item keeps its identity and a
/// long list is not cut before the field the request asks about.
const RESPONSE_CHARS: usize = 4096;

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
            .map(|r| compact(r, None, RESPONSE_CHARS))
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

#[cfg(test)]
mod tests {
    use super::*;
    use toolsmith_llm::testing::{Reply as Scripted, ScriptedLlm};

    #[tokio::test]
    async fn a_long_list_reaches_the_check_with_every_items_identity() {
        let items: Vec<Value> = (0..60)
            .map(|i| {
                json!({"id": format!("t{i}"), "name": format!("Track {i}"),
                "album": {"name": "An Album", "images": ["x".repeat(300)]}, "popularity": i})
            })
            .collect();
        let llm = Arc::new(ScriptedLlm::new(vec![Scripted::text(
            json!({"answered": true, "answer": "Track 59"}).to_string(),
        )]));
        let check = LlmAnswerCheck::new(Arc::clone(&llm) as Arc<dyn ChatModel>);
        let answered = check
            .check("the last track of the list", &[json!({"items": items})])
            .await
            .expect("check");
        assert_eq!(answered, Answered::Yes("Track 59".to_owned()));
        let prompt = llm.requests()[0].messages[0].text().to_owned();
        assert!(
            prompt.contains("Track 59"),
            "the last item is shown: {prompt}"
        );
    }
}
