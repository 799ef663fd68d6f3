//! What a compacted view left out of the whole: the items its lists left out, the fields its
//! objects left out, the texts it shortened, or the whole text cut short (the last resort). An
//! agent told a view was cut learns from this what reading the whole would add.

use std::fmt;

use serde_json::Value;

use super::least::{ELLIPSIS, is_note};

/// How many of the fields left out [`LeftOut`]'s text names; it counts the rest.
const NAMED_FIELDS: usize = 5;

/// What a compacted view left out of the whole (see [`left_out`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// Items that the view's lists left out, over all lists.
    pub items: usize,
    /// The names of the fields some shown object left out, each once, in the order met.
    pub fields: Vec<String>,
    /// Strings the view shortened (they end in `…`).
    pub texts: usize,
    /// The view is the whole text cut short, no longer its JSON.
    pub cut_short: bool,
}

impl LeftOut {
    /// Whether the view left nothing out: it is the whole, maybe written more tightly.
    pub fn is_nothing(&self) -> bool {
        self.items == 0 && self.fields.is_empty() && self.texts == 0 && !self.cut_short
    }
}

/// One clause per kind of cut, joined by `; `: "12 items left out; fields left out: overview,
/// poster_path and 2 more; 3 texts shortened (they end in …)". Empty when nothing was.
impl fmt::Display for LeftOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut clauses = Vec::new();
        if self.cut_short {
            clauses.push("the text was cut short".to_owned());
        }
        if self.items > 0 {
            clauses.push(format!(
                "{} {} left out",
                self.items,
                plural(self.items, "item")
            ));
        }
        if !self.fields.is_empty() {
            let rest = self.fields.len().saturating_sub(NAMED_FIELDS);
            let list = match self.fields.split_last() {
                _ if rest > 0 => {
                    let named = self.fields.get(..NAMED_FIELDS).unwrap_or_default();
                    format!("{} and {rest} more", named.join(", "))
                }
                Some((last, named)) if !named.is_empty() => {
                    format!("{} and {last}", named.join(", "))
                }
                _ => self.fields.join(", "),
            };
            clauses.push(format!("fields left out: {list}"));
        }
        if self.texts > 0 {
            clauses.push(format!(
                "{} {} shortened (ending in {ELLIPSIS})",
                self.texts,
                plural(self.texts, "text")
            ));
        }
        f.write_str(&clauses.join("; "))
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

/// What `shown` (a compacted view of `whole`, as `compact_text` gives it) left out of it. A
/// whole that is JSON and a view that is no longer the same kind of JSON value (the last
/// resort: the text cut, as one string) is [`LeftOut::cut_short`]; so is any shorter view of
/// a whole that is no JSON.
pub fn left_out(whole: &str, shown: &str) -> LeftOut {
    let mut out = LeftOut::default();
    match (
        serde_json::from_str::<Value>(whole),
        serde_json::from_str::<Value>(shown),
    ) {
        (Ok(whole), Ok(shown)) if same_kind(&whole, &shown) => {
            compare(&whole, &shown, &mut out);
        }
        (Ok(_), _) => out.cut_short = true,
        (Err(_), _) => out.cut_short = whole != shown,
    }
    out
}

/// Whether two values are both objects, both lists, or both something else.
fn same_kind(a: &Value, b: &Value) -> bool {
    a.is_object() == b.is_object() && a.is_array() == b.is_array()
}

/// Adds what `shown` left out of `whole` to `out`, matching objects by key and lists by
/// position (a list's note of items left out aside).
fn compare(whole: &Value, shown: &Value, out: &mut LeftOut) {
    match (whole, shown) {
        (Value::Object(whole), Value::Object(shown)) => {
            for (name, value) in whole {
                match shown.get(name) {
                    Some(kept) => compare(value, kept, out),
                    None if !out.fields.contains(name) => out.fields.push(name.clone()),
                    None => {}
                }
            }
        }
        (Value::Array(whole), Value::Array(shown)) => {
            let kept: Vec<&Value> = shown.iter().filter(|v| !is_note(v)).collect();
            out.items += whole.len().saturating_sub(kept.len());
            for (value, kept) in whole.iter().zip(kept) {
                compare(value, kept, out);
            }
        }
        (Value::String(whole), Value::String(shown)) if whole != shown => out.texts += 1,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn of(whole: &Value, shown: &Value) -> LeftOut {
        left_out(&whole.to_string(), &shown.to_string())
    }

    #[test]
    fn items_left_out_are_counted_over_every_list() {
        let whole = json!({"results": [{"id": 1}, {"id": 2}, {"id": 3}], "tags": ["a", "b"]});
        let shown = json!({"results": [{"id": 1}, "… 2 more items left out"], "tags": ["a"]});
        let cut = of(&whole, &shown);
        assert_eq!(cut.items, 3);
        assert!(cut.fields.is_empty() && cut.texts == 0 && !cut.cut_short);
        assert_eq!(cut.to_string(), "3 items left out");
    }

    #[test]
    fn fields_left_out_are_named_once_up_to_five() {
        let item = json!({"id": 1, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7});
        let whole = json!({"results": [item, item]});
        let shown = json!({"results": [{"id": 1, "a": 1}, {"id": 1, "a": 1}]});
        let cut = of(&whole, &shown);
        assert_eq!(cut.fields, ["b", "c", "d", "e", "f", "g"]);
        assert_eq!(cut.items, 0);
        assert_eq!(cut.to_string(), "fields left out: b, c, d, e, f and 1 more");
        let shown = json!({"results": [{"id": 1, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5}, item]});
        assert_eq!(of(&whole, &shown).to_string(), "fields left out: f and g");
        let shown = json!({"results": [{"id": 1, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6},
                                       item]});
        assert_eq!(of(&whole, &shown).to_string(), "fields left out: g");
    }

    #[test]
    fn shortened_texts_and_a_cut_text_are_told_apart() {
        let whole = json!({"id": 1, "overview": "a long story ".repeat(20)});
        let shown = json!({"id": 1, "overview": "a long story a long…"});
        let cut = of(&whole, &shown);
        assert_eq!(cut.texts, 1);
        assert_eq!(cut.to_string(), "1 text shortened (ending in …)");
        let last_resort = Value::String("{\"id\": 1, \"overview\": \"a lo…".to_owned());
        let cut = of(&whole, &last_resort);
        assert!(cut.cut_short && cut.texts == 0);
        assert_eq!(cut.to_string(), "the text was cut short");
        assert!(left_out("plain words", "plain…").cut_short);
    }

    #[test]
    fn a_view_that_is_the_whole_written_tightly_left_out_nothing() {
        let whole = "{\n  \"id\": 1,\n  \"tags\": [\"a\", \"b\"]\n}";
        let cut = left_out(whole, "{\"id\":1,\"tags\":[\"a\",\"b\"]}");
        assert!(cut.is_nothing(), "{cut:?}");
        assert_eq!(cut.to_string(), "");
    }
}
