//! [`LlmOracle`]: a [`ResponseOracle`] that asks a chat model to invent the
//! response of an API that has no schema or example (StableToolBench's
//! approach). Feature `llm-oracle`.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use toolsmith_llm::{
    ChatModel, ChatRequest, Message, Prompt, Sampling, StructuredSettings, ask_json,
};

use super::ResponseOracle;
use crate::canonical::canonical_json;
use crate::executor::BookEntry;

/// The prompt that asks for a response body.
const SIMULATE: Prompt = Prompt::new("exec/simulate", include_str!("../../prompts/simulate.j2"));

/// The chat role the oracle's requests are accounted under.
pub const ORACLE_ROLE: &str = "simulator";

/// Invents responses with a chat model, at temperature 0; put the model
/// behind `toolsmith-llm`'s cache to make the answers repeatable.
#[derive(Clone)]
pub struct LlmOracle {
    model: Arc<dyn ChatModel>,
    settings: StructuredSettings,
}

impl std::fmt::Debug for LlmOracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmOracle")
            .field("model", &self.model.model_name())
            .finish_non_exhaustive()
    }
}

impl LlmOracle {
    /// An oracle asking `model`, repairing unparsable replies as
    /// [`StructuredSettings::default`] says.
    pub fn new(model: Arc<dyn ChatModel>) -> Self {
        Self {
            model,
            settings: StructuredSettings::default(),
        }
    }
}

#[async_trait]
impl ResponseOracle for LlmOracle {
    async fn invent(&self, entry: &BookEntry, args: &Value) -> Result<Value, String> {
        let api = &entry.api.api;
        let params: Vec<Value> = api
            .params
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "location": p.location.as_str(),
                    "required": p.required,
                    "description": p.description,
                })
            })
            .collect();
        let method = match (api.endpoint.method(), api.endpoint.path()) {
            (Some(m), Some(path)) => format!("{m} {path}"),
            (Some(m), None) => m.to_string(),
            _ => "function".to_owned(),
        };
        let text = SIMULATE
            .render(&json!({
                "api": api.id.to_string(),
                "method": method,
                "description": entry.api.description(),
                "params": params,
                "args": canonical_json(args),
            }))
            .map_err(|e| e.to_string())?;
        let mut request =
            ChatRequest::new(ORACLE_ROLE, vec![Message::user(text)]).with_prompt(&SIMULATE);
        request.sampling = Sampling::greedy();
        ask_json::<Value, _>(&*self.model, request, &self.settings)
            .await
            .map(|answer| answer.value)
            .map_err(|e| format!("the model gave no usable response: {e}"))
    }
}
