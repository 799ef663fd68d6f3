//! How toolsmith talks to language models and embedders.
//!
//! # Overview
//! - [`ChatModel`] is the contract every method uses: [`ChatRequest`] in (messages, tools,
//!   tool choice, response format, sampling, the [`Role`] asking), [`ChatResponse`] out (text,
//!   [`ToolCall`]s with their ids and raw arguments, [`Usage`], whether it was a cache hit).
//! - [`OpenAiClient`] speaks to any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp)
//!   with retries (exponential backoff with jitter, `Retry-After`), a bound on requests in
//!   flight, and typed errors ([`Error::is_retryable`]). Configure it with [`LlmSettings`]
//!   ([`LlmSettings::from_env`] reads `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `TOOLSMITH_MODEL`).
//! - Wrappers compose around any model: [`CachedChat`] (SQLite response cache, modes
//!   [`CacheMode`]) and [`Metered`] (a shared [`Budget`] of calls and tokens, and the
//!   [`UsageLedger`] per role, per query, per run). Put `Metered` outermost:
//!   `Metered::new(CachedChat::new(client, db, mode), budget)`.
//! - [`ask_json`] gets a typed value out of a model, repairing bad replies; [`Prompt`] renders
//!   prompt files strictly and names them in the cache key.
//! - [`Embedder`] turns texts into vectors: [`OpenAiEmbedder`], the local all-MiniLM-L6-v2
//!   `LocalEmbedder` (feature `local-embed`, on by default; install the weights with
//!   `scripts/install-model.sh`), and the [`CachedEmbedder`] wrapper.
//! - The `testing` module (feature `test-utils`) has `ScriptedLlm` and `ScriptedEmbedder` for tests.
//!
//! A scripted model stands in below for an endpoint (`OpenAiClient::new(&LlmSettings::from_env())?`):
//!
//! ```
//! use std::sync::Arc;
//! use toolsmith_llm::testing::{Reply, ScriptedLlm};
//! use toolsmith_llm::{
//!     Budget, BudgetLimits, CacheDb, CacheMode, CachedChat, ChatModel, ChatRequest, Message, Metered,
//! };
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> toolsmith_llm::Result<()> {
//! let model = ScriptedLlm::new([Reply::text("Hello!")]);
//! let budget = Arc::new(Budget::new(BudgetLimits { max_calls: Some(10), max_tokens: None }));
//! let cache = CacheDb::in_memory()?;
//! let llm = Metered::new(CachedChat::new(model, cache, CacheMode::ReadWrite), budget.clone());
//! let request = ChatRequest::new("agent", vec![Message::user("Say hi")]);
//! assert_eq!(llm.chat(&request).await?.text(), "Hello!");
//! // The same request again comes from the cache: the script has no second reply.
//! assert!(llm.chat(&request).await?.cache_hit);
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

pub use crate::budget::{
    Budget, BudgetExhausted, BudgetLimit, BudgetLimits, BudgetUsed, Metered, UsageLedger,
    UsageTotals,
};
pub use crate::cache::{CacheDb, CacheMode, CachedChat};
pub use crate::chat::{
    ChatModel, ChatRequest, ChatResponse, FinishReason, Message, ResponseFormat, Sampling,
    ToolArgumentsError, ToolCall, ToolChoice, ToolSpec, Usage,
};
pub use crate::embed::cache::CachedEmbedder;
pub use crate::embed::http::OpenAiEmbedder;
#[cfg(feature = "local-embed")]
pub use crate::embed::local::LocalEmbedder;
pub use crate::embed::{Embedder, cosine};
pub use crate::error::{Error, Result};
pub use crate::openai::OpenAiClient;
pub use crate::prompt::Prompt;
pub use crate::role::Role;
pub use crate::settings::{LlmSettings, RetrySettings, Secret, default_models_dir, env};
pub use crate::structured::{Structured, StructuredSettings, ask_json, extract_json};

mod budget;
mod cache;
mod chat;
mod context;
mod embed;
mod error;
mod http;
mod limits;
mod openai;
mod prompt;
mod redact;
mod role;
mod settings;
mod structured;
#[cfg(any(test, feature = "test-utils"))]
pub mod testing;
mod tokens;
