//! Intent extraction at query time (after Re-Invoke, Chen et al., EMNLP 2024): a request that
//! needs several tools ("the air quality in Beijing, and is Mailcheap's API up?") matched as
//! one blob lets one need crowd out the other. An [`IntentExtractor`] (the LLM-backed
//! [`LlmIntents`], role `intents`, prompt `prompts/intents.j2`) lists the request's
//! tool-related intents, each a short search query; [`IntentRetriever`] searches each on its
//! own with the inner ranking and fuses the lists ([`IntentFusion`]: round-robin by rank by
//! default, or reciprocal rank fusion) so every intent gets its share of the `k` slots.
//! Dependency expansion then runs on the fused list (wrap it in an `ExpandingRetriever`).
//! [`IntentRetriever::lists`] hands out each intent's own list unfused ([`IntentLists`]), for
//! the reranking stage's per-intent window.
//!
//! One intent, or an extraction that fails or replies with no usable JSON (a warning is
//! logged), searches the request as written: the inner ranking, unchanged.

mod extract;
mod fuse;
mod retriever;
mod settings;

pub use self::extract::{INTENTS_PROMPT, IntentExtractor, LlmIntents};
pub use self::retriever::{IntentLists, IntentRetriever};
pub use self::settings::{IntentFusion, IntentSettings, RRF_INTENT_K};
