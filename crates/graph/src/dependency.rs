//! Dependency edges: an output field of API A can feed a required parameter of API B.
//!
//! The paper links tools "where the output data types of one tool overlap with the input data
//! types of another" (§2.2). Types alone link every integer to every integer, so this module
//! matches *what* the value is, from response schemas and examples against parameter names,
//! types and paths, with one [`Rule`] per kind of evidence:
//!
//! 1. **Parameters that can be fed**: the required path, query and body parameters of B named
//!    `X_id`/`XId` (entity `X`), or `id` in a path (`/pets/{id}`: entity `pet`), or named
//!    like an output field of another API of the same tool (`season_number`; not one picked
//!    from an enum nor a free-text string such as `name` or `type`).
//! 2. **Outputs**: every field of A's response schema (local `$ref`s followed) and examples,
//!    as a path (`results[].id`) with its type, its enclosing object's keys and its example
//!    values.
//! 3. **Which entity an `id` output identifies**, first rule that answers:
//!    a leaf `X_id` is entity `X` ([`Rule::SameName`] when B's parameter has that name);
//!    a container named after an entity (`genres[].id`, `production_companies[].id`), or a
//!    generic list inside one (`albums.items[].id`) ([`Rule::ContainerEntity`]); a list
//!    named after another kind of thing its tool's paths name holds that thing's ids
//!    (`genres[].id` of `/genre/tv/list`, `seasons[].id` of `/tv/latest`: no show ids); for an id
//!    of A's main objects (top level or a top-level list, not `owner.id` nor
//!    `results[].known_for[].id`), the path of A, from its last literal segment back,
//!    skipping entities A itself takes as input and entities the object names with an
//!    `X_id` sibling ([`Rule::PathEntity`]: `results[].id` of `/search/movie`,
//!    `cast[].id` of `/person/{person_id}/movie_credits`); example values shared with the id
//!    a one-id consumer's example is about ([`Rule::ExampleValue`]); a container another API
//!    settled by example values ([`Rule::ContainerLearned`]); and, for a plain result list of
//!    an API about one entity, that entity ([`Rule::SameEntityList`]: `/movie/{id}/similar`).
//! 4. An output that only echoes A's own input (the top-level `id` of `/movie/{movie_id}` or
//!    `/person/{person_id}/movie_credits`; a creating API's is the new item's) feeds nothing.
//!
//! 5. **Without a response schema or example** (most RapidAPI tools), a fallback from names:
//!    an API whose name names entity `X` and which searches, lists or creates things feeds
//!    `X_id`/`XId` ([`Rule::NamedEntity`]), unless a required parameter of its own names `X`
//!    (`imageData`, `image_name`: it reads or transforms one `X`); one that lists or searches
//!    what a consumer's name is about, taking no `id` itself, feeds its bare `id`, and one whose
//!    name lists `Xs` (taking no `id`) feeds a parameter named `X` ([`Rule::NamedList`]); a
//!    count (`totalIcons`) lists nothing; an HTTP PUT, PATCH or DELETE answers with no new
//!    ids. Both are weaker than
//!    any schema rule. (On ToolBench's 282-tool set a hand-checked sample of 20 edges of the
//!    looser rules, which also read descriptions and let any API naming `X` feed it, was 5
//!    right; of these rules, 11 right in 20 before the count and `id` checks.)
//!
//! Ids are scoped to their tool: edges join APIs of one tool. Everything is deterministic
//! (sorted maps, no randomness), so a rebuild gives the same edges.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use toolsmith_catalog::{Api, ApiId, Catalog, HttpMethod, ParamLocation, ToolId, id_entity};

use crate::model::{Edge, EdgeKind, Evidence, Feed, Rule};
use crate::similarity::GraphSettings;

/// Schema levels followed at most (deep enough for `a.b[].c[].id`, bounded on cycles).
const MAX_DEPTH: usize = 8;
/// Array elements of an example read at most.
const MAX_ELEMENTS: usize = 50;
/// Containers that hold a list of the API's own results rather than a named entity.
const GENERIC_CONTAINERS: [&str; 6] = ["results", "data", "items", "list", "records", "hits"];

/// One field of a response, merged from the schema and the examples.
#[derive(Clone, Debug, Default)]
struct OutField {
    /// `results[].id`.
    path: String,
    /// `id`.
    leaf: String,
    /// The key holding the enclosing object (`results`, `person`); `None` at the top.
    container: Option<String>,
    /// The key holding the container's object (`albums` of `albums.items[].id`).
    outer: Option<String>,
    /// Keys of the enclosing object.
    siblings: BTreeSet<String>,
    /// JSON type, when known (`integer`, `string`, ...).
    ty: Option<String>,
    /// Example values, as canonical strings.
    values: BTreeSet<String>,
}

/// A parameter of B some output may feed.
#[derive(Clone, Debug)]
struct InParam {
    name: String,
    /// The entity it identifies (`movie` for `movie_id`), when it is an id.
    entity: Option<String>,
    ty: Option<String>,
    /// Whether its schema lists the allowed values (picked from a closed set, not fed).
    enumerated: bool,
}

/// What the derivation knows about one API.
struct ApiFacts {
    id: ApiId,
    tool: ToolId,
    /// Its HTTP method, when it has one.
    method: Option<HttpMethod>,
    /// Literal path segments (no `{params}`), lower case; empty for non-HTTP APIs.
    segments: Vec<String>,
    inputs: Vec<InParam>,
    /// Every parameter name it takes (required or not), lower case.
    input_names: BTreeSet<String>,
    outputs: Vec<OutField>,
    /// Content words of its name and path, singular, lower case (for the name fallback).
    name_words: BTreeSet<String>,
    /// Whether its name or description says it searches or lists things (a listing word,
    /// or a plural in its name).
    lists: bool,
    /// Whether it creates things (a POST, or a creating word in its name).
    creates: bool,
    /// Content words of its required parameters' names (`imageData` -> `image`).
    required_words: BTreeSet<String>,
    /// Whether it takes a required bare `id` (it is about one item).
    takes_id: bool,
    /// The words of its name, lower case, as written (plurals kept).
    raw_name_words: Vec<String>,
}

impl ApiFacts {
    fn consumes(&self, entity: &str) -> bool {
        self.inputs
            .iter()
            .any(|p| p.entity.as_deref() == Some(entity))
    }
}

/// Every dependency edge of `catalog`, in (from, to) order, each with its feeds and with
/// the strength of its best rule.
pub fn dependency_edges(catalog: &Catalog, settings: &GraphSettings) -> Vec<Edge> {
    let facts: Vec<ApiFacts> = catalog
        .apis()
        .map(|(tool, entry)| facts(&tool.tool.id, &entry.api, entry.description()))
        .collect();
    let entities: BTreeSet<String> = facts
        .iter()
        .flat_map(|f| f.inputs.iter().filter_map(|p| p.entity.clone()))
        .collect();
    let known_ids = example_ids(&facts);
    // The kinds of thing each tool's paths name (literal segments, singular): ids are
    // scoped to their tool, and so is what a list's name says they identify.
    let mut kinds: BTreeMap<&ToolId, BTreeSet<String>> = BTreeMap::new();
    for f in &facts {
        kinds
            .entry(&f.tool)
            .or_default()
            .extend(f.segments.iter().map(|s| singular(s)));
    }
    let no_kinds = BTreeSet::new();
    // Pass 1: every output's entities by the rules that need nothing learned.
    let mut produced: Vec<Vec<(usize, String, Rule)>> = Vec::with_capacity(facts.len());
    let mut learned: BTreeMap<(ToolId, String), BTreeSet<String>> = BTreeMap::new();
    for f in &facts {
        let mut found = Vec::new();
        let kinds = kinds.get(&f.tool).unwrap_or(&no_kinds);
        for (i, out) in f.outputs.iter().enumerate() {
            if let Some((entity, rule)) = entity_of(f, out, &entities, kinds, &known_ids) {
                if rule == Rule::ExampleValue
                    && let Some(c) = &out.container
                {
                    learned
                        .entry((f.tool.clone(), c.clone()))
                        .or_default()
                        .insert(entity.clone());
                }
                found.push((i, entity, rule));
            }
        }
        produced.push(found);
    }
    // Pass 2: containers settled elsewhere by example values.
    for (f, found) in facts.iter().zip(produced.iter_mut()) {
        for (i, out) in f.outputs.iter().enumerate() {
            if out.leaf != "id" || found.iter().any(|(j, _, _)| *j == i) {
                continue;
            }
            let Some(c) = &out.container else { continue };
            if let Some(set) = learned.get(&(f.tool.clone(), c.clone()))
                && let [entity] = set.iter().collect::<Vec<_>>().as_slice()
                && !f.consumes(entity)
                && !names_sibling(out, entity)
            {
                found.push((i, (*entity).clone(), Rule::ContainerLearned));
            }
        }
    }
    // Ids are scoped to their tool: only pairs within one tool are compared.
    let mut by_tool: BTreeMap<&ToolId, Vec<usize>> = BTreeMap::new();
    for (i, f) in facts.iter().enumerate() {
        by_tool.entry(&f.tool).or_default().push(i);
    }
    let mut edges = Vec::new();
    for (a, found) in facts.iter().zip(&produced) {
        let same_tool = by_tool.get(&a.tool).map_or(&[][..], Vec::as_slice);
        for b in same_tool.iter().filter_map(|&j| facts.get(j)) {
            if a.id == b.id {
                continue;
            }
            let mut feeds: Vec<Feed> = Vec::new();
            for p in &b.inputs {
                // The same name: a field called like the parameter, which A does not take. A
                // parameter that is no id must not be picked from a closed set (`type`) nor be
                // free text (`name`): display strings and kinds share names with every API.
                let plain =
                    p.entity.is_none() && (p.enumerated || p.ty.as_deref() == Some("string"));
                if p.name != "id" && !plain && !a.input_names.contains(&p.name) {
                    for out in a.outputs.iter().filter(|o| o.leaf == p.name) {
                        if types_fit(out.ty.as_deref(), p.ty.as_deref()) {
                            feeds.push(Feed {
                                field: out.path.clone(),
                                param: p.name.clone(),
                                rule: Rule::SameName,
                            });
                        }
                    }
                }
                let Some(entity) = &p.entity else { continue };
                for (i, e, rule) in found {
                    let Some(out) = a.outputs.get(*i) else {
                        continue;
                    };
                    // A field named like the parameter is SameName's, except a bare `id`
                    // (`/albums/{id}` fed by `items[].id`), which SameName skips.
                    if e == entity
                        && (out.leaf != p.name || p.name == "id")
                        && types_fit(out.ty.as_deref(), p.ty.as_deref())
                    {
                        feeds.push(Feed {
                            field: out.path.clone(),
                            param: p.name.clone(),
                            rule: *rule,
                        });
                    }
                }
            }
            // The name fallback: an API that replaces or removes things (PUT, PATCH, DELETE)
            // answers with no new ids, whatever its name lists.
            let modifies = matches!(
                a.method,
                Some(HttpMethod::Put | HttpMethod::Patch | HttpMethod::Delete)
            );
            if feeds.is_empty() && a.outputs.is_empty() && !modifies {
                feeds = named_feeds(a, b);
            }
            if feeds.is_empty() {
                continue;
            }
            feeds.sort_by(|x, y| (x.rule, &x.param, &x.field).cmp(&(y.rule, &y.param, &y.field)));
            feeds.dedup_by(|x, y| x.param == y.param && x.field == y.field);
            let strength = feeds
                .iter()
                .map(|f| f.rule.strength())
                .fold(0.0f32, f32::max);
            if strength < settings.min_dependency_strength {
                continue;
            }
            edges.push(Edge {
                kind: EdgeKind::Dependency,
                from: a.id.clone(),
                to: b.id.clone(),
                weight: settings.initial_weight,
                strength,
                evidence: Evidence::Dependency { feeds },
            });
        }
    }
    edges.sort_by(|x, y| (&x.from, &x.to).cmp(&(&y.from, &y.to)));
    edges
}

/// Words that name no entity: verbs of listing and fetching, articles, API jargon.
const NOT_ENTITIES: [&str; 40] = [
    "a", "an", "the", "of", "by", "for", "to", "and", "or", "in", "on", "at", "with", "from",
    "get", "gets", "fetch", "retrieve", "return", "returns", "search", "searches", "list", "lists",
    "find", "all", "new", "create", "update", "delete", "id", "api", "data", "info", "detail",
    "details", "v1", "v2", "v3", "using",
];

/// Words that say an API counts things rather than returning them.
const COUNTING: [&str; 2] = ["total", "count"];

/// Words that say an API creates things (and so returns the new one's id).
const CREATING: [&str; 7] = [
    "create", "post", "add", "new", "upload", "register", "insert",
];

/// Words that say an API searches or lists things rather than reading one.
const LISTING: [&str; 14] = [
    "search", "list", "find", "lookup", "browse", "query", "discover", "trending", "popular",
    "top", "latest", "recent", "random", "all",
];

/// The content words of a text: split at non-alphanumerics and camelCase humps, lower case,
/// singular, without [`NOT_ENTITIES`] and numbers.
fn content_words(text: &str) -> BTreeSet<String> {
    split_words(text)
        .into_iter()
        .map(|w| singular(&w))
        .filter(|w| w.len() > 1 && !NOT_ENTITIES.contains(&w.as_str()))
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .collect()
}

/// Lower-case words, split at non-alphanumerics and at camelCase humps (`getUserById`).
fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The name fallback (for a producer with no response schema or example): which required
/// parameters of `b` the name and description of `a` say it can feed.
fn named_feeds(a: &ApiFacts, b: &ApiFacts) -> Vec<Feed> {
    let mut feeds = Vec::new();
    for p in &b.inputs {
        let bare = p.name.eq_ignore_ascii_case("id");
        let rule = match (&p.entity, bare) {
            // `X_id`: A's name names X, and A lists or creates things without taking an X
            // (an API that reads or transforms one X, `getImageFrame(name)` or
            // `resizeImage(imageData)`, gives no X's id).
            (Some(x), _) => {
                let named = a.name_words.contains(x) && (a.lists || a.creates);
                if !named || a.consumes(x) || a.required_words.contains(x) {
                    continue;
                }
                Rule::NamedEntity
            }
            // A bare `id`: A lists what B's name is about, and is not itself about one item
            // (`/titles/{id}/cast` gives people, not titles).
            (None, true) => {
                if !a.lists || a.takes_id || b.name_words.is_disjoint(&a.name_words) {
                    continue;
                }
                Rule::NamedList
            }
            // A parameter named like an entity A's name lists (`Get Languages` -> `language`).
            (None, false) => {
                let x = singular(&p.name.to_lowercase());
                let plural_in_name = a.raw_name_words.iter().any(|w| w != &x && singular(w) == x);
                if !plural_in_name || a.takes_id || a.input_names.contains(&p.name.to_lowercase()) {
                    continue;
                }
                Rule::NamedList
            }
        };
        feeds.push(Feed {
            field: "id (from the name)".to_owned(),
            param: p.name.clone(),
            rule,
        });
    }
    feeds
}

/// The entity an output identifies and the rule that says so. `kinds` are the things the
/// paths of the API's tool name (their literal segments, singular).
fn entity_of(
    api: &ApiFacts,
    out: &OutField,
    entities: &BTreeSet<String>,
    kinds: &BTreeSet<String>,
    known_ids: &BTreeMap<String, BTreeSet<String>>,
) -> Option<(String, Rule)> {
    if let Some(x) = id_entity(&out.leaf) {
        // `movie_id` in an output is the movie's id; SameName covers the exact name, this
        // covers consumers spelling it differently (`movieId`).
        let x = singular(&x);
        return (entities.contains(&x) && !api.consumes(&x) && out.leaf != "id")
            .then_some((x, Rule::SameName));
    }
    if out.leaf != "id" {
        return None;
    }
    let generic = out
        .container
        .as_deref()
        .is_none_or(|c| GENERIC_CONTAINERS.contains(&c));
    if let Some(c) = out.container.as_deref().filter(|_| !generic)
        && let Some(x) = entity_in(c, entities)
    {
        return (!api.consumes(&x)).then_some((x, Rule::ContainerEntity));
    }
    // A list named after another kind of thing the paths name holds that thing's ids, not
    // the path's main objects: `genres[].id` of `/genre/tv/list`, `seasons[].id` of
    // `/tv/latest` (no consumer takes them, so they feed nothing).
    if let Some(c) = out.container.as_deref().filter(|_| !generic)
        && kinds.contains(&singular(&c.to_lowercase()))
    {
        return None;
    }
    // A generic list inside a named object: `albums.items[].id` of a search over kinds.
    if generic
        && out.container.is_some()
        && let Some(x) = out.outer.as_deref().and_then(|o| entity_in(o, entities))
        && !api.consumes(&x)
    {
        return Some((x, Rule::ContainerEntity));
    }
    // A top-level `id` of an API that reads an entity it takes is that entity's (an echo),
    // not the one its path ends in (`/person/{person_id}/movie_credits`); one that creates
    // answers with the new item's.
    if out.container.is_none() && !api.creates && api.inputs.iter().any(|p| p.entity.is_some()) {
        return None;
    }
    // The path, from its last literal segment back, names the API's main objects: the top
    // level or a list of them. An id nested in one under a name that is no entity
    // (`owner.id`, `known_for[].id`) is not told by the path, and feeds nothing.
    if !main_object(out) {
        return None;
    }
    for seg in api.segments.iter().rev() {
        if let Some(x) = entity_in(seg, entities) {
            if api.consumes(&x) || names_sibling(out, &x) {
                continue;
            }
            return Some((x, Rule::PathEntity));
        }
    }
    // A top-level `id` of an API whose path names no entity (`GET /me`) identifies what its
    // name is about, when that names exactly one entity (`get_current_users_profile` ->
    // `user`): the weak name rule, as for APIs without a schema.
    if out.container.is_none() {
        let named: Vec<&String> = api
            .name_words
            .iter()
            .filter(|w| entities.contains(*w) && !api.consumes(w))
            .collect();
        if let [x] = named.as_slice() {
            return Some(((*x).clone(), Rule::NamedEntity));
        }
    }
    // A top-level `id` of an API about an entity it takes is an echo: it feeds nothing.
    out.container.as_ref()?;
    for (x, ids) in known_ids {
        if !api.consumes(x) && !names_sibling(out, x) && !ids.is_disjoint(&out.values) {
            return Some((x.clone(), Rule::ExampleValue));
        }
    }
    if generic {
        let own: Vec<&String> = api
            .inputs
            .iter()
            .filter_map(|p| p.entity.as_ref())
            .collect();
        if let [x] = own.as_slice() {
            return Some(((*x).clone(), Rule::SameEntityList));
        }
    }
    None
}

/// Whether an output is an id of the response's main objects: at the top, in a list at the
/// top (`results[].id`, `cast[].id`), or in a generic list of a named object
/// (`albums.items[].id`).
fn main_object(out: &OutField) -> bool {
    let prefix = out
        .path
        .strip_suffix(out.leaf.as_str())
        .unwrap_or(&out.path)
        .trim_end_matches('.');
    if prefix.is_empty() {
        return true;
    }
    let parts: Vec<&str> = prefix.split('.').collect();
    match parts.as_slice() {
        [list] => list.ends_with("[]"),
        [_, list] => list
            .strip_suffix("[]")
            .is_some_and(|l| GENERIC_CONTAINERS.contains(&l)),
        _ => false,
    }
}

/// Whether the output's object also has an `X_id` field: then its `id` is not `X`'s.
fn names_sibling(out: &OutField, entity: &str) -> bool {
    out.siblings
        .iter()
        .any(|s| id_entity(s).is_some_and(|x| singular(&x) == entity))
}

/// The entity a name or path segment stands for: itself, or one of its `_`/`-` words
/// (the first that is a known entity), singularized; `production_companies` -> `company`.
fn entity_in(name: &str, entities: &BTreeSet<String>) -> Option<String> {
    let whole = singular(&name.to_lowercase());
    if entities.contains(&whole) {
        return Some(whole);
    }
    name.to_lowercase()
        .split(['_', '-', '.'])
        .map(singular)
        .find(|w| entities.contains(w))
}

/// A plural's singular, by the common English endings (`companies` -> `company`,
/// `movies` -> `movie`, `cast` -> `cast`).
fn singular(word: &str) -> String {
    if word == "series" || word == "species" {
        return word.to_owned();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        // `movies`, `cookies`, `zombies` keep their `ie`; `companies` -> `company`.
        if stem.ends_with(['v', 'k', 'b']) {
            return format!("{stem}ie");
        }
        if !stem.is_empty() {
            return format!("{stem}y");
        }
    }
    for suffix in ["sses", "xes", "ches", "shes"] {
        if let Some(stem) = word.strip_suffix(suffix) {
            return format!("{stem}{}", &suffix[..suffix.len() - 2]);
        }
    }
    if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
        return word[..word.len() - 1].to_owned();
    }
    word.to_owned()
}

/// Whether an output of type `out` can fill a parameter of type `param` (unknown fits).
fn types_fit(out: Option<&str>, param: Option<&str>) -> bool {
    let norm = |t: &str| if t == "number" { "integer" } else { t }.to_owned();
    match (out, param) {
        (Some(o), Some(p)) => norm(o) == norm(p),
        _ => true,
    }
}

/// For each entity, the ids examples show it has: the top-level `id` of the example of an
/// API whose only id input is that entity's (`/person/{person_id}` answers about 287).
fn example_ids(facts: &[ApiFacts]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in facts {
        let ids: Vec<&String> = f.inputs.iter().filter_map(|p| p.entity.as_ref()).collect();
        let [entity] = ids.as_slice() else { continue };
        if let Some(top) = f
            .outputs
            .iter()
            .find(|o| o.path == "id" && o.container.is_none())
        {
            out.entry((*entity).clone())
                .or_default()
                .extend(top.values.iter().cloned());
        }
    }
    out
}

fn facts(tool: &ToolId, api: &Api, description: &str) -> ApiFacts {
    let path = api.endpoint.path().unwrap_or("");
    let raw_segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let segments: Vec<String> = raw_segments
        .iter()
        .filter(|s| !s.starts_with('{'))
        .map(|s| s.to_lowercase())
        .collect();
    let mut inputs = Vec::new();
    for p in &api.params {
        if !p.required || matches!(p.location, ParamLocation::Header | ParamLocation::Cookie) {
            continue;
        }
        let name = p.name.clone();
        let entity = if name.eq_ignore_ascii_case("id") && p.location == ParamLocation::Path {
            // `/pets/{id}`: the literal segment before the parameter.
            let at = raw_segments
                .iter()
                .position(|s| *s == format!("{{{}}}", p.name));
            at.and_then(|i| i.checked_sub(1))
                .and_then(|i| raw_segments.get(i))
                .filter(|s| !s.starts_with('{'))
                .map(|s| singular(&s.to_lowercase()))
        } else {
            id_entity(&name).map(|x| singular(&x))
        };
        inputs.push(InParam {
            name,
            entity,
            ty: p
                .schema
                .get("type")
                .and_then(Value::as_str)
                .map(str::to_owned),
            enumerated: p.schema.get("enum").is_some(),
        });
    }
    let input_names = api.params.iter().map(|p| p.name.to_lowercase()).collect();
    let mut fields: BTreeMap<String, OutField> = BTreeMap::new();
    if let Some(schema) = &api.response_schema {
        walk_schema(schema, schema, "", Within::TOP, &mut fields, 0);
    }
    for example in &api.response_examples {
        walk_example(example, "", Within::TOP, &mut fields, 0);
    }
    let raw_name_words = split_words(&api.name);
    let doc_raw = split_words(description);
    // A count (`totalIcons`) names things it does not return.
    let lists = (raw_name_words
        .iter()
        .chain(&doc_raw)
        .any(|w| LISTING.contains(&w.as_str()))
        || raw_name_words
            .iter()
            .any(|w| w.len() > 3 && &singular(w) != w && !NOT_ENTITIES.contains(&w.as_str())))
        && !raw_name_words
            .iter()
            .any(|w| COUNTING.contains(&w.as_str()));
    ApiFacts {
        id: api.id.clone(),
        tool: tool.clone(),
        method: api.endpoint.method(),
        name_words: content_words(&format!("{} {}", api.name, segments.join(" "))),
        creates: api.endpoint.method() == Some(HttpMethod::Post)
            || raw_name_words
                .iter()
                .any(|w| CREATING.contains(&w.as_str())),
        required_words: inputs.iter().flat_map(|p| content_words(&p.name)).collect(),
        takes_id: inputs.iter().any(|p| p.name.eq_ignore_ascii_case("id")),
        lists,
        raw_name_words,
        segments,
        inputs,
        input_names,
        outputs: fields.into_values().collect(),
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`, `#/components/schemas/X`)
/// against the root schema.
fn deref<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..MAX_DEPTH {
        let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let Some(pointer) = reference.strip_prefix('#') else {
            break;
        };
        match root.pointer(pointer) {
            Some(next) => current = next,
            None => break,
        }
    }
    current
}

fn schema_type(schema: &Value) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.clone()),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .map(str::to_owned),
        _ => None,
    }
}

/// Where a walk is: the key holding the current object and the key holding that one's.
#[derive(Clone, Copy)]
struct Within<'a> {
    container: Option<&'a str>,
    outer: Option<&'a str>,
}

impl<'a> Within<'a> {
    const TOP: Self = Self {
        container: None,
        outer: None,
    };

    /// Inside the object held by `key`.
    fn enter(self, key: &'a str) -> Self {
        Self {
            container: Some(key),
            outer: self.container,
        }
    }

    fn field(self, path: String, leaf: &str) -> OutField {
        OutField {
            path,
            leaf: leaf.to_owned(),
            container: self.container.map(str::to_owned),
            outer: self.outer.map(str::to_owned),
            ..OutField::default()
        }
    }
}

fn walk_schema(
    root: &Value,
    schema: &Value,
    prefix: &str,
    within: Within<'_>,
    fields: &mut BTreeMap<String, OutField>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = deref(root, schema);
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(parts)) = schema.get(key) {
            for part in parts {
                walk_schema(root, part, prefix, within, fields, depth + 1);
            }
        }
    }
    if let Some(items) = schema.get("items") {
        let p = format!("{prefix}[]");
        walk_schema(root, items, &p, within, fields, depth + 1);
    }
    if let Some(Value::Object(props)) = schema.get("properties") {
        let siblings: BTreeSet<String> = props.keys().filter(|k| !k.is_empty()).cloned().collect();
        for (key, sub) in props {
            if key.is_empty() {
                continue;
            }
            let path = join(prefix, key);
            let sub_resolved = deref(root, sub);
            let entry = fields
                .entry(path.clone())
                .or_insert_with(|| within.field(path.clone(), key));
            entry.siblings.extend(siblings.iter().cloned());
            if entry.ty.is_none() {
                entry.ty = schema_type(sub_resolved);
            }
            walk_schema(
                root,
                sub_resolved,
                &path,
                within.enter(key),
                fields,
                depth + 1,
            );
        }
    }
}

fn walk_example(
    value: &Value,
    prefix: &str,
    within: Within<'_>,
    fields: &mut BTreeMap<String, OutField>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Array(items) => {
            let p = format!("{prefix}[]");
            for item in items.iter().take(MAX_ELEMENTS) {
                walk_example(item, &p, within, fields, depth + 1);
            }
        }
        Value::Object(map) => {
            let siblings: BTreeSet<String> = map.keys().cloned().collect();
            for (key, sub) in map {
                if key.is_empty() {
                    continue;
                }
                let path = join(prefix, key);
                let entry = fields
                    .entry(path.clone())
                    .or_insert_with(|| within.field(path.clone(), key));
                entry.siblings.extend(siblings.iter().cloned());
                match sub {
                    Value::Number(n) => {
                        entry.values.insert(n.to_string());
                        entry.ty.get_or_insert_with(|| {
                            if n.is_f64() { "number" } else { "integer" }.to_owned()
                        });
                    }
                    Value::String(s) => {
                        entry.values.insert(s.clone());
                        entry.ty.get_or_insert_with(|| "string".to_owned());
                    }
                    Value::Array(_) | Value::Object(_) => {
                        walk_example(sub, &path, within.enter(key), fields, depth + 1);
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_ids() {
        assert_eq!(singular("companies"), "company");
        assert_eq!(singular("movies"), "movie");
        assert_eq!(singular("cast"), "cast");
        assert_eq!(singular("tv"), "tv");
        let entities: BTreeSet<String> = ["company", "movie"].map(String::from).into();
        assert_eq!(
            entity_in("production_companies", &entities).as_deref(),
            Some("company")
        );
        assert_eq!(
            entity_in("movie_credits", &entities).as_deref(),
            Some("movie")
        );
        assert_eq!(entity_in("credits", &entities), None);
        assert!(types_fit(Some("integer"), Some("number")));
        assert!(!types_fit(Some("string"), Some("integer")));
        assert!(types_fit(None, Some("integer")));
    }
}
