//! The items of a draft's list of plain values (numbers, texts): drawn from those the
//! tool's examples list under the same field, and, for a list of the ids of a kind
//! (`genre_ids`), from the ids the examples give things of that kind too (the genre list's
//! `{"id": 18, "name": "Drama"}`). Drawn one by one at random, a film's genres were ids no
//! genre has (`[765, 355, 740]`), a show's run time `[435]`, and its countries one code
//! repeated (`["US", "US", "US"]`). A list holds each value once, and no more items than
//! the longest such list of the examples. Only an example's items that state no fact of
//! their own are drawn (numbers, codes, kinds: see `neutral`): a person's other names
//! (`also_known_as`) are the example person's, not anyone's.

use std::collections::HashMap;

use serde_json::Value;

use super::neutral::states_no_fact;
use super::request::singular;
use super::rng::Rng;

/// Most values kept per field.
const MAX_VALUES: usize = 64;

/// The items the examples list under each field name.
#[derive(Clone, Debug, Default)]
pub(crate) struct Listed(HashMap<String, Items>);

/// The items the examples list under one field, each once, and the length of their
/// longest list.
#[derive(Clone, Debug, Default)]
struct Items {
    values: Vec<Value>,
    longest: usize,
}

impl Listed {
    /// Adds the items of a list of plain values an example shows under `field`, those
    /// that state no fact of their own.
    pub(crate) fn add(&mut self, field: &str, items: &[Value]) {
        let vocabulary = |v: &Value| {
            v.is_number()
                || v.as_str()
                    .is_some_and(|t| !t.is_empty() && states_no_fact(t))
        };
        if items.is_empty() || !items.iter().all(vocabulary) {
            return;
        }
        let slot = self.0.entry(field.to_owned()).or_default();
        slot.longest = slot.longest.max(items.len());
        for item in items {
            if slot.values.len() < MAX_VALUES && !slot.values.contains(item) {
                slot.values.push(item.clone());
            }
        }
    }

    /// The items the examples list under `field`, and the length of their longest list.
    pub(crate) fn of(&self, field: &str) -> (&[Value], Option<usize>) {
        match self.0.get(field) {
            Some(items) => (&items.values, Some(items.longest)),
            None => (&[], None),
        }
    }
}

/// The kind of thing whose ids a list's field names (`genre_ids`, `genreIds`: genre).
pub(crate) fn kind_of_ids(field: &str) -> Option<String> {
    let stem = field
        .strip_suffix("_ids")
        .or_else(|| field.strip_suffix("Ids"))
        .filter(|s| !s.is_empty())?;
    let last = stem.rsplit('_').next().unwrap_or(stem);
    Some(singular(&last.to_ascii_lowercase()))
}

/// `count` of `choices`, none twice, in an order drawn from `rng` (fewer when there are
/// fewer choices).
pub(crate) fn draw(choices: &[&Value], count: usize, rng: &mut Rng) -> Vec<Value> {
    let mut left: Vec<&Value> = choices.to_vec();
    let mut out = Vec::with_capacity(count.min(left.len()));
    while out.len() < count && !left.is_empty() {
        let pick = left.swap_remove(rng.index(left.len()));
        out.push(pick.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_name_their_kind_and_draws_repeat_nothing() {
        assert_eq!(kind_of_ids("genre_ids").as_deref(), Some("genre"));
        assert_eq!(kind_of_ids("with_genre_ids").as_deref(), Some("genre"));
        assert_eq!(kind_of_ids("countryIds").as_deref(), Some("country"));
        assert_eq!(kind_of_ids("ids"), None);
        assert_eq!(kind_of_ids("origin_country"), None);
        let mut listed = Listed::default();
        listed.add("origin_country", &[json!("US")]);
        listed.add("origin_country", &[json!("GB"), json!("US")]);
        listed.add("seasons", &[json!({"id": 1})]);
        listed.add("also_known_as", &[json!("Buratto Pitto"), json!("bp")]);
        assert_eq!(listed.of("also_known_as"), (&[][..], None), "a name");
        let (values, longest) = listed.of("origin_country");
        assert_eq!(values, [json!("US"), json!("GB")]);
        assert_eq!(longest, Some(2));
        assert_eq!(listed.of("seasons"), (&[][..], None));
        let choices: Vec<&Value> = values.iter().collect();
        for seed in 0..8 {
            let drawn = draw(&choices, 5, &mut Rng::new(seed));
            assert_eq!(drawn.len(), 2);
            assert_ne!(drawn[0], drawn[1]);
        }
    }
}
