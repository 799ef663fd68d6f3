//! Relations between fields that any real response keeps, restored after a
//! value is synthesized or filled: a total counts at least the items shown,
//! a thing is created before it is modified, a minimum is not above its
//! maximum, and a start not after its end (a show's first air date not after its
//! last, a person's birthday not after their deathday: drafts drew the two apart).

use serde_json::{Map, Value};

/// Fields that count every result, on all pages.
const TOTAL_FIELDS: &[&str] = &[
    "total",
    "total_results",
    "total_count",
    "total_items",
    "totalResults",
    "totalCount",
    "count",
];

/// The field that is never later than each of the others.
const CREATED: &[&str] = &["created_at", "createdAt", "created", "date_created"];
const CHANGED: &[&str] = &[
    "modified_at",
    "updated_at",
    "modifiedAt",
    "updatedAt",
    "modified",
    "updated",
    "last_modified",
    "date_modified",
];

/// Word pairs of a lower and an upper bound (`min_price`/`max_price`,
/// `start_date`/`end_date`, `temp_min`/`temp_max`, `first_air_date`/`last_air_date`,
/// `birthday`/`deathday`).
const BOUNDS: &[(&str, &str)] = &[
    ("min", "max"),
    ("minimum", "maximum"),
    ("start", "end"),
    ("low", "high"),
    ("lowest", "highest"),
    ("from", "to"),
    ("first", "last"),
    ("birth", "death"),
];

/// Restores the invariants in every object of `value`.
pub(crate) fn restore(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for child in map.values_mut() {
                restore(child);
            }
            totals_cover_items(map);
            created_first(map);
            bounds_in_order(map);
        }
        Value::Array(items) => items.iter_mut().for_each(restore),
        _ => {}
    }
}

/// A total beside a list is at least the list's length.
fn totals_cover_items(map: &mut Map<String, Value>) {
    let shown = map.values().filter_map(Value::as_array).map(Vec::len).max();
    let Some(shown) = shown.and_then(|n| u64::try_from(n).ok()) else {
        return;
    };
    for key in TOTAL_FIELDS {
        if let Some(slot) = map.get_mut(*key)
            && slot.as_u64().is_some_and(|total| total < shown)
        {
            *slot = Value::from(shown);
        }
    }
}

/// `created_at` is not after any `updated_at`/`modified_at`: when it is,
/// the two trade places.
fn created_first(map: &mut Map<String, Value>) {
    let Some(created) = CREATED.iter().find(|k| map.contains_key(**k)) else {
        return;
    };
    for changed in CHANGED {
        order(map, created, changed);
    }
}

/// Each lower bound is not above its upper bound.
fn bounds_in_order(map: &mut Map<String, Value>) {
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in &keys {
        for (lo, hi) in BOUNDS {
            if let Some(upper) = counterpart(key, lo, hi)
                && map.contains_key(&upper)
            {
                order(map, key, &upper);
            }
        }
    }
}

/// The key with the word `lo` replaced by `hi` (`min_price` -> `max_price`,
/// `tempMin` -> `tempMax`), when `key` has `lo` as a whole word, or starts a compound of
/// lowercase letters with it (`birthday` -> `deathday`).
fn counterpart(key: &str, lo: &str, hi: &str) -> Option<String> {
    let lower = key.to_ascii_lowercase();
    let words: Vec<&str> = lower.split('_').collect();
    if let Some(rest) = key
        .strip_prefix(lo)
        .filter(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_lowercase()))
    {
        return Some(format!("{hi}{rest}"));
    }
    if words.len() > 1 && words.contains(&lo) {
        let swapped: Vec<&str> = words
            .iter()
            .map(|w| if *w == lo { hi } else { w })
            .collect();
        return (lower == key).then(|| swapped.join("_"));
    }
    let cap = |w: &str| {
        let mut chars = w.chars();
        chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect::<String>())
            .unwrap_or_default()
    };
    let (lo_cap, hi_cap) = (cap(lo), cap(hi));
    if let Some(stem) = key.strip_suffix(&lo_cap).filter(|s| !s.is_empty()) {
        return Some(format!("{stem}{hi_cap}"));
    }
    let rest = key.strip_prefix(lo)?;
    rest.starts_with(|c: char| c.is_ascii_uppercase())
        .then(|| format!("{hi}{rest}"))
}

/// Swaps the values of `lo` and `hi` when both are numbers or both text of
/// one shape (dates, times) and `lo` is the greater.
fn order(map: &mut Map<String, Value>, lo: &str, hi: &str) {
    let (Some(a), Some(b)) = (map.get(lo), map.get(hi)) else {
        return;
    };
    let reversed = match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x > y,
            _ => false,
        },
        (Value::String(x), Value::String(y)) => same_shape(x, y) && x > y,
        _ => false,
    };
    if reversed {
        let (a, b) = (a.clone(), b.clone());
        map.insert(lo.to_owned(), b);
        map.insert(hi.to_owned(), a);
    }
}

/// Whether two texts have digits in the same places (two dates, two times),
/// so that their order as text is their order in time.
fn same_shape(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.chars().any(|c| c.is_ascii_digit())
        && a.chars()
            .zip(b.chars())
            .all(|(x, y)| x.is_ascii_digit() == y.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn invariants_are_restored_at_every_depth() {
        let mut value = json!({
            "total": 1, "items": [1, 2, 3],
            "file": {"created_at": "2024-05-01T00:00:00Z", "modified_at": "2023-01-01T00:00:00Z"},
            "range": {"min_price": 9.5, "max_price": 2, "tempMin": 30, "tempMax": 10,
                      "start_date": "2020-02-01", "end_date": "2020-01-01"},
            "show": {"first_air_date": "2016-08-22", "last_air_date": "2009-03-01",
                     "first_name": "Zoe", "last_name": "Adams"},
            "person": {"birthday": "1991-05-02", "deathday": "1975-10-30"},
        });
        restore(&mut value);
        assert_eq!(value["total"], 3);
        assert_eq!(value["file"]["created_at"], "2023-01-01T00:00:00Z");
        assert_eq!(value["range"]["min_price"], 2);
        assert_eq!(value["range"]["max_price"], 9.5);
        assert_eq!(value["range"]["tempMin"], 10);
        assert_eq!(value["range"]["start_date"], "2020-01-01");
        assert_eq!(value["show"]["first_air_date"], "2009-03-01");
        assert_eq!(value["show"]["first_name"], "Zoe", "names are no bounds");
        assert_eq!(value["person"]["birthday"], "1975-10-30");
        assert_eq!(value["person"]["deathday"], "1991-05-02");
        // Text of different shapes is left alone.
        let mut odd = json!({"created_at": "yesterday", "updated_at": "2020-01-01"});
        restore(&mut odd);
        assert_eq!(odd["created_at"], "yesterday");
    }
}
