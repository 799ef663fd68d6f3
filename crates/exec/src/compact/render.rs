//! Rendering a value within a budget of characters: first the least form of every part
//! (identities, one item per list), then the identity skeletons of the parts that hold
//! identities, then the short scalars of the objects held, then the parts grown back toward
//! whole, content first and maps of flags and links last. A list of objects grows its shown
//! items alike from their core forms (see [`super::core`]), column by column (see
//! [`super::columns`]).

use serde_json::{Map, Value};

use super::columns::{Column, Rank, Reach, columns};
use super::core::core;
use super::fields::{Class, Context, is_paging};
use super::grow::{Grower, list_size};
use super::least::{is_note, least, omitted_note, ordered, shorten, size};
use super::ranked::Ranking;
use super::skeleton::{SKELETON_DEPTH, is_nested, skeleton};

/// Share of a list's budget its least-form items may take before its first items grow (a
/// list that is not of objects).
const BREADTH_SHARE: (usize, usize) = (4, 5);

/// Share of a list's room the units of its items (see [`unit_count`]) may take, so that their
/// columns have room to grow across them.
const SKELETON_SHARE: (usize, usize) = (4, 5);

/// Share of the items shown by their units that the items' own dates may not take away: those
/// columns take items from the end down to this share (fewer items, each saying when).
const FLOOR_SHARE: (usize, usize) = (2, 3);

/// Share of a list that fits whole by its skeletons that its items' own dates may not take
/// away: a whole list is worth more than a cut one, so it gives up fewer items.
const WHOLE_FLOOR_SHARE: (usize, usize) = (3, 4);

/// The growth tier of values that say nothing (see [`Class::Empty`]): never grown or shown in
/// a view that is cut.
const EMPTY_TIER: u8 = 4;

/// Items of a list whose fields are read to find its columns.
pub(super) const PROBE_ITEMS: usize = 20;

/// `value` in at most `budget` characters where its least form allows, else its least form.
pub(crate) fn render(value: &Value, budget: usize, ctx: &Context) -> Value {
    if size(value) <= budget {
        return value.clone();
    }
    match value {
        Value::String(s) => Value::String(shorten(s, budget.saturating_sub(2).max(8))),
        Value::Object(map) => render_object(map, budget, ctx),
        Value::Array(items) => render_list(items, budget, ctx),
        other => other.clone(),
    }
}

/// Characters a field adds to an object: its key, the colon, the value, and a comma if
/// the object already has a field.
fn field_cost(name: &str, value: &Value, first: bool) -> usize {
    size(&Value::String(name.to_owned())) + 1 + size(value) + usize::from(!first)
}

/// An object's fields being shown within a budget.
struct Shown {
    out: Map<String, Value>,
    used: usize,
    budget: usize,
}

impl Shown {
    /// Shows field `name` as `form` if it fits: added when not shown yet, else replacing a
    /// smaller form in place.
    fn offer(&mut self, name: &str, form: Value) {
        let cost = match self.out.get(name) {
            None => field_cost(name, &form, self.out.is_empty()),
            Some(now) if size(&form) > size(now) => size(&form) - size(now),
            Some(_) => return,
        };
        if self.used + cost <= self.budget {
            self.used += cost;
            self.out.insert(name.to_owned(), form);
        }
    }
}

/// The order fields grow in, once every field has its least form: the content and the
/// identities, then holders and other values, then maps of flags, then links.
fn growth_tier(class: Class) -> u8 {
    match class {
        Class::Identity(_) | Class::Purpose => 0,
        Class::Holder | Class::Plain | Class::Other => 1,
        Class::Flags => 2,
        Class::Link => 3,
        Class::Empty => EMPTY_TIER,
    }
}

fn render_object(map: &Map<String, Value>, budget: usize, ctx: &Context) -> Value {
    let order = ordered(map, ctx);
    let mut shown = Shown {
        out: Map::new(),
        used: 2,
        budget,
    };
    let core = |class: Class| matches!(class, Class::Identity(_) | Class::Purpose | Class::Holder);
    // Breadth: the least forms of identities, content and holders.
    for (name, _) in order.iter().filter(|f| core(f.1)) {
        if let Some(value) = map.get(*name) {
            shown.offer(name, least(value, ctx));
        }
    }
    // Then the fields that page a list, whole: a page's `next`, its totals, its cursors.
    for (name, value) in map.iter().filter(|(name, value)| is_paging(name, value)) {
        shown.offer(name, value.clone());
    }
    // Then the fields the request names in the objects it holds (a device's `volume_percent`
    // for "turn down the volume"), before skeletons fill the room.
    grow_small_fields(map, &mut shown, ctx, |c| c.rank() == Rank::Asked);
    // Then their skeletons, one level deeper at a time, so that every holder keeps its
    // nested identities before any field grows.
    for depth in 1..=SKELETON_DEPTH {
        for (name, class) in &order {
            if let Some(value) = map.get(*name).filter(|v| is_nested(*class, v)) {
                shown.offer(name, skeleton(value, depth, ctx));
            }
        }
    }
    // Then the least forms of the other fields but links.
    let rest = |class: Class| !core(class) && !matches!(class, Class::Link | Class::Empty);
    for (name, _) in order.iter().filter(|f| rest(f.1)) {
        if let Some(value) = map.get(*name) {
            shown.offer(name, least(value, ctx));
        }
    }
    grow_small_fields(map, &mut shown, ctx, |c| c.rank() <= Rank::NestedScalar);
    if shown.out.is_empty()
        && let Some(first) = order.iter().find_map(|(name, _)| map.get_key_value(*name))
    {
        // Over budget rather than empty; the caller decides whether it fits.
        shown.out.insert(first.0.clone(), least(first.1, ctx));
        return Value::Object(shown.out);
    }
    for tier in 0..=3 {
        let names: Vec<&str> = order
            .iter()
            .filter(|f| growth_tier(f.1) == tier)
            .map(|f| f.0)
            .collect();
        if tier == 3 {
            for name in &names {
                if let Some(value) = map.get(*name) {
                    shown.offer(name, least(value, ctx));
                }
            }
        }
        grow_fields(map, &names, &mut shown.out, &mut shown.used, budget, ctx);
    }
    Value::Object(shown.out)
}

/// Grows, column by column, the columns `keep` keeps of the objects `map` holds (their
/// identities and short scalars: a device's volume beside a whole track), before any of its
/// fields grows toward whole. Its payload is grown afterwards, rendered on its own.
fn grow_small_fields(
    map: &Map<String, Value>,
    shown: &mut Shown,
    ctx: &Context,
    keep: impl Fn(&Column) -> bool,
) {
    if shown.out.is_empty() {
        return;
    }
    let whole = [Value::Object(map.clone())];
    let small: Vec<Column> = columns(&[&whole[0]], Reach::Held, ctx)
        .into_iter()
        .filter(|c| keep(c))
        .collect();
    let grower = Grower { ctx, render };
    let mut one = vec![Value::Object(std::mem::take(&mut shown.out))];
    // The brackets of a one-item list are the object's room too.
    grower.grow(&small, &whole, &mut one, shown.budget + 2, 1);
    if let Some(Value::Object(out)) = one.pop() {
        shown.used = size(&Value::Object(out.clone()));
        shown.out = out;
    }
}

/// Grows the shown fields of `names` toward their whole value, each rendered once: the ones
/// that want least go first and take at most an equal share of what is left, so that what
/// they leave goes to the larger ones and none starves the rest.
fn grow_fields(
    map: &Map<String, Value>,
    names: &[&str],
    out: &mut Map<String, Value>,
    used: &mut usize,
    budget: usize,
    ctx: &Context,
) {
    let mut growing: Vec<(&str, usize)> = names
        .iter()
        .filter_map(|name| {
            let (whole, shown) = (map.get(*name)?, out.get(*name)?);
            (whole != shown).then(|| (*name, size(whole).saturating_sub(size(shown))))
        })
        .collect();
    growing.sort_by_key(|(_, want)| *want);
    let count = growing.len();
    for (i, (name, _)) in growing.into_iter().enumerate() {
        let (Some(whole), Some(shown)) = (map.get(name), out.get_mut(name)) else {
            continue;
        };
        let extra = budget.saturating_sub(*used) / (count - i);
        let now = size(shown);
        let grown = render(whole, now + extra, ctx);
        let new = size(&grown);
        if new <= now + extra && (new > now || shows_more_items(&grown, shown)) {
            *used = (*used + new).saturating_sub(now);
            *shown = grown;
        }
    }
}

/// Whether `grown` shows more of a list's own items than `shown` does: a list held in its
/// skeleton (one item, deep, with every identity) gives way to its rendered view showing
/// more items, though that view may take fewer characters (three saved albums each by its
/// id and name, not one with its first track's locators).
fn shows_more_items(grown: &Value, shown: &Value) -> bool {
    let items = |v: &Value| {
        v.as_array()
            .map_or(0, |items| items.iter().filter(|i| !is_note(i)).count())
    };
    items(grown) > items(shown)
}

/// A list of objects grows by columns (see [`render_table`]); any other list keeps its first
/// items and grows them in order.
fn render_list(items: &[Value], budget: usize, ctx: &Context) -> Value {
    if !items.is_empty() && items.iter().all(Value::is_object) {
        render_table(items, budget, ctx)
    } else {
        render_plain_list(items, budget, ctx)
    }
}

/// A list of objects, its shown items grown alike: its first items by their units (see
/// [`unit_count`]), then the columns of their skeletons and own short scalars that fit across
/// all of them (a unit column may take items away, down to a floor), then more items in that
/// same form while they fit, then the columns of lower rank (the items' other identities,
/// nested details, links) that fit across all of them, and a note of the items left out.
/// When the request ranks the items (see [`Ranking`]) and they do not all fit, the items
/// ranked first are shown instead, in that order, and the note says so.
fn render_table(items: &[Value], budget: usize, ctx: &Context) -> Value {
    if let Some(ranking) = Ranking::of(items, ctx) {
        let sorted = ranking.sorted(items);
        let view = render_rows(&sorted, budget, ctx, &|shown, left| {
            ranking.note(shown, left)
        });
        if view.as_array().is_some_and(|out| out.iter().any(is_note)) {
            return view;
        }
    }
    render_rows(items, budget, ctx, &|_, left| omitted_note(left))
}

/// A list's note of items left out, given how many items it shows and how many it left out.
type Note<'n> = &'n dyn Fn(usize, usize) -> Value;

/// [`render_table`] of `items` in the order given, ended by `note` when it leaves items out.
fn render_rows(items: &[Value], budget: usize, ctx: &Context, note: Note<'_>) -> Value {
    let room = budget.saturating_sub(size(&note(items.len(), items.len())) + 1);
    let grower = Grower { ctx, render };
    let probe: Vec<&Value> = items.iter().take(PROBE_ITEMS).collect();
    let all = columns(&probe, Reach::All, ctx);
    let skeleton: Vec<&Column> = all.iter().filter(|c| c.rank() == Rank::Skeleton).collect();
    // Qualifiers, asked fields and snippets take items from those the units show, down to
    // the floor, not before.
    let unit: Vec<&Column> = all
        .iter()
        .filter(|c| {
            let later = matches!(c.rank(), Rank::Qualifier(_) | Rank::Asked | Rank::Snippet);
            c.takes_items() && !later
        })
        .collect();
    let (count, floor) = unit_count(items, &skeleton, &unit, &grower, room);
    let mut out: Vec<Value> = items
        .iter()
        .take(count)
        .map(|item| core(item, false, ctx))
        .collect();
    if list_size(&out) > room {
        out.clear();
    }
    let unit: Vec<Column> = all.iter().filter(|c| c.grows_early()).cloned().collect();
    // A snippet that did not fit is tried again once dates have taken items away.
    let rest: Vec<Column> = all.into_iter().filter(|c| !c.takes_items()).collect();
    let mut added = grower.grow(&unit, items, &mut out, room, floor);
    // A unit column that did not fit the items then shown (a crew's `job`) is tried again
    // once a later one (their asked air date) has taken items away.
    let missed: Vec<Column> = unit
        .iter()
        .filter(|c| !added.iter().any(|a| std::ptr::eq(*a, *c)))
        .cloned()
        .collect();
    let shown = out.len();
    added.extend(grower.grow(&missed, items, &mut out, room, shown));
    fill(items, &mut out, &added, &grower, room);
    let kept = out.len();
    added.extend(grower.grow(&rest, items, &mut out, room, kept));
    fill(items, &mut out, &added, &grower, room);
    if out.len() < items.len() {
        out.push(note(out.len(), items.len() - out.len()));
    }
    Value::Array(out)
}

/// Shows more of `items` after the shown ones (`out`), each in the same form (its core form
/// with the columns `added`), while they fit `room`.
fn fill(
    items: &[Value],
    out: &mut Vec<Value>,
    added: &[&Column],
    grower: &Grower<'_>,
    room: usize,
) {
    if out.is_empty() {
        return;
    }
    let mut used = list_size(out);
    for item in items.iter().skip(out.len()) {
        let form = grower.form_with(item, added.iter().copied());
        let cost = size(&form) + 1;
        if used + cost > room {
            break;
        }
        used += cost;
        out.push(form);
    }
}

/// How many of a list's first items are shown, and the floor the columns that take items (its
/// skeleton and its own dates, see [`Column::takes_items`]) may not take them below: every
/// item when all their skeletons fit the room, and a share of them (a list that fits whole by
/// its identities gives few items up for their dates); else as many as fit in a share of the
/// room by their units (an item's core form with those columns; one at least), and a share of
/// those.
fn unit_count(
    items: &[Value],
    skeleton: &[&Column],
    unit: &[&Column],
    grower: &Grower<'_>,
    room: usize,
) -> (usize, usize) {
    if fits_all(items, skeleton, grower, room) {
        let floor = (items.len() * WHOLE_FLOOR_SHARE.0).div_ceil(WHOLE_FLOOR_SHARE.1);
        return (items.len(), floor);
    }
    let share = room * SKELETON_SHARE.0 / SKELETON_SHARE.1;
    let mut used = 2;
    let mut count = 0;
    for item in items {
        used += size(&grower.form_with(item, unit.iter().copied())) + usize::from(count > 0);
        if used > share {
            break;
        }
        count += 1;
    }
    let count = count.max(1);
    (count, (count * FLOOR_SHARE.0).div_ceil(FLOOR_SHARE.1))
}

/// Whether every item, in its core form with `columns`, fits `room`.
fn fits_all(items: &[Value], columns: &[&Column], grower: &Grower<'_>, room: usize) -> bool {
    let mut used = 2;
    for item in items {
        used += size(&grower.form_with(item, columns.iter().copied())) + 1;
        if used > room + 1 {
            return false;
        }
    }
    true
}

/// A list of scalars or of mixed values: the least forms of its first items, then the first
/// ones grown toward whole, in order.
fn render_plain_list(items: &[Value], budget: usize, ctx: &Context) -> Value {
    let reserve = size(&omitted_note(items.len())) + 1;
    let room = budget.saturating_sub(reserve);
    let breadth = room * BREADTH_SHARE.0 / BREADTH_SHARE.1;
    let mut out: Vec<Value> = Vec::new();
    let mut used = 2;
    // Breadth: least forms of the first items, within a share of the budget (one at least).
    for item in items {
        let small = least(item, ctx);
        let cost = size(&small) + usize::from(!out.is_empty());
        let cap = if out.is_empty() { room } else { breadth };
        if used + cost > cap {
            break;
        }
        used += cost;
        out.push(small);
    }
    // Depth: the first items grow toward whole, in order.
    for (shown, whole) in out.iter_mut().zip(items) {
        let now = size(shown);
        let extra = room.saturating_sub(used);
        if extra == 0 {
            break;
        }
        let grown = render(whole, now + extra, ctx);
        let new = size(&grown);
        if new <= now + extra && new > now {
            used = used + new - now;
            *shown = grown;
        }
    }
    // Breadth again with what is left.
    for item in items.iter().skip(out.len()) {
        let small = least(item, ctx);
        let cost = size(&small) + usize::from(!out.is_empty());
        if used + cost > room {
            break;
        }
        used += cost;
        out.push(small);
    }
    if out.len() < items.len() {
        out.push(omitted_note(items.len() - out.len()));
    }
    Value::Array(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Eight items, each an id and a date, and the room (list text without its note) the
    /// first `n` of them take with their dates.
    fn dated(n: usize) -> (Vec<Value>, usize) {
        let items: Vec<Value> = (0..8)
            .map(|i| json!({"id": i, "added_at": "2025-11-01T10:04:05Z"}))
            .collect();
        let room = list_size(&items[..n]);
        (items, room)
    }

    #[test]
    fn a_list_that_fits_whole_gives_up_a_quarter_of_its_items_for_their_dates_at_most() {
        let ctx = Context::default();
        // The ids of all eight fit; six of them fit with their dates: six are shown so.
        let (items, room) = dated(6);
        let budget = room + size(&omitted_note(items.len())) + 1;
        let shown = render_table(&items, budget, &ctx);
        let mut expected: Vec<Value> = items[..6].to_vec();
        expected.push(omitted_note(2));
        assert_eq!(shown, Value::Array(expected));
        // Five would: the list stays whole, without its dates.
        let (items, room) = dated(5);
        let budget = room + size(&omitted_note(items.len())) + 1;
        let shown = render_table(&items, budget, &ctx);
        let ids: Vec<Value> = (0..8).map(|i| json!({"id": i})).collect();
        assert_eq!(shown, Value::Array(ids));
    }
}
