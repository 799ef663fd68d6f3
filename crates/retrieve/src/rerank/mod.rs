//! Listwise LLM reranking at query time (in the spirit of RankGPT, Sun et al., EMNLP 2023, and
//! Re-Invoke's second stage): the first stage ranks by words and vectors, so an API that only
//! shares a request's words can sit above the one the request needs. A [`Reranker`] (the
//! LLM-backed [`LlmReranker`], role `rerank`, prompt `prompts/rerank.j2`) sees the request and
//! the first stage's top [`RerankSettings::depth`] candidates, numbered, each by its one-line
//! summary, and names the relevant ones, most useful first. [`RerankingRetriever`] puts those
//! first in that order and the rest after in their old order. Dependency expansion then runs
//! on the reranked list (wrap it in an `ExpandingRetriever`).
//!
//! A request that intent extraction split into several needs can instead be shown each
//! intent's own top [`RerankSettings::per_intent`] ([`RerankWindow::PerIntent`], prompt
//! `prompts/rerank_needs.j2`): fusing long per-intent lists round-robin interleaves every
//! intent's near-misses, so an API a need wants may sit far below the fused top 20 while
//! heading the second half of its own intent's list. The model picks, for each [`Need`], the
//! candidates that serve it; the picks are interleaved so each need gets its share of the
//! first slots, and the fused list follows without them. A request with one intent gets the
//! fused window.
//!
//! Each request is asked about once (one window whatever cut-off is read, remembered), and
//! wrapping the model in `toolsmith_llm::CachedChat` makes a replay ask nothing.
//!
//! Unknown numbers, repeats and entries that are not numbers are ignored; a model that fails,
//! or a reply with no usable number, keeps the first stage's order (logged and counted in
//! [`RerankCounts::unusable`]).

mod asked;
mod explain;
mod model;
mod needs;
mod order;
mod retriever;
mod settings;

pub use self::model::{Candidate, LlmReranker, Need, RERANK_NEEDS_PROMPT, RERANK_PROMPT, Reranker};
pub use self::retriever::{RerankCounts, RerankingRetriever};
pub use self::settings::{RerankSettings, RerankWindow};
