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
    /// ids, paging, filters), whose values the oracle fills, as the prompt
    /// shows it (shortened to its budget, see `cuts`); `None` for an API with
    /// no schema or example, whose response it invents.
    pub draft: Option<&'a Value>,
    /// What was cut from the draft for space (`/items holds 50 items; the
    /// first 3 are shown`): the answer writes it in full.
    pub cuts: &'a [String],
    /// The draft's keys the schema does not require (`restrictions` of a
    /// track), whose values are placeholders: the answer may leave them out,
    /// or null, where the real API would not send them.
    pub optional: &'a [String],
    /// Where the draft's value took one of several object shapes its schema allows (a
    /// film among the things a person is known for, which may be a show), how each other
    /// shape differs: the answer gives each thing the shape true of it.
    pub shapes: &'a [String],
    /// Whether the draft holds empty objects its schema leaves open, which the
    /// answer fills with the keys the real API returns there.
    pub open: bool,
    /// Of the draft's open objects, the keys of those that may be null (the schema admits
    /// null there, or the API's examples show it: a film in no collection): the answer
    /// writes null where the real API has nothing there.
    pub open_nullable: &'a [String],
    /// Entities the session has shown already (`{"id", "name"/"title",
    /// "in"}` and a few short facts such as `"followers.total"`), the ones the
    /// arguments name first, so the answer agrees with them.
    pub seen: &'a [Value],
    /// For an API that documents no response (`draft` is `None`), the skeleton (keys
    /// and value types) of the first response given to it in this run, which the answer
    /// follows so that the API keeps one layout.
    pub shape: Option<&'a Value>,
    /// The user's request the session serves, if known: the answer treats
    /// what it presupposes (a playlist it names) as held by the user's account.
    pub task: Option<&'a str>,
    /// The date of the session's world ([`crate::SimulatorSettings::today`]):
    /// what the answer shows as current is current on it.
    pub today: jiff::civil::Date,
    /// The number of items the call asks for (`limit=20`), capped at
    /// `max_items`.
    pub requested: Option<usize>,
    /// The items the call's page holds, when the call asks for no count: for a
    /// draft, those of its own page (a full page, fewer only on the last); without
    /// one, the page size the API documents ("10 per page").
    pub page_size: Option<usize>,
    /// For a search for one name, whose page holds the few things that carry it (then
    /// `page_size` is `None`): the most items the page may hold, the count being the
    /// answer's to decide and the totals following it.
    pub matches: Option<usize>,
    /// For a listing whose number of results is the answer's to decide (one the call's
    /// arguments narrow, a collection with one owner), the most it may count: the draft's
    /// totals are then a guess, `page_size` the most the page holds, and the totals
    /// follow the answer.
    pub total_most: Option<u64>,
    /// Items a page of a longer list holds when neither the API nor the call sizes
    /// it ([`crate::SimulatorSettings::page_items`]).
    pub page_items: usize,
    /// The `maxItems` of the response's lists, which none of them passes.
    pub list_cap: Option<usize>,
    /// Whether the call creates the thing it answers with (a `POST` to a collection),
    /// which then holds, in its lists and pages, only what the call gave it.
    pub creates: bool,
    /// Fewest and most items of a list the call gives no count for
    /// ([`crate::SimulatorSettings::min_items`], `max_items`).
    pub list_items: (usize, usize),
    /// Most items a list of the answer may hold when the call asks for a
    /// number of them ([`crate::SimulatorSettings::max_requested_items`]).
    pub max_items: usize,
    /// Most characters the prompt may have
    /// ([`crate::SimulatorSettings::max_prompt_chars`]); a longer one is not sent.
    pub max_prompt_chars: usize,
}

/// Writes a plausible JSON response (StableToolBench's idea, with an LLM).
/// The simulator checks the answer against the response schema, repairs
/// what breaks it from the draft, and caches nothing itself: put the model
/// behind `toolsmith-llm`'s cache so that a rerun replays every answer.
#[async_trait]
pub trait ResponseOracle: Send + Sync {
    /// The response body for `ask`, or why there is none.
    async fn respond(&self, ask: &OracleAsk<'_>) -> std::result::Result<Value, String>;

    /// The characters of the prompt `respond` would send for `ask`, for an oracle that
    /// writes one; `None` (the default) when it cannot tell. The simulator shortens the
    /// draft it shows until this is within [`OracleAsk::max_prompt_chars`].
    fn prompt_chars(&self, _ask: &OracleAsk<'_>) -> Option<usize> {
        None
    }
}
