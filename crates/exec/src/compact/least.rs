//! The least forms of values: what still says which entity a value is when there is no room
//! for more (an object's identities, a list's first item and a note), and the order in which
//! an object's fields matter.

use serde_json::{Map, Value};

use super::fields::{Class, Context};

/// What ends a shortened string.
pub(crate) const ELLIPSIS: &str = "…";

/// Longest identity string in an object's least form.
pub(crate) const IDENTITY_CAP: usize = 80;

/// Longest other string in an object's least form.
const PLAIN_CAP: usize = 40;

/// Characters of `value`'s JSON text.
pub(crate) fn size(value: &Value) -> usize {
    value.to_string().chars().count()
}

/// The note that ends a list with `n` items left out.
pub(crate) fn omitted_note(n: usize) -> Value {
    Value::String(format!("… {n} more items left out"))
}

/// Whether `value` is a list's note of items left out.
pub(crate) fn is_note(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|s| s.starts_with("… ") && s.ends_with(" more items left out"))
}

/// The smallest form that still says what `value` is: an object's identities (or its one
/// most telling field, so that it is never empty), a list's first item and a note.
pub(crate) fn least(value: &Value, ctx: &Context) -> Value {
    match value {
        Value::String(s) => Value::String(shorten(s, PLAIN_CAP)),
        Value::Object(map) => least_object(map, ctx),
        Value::Array(items) => match items.split_first() {
            None => Value::Array(Vec::new()),
            Some((first, rest)) => {
                let mut out = vec![least(first, ctx)];
                if !rest.is_empty() {
                    out.push(omitted_note(rest.len()));
                }
                Value::Array(out)
            }
        },
        other => other.clone(),
    }
}

fn least_object(map: &Map<String, Value>, ctx: &Context) -> Value {
    let order = ordered(map, ctx);
    let mut out = Map::new();
    for (name, class) in &order {
        let Some(value) = map.get(*name) else {
            continue;
        };
        match class {
            Class::Identity(_) => {
                out.insert((*name).to_owned(), capped(value, IDENTITY_CAP));
            }
            Class::Purpose if !value.is_object() && !value.is_array() && !value.is_null() => {
                out.insert((*name).to_owned(), capped(value, IDENTITY_CAP));
            }
            _ => {}
        }
    }
    if out.is_empty() {
        // Never empty: the first field with content, in the order fields matter (the
        // payload and the holders of identities before plain values).
        if let Some((name, value)) = most_telling(map, &order) {
            out.insert(name.to_owned(), least(value, ctx));
        }
    }
    Value::Object(out)
}

/// The field an object without identities shows so that it is never empty: the first with
/// content in `order` (how its fields matter, from [`ordered`]), else the first.
pub(crate) fn most_telling<'m>(
    map: &'m Map<String, Value>,
    order: &[(&'m str, Class)],
) -> Option<(&'m str, &'m Value)> {
    let (name, _) = order
        .iter()
        .find(|(name, _)| map.get(*name).is_some_and(has_content))
        .or_else(|| order.first())?;
    Some((name, map.get(*name)?))
}

pub(crate) fn has_content(value: &Value) -> bool {
    match value {
        Value::Object(map) => !map.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::String(s) => !s.is_empty(),
        Value::Null => false,
        _ => true,
    }
}

pub(crate) fn capped(value: &Value, cap: usize) -> Value {
    match value {
        Value::String(s) => Value::String(shorten(s, cap)),
        other => other.clone(),
    }
}

/// `s` cut to at most `cap` characters of JSON text inside its quotes, ending in `…`.
pub(crate) fn shorten(s: &str, cap: usize) -> String {
    let mut keep = cap;
    loop {
        let cut = toolsmith_plumbing::text::truncate_with(s, keep.saturating_sub(1), ELLIPSIS);
        if keep <= 1 || size(&Value::String(cut.clone())) <= cap + 2 {
            return cut;
        }
        keep -= 1;
    }
}

/// The fields of `map` in the order they are kept and grown: by class, then as given. An
/// image-like object's url is its identity.
pub(crate) fn ordered<'m>(map: &'m Map<String, Value>, ctx: &Context) -> Vec<(&'m str, Class)> {
    let image_url = ctx.image_url_field(map);
    let mut order: Vec<(&str, Class)> = map
        .iter()
        .map(|(name, value)| match image_url {
            Some(url) if url == name => (name.as_str(), Class::Identity(1)),
            _ => (name.as_str(), ctx.class(name, value)),
        })
        .collect();
    order.sort_by_key(|(_, class)| *class);
    order
}
