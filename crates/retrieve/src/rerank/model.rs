//! Asking a model to reorder candidates: the [`Reranker`] contract and the LLM-backed
//! [`LlmReranker`].

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolsmith_llm::{
    ChatModel, ChatRequest, Message, Prompt, Role, Sampling, StructuredSettings, ask_json,
};

use crate::error::{Error, Result};

/// The prompt asking for the relevant candidates, most useful first.
pub const RERANK_PROMPT: Prompt =
    Prompt::new("retrieve/rerank", include_str!("../../prompts/rerank.j2"));

/// One candidate shown to the model: its number (from 1) and its short doc.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// Its number in the prompt (from 1, in the first stage's order).
    pub number: usize,
    /// Its doc: the API's one-line summary, cut to `doc_chars`.
    pub doc: String,
}

/// Reorders a request's candidates.
#[async_trait]
pub trait Reranker: Send + Sync {
    /// The numbers of the candidates that fit `request`, most useful first, as the model gave
    /// them (unknown and repeated numbers are the caller's to drop). An error, or no usable
    /// number, keeps the first stage's order.
    async fn rerank(&self, request: &str, candidates: &[Candidate]) -> Result<Vec<usize>>;
}

/// What the model replies: `{"ranking": [...]}`, or a bare list; entries that are not
/// numbers (or numeric strings such as `"3"` or `"[3]"`) are skipped.
#[derive(Deserialize)]
#[serde(untagged)]
enum Reply {
    Object { ranking: Vec<Value> },
    List(Vec<Value>),
}

/// Asks a chat model (role [`Role::RERANK`], greedy, [`RERANK_PROMPT`]) for the order; wrap
/// the model in `toolsmith_llm::CachedChat` so an identical window costs nothing the second
/// time, and in `Metered` to count its calls and tokens.
pub struct LlmReranker<M> {
    model: M,
    structured: StructuredSettings,
}

impl<M: ChatModel> LlmReranker<M> {
    /// Reranking by `model`, re-asking once when a reply holds no JSON list.
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
impl<M: ChatModel> Reranker for LlmReranker<M> {
    async fn rerank(&self, request: &str, candidates: &[Candidate]) -> Result<Vec<usize>> {
        let llm = |source| Error::Rerank { source };
        let text = RERANK_PROMPT
            .render(&json!({"request": request, "candidates": candidates}))
            .map_err(llm)?;
        let req = ChatRequest::new(Role::RERANK, vec![Message::user(text)])
            .with_prompt(&RERANK_PROMPT)
            .with_query(request)
            .with_sampling(Sampling::greedy());
        let reply = ask_json::<Reply, _>(&self.model, req, &self.structured)
            .await
            .map_err(llm)?;
        let (Reply::Object { ranking } | Reply::List(ranking)) = reply.value;
        Ok(ranking.iter().filter_map(number).collect())
    }
}

/// A list entry as a candidate number: a non-negative integer, or a string holding one
/// (brackets and spaces aside); anything else is junk.
fn number(entry: &Value) -> Option<usize> {
    match entry {
        Value::Number(n) => n.as_u64().and_then(|n| usize::try_from(n).ok()),
        Value::String(s) => s
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim()
            .parse()
            .ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_come_from_integers_and_numeric_strings_only() {
        let entries = json!([3, "1", "[7]", -2, 1.5, "tool", null, {"n": 4}]);
        let got: Vec<usize> = entries
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(number)
            .collect();
        assert_eq!(got, [3, 1, 7]);
    }
}
