//! [`LlmOracle`]: a [`ResponseOracle`] that asks a chat model to write a
//! response: the values of a schema-valid draft (prompt `simulate_fill`),
//! or the whole body of an API with no schema or example (`simulate`,
//! StableToolBench's approach). Feature `llm-oracle`.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use toolsmith_llm::{
    ChatModel, ChatRequest, Message, Prompt, Sampling, StructuredSettings, ask_json,
};

use super::ask::{OracleAsk, ResponseOracle};
use crate::canonical::canonical_json;

/// The prompt that invents a response body.
const SIMULATE: Prompt = Prompt::new("exec/simulate", include_str!("../../prompts/simulate.j2"));

/// The prompt that fills the values of a draft response.
const FILL: Prompt = Prompt::new(
    "exec/simulate_fill",
    include_str!("../../prompts/simulate_fill.j2"),
);

/// The chat role the oracle's requests are accounted under.
pub const ORACLE_ROLE: &str = "simulator";

/// Writes responses with a chat model, at temperature 0; put the model
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

impl LlmOracle {
    /// The prompt for `ask`: its text and the template it was rendered from.
    fn prompt(ask: &OracleAsk<'_>) -> Result<(String, &'static Prompt), String> {
        let api = &ask.entry.api.api;
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
        let seen: Vec<String> = ask.seen.iter().map(canonical_json).collect();
        let slots = json!({
            "api": api.id.to_string(),
            "method": method,
            "description": ask.entry.api.description(),
            "params": params,
            "args": canonical_json(ask.args),
            "seen": seen,
            "shape": ask.shape.map(canonical_json),
            "task": ask.task,
            "today": ask.today.to_string(),
            "requested": ask.requested,
            "page_size": ask.page_size,
            "matches": ask.matches,
            "total_most": ask.total_most,
            "page_items": ask.page_items,
            "list_cap": ask.list_cap,
            "creates": ask.creates,
            "min_list": ask.list_items.0,
            "max_list": ask.list_items.1,
            "max_items": ask.max_items,
            "draft": ask.draft.map(canonical_json),
            "cuts": ask.cuts,
            "optional": ask.optional.join(", "),
            "shapes": ask.shapes,
            "open": ask.open,
            "open_nullable": ask.open_nullable.join(", "),
        });
        let prompt = if ask.draft.is_some() {
            &FILL
        } else {
            &SIMULATE
        };
        let text = prompt.render(&slots).map_err(|e| e.to_string())?;
        Ok((text, prompt))
    }
}

#[async_trait]
impl ResponseOracle for LlmOracle {
    async fn respond(&self, ask: &OracleAsk<'_>) -> Result<Value, String> {
        let (text, prompt) = Self::prompt(ask)?;
        if text.len() > ask.max_prompt_chars {
            return Err(format!(
                "its prompt has {} characters, over the budget of {} \
                 (`[exec.simulate] max_prompt_chars`); it was not sent",
                text.len(),
                ask.max_prompt_chars
            ));
        }
        let mut request =
            ChatRequest::new(ORACLE_ROLE, vec![Message::user(text)]).with_prompt(prompt);
        request.sampling = Sampling::greedy();
        ask_json::<Value, _>(&*self.model, request, &self.settings)
            .await
            .map(|answer| answer.value)
            .map_err(|e| format!("the model gave no usable response: {e}"))
    }

    fn prompt_chars(&self, ask: &OracleAsk<'_>) -> Option<usize> {
        Self::prompt(ask).ok().map(|(text, _)| text.len())
    }
}
