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

/// The prompt asking, for each need of a request, for the candidates that serve it.
pub const RERANK_NEEDS_PROMPT: Prompt = Prompt::new(
    "retrieve/rerank_needs",
    include_str!("../../prompts/rerank_needs.j2"),
);

/// One candidate shown to the model: its number (from 1) and its short doc.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// Its number in the prompt (from 1, in the first stage's order).
    pub number: usize,
    /// Its doc: the API's one-line summary, cut to `doc_chars`.
    pub doc: String,
}

/// One need of a request (an intent) and the candidates its own search found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Need {
    /// Its number in the prompt (from 1, in the request's order).
    pub number: usize,
    /// The intent, as extraction wrote it.
    pub intent: String,
    /// Its candidates in its own list's order; a candidate several needs found keeps one
    /// number under each.
    pub candidates: Vec<Candidate>,
}

/// Reorders a request's candidates.
#[async_trait]
pub trait Reranker: Send + Sync {
    /// The numbers of the candidates that fit `request`, most useful first, as the model gave
    /// them (unknown and repeated numbers are the caller's to drop). An error, or no usable
    /// number, keeps the first stage's order.
    async fn rerank(&self, request: &str, candidates: &[Candidate]) -> Result<Vec<usize>>;

    /// For each of `needs`, in their order, the numbers of the candidates that serve it, most
    /// useful first (unknown and repeated numbers are the caller's to drop). By default every
    /// candidate once, as one list for [`Reranker::rerank`], its order given as the first
    /// need's.
    async fn rerank_needs(&self, request: &str, needs: &[Need]) -> Result<Vec<Vec<usize>>> {
        let mut all: Vec<Candidate> = Vec::new();
        for c in needs.iter().flat_map(|n| &n.candidates) {
            if !all.iter().any(|a| a.number == c.number) {
                all.push(c.clone());
            }
        }
        Ok(vec![self.rerank(request, &all).await?])
    }
}

/// What the model replies: `{"ranking": [...]}`, or a bare list; entries that are not
/// numbers (or numeric strings such as `"3"` or `"[3]"`) are skipped.
#[derive(Deserialize)]
#[serde(untagged)]
enum Reply {
    Object { ranking: Vec<Value> },
    List(Vec<Value>),
}

/// What the model replies for needs: `{"needs": [[...], ...]}` or a bare list of lists; a
/// flat list of numbers (the needs not told apart) counts as one list.
#[derive(Deserialize)]
#[serde(untagged)]
enum NeedsReply {
    Object { needs: Vec<Value> },
    Flat { ranking: Vec<Value> },
    List(Vec<Value>),
}

/// Asks a chat model (role [`Role::RERANK`], greedy, [`RERANK_PROMPT`], or
/// [`RERANK_NEEDS_PROMPT`] for a request's needs) for the order; wrap
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

    async fn rerank_needs(&self, request: &str, needs: &[Need]) -> Result<Vec<Vec<usize>>> {
        let llm = |source| Error::Rerank { source };
        let text = RERANK_NEEDS_PROMPT
            .render(&json!({"request": request, "needs": needs}))
            .map_err(llm)?;
        let req = ChatRequest::new(Role::RERANK, vec![Message::user(text)])
            .with_prompt(&RERANK_NEEDS_PROMPT)
            .with_query(request)
            .with_sampling(Sampling::greedy());
        let reply = ask_json::<NeedsReply, _>(&self.model, req, &self.structured)
            .await
            .map_err(llm)?;
        Ok(match reply.value {
            NeedsReply::Object { needs: lists } | NeedsReply::List(lists) => per_need(&lists),
            NeedsReply::Flat { ranking } => vec![ranking.iter().filter_map(number).collect()],
        })
    }
}

/// The lists of a needs reply: each entry a list of numbers (or an object holding one, such
/// as `{"need": 1, "ranking": [...]}`); when no entry is a list, the numbers are one list.
fn per_need(entries: &[Value]) -> Vec<Vec<usize>> {
    let list_of = |entry: &Value| -> Option<Vec<usize>> {
        match entry {
            Value::Array(items) => Some(items.iter().filter_map(number).collect()),
            Value::Object(fields) => fields.values().find_map(|v| match v {
                Value::Array(items) => Some(items.iter().filter_map(number).collect()),
                _ => None,
            }),
            _ => None,
        }
    };
    if entries.iter().all(|e| list_of(e).is_none()) {
        return vec![entries.iter().filter_map(number).collect()];
    }
    entries
        .iter()
        .map(|e| list_of(e).unwrap_or_default())
        .collect()
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

    #[test]
    fn a_needs_reply_gives_one_list_per_need() {
        let lists = json!([[3, "1"], {"need": 2, "ranking": [7]}, "junk", []]);
        assert_eq!(
            per_need(lists.as_array().unwrap()),
            [vec![3, 1], vec![7], vec![], vec![]]
        );
        // The needs not told apart: one list.
        let flat = json!([4, 2, "x"]);
        assert_eq!(per_need(flat.as_array().unwrap()), [vec![4, 2]]);
    }
}
