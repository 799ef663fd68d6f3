//! What a call asks for, read from its arguments and the API's parameters:
//! defaults, the entity type its response is about, the page size, the
//! filters its list items must satisfy, and the sub-resources to append.

use serde_json::{Map, Value};
use toolsmith_catalog::{HttpMethod, Param, ParamLocation};

use super::count;
use super::extent::{Extent, OPEN_LEAST, OPEN_MOST};
use super::limits::Limits;
use super::rng::Rng;
use crate::canonical::{canonical_json, stable_hash};
use crate::executor::BookEntry;

/// Parameters that name sub-resources to add to a response.
pub(crate) const EXPANSION_PARAMS: &[&str] = &["append_to_response"];

/// Arguments that say where a page starts, in items.
pub(crate) const OFFSET_ARGS: &[&str] = &["offset", "skip", "start", "from"];

/// Arguments that never filter list items.
const NOT_FILTERS: &[&str] = &[
    "page",
    "language",
    "region",
    "query",
    "api_key",
    "sort_by",
    "include_adult",
    "include_video",
    "include_image_language",
    "append_to_response",
    "time_window",
    "media_type",
    "page_size",
    "per_page",
    "limit",
    "offset",
    "count",
    "cnt",
    "size",
    "num",
    "rows",
];

/// Arguments that say where, in which market or in what form a list is shown, or how it
/// pages, never which things it holds: they do not narrow a listing (see [`narrows`]).
const NOT_NARROWING: &[&str] = &[
    "market",
    "country",
    "locale",
    "timezone",
    "watch_region",
    "certification_country",
    "time_range",
    "after",
    "before",
    "cursor",
    "skip",
    "start",
    "from",
];

/// Path segments that say how a list is chosen, not what it lists.
const LIST_VERBS: &[&str] = &["search", "discover", "trending"];

/// The call's arguments with the parameters' documented defaults filled in,
/// so that leaving out a parameter and passing its default agree (see [`filled_default`]).
pub(crate) fn with_defaults(entry: &BookEntry, args: &Map<String, Value>) -> Map<String, Value> {
    let mut out = args.clone();
    for p in &entry.api.api.params {
        if let Some(default) = filled_default(p) {
            out.entry(p.name.clone()).or_insert_with(|| default.clone());
        }
    }
    out
}

/// The documented default the simulator fills in when a call leaves `param` out, if any. A
/// default that is really its description (of the wrong type, or a sentence), a placeholder,
/// or a sample of the one thing an id or key names is none (see `prose`). Public so that a
/// refiner can tell its model what a simulated call carried, by this same rule.
pub fn filled_default(param: &Param) -> Option<&Value> {
    param
        .schema
        .get("default")
        .filter(|d| !d.is_null() && super::prose::usable_default(&param.name, &param.schema, d))
}

/// The API's path (`/movie/{movie_id}`), or its id for APIs without one.
pub(crate) fn path_of(entry: &BookEntry) -> &str {
    entry.api.api.endpoint.path().unwrap_or_default()
}

/// The names of a path template's parameters, in order (`user_id` of
/// `/users/{user_id}/playlists`).
pub(crate) fn path_params(path: &str) -> impl DoubleEndedIterator<Item = &str> {
    path.split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
}

/// The value of the path parameter that names the response's own entity, if any: the
/// last parameter of the path (`movie_id` of `/movie/{movie_id}` and of its sub-resource
/// `/movie/{movie_id}/credits`), when its name is an id's. A `POST` to a collection
/// (`/users/{user_id}/playlists`) creates: its object gets a new id, never the owner's.
pub(crate) fn path_id(entry: &BookEntry, args: &Map<String, Value>) -> Option<Value> {
    let api = &entry.api.api;
    let last = path_params(api.endpoint.path()?).next_back()?;
    let lower = last.to_ascii_lowercase();
    if !(lower == "id" || lower.ends_with("id")) {
        return None;
    }
    if creates(entry) {
        return None;
    }
    api.params
        .iter()
        .filter(|p| p.location == ParamLocation::Path && p.name == last)
        .find_map(|p| args.get(&p.name).cloned())
}

/// Whether a call creates a thing: a `POST` whose path does not end in a parameter.
pub(crate) fn creates(entry: &BookEntry) -> bool {
    let endpoint = &entry.api.api.endpoint;
    endpoint.method() == Some(HttpMethod::Post)
        && endpoint
            .path()
            .is_some_and(|p| !p.trim_end_matches('/').ends_with('}'))
}

/// What kind of entity the top of a response is about, from the path: the
/// last `{x_id}` parameter (`movie`), the noun after `search`, `discover`
/// or `trending` (`company`), else the first segment; a `media_type`
/// argument wins.
pub(crate) fn api_entity(entry: &BookEntry, args: &Map<String, Value>) -> String {
    if let Some(kind) = args
        .get("media_type")
        .and_then(Value::as_str)
        .filter(|k| !k.is_empty() && *k != "all")
    {
        return kind.to_ascii_lowercase();
    }
    let path = path_of(entry);
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let param = segments.iter().rev().find_map(|s| {
        let inner = s.strip_prefix('{')?.strip_suffix('}')?;
        let noun = inner
            .trim_end_matches("_id")
            .trim_end_matches("_number")
            .to_ascii_lowercase();
        (inner != "media_type" && inner != "time_window" && !noun.is_empty()).then_some(noun)
    });
    if let Some(noun) = param {
        return noun;
    }
    let mut words = segments.iter().filter(|s| !s.starts_with('{'));
    match words.next() {
        Some(first) if LIST_VERBS.contains(first) => words
            .next()
            .map_or_else(|| (*first).to_owned(), |s| s.to_ascii_lowercase()),
        Some(first) => first.to_ascii_lowercase(),
        None => entry.api.api.id.tool().to_string(),
    }
}

/// The entity type of an object under the key `parent` in a response about
/// `top` (at `path`): list keys name their items (`production_companies`:
/// company), credits name people in a film and films in a person.
pub(crate) fn entity_of(parent: Option<&str>, top: &str, path: &str) -> String {
    let Some(parent) = parent else {
        return top.to_owned();
    };
    let lower = parent.to_ascii_lowercase();
    match lower.as_str() {
        "" | "results" | "items" | "data" | "list" => top.to_owned(),
        "cast" | "crew" if top == "person" => {
            if path.contains("tv_credits") {
                "tv".to_owned()
            } else {
                "movie".to_owned()
            }
        }
        "cast" | "crew" | "guest_stars" | "created_by" => "person".to_owned(),
        "known_for" | "parts" => "movie".to_owned(),
        "belongs_to_collection" => "collection".to_owned(),
        _ => singular(lower.rsplit('_').next().unwrap_or(&lower)),
    }
}

/// A plural noun's singular (`companies`: company, `albums`: album, `people`: person).
pub(crate) fn singular(word: &str) -> String {
    let irregular = [
        ("people", "person"),
        ("children", "child"),
        ("series", "series"),
    ];
    if let Some((_, one)) = irregular.iter().find(|(many, _)| *many == word) {
        return (*one).to_owned();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        format!("{stem}y")
    } else if word.ends_with("ss") {
        word.to_owned()
    } else {
        word.strip_suffix('s').unwrap_or(word).to_owned()
    }
}

/// The sub-resources named by an expansion argument (`credits,images`).
pub(crate) fn appended(args: &Map<String, Value>) -> Vec<String> {
    EXPANSION_PARAMS
        .iter()
        .filter_map(|p| args.get(*p).and_then(Value::as_str))
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty() && !s.contains('/'))
        .collect()
}

/// A bound or value a filter argument puts on a field of the list items.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Op {
    /// The field equals the value (for a list field: contains one of the
    /// comma- or pipe-separated values).
    Eq,
    /// The field is at least the value (numbers, or dates as text).
    Gte,
    /// The field is at most the value.
    Lte,
    /// The (date) field falls in the year.
    Year,
}

/// One filter: an argument's value applied to an item field.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    pub(crate) field: String,
    pub(crate) op: Op,
    pub(crate) value: Value,
}

/// What one call asks of its response.
#[derive(Clone, Debug)]
pub(crate) struct Request {
    /// The entity type of the response's top (see [`api_entity`]).
    pub(crate) entity: String,
    /// The API's path, for [`entity_of`].
    pub(crate) path: String,
    /// Items per page of a paged list.
    pub(crate) page_size: usize,
    /// The page asked for (1 when not given; from the offset when one is).
    pub(crate) page: u64,
    /// The index of the page's first item among all results.
    pub(crate) start: u64,
    /// The number of items the call asked for, capped at
    /// [`Limits::max_requested`], when it asked (see [`count::asked`]).
    pub(crate) requested: Option<usize>,
    /// The number of items a list answering the call holds, when it asked for a
    /// number: the one asked, or fewer under a cap the examples show fewer under (not
    /// where the API documents its page size: a page then holds what was asked); when
    /// it asked none, the documented page size.
    pub(crate) shown: Option<usize>,
    /// The page size the API's description documents ("10 per page").
    pub(crate) documented: Option<usize>,
    /// The description of the argument that counts items (empty when none does): it
    /// names the list the count sizes (see [`count::sized_list`]).
    pub(crate) counted: String,
    /// Filter arguments by name, resolved against item fields when a list
    /// is generated (the item schema tells which fields exist).
    filter_args: Vec<(String, String, Value)>,
    /// The key and shape (list or not) of top-level example fields the
    /// schema does not name: what a property with an empty name stands for.
    pub(crate) unnamed: Option<(String, bool)>,
    /// The seed of the paging numbers: the call's without `page`.
    paging_seed: u64,
    /// How many results the list the call pages through counts (see [`Extent`]).
    pub(crate) extent: Extent,
}

/// The call's arguments that may filter a list's items, each with its parameter's
/// description in lower case. A search's own words and a fields selector say what to find
/// or show, not what the items hold (read as filters, Spotify's `q` was forced into
/// `popularity`, whose name its description mentions, and `fields` into `track`); objects,
/// lists, flags and nulls filter nothing either.
fn filter_args(entry: &BookEntry, args: &Map<String, Value>) -> Vec<(String, String, Value)> {
    let api = &entry.api.api;
    let lookup = api.lookup_inputs();
    let selector = |name: &str| {
        api.params
            .iter()
            .any(|p| p.name == name && super::fields::is_selector(p))
    };
    let mut filter_args = Vec::new();
    for (name, value) in args {
        if NOT_FILTERS.contains(&name.as_str())
            || lookup.contains(&name.as_str())
            || selector(name)
            || value.is_object()
            || value.is_array()
            || value.is_boolean()
            || value.is_null()
        {
            continue;
        }
        let description = api
            .params
            .iter()
            .find(|p| p.name == *name)
            .map(|p| p.description.to_ascii_lowercase())
            .unwrap_or_default();
        filter_args.push((name.clone(), description, value.clone()));
    }
    filter_args
}

impl Request {
    pub(crate) fn new(entry: &BookEntry, args: &Map<String, Value>, limits: &Limits) -> Self {
        let api = &entry.api.api;
        let filter_args = filter_args(entry, args);
        let page = args
            .get("page")
            .and_then(|v| v.as_u64().or_else(|| v.as_str()?.trim().parse().ok()))
            .unwrap_or(1)
            .max(1);
        let asked = count::asked(entry, args, limits.max_requested);
        let requested = asked.map(|a| a.n);
        let documented = documented_page_size(entry.api.description());
        let page_size = requested.or(documented).unwrap_or(limits.page_size);
        let size = u64::try_from(page_size).unwrap_or(20).max(1);
        let offset = OFFSET_ARGS
            .iter()
            .find_map(|k| args.get(*k))
            .and_then(count::whole_number);
        let (page, start) = match offset {
            Some(offset) => (offset / size + 1, offset),
            None => (page, (page - 1).saturating_mul(size)),
        };
        let unnamed = unnamed_example_key(entry);
        let mut unpaged = args.clone();
        unpaged.remove("page");
        for key in OFFSET_ARGS {
            unpaged.remove(*key);
        }
        let paging_seed = stable_hash(&[
            b"paging",
            api.id.to_string().as_bytes(),
            canonical_json(&Value::Object(unpaged)).as_bytes(),
        ]);
        let example = count::example_len(entry);
        let shown = match (asked, documented) {
            (Some(a), Some(_)) => Some(a.n),
            (Some(a), None) => Some(a.shown(example, limits.max_items, paging_seed)),
            (None, documented) => documented,
        };
        let narrowed = narrows(entry, &filter_args);
        Self {
            entity: api_entity(entry, args),
            path: path_of(entry).to_owned(),
            page_size,
            page,
            start,
            requested,
            shown,
            documented,
            counted: count::counting_description(entry, args).unwrap_or_default(),
            filter_args,
            unnamed,
            paging_seed,
            extent: Extent::of(entry, args, start == 0 && requested.is_none(), narrowed),
        }
    }

    /// This request, its list counting `known` results where the session showed that many
    /// (see [`Extent::knowing`]).
    pub(crate) fn knowing(mut self, known: Option<u64>) -> Self {
        self.extent = self.extent.knowing(known);
        self
    }

    /// The filters that apply to items with the given fields (property
    /// names of the item schema).
    pub(crate) fn filters_for(&self, fields: &[&str]) -> Vec<Filter> {
        let mut out = Vec::new();
        for (name, description, value) in &self.filter_args {
            if fields.contains(&name.as_str()) {
                // An argument named as a field is echoed anyway.
                continue;
            }
            if let Some((field, op)) = resolve_filter(name, description, fields) {
                out.push(Filter {
                    field,
                    op,
                    value: value.clone(),
                });
            }
        }
        out
    }

    /// `(total_results, total_pages, items on this page)`, seeded without
    /// the page so every page of one query agrees; fewer results when
    /// filters apply.
    pub(crate) fn paging(&self, filtered: bool) -> (u64, u64, usize) {
        let mut rng = Rng::new(self.paging_seed);
        let size = u64::try_from(self.page_size).unwrap_or(20).max(1);
        let open = self.extent == Extent::Open && !filtered;
        let total = if open {
            // The catalog's own list (what is popular): thousands, never a few tens.
            OPEN_LEAST + rng.below(OPEN_MOST - OPEN_LEAST + 1)
        } else if filtered || self.extent.small() || rng.below(3) == 0 {
            u64::try_from(rng.range(1, 60)).unwrap_or(1)
        } else {
            u64::try_from(rng.range(60, 10_000)).unwrap_or(60)
        };
        // A listing the call narrows shows a full page: the model filling it keeps as many
        // of its items as the world has (see `extent`).
        let total = if self.extent == Extent::Narrowed {
            total.max(self.start.saturating_add(size))
        } else {
            total
        };
        let shown = self.shown.map_or(0, |n| u64::try_from(n).unwrap_or(0));
        let least = self.start.saturating_add(shown);
        let total = if let Some(known) = self.extent.known() {
            known
        } else if let Some(few) = self.extent.drafted_few(&mut rng) {
            // A search for one name: a few matches, however large the page.
            few
        } else if self.shown < self.requested {
            // Fewer than a cap: the list ends on this page.
            least
        } else {
            // A call that asks for a number of items gets that many, within the extent.
            let most = self.extent.most(self.start, size).unwrap_or(u64::MAX);
            total.min(most).max(least)
        };
        let pages = total.div_ceil(size);
        let count = total.saturating_sub(self.start).min(size);
        (total, pages, usize::try_from(count).unwrap_or(0))
    }
}

/// Whether a call's filter arguments (`filter_args`: by name, with their description and
/// value) narrow the listing it answers: one of them a query or body argument, not a path
/// parameter (an owner's id: see `extent`), not one of [`NOT_NARROWING`], and not the
/// parameter's documented default (a default the simulator filled in asks for nothing).
fn narrows(entry: &BookEntry, filter_args: &[(String, String, Value)]) -> bool {
    let params = &entry.api.api.params;
    filter_args.iter().any(|(name, _, value)| {
        let param = params.iter().find(|p| &p.name == name);
        let in_path = param.is_some_and(|p| p.location == ParamLocation::Path);
        let default = param.and_then(filled_default).is_some_and(|d| d == value);
        let blank = value.as_str().is_some_and(|t| t.trim().is_empty());
        !(in_path || default || blank || NOT_NARROWING.contains(&name.as_str()))
    })
}

/// A page size the description documents ("20 items per page").
fn documented_page_size(description: &str) -> Option<usize> {
    let lower = description.to_ascii_lowercase();
    let at = lower.find(" per page")?;
    let before = lower.get(..at)?;
    let words: Vec<&str> = before.split_whitespace().rev().take(3).collect();
    words
        .iter()
        .find_map(|w| w.trim_matches(|c: char| !c.is_ascii_digit()).parse().ok())
        .filter(|n: &usize| (1..=1000).contains(n))
}

/// The top-level key of the API's examples that its schema does not name.
fn unnamed_example_key(entry: &BookEntry) -> Option<(String, bool)> {
    let schema = entry.api.api.response_schema.as_ref()?;
    let props = schema.get("properties").and_then(Value::as_object)?;
    entry.api.api.response_examples.iter().find_map(|example| {
        example.as_object()?.iter().find_map(|(key, value)| {
            (!key.is_empty() && !props.contains_key(key)).then(|| (key.clone(), value.is_array()))
        })
    })
}

/// The item field and comparison a filter argument stands for: by its name
/// (`vote_average.gte`, `with_original_language`, `primary_release_date.lte`,
/// `year`, `with_runtime_min`), else by a field its description names.
fn resolve_filter(name: &str, description: &str, fields: &[&str]) -> Option<(String, Op)> {
    let lower = name.to_ascii_lowercase();
    let (base, op) = if let Some(b) = lower
        .strip_suffix(".gte")
        .or_else(|| lower.strip_suffix(".gt"))
        .or_else(|| lower.strip_suffix("_min"))
        .or_else(|| lower.strip_prefix("min_"))
    {
        (b.to_owned(), Op::Gte)
    } else if let Some(b) = lower
        .strip_suffix(".lte")
        .or_else(|| lower.strip_suffix(".lt"))
        .or_else(|| lower.strip_suffix("_max"))
        .or_else(|| lower.strip_prefix("max_"))
    {
        (b.to_owned(), Op::Lte)
    } else {
        (lower.clone(), Op::Eq)
    };
    let base = base.strip_prefix("with_").unwrap_or(&base).to_owned();
    let date_field = || {
        fields
            .iter()
            .find(|f| f.ends_with("date") && !f.contains("death") && !f.contains("birth"))
            .map(|f| (*f).to_owned())
    };
    if op == Op::Eq && (base == "year" || base.ends_with("_year")) {
        let stem = base.trim_end_matches("year").trim_end_matches('_');
        let by_stem = fields
            .iter()
            .find(|f| !stem.is_empty() && f.starts_with(stem) && f.ends_with("date"))
            .map(|f| (*f).to_owned());
        return by_stem.or_else(date_field).map(|f| (f, Op::Year));
    }
    let stripped = base.strip_prefix("primary_").unwrap_or(&base);
    let singular_base = singular(stripped);
    let by_name = fields
        .iter()
        .find(|f| **f == base || **f == stripped)
        .or_else(|| {
            fields.iter().find(|f| {
                (f.len() > 3 && base.ends_with(**f))
                    || f.starts_with(&format!("{singular_base}_"))
                    || **f == singular_base
            })
        });
    if let Some(field) = by_name {
        return Some(((*field).to_owned(), op));
    }
    let mut by_description: Vec<&&str> = fields
        .iter()
        .filter(|f| f.len() > 3 && description.contains(&f.replace('_', " ")))
        .filter(|f| !another_attribute(stripped, f))
        .collect();
    by_description.sort_by_key(|f| std::cmp::Reverse(f.len()));
    by_description.first().map(|f| ((**f).to_owned(), op))
}

/// Whether the argument `name` filters on another attribute of the thing `field`
/// describes: the two share a word and each has one the other lacks
/// (`with_release_type` names release *types*, not the `release_date` its description
/// mentions), so a description naming the field does not make it the argument's.
fn another_attribute(name: &str, field: &str) -> bool {
    let name_words: Vec<&str> = name.split(['_', '.']).filter(|w| !w.is_empty()).collect();
    let field_words: Vec<&str> = field.split('_').filter(|w| !w.is_empty()).collect();
    let shares = name_words.iter().any(|w| field_words.contains(w));
    let name_own = name_words.iter().any(|w| !field_words.contains(w));
    let field_own = field_words.iter().any(|w| !name_words.contains(w));
    shares && name_own && field_own
}

impl Filter {
    /// Whether `item` satisfies the filter (a missing field does not).
    pub(crate) fn holds(&self, item: &Map<String, Value>) -> bool {
        let Some(actual) = item.get(&self.field) else {
            return false;
        };
        match self.op {
            Op::Eq => match actual {
                Value::Array(values) => wanted(&self.value)
                    .iter()
                    .any(|w| values.iter().any(|v| same(v, w))),
                _ => wanted(&self.value).iter().any(|w| same(actual, w)),
            },
            Op::Gte | Op::Lte => {
                let ordering = match (actual.as_f64(), number_of(&self.value)) {
                    (Some(a), Some(b)) => a.partial_cmp(&b),
                    _ => match (actual.as_str(), text_of(&self.value)) {
                        (Some(a), Some(b)) => Some(a.cmp(b.as_str())),
                        _ => None,
                    },
                };
                match (ordering, &self.op) {
                    (Some(o), Op::Gte) => o.is_ge(),
                    (Some(o), _) => o.is_le(),
                    (None, _) => false,
                }
            }
            Op::Year => match (actual.as_str(), text_of(&self.value)) {
                (Some(date), Some(year)) => date.starts_with(year.trim()),
                _ => false,
            },
        }
    }
}

/// Makes `item` satisfy `filters` where it does not, changing only the
/// filtered fields (ranges are drawn from `rng` between their bounds).
pub(crate) fn force(item: &mut Map<String, Value>, filters: &[Filter], rng: &mut Rng) {
    let mut fields: Vec<&str> = filters.iter().map(|f| f.field.as_str()).collect();
    fields.dedup();
    for field in fields {
        let on_field: Vec<&Filter> = filters.iter().filter(|f| f.field == field).collect();
        if on_field.iter().all(|f| f.holds(item)) {
            continue;
        }
        let Some(current) = item.get(field).cloned() else {
            continue;
        };
        let lo = on_field.iter().find(|f| f.op == Op::Gte).map(|f| &f.value);
        let hi = on_field.iter().find(|f| f.op == Op::Lte).map(|f| &f.value);
        let new = if let Some(eq) = on_field.iter().find(|f| f.op == Op::Eq) {
            let first = wanted(&eq.value).into_iter().next().unwrap_or(Value::Null);
            match current {
                Value::Array(mut values) => {
                    if let Some(typed) = like(values.first(), &first) {
                        values.insert(0, typed);
                    }
                    Value::Array(values)
                }
                other => like(Some(&other), &first).unwrap_or(other),
            }
        } else if let Some(year) = on_field.iter().find(|f| f.op == Op::Year) {
            let year = text_of(&year.value).unwrap_or_default();
            let rest = current
                .as_str()
                .and_then(|d| d.get(4..))
                .filter(|r| r.len() >= 6)
                .unwrap_or("-06-15")
                .to_owned();
            Value::String(format!("{}{rest}", year.trim()))
        } else if current.is_number() {
            let lo_n = lo.and_then(number_of);
            let hi_n = hi.and_then(number_of);
            let top = if field.contains("average") || field.contains("rating") {
                10.0
            } else {
                lo_n.map_or(1000.0, |l| l * 2.0 + 10.0)
            };
            let (a, b) = (lo_n.unwrap_or(0.0), hi_n.unwrap_or(top));
            let (a, b) = if b < a { (a, a) } else { (a, b) };
            let x = a + rng.unit() * (b - a);
            if current.is_f64() {
                let tenths = (x * 10.0).round() / 10.0;
                let x = if (a..=b).contains(&tenths) { tenths } else { x };
                serde_json::Number::from_f64(x).map_or(current.clone(), Value::Number)
            } else {
                let whole = x.ceil().min(b.floor());
                #[allow(clippy::cast_possible_truncation)]
                Value::from(whole as i64)
            }
        } else {
            let lo_d = lo.and_then(text_of).and_then(|d| days(&d));
            let hi_d = hi.and_then(text_of).and_then(|d| days(&d));
            let (a, b) = match (lo_d, hi_d) {
                (Some(a), Some(b)) => (a, b.max(a)),
                (Some(a), None) => (a, a + 3 * 365),
                (None, Some(b)) => (b - 30 * 365, b),
                (None, None) => continue,
            };
            Value::String(date_of(rng.range(a, b)))
        };
        item.insert(field.to_owned(), new);
    }
}

/// The values an equality filter accepts (`28,12` or `28|12`: either).
fn wanted(value: &Value) -> Vec<Value> {
    match value {
        Value::String(s) => s
            .split([',', '|'])
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| Value::String(p.to_owned()))
            .collect(),
        other => vec![other.clone()],
    }
}

/// Equality of JSON scalars across number/text (`"28"` is 28), ignoring case.
fn same(a: &Value, b: &Value) -> bool {
    match (number_of(a), number_of(b)) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-9,
        _ => match (text_of(a), text_of(b)) {
            (Some(x), Some(y)) => x.eq_ignore_ascii_case(&y),
            _ => false,
        },
    }
}

/// `value` in the JSON type of `model` (a number where the field holds numbers); `None`
/// when it has no such form (a text where numbers or objects are held, a non-date where
/// a date is held), so a filter never gives a field a value of another type.
fn like(model: Option<&Value>, value: &Value) -> Option<Value> {
    match model {
        Some(Value::String(held)) if days(held).is_some() => text_of(value)
            .filter(|t| days(t).is_some())
            .map(Value::String),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => number_of(value).map(|x| {
            #[allow(clippy::cast_possible_truncation)]
            Value::from(x as i64)
        }),
        Some(Value::Number(_)) => number_of(value)
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
        Some(Value::String(_)) => text_of(value).map(Value::String),
        Some(Value::Bool(_)) => value.is_boolean().then(|| value.clone()),
        Some(Value::Object(_) | Value::Array(_)) => {
            (value.is_object() || value.is_array()).then(|| value.clone())
        }
        Some(Value::Null) | None => Some(value.clone()),
    }
}

fn number_of(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (the civil-calendar formula).
fn days(date: &str) -> Option<i64> {
    let mut parts = date.get(..10)?.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// The `YYYY-MM-DD` date of a day count since 1970-01-01.
fn date_of(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn filter_names_map_to_item_fields() {
        let fields = [
            "id",
            "title",
            "original_language",
            "vote_average",
            "release_date",
            "genre_ids",
        ];
        let cases = [
            ("vote_average.gte", "vote_average", Op::Gte),
            ("with_original_language", "original_language", Op::Eq),
            ("primary_release_date.gte", "release_date", Op::Gte),
            ("primary_release_year", "release_date", Op::Year),
            ("year", "release_date", Op::Year),
            ("with_genres", "genre_ids", Op::Eq),
        ];
        for (name, field, op) in cases {
            assert_eq!(
                resolve_filter(name, "", &fields),
                Some((field.to_owned(), op)),
                "{name}"
            );
        }
        assert_eq!(resolve_filter("certification_country", "", &fields), None);
        let release_type = "filter release types by. these release types map to the \
            values found on the movie release date method.";
        assert_eq!(
            resolve_filter("with_release_type", release_type, &fields),
            None,
            "a release type is not a release date"
        );
        assert_eq!(
            resolve_filter("lang", "filter by the original language", &fields),
            Some(("original_language".to_owned(), Op::Eq))
        );
    }

    #[test]
    fn entity_types_follow_keys_and_paths() {
        assert_eq!(
            entity_of(Some("production_companies"), "movie", ""),
            "company"
        );
        assert_eq!(entity_of(Some("keywords"), "movie", ""), "keyword");
        assert_eq!(entity_of(Some("cast"), "movie", ""), "person");
        assert_eq!(
            entity_of(Some("cast"), "person", "/person/{person_id}/movie_credits"),
            "movie"
        );
        assert_eq!(entity_of(Some("results"), "company", ""), "company");
        assert_eq!(documented_page_size("Returns 20 items per page."), Some(20));
    }

    #[test]
    fn dates_round_trip_and_forcing_satisfies_filters() {
        for date in ["1970-01-01", "2021-01-01", "2000-02-29", "1999-12-31"] {
            assert_eq!(date_of(days(date).unwrap()), date);
        }
        let filters = vec![
            Filter {
                field: "vote_average".into(),
                op: Op::Gte,
                value: Value::from(7),
            },
            Filter {
                field: "original_language".into(),
                op: Op::Eq,
                value: "en".into(),
            },
            Filter {
                field: "release_date".into(),
                op: Op::Gte,
                value: "2021-01-01".into(),
            },
            Filter {
                field: "genre_ids".into(),
                op: Op::Eq,
                value: "28|12".into(),
            },
        ];
        let mut item: Map<String, Value> = serde_json::from_value(serde_json::json!({
            "vote_average": 0.0, "original_language": "ko", "release_date": "1979-05-01",
            "genre_ids": [18]}))
        .unwrap();
        force(&mut item, &filters, &mut Rng::new(3));
        for f in &filters {
            assert!(f.holds(&item), "{f:?} {item:?}");
        }
    }
}
