//! Asking the oracle for a response ([`Fill::Llm`](super::Fill::Llm), or an
//! API with nothing to simulate from): what the prompt is given (the task,
//! the requested count, the draft within its budget), one model request per
//! distinct call at a time, and the answer brought back within the schema
//! with the right ids.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};
use tokio::sync::OnceCell;

use super::ask::{OracleAsk, ResponseOracle};
use super::limits::Limits;
use super::request::{self, Request, path_id};
use super::{alternatives, neutral, optional, repair, shrink, state, synth};
use crate::canonical::canonical_json;
use crate::executor::BookEntry;
use crate::observation::{FailureKind, Observation, Provenance};

/// A first guess of the characters a fill prompt holds besides its draft and the parts measured
/// apart (the doc, the arguments, the task, the entities shown): the template,
/// with room for the parameters.
const PROMPT_FRAME: usize = 3_800;

/// Most times a draft is shortened further because the rendered prompt was still over
/// its budget (each time by what it was over; the cut levels of `shrink` are few).
const MAX_FITTINGS: usize = 16;

/// Oracle requests in flight, by what makes their prompt (task, API, arguments,
/// entities shown): a call that arrives while the same one is being answered
/// waits for that answer instead of asking the model again. Shared by the
/// sessions of one simulator; an entry lives only while its request does.
#[derive(Debug, Default)]
pub(crate) struct Flights(Mutex<HashMap<u64, Arc<OnceCell<Value>>>>);

impl Flights {
    /// The answer of the request `key`: the one in flight, else `ask`'s. A
    /// failed request leaves the next waiter to ask again.
    pub(crate) async fn once<F, Fut>(&self, key: u64, ask: F) -> Result<Value, Observation>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Value, Observation>>,
    {
        let cell = {
            let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            Arc::clone(map.entry(key).or_default())
        };
        let answer = cell.get_or_try_init(ask).await.cloned();
        let mut map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // The map's and this caller's: no one else waits on it.
        if map.get(&key).is_some_and(|c| Arc::ptr_eq(c, &cell)) && Arc::strong_count(&cell) <= 2 {
            map.remove(&key);
        }
        answer
    }
}

/// What every fill of one session shares: the simulator's limits and the task.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Asking<'a> {
    pub(crate) limits: &'a Limits,
    pub(crate) task: Option<&'a str>,
    /// The date of the session's world.
    pub(crate) today: jiff::civil::Date,
}

/// What a fill is shown besides the call: whether it creates, the draft and the texts of
/// the examples it was drawn from, the layout an API without one was first answered in,
/// and the entities the session has shown.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shown<'a> {
    /// Whether the call creates the resource it answers with (see `fresh`).
    pub(crate) creates: bool,
    pub(crate) draft: Option<&'a Value>,
    /// The tool's example texts, shown in the draft as placeholders (see `neutral`).
    pub(crate) examples: &'a neutral::Examples,
    pub(crate) shape: Option<&'a Value>,
    pub(crate) seen: &'a [Value],
}

impl Asking<'_> {
    /// One request to the oracle, and its answer made valid.
    pub(crate) async fn fill(
        self,
        oracle: &dyn ResponseOracle,
        entry: &BookEntry,
        args: &Value,
        shown: Shown<'_>,
    ) -> Result<Value, Observation> {
        let api = &entry.api.api.id;
        let what = if shown.draft.is_some() {
            (FailureKind::UnparsableResponse, "fill the response of")
        } else {
            (FailureKind::Unsupported, "simulate")
        };
        let refuse = |reason: String| {
            Observation::tool_error(
                what.0,
                format!("cannot {} `{api}`: {reason}", what.1),
                Provenance::SimulatedLlm,
            )
        };
        let empty = Map::new();
        let args_map = args.as_object().unwrap_or(&empty);
        let optional_in =
            |draft: Option<&Value>| match (draft, entry.api.api.response_schema.as_ref()) {
                (Some(draft), Some(schema)) => optional::optional_keys(schema, draft, args_map),
                _ => Vec::new(),
            };
        let optional = optional_in(shown.draft);
        // A `fields` selection cuts the draft the model is shown, as it cuts the answer;
        // the answer is still made valid against the whole draft (a required field the
        // selection leaves out is restored from it).
        let selected = shown
            .draft
            .map(|d| super::fields::selected(entry, args_map, d));
        // What the examples gave is shown as placeholders; the answer is made valid, and a
        // cut list completed, from the whole draft.
        let kept = neutral::Kept {
            args: args_map,
            seen: shown.seen,
            schema: entry.api.api.response_schema.as_ref(),
        };
        let brief = selected
            .as_deref()
            .map(|d| neutral::neutral(d, shown.examples, &kept));
        let asked = Shown {
            draft: brief.as_ref(),
            ..shown
        };
        let asked_optional = optional_in(asked.draft);
        let shapes = match (asked.draft, entry.api.api.response_schema.as_ref()) {
            (Some(draft), Some(schema)) => alternatives::told(schema, draft),
            _ => Vec::new(),
        };
        let nullable = nullable_open_in(entry, asked.draft);
        let call = Call {
            entry,
            args,
            optional: &asked_optional,
            nullable: &nullable,
            shapes: &shapes,
            request: Request::new(entry, args_map, self.limits),
        };
        let (asked, cut) = self
            .fitted_beside_facts(oracle, &call, asked)
            .map_err(refuse)?;
        let answer = oracle
            .respond(&self.ask(&call, asked, cut.as_ref()))
            .await
            .map_err(refuse)?;
        let mut body = made_valid(entry, args, shown.draft, &optional, answer);
        if let (Some(draft), Some(cut)) = (selected.as_deref(), &cut) {
            let lists = completed(&cut.lists, &call.request, shown.draft);
            shrink::complete(&mut body, draft, &lists);
        }
        Ok(body)
    }

    /// The draft as the prompt shows it: shortened until the prompt the oracle would
    /// send fits `max_prompt_chars` (the room first guessed from the parts measured
    /// apart, then each time below the draft shown by what the rendered prompt was
    /// over); `Err` only when even the shortest draft does not fit. `None` for a call
    /// with no draft.
    fn fitted(
        &self,
        oracle: &dyn ResponseOracle,
        call: &Call<'_>,
        shown: Shown<'_>,
    ) -> Result<Option<shrink::Shown>, String> {
        let Some(draft) = shown.draft else {
            return Ok(None);
        };
        let budget = self.limits.max_prompt_chars;
        let too_big = || {
            format!(
                "even shortened, its draft does not fit the prompt budget of {budget} \
                 characters (`[exec.simulate] max_prompt_chars`)"
            )
        };
        let mut room = budget.saturating_sub(self.frame(call, shown));
        for _ in 0..MAX_FITTINGS {
            let cut = shrink::within(draft, room).ok_or_else(too_big)?;
            let over = oracle
                .prompt_chars(&self.ask(call, shown, Some(&cut)))
                .map_or(0, |chars| chars.saturating_sub(budget));
            if over == 0 {
                return Ok(Some(cut));
            }
            // Below the draft shown, not the room guessed: the cuts are coarse, and a
            // prompt a few characters over would otherwise get the same cut until the
            // fittings ran out (TMDB query 38: a review page 10 characters over).
            let shown_chars = canonical_json(&cut.draft).len();
            room = room.min(shown_chars).saturating_sub(over);
        }
        Err(too_big())
    }

    /// The facts and the draft as the prompt shows them: when even the shortest draft
    /// does not fit beside the session's facts, the facts give way first (their latter,
    /// least relevant half at a time, down to none), so no fill fails for its facts.
    fn fitted_beside_facts<'s>(
        &self,
        oracle: &dyn ResponseOracle,
        call: &Call<'_>,
        mut shown: Shown<'s>,
    ) -> Result<(Shown<'s>, Option<shrink::Shown>), String> {
        loop {
            match self.fitted(oracle, call, shown) {
                Ok(cut) => return Ok((shown, cut)),
                Err(_) if !shown.seen.is_empty() => {
                    shown.seen = shown.seen.get(..shown.seen.len() / 2).unwrap_or_default();
                }
                Err(too_big) => return Err(too_big),
            }
        }
    }

    /// The characters of a fill prompt besides its draft, as guessed before rendering.
    fn frame(&self, call: &Call<'_>, shown: Shown<'_>) -> usize {
        PROMPT_FRAME
            + call.optional.iter().map(|k| k.len() + 2).sum::<usize>()
            + call.nullable.iter().map(|k| k.len() + 4).sum::<usize>()
            + call.shapes.iter().map(|n| n.len() + 3).sum::<usize>()
            + call.entry.api.description().len()
            + canonical_json(call.args).len()
            + self.task.map_or(0, str::len)
            + shown.shape.map_or(0, |s| canonical_json(s).len())
            + shown
                .seen
                .iter()
                .map(|e| canonical_json(e).len() + 3)
                .sum::<usize>()
    }

    /// The request to the oracle for `call`, showing the draft as `cut` holds it.
    fn ask<'a>(
        &'a self,
        call: &'a Call<'a>,
        shown: Shown<'a>,
        cut: Option<&'a shrink::Shown>,
    ) -> OracleAsk<'a> {
        let list_cap = list_cap(call.entry);
        OracleAsk {
            entry: call.entry,
            args: call.args,
            draft: cut.map(|s| &s.draft),
            cuts: cut.map_or(&[], |s| s.notes.as_slice()),
            optional: call.optional,
            shapes: call.shapes,
            open: cut.is_some_and(|s| optional::has_open_object(&s.draft)),
            open_nullable: call.nullable,
            seen: shown.seen,
            shape: shown.shape,
            task: self.task,
            today: self.today,
            requested: call
                .request
                .requested
                .map(|n| n.min(list_cap.unwrap_or(usize::MAX))),
            // A count the call asks for sizes its page instead; a search for one name
            // has no page size, only a most; a total the model decides, the page's size as
            // a most (see `extent`).
            page_size: page_size(&call.request, shown.draft)
                .filter(|_| !call.request.extent.counted_by_model()),
            matches: matches(&call.request, shown.draft),
            total_most: total_most(&call.request, shown.draft),
            page_items: self.limits.page_size,
            list_cap,
            creates: shown.creates,
            list_items: (self.limits.min_items, self.limits.max_items),
            max_items: self.limits.max_requested,
            max_prompt_chars: self.limits.max_prompt_chars,
        }
    }
}

/// The call a fill is for, read once: the API, the arguments, the draft's keys the
/// schema leaves optional, the other shapes its unions allow, and what the call asks for.
struct Call<'a> {
    entry: &'a BookEntry,
    args: &'a Value,
    optional: &'a [String],
    /// The keys of the draft's open objects that may be null (see `optional`).
    nullable: &'a [String],
    shapes: &'a [String],
    request: Request,
}

/// The keys of `draft`'s open objects that may be null (see `optional`), for the API's
/// schema and examples; none without a draft or a schema.
fn nullable_open_in(entry: &BookEntry, draft: Option<&Value>) -> Vec<String> {
    let api = &entry.api.api;
    match (draft, api.response_schema.as_ref()) {
        (Some(draft), Some(schema)) => {
            optional::nullable_open_keys(schema, draft, &api.response_examples)
        }
        _ => Vec::new(),
    }
}

/// The oracle's answer brought within the schema: an empty object (the model declining
/// to fill) is the draft, so that nothing (not the arguments a write echoes into it)
/// stands in for the response; a placeholder of the draft copied back, the whole draft's
/// value there or nothing (see `repair::unplace`); the keys it may leave out, left out
/// where hollow; each
/// value of a union in one shape, tagged as it (see `alternatives`); what breaks the
/// schema repaired from the draft; a null the model wrote for an open object that may be
/// null kept (see `optional`); the ids the call names kept.
fn made_valid(
    entry: &BookEntry,
    args: &Value,
    draft: Option<&Value>,
    optional: &[String],
    answer: Value,
) -> Value {
    let api = &entry.api.api.id;
    let answer = match draft {
        Some(draft) if answer.as_object().is_some_and(Map::is_empty) => {
            tracing::debug!(%api, "the model filled nothing; the draft answers");
            draft.clone()
        }
        _ => answer,
    };
    match (draft, entry.api.api.response_schema.as_ref()) {
        (Some(draft), Some(schema)) => {
            let mut answer = answer;
            let unplaced = repair::unplace(&mut answer, draft, neutral::is_placeholder);
            if unplaced > 0 {
                tracing::debug!(%api, unplaced, "the model copied placeholders; the draft's values replace them");
            }
            optional::drop_hollow(&mut answer, optional);
            alternatives::agree(schema, &mut answer);
            let nulls =
                optional::null_places(&answer, draft, &nullable_open_in(entry, Some(draft)));
            let conformed = repair::conform(schema, answer, draft);
            if conformed.repairs > 0 {
                tracing::debug!(%api, repairs = conformed.repairs, "repaired the model's response from the draft");
            }
            let mut body = conformed.value;
            optional::put_nulls(&mut body, &nulls);
            keep_ids(entry, args, draft, &mut body);
            body
        }
        _ => answer,
    }
}

/// The items the call's page holds, told to the model when the call asks for no
/// count: as many as the draft's own page shows (a full page of the documented size,
/// else [`super::SimulatorSettings::page_items`]; fewer on the last page), else, for an
/// API with no draft, the size it documents.
fn page_size(request: &Request, draft: Option<&Value>) -> Option<usize> {
    if request.requested.is_some() {
        return None;
    }
    if total_most(request, draft).is_some() {
        // The page's size, not the draft's count: the model decides how many are left.
        return Some(request.page_size);
    }
    match draft {
        Some(draft) => synth::own_page_len(draft).or(request.documented),
        None => request.documented,
    }
}

/// The most results the call's list may count where the model decides how many (a
/// listing the call narrows, a collection with one owner: see `extent`), told instead of
/// the draft's totals: when the call asks for no count and the draft holds a page.
fn total_most(request: &Request, draft: Option<&Value>) -> Option<u64> {
    let paged = draft.is_some_and(|d| synth::own_page_len(d).is_some());
    let size = u64::try_from(request.page_size).unwrap_or(u64::MAX);
    (request.requested.is_none() && paged)
        .then(|| request.extent.decided(request.start, size))
        .flatten()
}

/// The most items the call's page holds where how many match is the model's to decide
/// (a search for one name: see `extent`), told instead of a page size: the call's page
/// size, when the draft holds a page or there is no draft.
fn matches(request: &Request, draft: Option<&Value>) -> Option<usize> {
    let paged = draft.is_none_or(|d| synth::own_page_len(d).is_some());
    (request.extent.counted_by_model() && paged).then_some(request.page_size)
}

/// The cut lists an answer short of them is completed in ([`shrink::complete`]): all of
/// them, but the call's own page (the root's list, or one of a page among the root's
/// fields) where its count is the model's (a search for one name, a total it decides),
/// whatever totals it left.
fn completed(lists: &[String], request: &Request, draft: Option<&Value>) -> Vec<String> {
    let own_page = |at: &str| at.matches('/').count() <= 2;
    let models = request.extent.counted_by_model() || total_most(request, draft).is_some();
    lists
        .iter()
        .filter(|at| !(models && own_page(at)))
        .cloned()
        .collect()
}

/// The `maxItems` of the response's lists: of a root list, or of the lists among
/// the root object's fields (and of the one object it wraps); the smallest.
fn list_cap(entry: &BookEntry) -> Option<usize> {
    fn cap(schema: &Value, depth: usize) -> Option<usize> {
        let own = schema
            .get("maxItems")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok());
        let inner = schema
            .get("properties")
            .and_then(Value::as_object)
            .filter(|_| depth < 2)
            .and_then(|props| props.values().filter_map(|p| cap(p, depth + 1)).min());
        match (own, inner) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    cap(entry.api.api.response_schema.as_ref()?, 0)
}

/// The response's own id after the model filled it: the id a call names in its path for
/// the response's entity stays (see [`path_id`]); otherwise an id the model copied from
/// another argument (`user_id` given to a created playlist) becomes the draft's own.
fn keep_ids(entry: &BookEntry, args: &Value, draft: &Value, body: &mut Value) {
    let empty = Map::new();
    let args = args.as_object().unwrap_or(&empty);
    let mut draft = draft.clone();
    let Some(id) = state::main_object(&mut draft).and_then(|o| o.get("id").cloned()) else {
        return;
    };
    let Some(object) = state::main_object(body).filter(|o| o.contains_key("id")) else {
        return;
    };
    // An argument names the response's own entity (`id`, `playlist_id` of a playlist),
    // except in a call that creates it.
    let entity = request::api_entity(entry, args);
    let names_own = |name: &str| {
        !request::creates(entry)
            && (name == "id" || name.trim_end_matches("id").trim_end_matches('_') == entity)
    };
    let borrowed = object.get("id").is_some_and(|own| {
        args.iter().any(|(name, value)| {
            let name = name.to_ascii_lowercase();
            name.ends_with("id")
                && !names_own(&name)
                && canonical_json(value) == canonical_json(own)
        })
    });
    if path_id(entry, args).is_some() || borrowed {
        object.insert("id".to_owned(), id);
    }
}
