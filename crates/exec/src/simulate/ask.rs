//! What the simulator asks a response oracle (a language model, plugged in
//! by the binary) to write: the response of an API with nothing to simulate
//! from, or the values of a schema-valid draft.

use async_trait::async_trait;
use serde_json::Value;

use crate::executor::BookEntry;

/// One request to an oracle.
#[derive(Clone, Copy, Debug)]
pub struct OracleAsk<'a> {
    /// The API called.
    pub entry: &'a BookEntry,
    /// The call's arguments, defaults applied.
    pub args: &'a Value,
    /// The schema-valid response the deterministic simulator drew (types,
    /// ids, paging, filters), whose values the oracle fills; `None` for an
    /// API with no schema or example, whose response it invents.
    pub draft: Option<&'a Value>,
    /// Entities the session has shown already (`{"id", "name"/"title",
    /// "in"}`), the ones the arguments name first, so the answer agrees with
    /// them.
    pub seen: &'a [Value],
    /// Most items a list of the answer may hold when the call asks for a
    /// number of them ([`crate::SimulatorSettings::max_requested_items`]).
    pub max_items: usize,
}

/// Writes a plausible JSON response (StableToolBench's idea, with an LLM).
/// The simulator checks the answer against the response schema, repairs
/// what breaks it from the draft, and caches nothing itself: put the model
/// behind `toolsmith-llm`'s cache so that a rerun replays every answer.
#[async_trait]
pub trait ResponseOracle: Send + Sync {
    /// The response body for `ask`, or why there is none.
    async fn respond(&self, ask: &OracleAsk<'_>) -> std::result::Result<Value, String>;
}
