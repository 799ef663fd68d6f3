//! Adding columns (see [`super::columns`]) to the shown forms of values: a column is added
//! across a list's shown items only where it fits for all of them.

use serde_json::{Map, Value};

use super::columns::{Column, Form, NESTED_ITEMS, Step};
use super::core::{core, has_identity};
use super::fields::Context;
use super::least::{omitted_note, shorten, size};

/// Renders a value within a budget: the caller's renderer, passed in so that growing columns
/// does not depend on rendering.
pub(crate) type Render = fn(&Value, usize, &Context) -> Value;

/// Adds columns to shown values.
#[derive(Clone, Copy)]
pub(crate) struct Grower<'a> {
    pub(crate) ctx: &'a Context,
    pub(crate) render: Render,
}

impl Grower<'_> {
    /// Adds `column` to `shown`, the shown form of `whole`: whether it changed.
    pub(crate) fn apply(&self, column: &Column, whole: &Value, shown: &mut Value) -> bool {
        self.apply_at(&column.path, &column.form, whole, shown, false)
    }

    /// Adds the column of `path` and `form` to `shown`, the shown form of `whole`; `under`
    /// says an object with identities lies above `whole` in the item.
    fn apply_at(
        &self,
        path: &[Step],
        form: &Form,
        whole: &Value,
        shown: &mut Value,
        under: bool,
    ) -> bool {
        match path.split_first() {
            None => self.set(form, whole, shown, under),
            Some((Step::Key(key), rest)) => {
                let (Some(sub), Value::Object(out)) = (whole.get(key), shown) else {
                    return false;
                };
                let under = under || whole.as_object().is_some_and(|m| has_identity(m, self.ctx));
                let fresh = !out.contains_key(key);
                let slot = out.entry(key.clone()).or_insert_with(|| match sub {
                    Value::Array(_) => Value::Array(Vec::new()),
                    _ => Value::Object(Map::new()),
                });
                let changed = self.apply_at(rest, form, sub, slot, under);
                if fresh && !changed {
                    out.remove(key);
                }
                changed
            }
            Some((Step::Each, rest)) => {
                let (Value::Array(subs), Value::Array(out)) = (whole, shown) else {
                    return false;
                };
                let mut changed = false;
                if out.is_empty() {
                    let firsts = subs.iter().take(NESTED_ITEMS);
                    out.extend(firsts.map(|s| core(s, under, self.ctx)));
                    if subs.len() > out.len() {
                        out.push(omitted_note(subs.len() - out.len()));
                    }
                    changed = true;
                }
                let kept = out.iter_mut().filter(|v| v.is_object());
                for (sub, slot) in subs.iter().zip(kept) {
                    changed |= self.apply_at(rest, form, sub, slot, under);
                }
                changed
            }
        }
    }

    /// Sets the column's field of the object `shown` to its form from `whole`, where that is
    /// more than it shows (`under` as for [`Self::apply_at`]).
    fn set(&self, form: &Form, whole: &Value, shown: &mut Value, under: bool) -> bool {
        let Value::Object(out) = shown else {
            return false;
        };
        let (name, value) = match form {
            Form::Core => return add_core(whole, out, under, self.ctx),
            Form::Whole(name) => (name, whole.get(name).cloned()),
            Form::Shortened(name, cap) => (
                name,
                whole.get(name).map(|v| match v {
                    Value::String(s) => Value::String(shorten(s, *cap)),
                    other => other.clone(),
                }),
            ),
            Form::Rendered(name, cap) => (
                name,
                whole.get(name).map(|v| (self.render)(v, *cap, self.ctx)),
            ),
        };
        let Some(value) = value else {
            return false;
        };
        if out.get(name).is_some_and(|now| size(now) >= size(&value)) {
            return false;
        }
        out.insert(name.clone(), value);
        true
    }

    /// Adds to `shown` (the shown forms of the first items of `whole`) every column of
    /// `columns`, in order, that fits across all of them within `room` characters of list
    /// text; a column that does not is left out for all, but a column that takes items (see
    /// [`Column::takes_items`]) may take shown items away from the end, down to `floor` items
    /// (a qualifier further, see [`Column::floor`]).
    /// Returns the columns added.
    pub(crate) fn grow<'c>(
        &self,
        columns: &'c [Column],
        whole: &[Value],
        shown: &mut Vec<Value>,
        room: usize,
        floor: usize,
    ) -> Vec<&'c Column> {
        let mut added = Vec::new();
        for column in columns {
            let mut trial = shown.clone();
            let mut changed = false;
            for (item, slot) in whole.iter().zip(trial.iter_mut()) {
                changed |= self.apply(column, item, slot);
            }
            if column.takes_items() {
                while trial.len() > column.floor(floor).max(1) && list_size(&trial) > room {
                    trial.pop();
                }
            }
            if changed && list_size(&trial) <= room {
                *shown = trial;
                added.push(column);
            }
        }
        added
    }

    /// `whole` in its core form with `columns` added, whatever they cost.
    pub(crate) fn form_with<'c>(
        &self,
        whole: &Value,
        columns: impl IntoIterator<Item = &'c Column>,
    ) -> Value {
        let mut shown = core(whole, false, self.ctx);
        for column in columns {
            self.apply(column, whole, &mut shown);
        }
        shown
    }
}

/// Adds the fields of `whole`'s core form that `out` lacks: whether any was added.
fn add_core(whole: &Value, out: &mut Map<String, Value>, under: bool, ctx: &Context) -> bool {
    let Value::Object(fields) = core(whole, under, ctx) else {
        return false;
    };
    let mut changed = false;
    for (name, value) in fields {
        if !out.contains_key(&name) {
            out.insert(name, value);
            changed = true;
        }
    }
    changed
}

/// Characters of the JSON text of a list of `items` (without a note).
pub(crate) fn list_size(items: &[Value]) -> usize {
    2 + items.iter().map(size).sum::<usize>() + items.len().saturating_sub(1)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::super::columns::{Reach, columns};
    use super::*;

    fn render(value: &Value, _budget: usize, _ctx: &Context) -> Value {
        value.clone()
    }

    #[test]
    fn a_column_that_does_not_fit_every_item_is_left_out_for_all() {
        let ctx = Context::default();
        let grower = Grower { ctx: &ctx, render };
        // The second item's note is long: its column would fit the first item alone.
        let whole = vec![
            json!({"id": 1, "note": "short"}),
            json!({"id": 2, "note": "a much longer note"}),
        ];
        let refs: Vec<&Value> = whole.iter().collect();
        let all = columns(&refs, Reach::All, &ctx);
        let mut shown: Vec<Value> = whole.iter().map(|w| core(w, false, &ctx)).collect();
        let room = list_size(&shown) + 20;
        let added = grower.grow(&all, &whole, &mut shown, room, 2);
        assert!(added.is_empty());
        assert_eq!(shown, vec![json!({"id": 1}), json!({"id": 2})]);
        // With room for both, both get it.
        let added = grower.grow(&all, &whole, &mut shown, room + 40, 2);
        assert_eq!(added.len(), 1);
        assert_eq!(shown[1]["note"], "a much longer note");
    }

    #[test]
    fn an_own_date_takes_items_away_down_to_the_floor() {
        let ctx = Context::default();
        let grower = Grower { ctx: &ctx, render };
        let whole: Vec<Value> = (0..6)
            .map(|i| json!({"id": i, "added_at": "2025-11-01T10:04:05Z"}))
            .collect();
        let refs: Vec<&Value> = whole.iter().collect();
        let all = columns(&refs, Reach::All, &ctx);
        let mut shown: Vec<Value> = whole.iter().map(|w| core(w, false, &ctx)).collect();
        // Six ids fit; two of them with their dates fit too, three do not.
        let room = list_size(&shown) + 60;
        grower.grow(&all, &whole, &mut shown, room, 2);
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert!(shown.iter().all(|s| s["added_at"].is_string()), "{shown:?}");
        assert!(list_size(&shown) <= room);
        // Not below the floor: with three items kept at least, it is left out instead.
        let mut shown: Vec<Value> = whole.iter().map(|w| core(w, false, &ctx)).collect();
        grower.grow(&all, &whole, &mut shown, room, 3);
        assert_eq!(shown.len(), 6);
        assert!(shown.iter().all(|s| s.get("added_at").is_none()));
    }
}
