//! Trimming: a view that keeps every item of every list it shows and leaves out, across the
//! whole value, the fields worth least, so that a result a little over its budget loses
//! fields before it loses items (a TV episode's five cast members, 1.7k characters, keep all
//! five with their ids, names and characters where rendering showed two).
//!
//! Rungs, each trimming all that the ones before it trim and more: links (URLs, image paths
//! and images of an API that is not for images), maps of flags, and names or locators that
//! restate another identity of their object (an `original_name` equal to the `name`); long
//! texts shortened (an overview to 120 characters); lists and maps of scalars without
//! identities (a list of market codes, a forecast's `wind`), and nulls; booleans; long texts;
//! numbers; short texts. A list or a map holding objects is trimmed within, never left out. A rung never leaves out an
//! identity, the content the API exists to return (its long texts are shortened instead),
//! a field that pages a list, an error, a date, a field the request names (see
//! [`super::asked`]), or a field that says a list item's role, place or category (see
//! [`super::qualify`]); nor does it empty an object.
//!
//! [`keep_items`] uses the first rung that fits when rendering (see [`super::render`]) left
//! items of a list of objects out (not the codes of a list of scalars) and the rung leaves
//! fewer out; else, as when even the last rung does not fit, rendering's view stands.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::columns::{Kind, LONG_TEXT_CAP, SHORT_TEXT};
use super::core::restates;
use super::fields::{Class, Context, is_paging, name_preference};
use super::least::{IDENTITY_CAP, capped, least, most_telling, ordered, shorten, size};
use super::left_out::objects_left_out;
use super::qualify::qualifier;
use super::render::PROBE_ITEMS;

/// What a rung leaves out or shortens, on top of the rungs before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Rung {
    /// Links, maps of flags, restated names and locators.
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
}

/// Every rung, least trimmed first.
const RUNGS: [Rung; 7] = [
    Rung::Links,
    Rung::ShortTexts,
    Rung::Others,
    Rung::Switches,
    Rung::LongTexts,
    Rung::Numbers,
    Rung::Texts,
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
    let most = trim(value, Rung::Texts, ctx, &BTreeSet::new());
    if size(&most) > budget {
        return None;
    }
    RUNGS
        .iter()
        .map(|rung| trim(value, *rung, ctx, &BTreeSet::new()))
        .find(|view| size(view) <= budget)
}

/// `value` trimmed at `rung`; `kept` names the fields of an object that says a list item's
/// role (found across the list's items).
fn trim(value: &Value, rung: Rung, ctx: &Context, kept: &BTreeSet<String>) -> Value {
    match value {
        Value::Object(map) => trim_object(map, rung, ctx, kept),
        Value::Array(items) => {
            let roles = roles(items, ctx);
            Value::Array(
                items
                    .iter()
                    .map(|item| trim(item, rung, ctx, &roles))
                    .collect(),
            )
        }
        other => other.clone(),
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

fn trim_object(
    map: &Map<String, Value>,
    rung: Rung,
    ctx: &Context,
    kept: &BTreeSet<String>,
) -> Value {
    let order = ordered(map, ctx);
    let mut out = Map::new();
    for (name, value) in map {
        let class = order
            .iter()
            .find(|(field, _)| *field == name.as_str())
            .map_or(Class::Plain, |(_, class)| *class);
        let field = Field {
            map,
            name,
            value,
            class,
        };
        if let Some(shown) = field.trimmed(rung, ctx, kept) {
            out.insert(name.clone(), shown);
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

impl Field<'_> {
    /// The field's form at `rung`, or `None` where the rung leaves it out.
    fn trimmed(&self, rung: Rung, ctx: &Context, kept: &BTreeSet<String>) -> Option<Value> {
        let value = self.value;
        let lower = self.name.to_ascii_lowercase();
        if ERROR_FIELDS.contains(&lower.as_str()) || is_paging(self.name, value) {
            return Some(value.clone());
        }
        match self.class {
            Class::Identity(_) if self.restates(ctx) => (rung < Rung::Links).then(|| value.clone()),
            Class::Identity(_) => Some(capped(value, IDENTITY_CAP)),
            Class::Purpose | Class::Holder => Some(match value {
                Value::String(s) if rung >= Rung::LongTexts => {
                    Value::String(shortened(s, rung, IDENTITY_CAP))
                }
                Value::String(s) => Value::String(shortened(s, rung, LONG_TEXT_CAP)),
                other => trim(other, rung, ctx, kept),
            }),
            Class::Link | Class::Flags => (rung < Rung::Links).then(|| value.clone()),
            _ if self.is_kept(ctx, kept) => Some(match value {
                Value::String(s) => Value::String(shortened(s, rung, LONG_TEXT_CAP)),
                other => other.clone(),
            }),
            Class::Other if holds_objects(value) => Some(trim(value, rung, ctx, kept)),
            Class::Other => (rung < Rung::Others).then(|| value.clone()),
            _ => self.plain(rung),
        }
    }

    /// Whether no rung leaves this field out: it says a list item's role (`kept`), the
    /// request names it, or it is a date.
    fn is_kept(&self, ctx: &Context, kept: &BTreeSet<String>) -> bool {
        kept.contains(self.name)
            || ctx.is_asked(self.name)
            || (!self.value.is_null() && Kind::of(self.name, self.value) == Kind::Date)
    }

    /// A plain scalar's form at `rung`.
    fn plain(&self, rung: Rung) -> Option<Value> {
        let (value, gone) = match self.value {
            Value::Null => (self.value.clone(), Rung::Others),
            Value::Bool(_) => (self.value.clone(), Rung::Switches),
            Value::Number(_) => (self.value.clone(), Rung::Numbers),
            Value::String(s) if s.chars().count() > SHORT_TEXT => (
                Value::String(shortened(s, rung, LONG_TEXT_CAP)),
                Rung::LongTexts,
            ),
            other => (other.clone(), Rung::Texts),
        };
        (rung < gone).then_some(value)
    }

    /// Whether this identity only restates another of its object: a locator holding its key,
    /// or a name equal to a better name (an `original_name` equal to the `name`).
    fn restates(&self, ctx: &Context) -> bool {
        if restates(self.map, self.name, ctx) {
            return true;
        }
        let mine = name_preference(self.name);
        self.class == Class::Identity(1)
            && ordered(self.map, ctx).iter().any(|(other, class)| {
                *class == Class::Identity(1)
                    && name_preference(other) < mine
                    && self.map.get(*other) == Some(self.value)
            })
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
        // Links and the restated title first; the overview is whole while it fits.
        let fields = shown_fields(whole - 200, &ctx);
        assert!(!fields.contains(&"poster_path".to_owned()), "{fields:?}");
        assert!(!fields.contains(&"original_title".to_owned()), "{fields:?}");
        assert!(fields.contains(&"overview".to_owned()), "{fields:?}");
        // Then the overview shortened, then lists of codes, flags, the overview, numbers.
        let view = trimmed(&films(), whole - 400, &ctx).unwrap();
        let overview = view["results"][0]["overview"].as_str().unwrap();
        assert!(overview.ends_with('…') && overview.chars().count() <= LONG_TEXT_CAP);
        let fields = shown_fields(whole - 800, &ctx);
        for gone in ["genre_ids", "adult", "overview"] {
            assert!(!fields.contains(&gone.to_owned()), "{gone}: {fields:?}");
        }
        // At the last rung: identities and dates, and a field the request names.
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
