//! Offline, deterministic responses synthesized from an API's response
//! schema and examples: the default backend for benchmarks.
//!
//! A response depends only on the API id and the canonical arguments, so
//! the same call always returns the same body, and entities keep their
//! fields across APIs (see the `synth` module's notes). Where an API has
//! neither a schema nor an example, a [`ResponseOracle`] (an LLM, plugged in
//! by the binary) may invent one; without it the call is a `unsupported`
//! tool error.
//!
//! A response also follows what the call asked for: parameter defaults are
//! applied before seeding (no `page` and `page=1` agree), paged lists hold
//! a page of the documented size (else [`SimulatorSettings::page_items`])
//! that agrees with `total_results` and `total_pages` (a search for one name the few
//! things that carry it on one short page, whose number the filling model decides;
//! another search a few pages at most, not thousands; the user's own saved things and a
//! playlist's tracks tens, or the count the session showed for them; a listing its
//! arguments narrow, as many as the filling model says meet them; what is popular
//! thousands: `extent`, one rule for the draft and the answer), a paging object links
//! the called URL (`href`, `next`, `previous`; `paging`), list items satisfy
//! the filters that map to their fields (`with_original_language`,
//! `vote_average.gte`, `primary_release_date.gte`, `year`, `*_min`...),
//! and `append_to_response` adds the named sub-resources, and a fields filter
//! (`fields=description,uri`) keeps only the fields it names (`fields`). Values are drawn
//! per entity type (a company's name from companies), one entity's fields
//! from one example record, and an entity shown by a search keeps its name
//! in later responses of the same simulator. An argument fills only the
//! field of its name at its own level (the root, or the one object the root
//! wraps), a `limit`-style argument sizes the page (one that counts list items,
//! never a measure such as a `size` in pixels; a cap bounds it; of several lists, the
//! one its description names, else the one of the API's kind: `count`), an argument that names
//! parts of the response (`type=track` of a search answering tracks, albums,
//! ...) keeps only those (`select`), an argument naming a kind of thing
//! (`media_type=tv`) lists things of that kind in the shape the tool's own lists of
//! that kind give them (`kinds`), ids take the shape the spec's examples
//! show (22 base62 characters, digits; `idshape`) and a URI the `scheme:kind:id` form
//! they share (`spotify:artist:<id>`), a list of plain values holds the items the
//! examples list there (a film's `genre_ids` the ids of genres the examples give), each
//! once (`listed`), a date an example gives is drawn anew for each entity (`dates`), and
//! the invariants of the `invariants` module are restored (a show ends after it starts).
//!
//! Two more things make a session believable:
//! - with [`Fill::Llm`], the oracle (the configured model) rewrites the
//!   values of each draft from the doc, the arguments, the entities the
//!   session has shown and the task it serves (the user's request, given by
//!   [`Executor::fork_for`]: what it presupposes is in the user's account);
//!   the answer is checked against the schema and only its invalid parts
//!   repaired from the draft (`repair`: a value the schema admits, read as
//!   APIs are written, is kept), an empty `{}` answer taken as declining (the
//!   draft answers), or refused when it is not JSON
//!   (`fill`: the requested count, a prompt within `max_prompt_chars`, one
//!   model request per distinct call in flight); the draft it is shown holds what
//!   came from the spec's examples (names, titles, a biography, image paths) as
//!   placeholders that state no fact (`<name of crew 1>`, `/placeholder-3.jpg`: `neutral`),
//!   and a placeholder the model copies back is a break, repaired from the whole draft;
//! - an API that documents no response keeps one layout for the run: the
//!   oracle inventing it is told the skeleton of its first answer (`shape`),
//!   and a draft from its examples takes only those of its main layout;
//! - a resource the call just created holds, in its lists and pages of things,
//!   only what the request gave it (`fresh`: no tracks in a new playlist);
//! - the account's owner is one user (`me`): the first response of the session
//!   that shows the current user (`GET /me`, the owner of a thing the task calls the
//!   user's own, such as a searched playlist it names, or the `owner` of the user's own
//!   playlists) fixes their id and name, which every later call about the user or
//!   their own things is told, and its draft carries; such a call is told too the
//!   user's own things of its kinds that earlier ones showed (the devices listed
//!   before the player names the active one);
//! - the calls of a session forked for a task ([`Executor::fork_for`]) are
//!   answered one at a time, in the order they arrive (several made in one
//!   model turn too), so each sees the facts the ones before it showed;
//!   different sessions, and the unforked simulator's unrelated callers, are
//!   answered concurrently;
//! - the session's state (`state`): an item created, changed or deleted by
//!   a call is seen so by the next read or listing of its collection; a
//!   call about a record deleted, or named by an id none can have (`-1`),
//!   is a `404` the executor reports as `not_found` (`missing`);
//! - a change whose API documents no response body (`PUT`, `PATCH`, `DELETE`; or a
//!   `POST` the oracle answers with nothing) is an empty success, as live, never its
//!   own arguments shown back as if the API had returned them (`silent`).
//!
//! What a fill prompt also tells the model: the keys the schema does not
//! require, which it may leave out, and the empty objects a schema leaves
//! open, which it fills, or leaves null where the schema or the examples allow null
//! there, a null then kept (`optional`); where a value may take one of several object shapes
//! (a `known_for` item: a film, or a show), the other shapes' tags and keys, and each item
//! of the answer comes back tagged as the shape its keys take (`alternatives`); a few short facts of each entity shown
//! that an id-like argument names, of its kind and tool (`session`, `recall`), with the
//! records it was shown holding (a person's `known_for` films, told to their credits as
//! films the person is known for: `held`), and the entities whose ids the session's calls
//! passed (the agent holds them: `session`); to a read that names things by the text it
//! searches for, the entities shown under that name, whose ids its answer keeps (`named`: two
//! searches of one turn give one film one id), as any answer keeps the id of a thing of its
//! kind the session showed once under the same label, read after the fill (`shared`: one
//! director in a film's credits and a show's); to a call that lists or details things of a
//! kind, the ids entities referred to under fields of ids of that kind (a film's `genre_ids`,
//! to the genre list: `references`), all within a share of the budget (`facts`);
//! the session's date ([`SimulatorSettings::today`]). A default
//! or example that is really prose is no value (`prose`), and a write's
//! response carries a fresh version token, a release number (`3.3.0`) staying (`version`).

mod alternatives;
mod ask;
mod count;
mod dates;
mod extent;
mod facts;
mod fields;
mod fill;
mod filler;
mod fresh;
mod held;
mod identity;
mod idshape;
mod invariants;
mod kinds;
mod limits;
mod listed;
mod magnitude;
mod me;
mod missing;
mod named;
mod neutral;
mod optional;
#[cfg(feature = "llm-oracle")]
mod oracle;
mod paging;
mod pattern;
mod prose;
mod recall;
mod references;
mod repair;
mod request;
mod rng;
mod select;
mod session;
mod shape;
mod shared;
mod shrink;
mod silent;
mod state;
mod synth;
mod today;
mod version;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use async_trait::async_trait;
use serde_json::{Map, Value};
use toolsmith_catalog::{ApiId, ToolId};

use crate::canonical::{canonical_json, stable_hash};
use crate::error::Result;
use crate::executor::{ApiBook, BookEntry, Executor};
use crate::observation::{Body, FailureKind, Observation, Outcome, Provenance};
pub use ask::{OracleAsk, ResponseOracle};
use limits::Limits;
#[cfg(feature = "llm-oracle")]
pub use oracle::{LlmOracle, ORACLE_ROLE};
use request::Request;
pub use request::filled_default;
use session::Session;
use state::Gone;
use synth::{Labels, Pool, Synth};

/// Most version tokens a session remembers (a bound on what a long session keeps).
const MAX_VERSIONS: usize = 10_000;

/// The simulator's knobs (`[exec.simulate]` of `toolsmith.toml`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimulatorSettings {
    /// Fewest items in a synthesized list (unless the schema asks for more).
    pub min_items: usize,
    /// Most items in a synthesized list (unless the schema asks for more).
    pub max_items: usize,
    /// Below this depth only required properties are filled and lists are as
    /// short as the schema allows, which ends recursive schemas.
    pub max_depth: usize,
    /// Items on a page of a larger list (one with paging numbers: `page` and
    /// `total_results`, `offset` and `total`) when the API documents no page size
    /// and the call asks for no count: the page is full, fewer only on the last one,
    /// in the draft and in the model's fill alike. Ten answers the common "top 10"
    /// question ("is X among the top rated?") from the first page, while each item
    /// more is one more record the model filling the page writes (tokens paid per
    /// page). Also read as `page_size`, its former name.
    #[serde(alias = "page_size")]
    pub page_items: usize,
    /// Most list items a call may ask for (`limit: 40`, `cnt=60`): the
    /// simulator and the LLM filling it honour a requested count up to this.
    pub max_requested_items: usize,
    /// Most characters of one prompt to the model filling a response: a
    /// larger draft is shown shortened (lists cut, then deep parts) until the
    /// rendered prompt fits, a page cut for space completed from the draft's own
    /// items; the session's facts take at most a quarter of it (the least relevant left
    /// out) and give way before a draft is refused, and only a call whose shortest
    /// prompt cannot fit even without them is refused, never sent.
    pub max_prompt_chars: usize,
    /// How the values of a response are chosen: from the schema and the
    /// examples (`schema`, the default), or then rewritten by the configured
    /// model to be true to the world (`llm`).
    pub fill: Fill,
    /// The date the simulated world is at (`YYYY-MM-DD`), told to the model filling
    /// a response so that what is current (on the air, trending, upcoming, playing
    /// now) is true to it. Unset, each session takes the real UTC date when it starts,
    /// and its prompts (so the LLM cache keys) change with the day: pin it for a
    /// benchmark rerun that must replay every answer exactly.
    #[serde(deserialize_with = "today::deserialize")]
    pub today: Option<jiff::civil::Date>,
}

/// How a simulated response's values are chosen (`[exec.simulate] fill`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Fill {
    /// Drawn deterministically from the response schema and the tool's
    /// examples: offline, free, and the same on every run.
    #[default]
    Schema,
    /// Drawn as by `Schema` (types, ids, paging, filters), then the values
    /// rewritten by a language model from the API's doc, the arguments and
    /// the entities the session has shown, and checked against the schema.
    /// The model sits behind the LLM cache, so a rerun replays it.
    Llm,
}

impl Default for SimulatorSettings {
    /// Lists of 1 to 5 items and objects filled down to depth 8: small
    /// enough to read, deep enough for every TMDB response; pages of 10
    /// items (see [`SimulatorSettings::page_items`]).
    fn default() -> Self {
        Self {
            min_items: 1,
            max_items: 5,
            max_depth: 8,
            page_items: 10,
            max_requested_items: 100,
            max_prompt_chars: 24_000,
            fill: Fill::Schema,
            today: None,
        }
    }
}

/// The real current date in UTC: the simulated world's date when `today` is unset.
pub fn utc_today() -> jiff::civil::Date {
    today::utc_today()
}

/// The simulating executor.
#[derive(Clone)]
pub struct Simulator {
    book: Arc<ApiBook>,
    pools: Arc<HashMap<ToolId, Pool>>,
    /// The shape of each kind of thing each tool lists, for a call naming a kind.
    kinds: Arc<HashMap<ToolId, kinds::Kinds>>,
    /// Sub-resources by tool and `METHOD path`, for `append_to_response`.
    paths: Arc<HashMap<(ToolId, String), ApiId>>,
    /// The labels (names, titles) each entity was shown with, so a detail
    /// carries the name its search showed.
    labels: Arc<Mutex<Labels>>,
    limits: Limits,
    fill: Fill,
    oracle: Option<Arc<dyn ResponseOracle>>,
    /// What the session's calls showed and changed.
    session: Arc<Mutex<Session>>,
    /// In a session forked for a task ([`Executor::fork_for`]: one agent's), held by the
    /// call being answered from its draft through its fill to the state it leaves, so
    /// that calls made together (several in one model turn) are answered one at a time
    /// in the order they arrive, each seeing what the ones before showed. `None` in the
    /// simulator itself, which unrelated callers share (a refiner's concurrent APIs, a
    /// server's clients) and which answers them concurrently.
    turn: Option<Arc<tokio::sync::Mutex<()>>>,
    /// The user's request this session serves, told to the oracle as facts of
    /// the user's account ([`Executor::fork_for`]).
    task: Option<Arc<str>>,
    /// The oracle's requests in flight, shared by every session.
    flights: Arc<fill::Flights>,
    /// The layouts observed for APIs that document none, shared by every session.
    shapes: Arc<Mutex<shape::Shapes>>,
    /// The date setting (`None`: the real date when a session starts).
    pinned: Option<jiff::civil::Date>,
    /// The date of this session's world, told to the oracle.
    today: jiff::civil::Date,
}

impl std::fmt::Debug for Simulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulator")
            .field("apis", &self.book.len())
            .field("limits", &self.limits)
            .field("fill", &self.fill)
            .field("oracle", &self.oracle.is_some())
            .finish()
    }
}

impl Simulator {
    /// A simulator of the APIs in `book`, with default settings.
    pub fn new(book: Arc<ApiBook>) -> Self {
        Self::with_settings(book, &SimulatorSettings::default())
    }

    /// A simulator with explicit settings.
    pub fn with_settings(book: Arc<ApiBook>, settings: &SimulatorSettings) -> Self {
        let mut ids: Vec<&ApiId> = book.ids().collect();
        ids.sort();
        let mut pools: HashMap<ToolId, Pool> = HashMap::new();
        let mut kinds: HashMap<ToolId, kinds::Kinds> = HashMap::new();
        let mut paths = HashMap::new();
        for id in ids {
            if let Some(entry) = book.get(id) {
                kinds.entry(id.tool().clone()).or_default().learn(entry);
                let pool = pools.entry(id.tool().clone()).or_default();
                let entity = request::api_entity(entry, &Map::new());
                for example in &entry.api.api.response_examples {
                    pool.add_example(example, &entity, request::path_of(entry));
                }
                if let Some(schema) = &entry.api.api.response_schema {
                    pool.add_schema_examples(schema);
                }
                if let (Some(method), Some(path)) = (
                    entry.api.api.endpoint.method(),
                    entry.api.api.endpoint.path(),
                ) {
                    paths.insert((id.tool().clone(), format!("{method} {path}")), id.clone());
                }
            }
        }
        Self {
            book,
            pools: Arc::new(pools),
            kinds: Arc::new(kinds),
            paths: Arc::new(paths),
            labels: Arc::new(Mutex::new(Labels::default())),
            limits: Limits {
                min_items: settings.min_items,
                max_items: settings.max_items.max(settings.min_items),
                max_depth: settings.max_depth,
                page_size: settings.page_items.max(1),
                max_requested: settings.max_requested_items.max(1),
                max_prompt_chars: settings.max_prompt_chars,
            },
            fill: settings.fill,
            oracle: None,
            session: Arc::new(Mutex::new(Session::default())),
            turn: None,
            task: None,
            flights: Arc::default(),
            shapes: Arc::default(),
            pinned: settings.today,
            today: settings.today.unwrap_or_else(today::utc_today),
        }
    }

    /// Uses `oracle` for APIs with nothing to simulate from, and, when the
    /// settings say `fill = "llm"`, to fill the values of every response.
    pub fn with_oracle(mut self, oracle: Arc<dyn ResponseOracle>) -> Self {
        self.oracle = Some(oracle);
        self
    }

    /// The APIs this simulator knows.
    pub fn book(&self) -> &Arc<ApiBook> {
        &self.book
    }

    /// Whether an API has a response schema or example to simulate from.
    pub fn can_simulate(entry: &BookEntry) -> bool {
        has_usable_schema(entry.api.api.response_schema.as_ref())
            || !entry.api.api.response_examples.is_empty()
    }

    /// The synthesized response body, `None` when the API has nothing to
    /// simulate from. The same arguments give the same value, except that
    /// an entity shown earlier keeps the labels it was shown with.
    pub fn synthesize(&self, entry: &BookEntry, args: &Value) -> Option<Value> {
        self.synthesize_at(entry, args, 0)
    }

    fn synthesize_at(&self, entry: &BookEntry, args: &Value, nesting: usize) -> Option<Value> {
        let api = &entry.api.api;
        let empty = Map::new();
        let args_map = request::with_defaults(entry, args.as_object().unwrap_or(&empty));
        let seed = stable_hash(&[
            api.id.to_string().as_bytes(),
            canonical_json(&Value::Object(args_map.clone())).as_bytes(),
        ]);
        let path_id = request::path_id(entry, &args_map);
        let default_pool = Pool::default();
        let pool = self.pools.get(api.id.tool()).unwrap_or(&default_pool);
        if let Some(schema) = api
            .response_schema
            .as_ref()
            .filter(|s| has_usable_schema(Some(s)))
        {
            // A call naming a kind of thing lists things of that kind (see `kinds`).
            let fitted = self
                .kinds
                .get(api.id.tool())
                .and_then(|k| k.fitted(entry, &args_map, schema));
            let schema = fitted.as_ref().unwrap_or(schema);
            let known = match (nesting, self.session.lock()) {
                (0, Ok(session)) => session.counts.of(entry, &args_map),
                _ => None,
            };
            let request = Request::new(entry, &args_map, &self.limits).knowing(known);
            let mut value = {
                let synth = Synth::new(
                    schema,
                    &args_map,
                    path_id.as_ref(),
                    pool,
                    &self.limits,
                    &request,
                    &self.labels,
                )
                .on(self.today);
                synth.value(schema, seed)
            };
            if nesting == 0 && self.creates(entry) {
                fresh::empty_collections(entry, &args_map, &mut value);
            }
            if nesting == 0 {
                select::keep_chosen(entry, &args_map, schema, &mut value);
                self.append_sub_resources(entry, &args_map, &mut value);
                invariants::restore(&mut value);
                paging::settle(&mut value, &paging::Call::of(entry, &args_map, &request));
            }
            return Some(value);
        }
        // Examples of one layout only, so that every call answers in the same one.
        let alike = shape::alike(&api.response_examples);
        let count = u64::try_from(alike.len()).ok()?;
        let pick = usize::try_from(seed % count.max(1)).ok()?;
        let mut example = (*alike.get(pick)?).clone();
        if let (Some(id), Value::Object(map)) = (path_id, &mut example) {
            map.entry("id").and_modify(|v| *v = id.clone());
        }
        Some(example)
    }

    /// Adds the sub-resources an `append_to_response` argument names (TMDB's
    /// `credits,images`): each is the response of the API at this API's
    /// path plus `/NAME`, called with the same arguments.
    fn append_sub_resources(&self, entry: &BookEntry, args: &Map<String, Value>, body: &mut Value) {
        let (Some(method), Some(path), Value::Object(map)) = (
            entry.api.api.endpoint.method(),
            entry.api.api.endpoint.path(),
            body,
        ) else {
            return;
        };
        for name in request::appended(args) {
            let key = (
                entry.api.api.id.tool().clone(),
                format!("{method} {}/{name}", path.trim_end_matches('/')),
            );
            let Some(sub) = self.paths.get(&key).and_then(|id| self.book.get(id)) else {
                continue;
            };
            let mut sub_args = args.clone();
            for expansion in request::EXPANSION_PARAMS {
                sub_args.remove(*expansion);
            }
            if let Some(value) = self.synthesize_at(sub, &Value::Object(sub_args), 1) {
                map.insert(name, value);
            }
        }
    }
}

/// Whether a schema describes anything beyond "some object".
fn has_usable_schema(schema: Option<&Value>) -> bool {
    let Some(Value::Object(map)) = schema else {
        return false;
    };
    let bare_object = map.get("type").and_then(Value::as_str) == Some("object")
        && map
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty)
        && !map.contains_key("additionalProperties")
        && !map.contains_key("allOf")
        && !map.contains_key("oneOf")
        && !map.contains_key("anyOf");
    !bare_object
        && [
            "type",
            "properties",
            "items",
            "$ref",
            "allOf",
            "oneOf",
            "anyOf",
            "enum",
            "const",
        ]
        .iter()
        .any(|k| map.contains_key(*k))
}

/// The body of a simulated answer (`None`: no content) and who wrote it.
type Answer = (Option<Value>, Provenance);

impl Simulator {
    /// The answer to a call before the session's state is applied: the
    /// draft from the schema, filled by the oracle when asked to; the
    /// oracle's invention where there is no schema; no content for a change
    /// with nothing documented or an API documenting no content (see [`silent`]). `Err` is
    /// the observation to return.
    async fn answer(
        &self,
        entry: &BookEntry,
        args: &Map<String, Value>,
    ) -> std::result::Result<Answer, Observation> {
        let args_value = Value::Object(args.clone());
        let mut draft = self.synthesize(entry, &args_value);
        if let Some(draft) = draft.as_mut() {
            self.owned(entry, draft);
            if let Ok(session) = self.session.lock() {
                self.made(entry, args, session.owner.as_ref(), draft);
                session.current.carry(draft);
            }
        }
        let api = &entry.api.api.id;
        match (draft, &self.oracle) {
            _ if silent::documents_no_content(entry) => Ok((None, Provenance::Simulated)),
            (Some(draft), Some(oracle)) if self.fill == Fill::Llm => self
                .ask(oracle.as_ref(), entry, &args_value, Some(draft))
                .await
                .map(|body| (Some(body), Provenance::SimulatedLlm)),
            (Some(draft), _) => Ok((Some(draft), Provenance::Simulated)),
            (None, _) if silent::answers_nothing(entry) => Ok((None, Provenance::Simulated)),
            (None, Some(oracle)) => self
                .ask(oracle.as_ref(), entry, &args_value, None)
                .await
                .map(|body| (silent::invented(entry, body), Provenance::SimulatedLlm)),
            (None, None) => Err(Observation::tool_error(
                FailureKind::Unsupported,
                format!(
                    "cannot simulate `{api}`: it has no response schema or example to simulate from"
                ),
                Provenance::Simulated,
            )),
        }
    }
}

impl Simulator {
    /// The oracle's response to a call: the one it gave this session before,
    /// else a new one (or the one in flight), checked against the schema and
    /// repaired from the draft where it breaks it. An unusable reply, or a
    /// prompt over the budget, is refused.
    async fn ask(
        &self,
        oracle: &dyn ResponseOracle,
        entry: &BookEntry,
        args: &Value,
        draft: Option<Value>,
    ) -> Result<Value, Observation> {
        let api = &entry.api.api.id;
        let (earlier, seen) = match self.session.lock() {
            Ok(session) => {
                let empty = Map::new();
                let args_map = args.as_object().unwrap_or(&empty);
                let mut shown = session.recalled(entry, args_map, draft.as_ref());
                // An entity shown before a write changed it is told at its version now.
                shown.iter_mut().for_each(|e| session.current.carry(e));
                let shown = facts::within(shown, self.limits.max_prompt_chars);
                (session.filled(api, args), shown)
            }
            Err(_) => (None, Vec::new()),
        };
        if let Some(body) = earlier {
            return Ok(body);
        }
        // An API documenting no layout follows the one it was first answered in.
        let shape = match (&draft, self.shapes.lock()) {
            (None, Ok(shapes)) => shapes.of(api).cloned(),
            _ => None,
        };
        let key = stable_hash(&[
            canonical_json(shape.as_ref().unwrap_or(&Value::Null)).as_bytes(),
            self.today.to_string().as_bytes(),
            self.task.as_deref().unwrap_or_default().as_bytes(),
            api.to_string().as_bytes(),
            canonical_json(args).as_bytes(),
            canonical_json(&Value::Array(seen.clone())).as_bytes(),
        ]);
        let asking = fill::Asking {
            limits: &self.limits,
            task: self.task.as_deref(),
            today: self.today,
        };
        let default_pool = Pool::default();
        let pool = self.pools.get(api.tool()).unwrap_or(&default_pool);
        let shown = fill::Shown {
            creates: self.creates(entry),
            draft: draft.as_ref(),
            examples: pool.examples(),
            shape: shape.as_ref(),
            seen: &seen,
        };
        let fill = || asking.fill(oracle, entry, args, shown);
        let body = self.flights.once(key, fill).await?;
        if let (None, Ok(mut shapes)) = (&draft, self.shapes.lock()) {
            shapes.observe(api, &body);
        }
        if let Ok(mut session) = self.session.lock() {
            session.keep_filled(api, args, &body);
        }
        Ok(body)
    }
}

impl Simulator {
    /// Makes the draft of a call about the current user show the session's user (see
    /// [`me`]); before the session knows one, the owners of the user's own things the
    /// draft shows become one, the most named.
    fn owned(&self, entry: &BookEntry, draft: &mut Value) {
        let Some(mine) = me::mine(entry) else {
            return;
        };
        let known = match self.session.lock() {
            Ok(session) => session.owner.clone(),
            Err(_) => None,
        };
        let owner = known.or_else(|| {
            (mine == me::Mine::Things)
                .then(|| me::Owner::shown(mine, draft))
                .flatten()
        });
        if let Some(owner) = owner {
            owner.carry(mine, draft);
        }
    }

    /// Makes the thing a creating call answers with agree with the request (see
    /// [`fresh`]): owned by the owner its path names (the session's user, names and all,
    /// when that is who it names), its boolean fields as the request set or its doc
    /// defaults them.
    fn made(
        &self,
        entry: &BookEntry,
        args: &Map<String, Value>,
        user: Option<&me::Owner>,
        body: &mut Value,
    ) {
        if !self.creates(entry) {
            return;
        }
        fresh::documented_flags(entry, args, body);
        if let Some((param, id)) = fresh::path_owner(entry, args) {
            fresh::owned_by(&param, &id, body);
            if !fresh::names_owner(&param) {
                return;
            }
            let owner = user
                .filter(|u| u.id() == &id)
                .cloned()
                .unwrap_or_else(|| me::Owner::with_id(id));
            owner.carry(me::Mine::Things, body);
        }
    }

    /// Whether a call of `entry` creates the resource it answers with (see [`fresh`]).
    fn creates(&self, entry: &BookEntry) -> bool {
        let tool = entry.api.api.id.tool();
        let paths = self
            .paths
            .keys()
            .filter(|(t, _)| t == tool)
            .map(|(_, key)| key.as_str());
        fresh::creates(entry, paths)
    }

    /// Why the call is about a record that does not exist (see [`missing`]): one this
    /// session deleted, or one no id can name.
    fn missing_record(&self, entry: &BookEntry, args: &Map<String, Value>) -> Option<String> {
        let deleted = match self.session.lock() {
            Ok(session) => session.state.gone(entry, args).map(|Gone(why)| why),
            Err(_) => None,
        };
        deleted.or_else(|| missing::impossible_id(entry, args))
    }
}

/// How the session's write log names a call that may change something (the write gate's
/// [`crate::gate::is_safe`] decides): `METHOD path`, or the API's id when it has no path.
fn write_call(entry: &BookEntry) -> Option<String> {
    if crate::gate::is_safe(entry) {
        return None;
    }
    let endpoint = &entry.api.api.endpoint;
    Some(match (endpoint.method(), endpoint.path()) {
        (Some(method), Some(path)) => format!("{method} {path}"),
        _ => entry.api.api.id.to_string(),
    })
}

/// An observation of a successful simulated call, with the status the spec documents: a
/// no-content success (`204` by default) has no body, any other its body (`200` by default).
/// A model's `null` or `""` for an API that documents no response is no body too, so an
/// empty success reaches the agent in one form whoever answered it.
fn answered(entry: &BookEntry, body: Option<Value>, provenance: Provenance) -> Observation {
    let schema = entry.api.api.response_schema.as_ref();
    let no_content = schema.and_then(toolsmith_catalog::lint::no_content_status);
    let documented = schema.and_then(toolsmith_catalog::lint::success_status);
    let nothing = |b: &Value| b.is_null() || b.as_str().is_some_and(|s| s.trim().is_empty());
    match body {
        Some(body) if no_content.is_none() && !nothing(&body) => {
            let mut obs = Observation::ok_json(body, provenance);
            obs.status = Some(documented.unwrap_or(200));
            obs
        }
        _ => Observation {
            outcome: Outcome::Ok,
            status: Some(no_content.unwrap_or(204)),
            body: Body::Empty,
            bytes: 0,
            truncated: false,
            latency: std::time::Duration::ZERO,
            provenance,
        },
    }
}

#[async_trait]
impl Executor for Simulator {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        let start = Instant::now();
        let entry = self.book.entry(api)?;
        // A task's calls one at a time (see `turn`); other sessions go on meanwhile.
        let _turn = match &self.turn {
            Some(turn) => Some(turn.lock().await),
            None => None,
        };
        let empty = Map::new();
        let args = request::with_defaults(entry, args.as_object().unwrap_or(&empty));
        // A call about a record that cannot exist is answered before any model is asked.
        if let Some(why) = self.missing_record(entry, &args) {
            return Ok(
                missing::not_found(api, &why, Provenance::Simulated).with_latency(start.elapsed())
            );
        }
        let (mut body, provenance) = match self.answer(entry, &args).await {
            Ok(answer) => answer,
            Err(refused) => return Ok(refused.with_latency(start.elapsed())),
        };
        if let Ok(mut session) = self.session.lock() {
            let mut nothing = Value::Null;
            let value = body.as_mut().unwrap_or(&mut nothing);
            // What the model filled in too: a thing just created holds only what it was given.
            if self.creates(entry) {
                fresh::empty_collections(entry, &args, value);
            }
            self.made(entry, &args, session.owner.as_ref(), value);
            // A thing the call names by text keeps the id the session showed it under.
            session.keep_named_ids(entry, &args, value);
            // A thing shown before, by any call, keeps its id too (see `shared`).
            session.keep_shown_ids(entry, &args, value);
            if let Err(Gone(why)) = session.state.apply(entry, &args, value) {
                return Ok(missing::not_found(api, &why, provenance).with_latency(start.elapsed()));
            }
            session.current.carry(value);
            invariants::restore(value);
            match (me::mine(entry), &self.task) {
                (Some(mine), _) => session.know_owner(mine, value),
                (None, Some(task)) => session.know_owner_named(task, value),
                (None, None) => {}
            }
            let known = session.counts.of(entry, &args);
            let request = Request::new(entry, &args, &self.limits).knowing(known);
            paging::settle(value, &paging::Call::of(entry, &args, &request));
            session.counts.observe(entry, &args, value);
            if provenance == Provenance::SimulatedLlm {
                let mine = me::mine(entry).is_some();
                session.remember(value, &recall::Place::of(entry, &args), mine);
            }
            session.note_passed(entry, &args);
            if let Some(call) = write_call(entry) {
                let kept = version::Documented::of(entry, &args);
                let args = Value::Object(args.clone());
                // A write makes a new version of what it changed (`snapshot_id`, `etag`).
                let seed =
                    stable_hash(&[api.to_string().as_bytes(), canonical_json(&args).as_bytes()]);
                version::refresh(value, seed, &session.versions, &kept);
                if let Value::Object(args) = &args {
                    session.counts.forget(entry, args);
                    session.current.written(entry, args, value, seed);
                }
                session.record_write(call, &args);
            }
            if session.versions.len() < MAX_VERSIONS {
                version::tokens(value, &mut session.versions);
            }
            session.current.observe(value);
        }
        // The session keeps the whole; the answer holds what a fields filter selects.
        if let Some(value) = body.as_mut() {
            fields::select(entry, &args, value);
        }
        Ok(answered(entry, body, provenance).with_latency(start.elapsed()))
    }

    /// A new session for `task`: the labels shown and the session's memory start empty;
    /// the catalog's pools, the settings and the oracle (whose LLM cache keys on the
    /// request, the task among it) are shared.
    fn fork_for(&self, task: Option<&str>) -> Option<Arc<dyn Executor>> {
        Some(Arc::new(Self {
            labels: Arc::new(Mutex::new(Labels::default())),
            session: Arc::new(Mutex::new(Session::default())),
            turn: Some(Arc::default()),
            task: task.map(Arc::from),
            today: self.pinned.unwrap_or_else(today::utc_today),
            ..self.clone()
        }))
    }
}
