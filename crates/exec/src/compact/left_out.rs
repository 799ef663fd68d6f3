//! What a compacted view left out of the whole: the items its lists left out, the fields its
//! objects left out, the texts it shortened, or the whole text cut short (the last resort). An
//! agent told a view was cut learns from this what reading the whole would add.
//!
//! A field is named alone only where the view shows no field of that name anywhere: an agent
//! that sees `id` in every shown item must not be told `id` was left out because a nested
//! album left out its own. Else it is named by where it was left out: its path from the top,
//! a list's items written `[]` where every shown item left it out, and by their positions
//! where only some did (`results[3..].overview`: from the fourth shown item on).

use std::collections::BTreeSet;
use std::fmt;

use serde_json::Value;

use super::fields::says_nothing;
use super::least::{ELLIPSIS, is_note};

/// How many of the fields left out [`LeftOut`]'s text names; it counts the rest.
const NAMED_FIELDS: usize = 5;

/// What a compacted view left out of the whole (see [`left_out`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LeftOut {
    /// Items that the view's lists left out, over all lists.
    pub items: usize,
    /// The fields some shown object left out, each once, in the order met: a field's name
    /// where the view shows no field of that name, else the path where it was left out
    /// (`items[].album.id`, `results[3..].overview`; see the module doc).
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
    match (
        serde_json::from_str::<Value>(whole),
        serde_json::from_str::<Value>(shown),
    ) {
        (Ok(whole), Ok(shown)) => left_out_of(&whole, &shown),
        (Err(_), _) => LeftOut {
            cut_short: whole != shown,
            ..LeftOut::default()
        },
        (Ok(_), Err(_)) => LeftOut {
            cut_short: true,
            ..LeftOut::default()
        },
    }
}

/// How many items of lists of objects `shown` (a view of `whole`) left out, those of a list
/// it left out whole too: entities, not the codes of a list of scalars.
pub(crate) fn objects_left_out(whole: &Value, shown: &Value) -> usize {
    let mut walk = Walk::default();
    if same_kind(whole, shown) {
        walk.compare(whole, shown, &mut Vec::new());
    }
    walk.objects
}

/// [`left_out`] of parsed values.
fn left_out_of(whole: &Value, shown: &Value) -> LeftOut {
    if !same_kind(whole, shown) {
        return LeftOut {
            cut_short: true,
            ..LeftOut::default()
        };
    }
    let mut walk = Walk::default();
    walk.compare(whole, shown, &mut Vec::new());
    LeftOut {
        items: walk.items,
        fields: walk.named(),
        texts: walk.texts,
        cut_short: false,
    }
}

/// The items of `value` if it is a list of objects.
fn objects_in(value: &Value) -> usize {
    match value {
        Value::Array(items) if items.iter().any(Value::is_object) => items.len(),
        _ => 0,
    }
}

/// Whether two values are both objects, both lists, or both something else.
fn same_kind(a: &Value, b: &Value) -> bool {
    a.is_object() == b.is_object() && a.is_array() == b.is_array()
}

/// One step from the top of a value to a field: an object's key or a list's item.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Item(usize),
}

/// What a walk of a whole and its view found.
#[derive(Default)]
struct Walk {
    items: usize,
    /// Of `items`, those that are objects.
    objects: usize,
    texts: usize,
    /// Names of the fields the view shows, anywhere.
    seen: BTreeSet<String>,
    /// Paths of the fields shown objects left out, in the order met.
    missing: Vec<Vec<Step>>,
    /// Paths of the fields shown objects show.
    shown: Vec<Vec<Step>>,
}

impl Walk {
    /// Adds what `shown` left out of `whole` (both at `path`), matching objects by key and
    /// lists by position (a list's note of items left out aside).
    fn compare(&mut self, whole: &Value, shown: &Value, path: &mut Vec<Step>) {
        match (whole, shown) {
            (Value::Object(whole), Value::Object(shown)) => {
                for (name, value) in whole {
                    path.push(Step::Key(name.clone()));
                    match shown.get(name) {
                        Some(kept) => {
                            self.seen.insert(name.clone());
                            self.shown.push(path.clone());
                            self.compare(value, kept, path);
                        }
                        // A null or an empty value says nothing: leaving it out is not news.
                        None if says_nothing(value) => {}
                        None => {
                            self.objects += objects_in(value);
                            self.missing.push(path.clone());
                        }
                    }
                    path.pop();
                }
            }
            (Value::Array(whole), Value::Array(shown)) => {
                let kept: Vec<&Value> = shown.iter().filter(|v| !is_note(v)).collect();
                let left = whole.len().saturating_sub(kept.len());
                self.items += left;
                if whole.iter().any(Value::is_object) {
                    self.objects += left;
                }
                for (i, (value, kept)) in whole.iter().zip(kept).enumerate() {
                    path.push(Step::Item(i));
                    self.compare(value, kept, path);
                    path.pop();
                }
            }
            (Value::String(whole), Value::String(shown)) if whole != shown => self.texts += 1,
            _ => {}
        }
    }

    /// The fields left out, each once in the order met: by name where the view shows no
    /// field of that name, else by where.
    fn named(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut done: Vec<Vec<Pattern>> = Vec::new();
        for path in &self.missing {
            let Some(Step::Key(name)) = path.last() else {
                continue;
            };
            let text = if self.seen.contains(name) {
                let pattern = abstracted(path);
                if done.contains(&pattern) {
                    continue;
                }
                let text = self.located(&pattern);
                done.push(pattern);
                text
            } else {
                name.clone()
            };
            if !out.contains(&text) {
                out.push(text);
            }
        }
        out
    }

    /// Where the fields at `pattern` were left out: the pattern, each list written by the
    /// positions of the items that left the field out (`[]` for all of those that have it);
    /// the first such paths themselves where that would take in a shown one.
    fn located(&self, pattern: &[Pattern]) -> String {
        let missing: Vec<&Vec<Step>> = self
            .missing
            .iter()
            .filter(|p| abstracted(p) == pattern)
            .collect();
        let shown: Vec<&Vec<Step>> = self
            .shown
            .iter()
            .filter(|p| abstracted(p) == pattern)
            .collect();
        let levels: Vec<Positions> = (0..lists_in(pattern))
            .map(|level| Positions::at(level, &missing, &shown))
            .collect();
        if shown.iter().any(|p| levels_take(&levels, p)) {
            let mut concrete: Vec<String> = missing
                .iter()
                .take(CONCRETE_PATHS)
                .map(|p| written(p))
                .collect();
            if missing.len() > CONCRETE_PATHS {
                concrete.push("…".to_owned());
            }
            return concrete.join(", ");
        }
        let mut text = String::new();
        let mut level = 0;
        for step in pattern {
            match step {
                Pattern::Key(key) => {
                    if !text.is_empty() {
                        text.push('.');
                    }
                    text.push_str(key);
                }
                Pattern::Each => {
                    text.push_str(
                        &levels
                            .get(level)
                            .map(Positions::written)
                            .unwrap_or_default(),
                    );
                    level += 1;
                }
            }
        }
        text
    }
}

/// A step of a path with its list positions left out.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pattern {
    Key(String),
    Each,
}

/// Paths written one by one, at most, where a pattern would take in a shown field.
const CONCRETE_PATHS: usize = 2;

/// Runs of positions written, at most, before `…`.
const POSITION_RUNS: usize = 3;

fn abstracted(path: &[Step]) -> Vec<Pattern> {
    path.iter()
        .map(|step| match step {
            Step::Key(key) => Pattern::Key(key.clone()),
            Step::Item(_) => Pattern::Each,
        })
        .collect()
}

fn lists_in(pattern: &[Pattern]) -> usize {
    pattern.iter().filter(|p| **p == Pattern::Each).count()
}

/// The list positions of `path`, outermost first.
fn positions(path: &[Step]) -> impl Iterator<Item = usize> + '_ {
    path.iter().filter_map(|step| match step {
        Step::Item(i) => Some(*i),
        Step::Key(_) => None,
    })
}

/// Whether the positions of `path` are within `levels` at every list.
fn levels_take(levels: &[Positions], path: &[Step]) -> bool {
    positions(path)
        .zip(levels)
        .all(|(i, level)| level.all || level.left.contains(&i))
}

/// `path` written out: `results[3].overview`.
fn written(path: &[Step]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Step::Item(i) => text.push_str(&format!("[{i}]")),
        }
    }
    text
}

/// The positions, at one list of a pattern, of the items that left a field out.
struct Positions {
    /// Every item there that has the field left it out.
    all: bool,
    left: BTreeSet<usize>,
    last: usize,
}

impl Positions {
    fn at(level: usize, missing: &[&Vec<Step>], shown: &[&Vec<Step>]) -> Self {
        let nth = |p: &&Vec<Step>| positions(p).nth(level);
        let left: BTreeSet<usize> = missing.iter().filter_map(nth).collect();
        let kept: BTreeSet<usize> = shown.iter().filter_map(nth).collect();
        let last = left.iter().chain(&kept).max().copied().unwrap_or(0);
        Self {
            all: kept.is_subset(&left),
            left,
            last,
        }
    }

    /// `[]` for all; else the runs of positions (`[3..]` to the last item that has the field,
    /// `[1..2]`, `[0,4]`).
    fn written(&self) -> String {
        if self.all {
            return "[]".to_owned();
        }
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for &i in &self.left {
            match runs.last_mut() {
                Some((_, end)) if *end + 1 == i => *end = i,
                _ => runs.push((i, i)),
            }
        }
        let mut parts: Vec<String> = runs
            .iter()
            .take(POSITION_RUNS)
            .map(|&(start, end)| match (start, end) {
                _ if end == self.last && end > start => format!("{start}.."),
                _ if start == end => start.to_string(),
                _ => format!("{start}..{end}"),
            })
            .collect();
        if runs.len() > POSITION_RUNS {
            parts.push("…".to_owned());
        }
        format!("[{}]", parts.join(","))
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
        // The second item shows them: the first is where they were left out.
        assert_eq!(
            of(&whole, &shown).to_string(),
            "fields left out: results[0].f and results[0].g"
        );
        let shown = json!({"results": [{"id": 1, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6},
                                       {"id": 1}]});
        assert_eq!(
            of(&whole, &shown).to_string(),
            "fields left out: g, results[1].a, results[1].b, results[1].c, results[1].d and \
             2 more"
        );
    }

    #[test]
    fn a_field_shown_elsewhere_is_named_by_where_it_was_left_out() {
        // Shown in the first three items, left out from the fourth on.
        let items: Vec<Value> = (0..6)
            .map(|i| json!({"id": i, "overview": format!("story {i}")}))
            .collect();
        let whole = json!({"results": items});
        let shown: Vec<Value> = (0..6)
            .map(|i| match i {
                0..3 => json!({"id": i, "overview": format!("story {i}")}),
                _ => json!({"id": i}),
            })
            .collect();
        let cut = of(&whole, &json!({"results": shown}));
        assert_eq!(cut.fields, ["results[3..].overview"]);
        // An item's `id` is shown, its album's left out in every shown item (and the track's
        // `name`, which its album shows); the album's `href` is nowhere in the view: its name
        // alone says so.
        let track = |i: usize| {
            json!({"id": format!("t{i}"), "name": "Song",
                   "album": {"id": format!("a{i}"), "name": "Album", "href": "https://x/a"}})
        };
        let whole = json!({"items": [track(0), track(1), track(2)]});
        let shown = json!({"items": [{"id": "t0", "album": {"name": "Album"}},
                                     {"id": "t1", "album": {"name": "Album"}},
                                     "… 1 more items left out"]});
        let cut = of(&whole, &shown);
        assert_eq!(cut.items, 1);
        assert_eq!(cut.fields, ["items[].name", "items[].album.id", "href"]);
        assert_eq!(
            cut.to_string(),
            "1 item left out; fields left out: items[].name, items[].album.id and href"
        );
        // Left out in the first and last of four, shown between.
        let whole = json!({"r": [{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}]});
        let shown = json!({"r": [{}, {"a": 2}, {"a": 3}, {}]});
        assert_eq!(of(&whole, &shown).fields, ["r[0,3].a"]);
    }

    #[test]
    fn a_pattern_that_would_take_in_a_shown_field_gives_the_paths_themselves() {
        let whole = json!({"r": [{"s": [{"a": 1}, {"a": 2}]}, {"s": [{"a": 3}, {"a": 4}]}]});
        let shown = json!({"r": [{"s": [{"a": 1}, {}]}, {"s": [{}, {"a": 4}]}]});
        assert_eq!(of(&whole, &shown).fields, ["r[0].s[1].a, r[1].s[0].a"]);
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
