//! Listwise LLM reranking at query time (in the spirit of RankGPT, Sun et al., EMNLP 2023, and
//! Re-Invoke's second stage): the first stage ranks by words and vectors, so an API that only
//! shares a request's words can sit above the one the request needs. A [`Reranker`] (the
//! LLM-backed [`LlmReranker`], role `rerank`, prompt `prompts/rerank.j2`) sees the request and
//! the first stage's top [`RerankSettings::depth`] candidates, numbered, each by its one-line
//! summary, and names the relevant ones, most useful first. [`RerankingRetriever`] puts those
//! first in that order and the rest after in their old order. Dependency expansion then runs
//! on the reranked list (wrap it in an `ExpandingRetriever`).
//!
//! Unknown numbers, repeats and entries that are not numbers are ignored; a model that fails,
//! or a reply with no usable number, keeps the first stage's order (logged and counted in
//! [`RerankCounts::unusable`]).

mod model;
mod order;
mod retriever;
mod settings;

pub use self::model::{Candidate, LlmReranker, RERANK_PROMPT, Reranker};
pub use self::retriever::{RerankCounts, RerankingRetriever};
pub use self::settings::RerankSettings;
