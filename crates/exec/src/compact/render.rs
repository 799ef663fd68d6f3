//! Rendering a value within a budget of characters: first the least form of every part
//! (identities, one item per list), then the identity skeletons of the parts that hold
//! identities, then the first parts grown back toward whole, content first and maps of
//! flags and links last.

use serde_json::{Map, Value};

use super::fields::{Class, Context};
use super::least::{least, omitted_note, ordered, shorten, size};
use super::skeleton::{SKELETON_DEPTH, is_nested, skeleton};

/// Share of a list's budget its least-form items may take before its first items grow.
const BREADTH_SHARE: (usize, usize) = (4, 5);

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
    for (name, _) in order.iter().filter(|f| !core(f.1) && f.1 != Class::Link) {
        if let Some(value) = map.get(*name) {
            shown.offer(name, least(value, ctx));
        }
    }
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
        if new <= now + extra && new > now {
            *used = *used + new - now;
            *shown = grown;
        }
    }
}

fn render_list(items: &[Value], budget: usize, ctx: &Context) -> Value {
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
