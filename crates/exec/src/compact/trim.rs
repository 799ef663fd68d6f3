//! Trimming: a view that keeps every item of every list it shows and leaves out, across the
//! whole value, the fields worth least, so that a result a little over its budget loses
//! fields before it loses items (a TV episode's five cast members, 1.7k characters, keep all
//! five with their ids, names and characters where rendering showed two).
//!
//! Rungs, each trimming all that the ones before it trim and more: values that say nothing
//! (nulls, empty lists and objects), links (URLs, image paths
//! and images of an API that is not for images), maps of flags, and locators that restate
//! their object's key (a `uri` holding its `id`); long
//! texts shortened (an overview to 120 characters); lists and maps of scalars without
//! identities (a list of market codes, a forecast's `wind`; not a small object counting
//! something, such as a playlist's `tracks: {href, total}`, trimmed within); booleans; long texts;
//! numbers; short texts; last, names equal to a better name of their object (an
//! `original_name` equal to the `name`). A list or a map holding objects is trimmed within,
//! never left out. A rung never leaves out an
//! key or a name of its own, the content the API exists to return (its long texts are shortened instead),
//! other identity, a field that pages a list, an error, a date, a field the request names (see
//! [`super::asked`]), or a field that says a list item's role, place or category (see
//! [`super::qualify`]); nor does it empty an object. The items of a list are trimmed alike:
//! a field goes from all of them at the rung it goes at in any.
//!
//! [`keep_items`] uses the first rung that fits when rendering (see [`super::render`]) left
//! items of a list of objects out (not the codes of a list of scalars) and the rung leaves
//! fewer out; else, as when even the last rung does not fit, rendering's view stands.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::columns::{Kind, LONG_TEXT_CAP, SHORT_TEXT};
use super::core::restates;
use super::fields::{Class, Context, is_count_holder, is_paging, name_preference};
use super::least::{IDENTITY_CAP, capped, least, most_telling, ordered, shorten, size};
use super::left_out::objects_left_out;
use super::qualify::qualifier;
use super::render::PROBE_ITEMS;

/// What a rung leaves out or shortens, on top of the rungs before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rung {
    /// Values that say nothing, links, maps of flags, locators restating their object's key.
    Links,
    /// Long texts shortened to [`LONG_TEXT_CAP`].
    ShortTexts,
    /// Lists and maps of scalars without identities, and nulls.
    Others,
    /// Booleans.
    Switches,
    /// Long texts (the content's are kept shortened).
    LongTexts,
    /// Numbers.
    Numbers,
    /// Short texts.
    Texts,
    /// Names equal to a better name of their object (an `original_name` equal to the `name`):
    /// the only identities a rung leaves out, and last.
    RestatedNames,
}

/// Every rung, least trimmed first.
const RUNGS: [Rung; 8] = [
    Rung::Links,
    Rung::ShortTexts,
    Rung::Others,
    Rung::Switches,
    Rung::LongTexts,
    Rung::Numbers,
    Rung::Texts,
    Rung::RestatedNames,
];

/// Names of fields that say a call failed: never trimmed.
const ERROR_FIELDS: &[&str] = &["error", "errors"];

/// `rendered` (the view rendering gave of `value`) unless it left items of a list of objects
/// out and a trimmed view (see the module doc) fits `budget` leaving fewer out (it leaves out
/// no item of a list it shows, but a list of links as a whole: a track's album's images).
pub(crate) fn keep_items(value: &Value, rendered: Value, budget: usize, ctx: &Context) -> Value {
    let lost = objects_left_out(value, &rendered);
    if lost == 0 {
        return rendered;
    }
    match trimmed(value, budget, ctx) {
        Some(view) if objects_left_out(value, &view) < lost => view,
        _ => rendered,
    }
}

/// `value` at the first rung that fits `budget`, if any does.
fn trimmed(value: &Value, budget: usize, ctx: &Context) -> Option<Value> {
    let most = trim(value, Rung::RestatedNames, ctx);
    if size(&most) > budget {
        return None;
    }
    RUNGS
        .iter()
        .map(|rung| trim(value, *rung, ctx))
        .find(|view| size(view) <= budget)
}

/// `value` trimmed at `rung`.
fn trim(value: &Value, rung: Rung, ctx: &Context) -> Value {
    match value {
        Value::Object(map) => trim_object(map, rung, ctx, &Plan::default()),
        Value::Array(items) => {
            let plan = Plan::of(items, ctx);
            Value::Array(
                items
                    .iter()
                    .map(|item| match item {
                        Value::Object(map) => trim_object(map, rung, ctx, &plan),
                        other => trim(other, rung, ctx),
                    })
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

/// How the items of a list are trimmed alike: the fields that say their role, place or
/// category (no rung leaves them out), and the rung each other field goes at in all of them:
/// the earliest it goes at in any (a text long in one item goes with the long texts).
#[derive(Default)]
struct Plan {
    roles: BTreeSet<String>,
    gone: BTreeMap<String, Rung>,
}

impl Plan {
    fn of(items: &[Value], ctx: &Context) -> Self {
        let mut plan = Self {
            roles: roles(items, ctx),
            gone: BTreeMap::new(),
        };
        for map in items.iter().filter_map(Value::as_object) {
            let order = ordered(map, ctx);
            for (name, value) in map {
                let field = Field::new(map, &order, name, value);
                if let Some(rung) = field.gone(ctx, &plan.roles) {
                    let at = plan.gone.entry(name.clone()).or_insert(rung);
                    *at = (*at).min(rung);
                }
            }
        }
        plan
    }
}

/// The fields of a list's items that say their role, place or category (a lone crew
/// member's `job` by its name).
fn roles(items: &[Value], ctx: &Context) -> BTreeSet<String> {
    let probe: Vec<&Value> = items.iter().take(PROBE_ITEMS).collect();
    let names: BTreeSet<&String> = probe
        .iter()
        .filter_map(|item| item.as_object())
        .flat_map(|map| map.keys())
        .collect();
    names
        .into_iter()
        .filter(|name| qualifier(name, &probe, ctx).is_some())
        .cloned()
        .collect()
}

fn trim_object(map: &Map<String, Value>, rung: Rung, ctx: &Context, plan: &Plan) -> Value {
    let order = ordered(map, ctx);
    let mut out = Map::new();
    for (name, value) in map {
        let field = Field::new(map, &order, name, value);
        let gone = match plan.gone.get(name) {
            Some(at) => Some(*at),
            None => field.gone(ctx, &plan.roles),
        };
        if gone.is_none_or(|at| rung < at) {
            out.insert(name.clone(), field.form(rung, ctx));
        }
    }
    if out.is_empty()
        && let Some((name, value)) = most_telling(map, &order)
    {
        out.insert(name.to_owned(), least(value, ctx));
    }
    Value::Object(out)
}

/// One field of an object being trimmed.
struct Field<'a> {
    map: &'a Map<String, Value>,
    name: &'a str,
    value: &'a Value,
    class: Class,
}

impl<'a> Field<'a> {
    /// Field `name` of `map`, whose fields are classed as `order` says.
    fn new(
        map: &'a Map<String, Value>,
        order: &[(&str, Class)],
        name: &'a str,
        value: &'a Value,
    ) -> Self {
        let class = order
            .iter()
            .find(|(field, _)| *field == name)
            .map_or(Class::Plain, |(_, class)| *class);
        Self {
            map,
            name,
            value,
            class,
        }
    }

    /// The rung that leaves this field out, `None` if none does; `roles` names the fields
    /// that say the role of the items of the list the object is in.
    fn gone(&self, ctx: &Context, roles: &BTreeSet<String>) -> Option<Rung> {
        let value = self.value;
        if self.is_error() || is_paging(self.name, value) {
            return None;
        }
        match self.class {
            Class::Identity(_) if restates(self.map, self.name, ctx) => Some(Rung::Links),
            Class::Identity(_) if self.restates_a_name(ctx) => Some(Rung::RestatedNames),
            Class::Identity(_) | Class::Purpose | Class::Holder => None,
            Class::Link | Class::Flags | Class::Empty => Some(Rung::Links),
            _ if roles.contains(self.name) || ctx.is_asked(self.name) => None,
            _ if !value.is_null() && Kind::of(self.name, value) == Kind::Date => None,
            Class::Other
                if holds_objects(value) || value.as_object().is_some_and(is_count_holder) =>
            {
                None
            }
            _ => Some(match value {
                Value::Null | Value::Object(_) | Value::Array(_) => Rung::Others,
                Value::Bool(_) => Rung::Switches,
                Value::Number(_) => Rung::Numbers,
                Value::String(s) if s.chars().count() > SHORT_TEXT => Rung::LongTexts,
                Value::String(_) => Rung::Texts,
            }),
        }
    }

    /// The field's form at `rung`, where it is shown: an identity capped, a text shortened
    /// from the rung that shortens texts on (the content's further from the rung that leaves
    /// long texts out), a structure trimmed within.
    fn form(&self, rung: Rung, ctx: &Context) -> Value {
        let value = self.value;
        if self.is_error() || is_paging(self.name, value) {
            return value.clone();
        }
        match (self.class, value) {
            (Class::Identity(_), _) => capped(value, IDENTITY_CAP),
            (Class::Purpose, Value::String(s)) if rung >= Rung::LongTexts => {
                Value::String(shortened(s, rung, IDENTITY_CAP))
            }
            (_, Value::String(s)) => Value::String(shortened(s, rung, LONG_TEXT_CAP)),
            (Class::Purpose | Class::Holder, _) => trim(value, rung, ctx),
            (Class::Other, _)
                if holds_objects(value) || value.as_object().is_some_and(is_count_holder) =>
            {
                trim(value, rung, ctx)
            }
            _ => value.clone(),
        }
    }

    /// Whether this is a name equal to a better name of its object (see [`name_preference`]).
    fn restates_a_name(&self, ctx: &Context) -> bool {
        let mine = name_preference(self.name);
        self.class == Class::Identity(1)
            && ordered(self.map, ctx).iter().any(|(other, class)| {
                *class == Class::Identity(1)
                    && name_preference(other) < mine
                    && self.map.get(*other) == Some(self.value)
            })
    }

    fn is_error(&self) -> bool {
        ERROR_FIELDS.contains(&self.name.to_ascii_lowercase().as_str())
    }
}

/// Whether `value` is a list holding objects, or an object holding lists or objects: a
/// structure trimmed within, never left out whole (its items are items of a list).
fn holds_objects(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(|v| v.is_object() || v.is_array()),
        Value::Object(map) => map.values().any(|v| v.is_object() || v.is_array()),
        _ => false,
    }
}

/// `text` shortened to `cap` from the rung that shortens long texts on, else whole.
fn shortened(text: &str, rung: Rung, cap: usize) -> String {
    if rung >= Rung::ShortTexts && text.chars().count() > cap {
        shorten(text, cap)
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Four films, each with links, a long overview, a flag, numbers and a short text.
    fn films() -> Value {
        let films: Vec<Value> = (0..4)
            .map(|i| {
                json!({"id": i, "title": format!("Film {i}"), "original_title": format!("Film {i}"),
                       "poster_path": "/abcdefghijklmnopqrstuvwxyz.jpg",
                       "overview": "Somebody goes somewhere and finds something. ".repeat(4),
                       "adult": false, "vote_count": 1000 + i, "original_language": "en",
                       "genre_ids": [28, 12], "release_date": "2020-01-02"})
            })
            .collect();
        json!({"page": 1, "results": films})
    }

    /// The fields the first film shows at the first rung that fits `budget`.
    fn shown_fields(budget: usize, ctx: &Context) -> Vec<String> {
        let view = trimmed(&films(), budget, ctx).unwrap_or_default();
        assert!(size(&view) <= budget, "{view}");
        assert_eq!(view["page"], 1, "{view}");
        let results = view["results"].as_array().cloned().unwrap_or_default();
        assert_eq!(results.len(), 4, "{view}");
        results[0].as_object().unwrap().keys().cloned().collect()
    }

    #[test]
    fn rungs_leave_out_links_then_shorten_texts_then_leave_out_lesser_values() {
        let ctx = Context::default();
        let whole = size(&films());
        // Links first; the overview is whole while it fits.
        let fields = shown_fields(whole - 200, &ctx);
        assert!(!fields.contains(&"poster_path".to_owned()), "{fields:?}");
        assert!(fields.contains(&"original_title".to_owned()), "{fields:?}");
        assert!(fields.contains(&"overview".to_owned()), "{fields:?}");
        // Then the overview shortened, then lists of codes, flags, the overview, numbers.
        let view = trimmed(&films(), whole - 400, &ctx).unwrap();
        let overview = view["results"][0]["overview"].as_str().unwrap();
        assert!(overview.ends_with('…') && overview.chars().count() <= LONG_TEXT_CAP);
        let fields = shown_fields(whole - 800, &ctx);
        for gone in ["genre_ids", "adult", "overview"] {
            assert!(!fields.contains(&gone.to_owned()), "{gone}: {fields:?}");
        }
        // Then identities and dates, and a field the request names; last, the title that
        // restates the title.
        let fields = shown_fields(360, &ctx);
        assert_eq!(fields, ["id", "title", "original_title", "release_date"]);
        let fields = shown_fields(260, &ctx);
        assert_eq!(fields, ["id", "title", "release_date"]);
        let asked = Context::default().with_request(Some("Which has the most votes?"), None);
        let fields = shown_fields(320, &asked);
        assert_eq!(fields, ["id", "title", "vote_count", "release_date"]);
        // Below that, no rung fits: rendering decides.
        assert!(trimmed(&films(), 200, &ctx).is_none());
    }

    #[test]
    fn a_list_of_objects_without_identities_is_trimmed_within_never_left_out() {
        let days: Vec<Value> = (0..5)
            .map(|i| {
                json!({"dt_txt": format!("2023-11-2{i} 12:00:00"), "wind": {"speed": 4.6},
                            "main": {"temp": 281.5, "humidity": 81}})
            })
            .collect();
        let value = json!({"cod": "200", "list": days});
        let view = trimmed(&value, 200, &Context::default()).unwrap();
        let list = view["list"].as_array().unwrap();
        assert_eq!(list.len(), 5, "{view}");
        assert!(list.iter().all(|day| day["dt_txt"].is_string()), "{view}");
    }
}
