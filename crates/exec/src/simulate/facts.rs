//! The session's facts as a fill prompt tells them, within a share of its budget of their
//! own ([`SHARE`] of `max_prompt_chars`): they come most relevant first (see
//! `Session::recalled`: the call's own ids, then the entities it names by text or those the
//! agent holds, then the rest, the ids entities referred to among it),
//! a long text among them (a write's description, a long name) is shortened and says so,
//! and those past the share are left out, the last first. The draft has the rest of the
//! budget, so the facts never crowd it out.

use serde_json::Value;

use crate::canonical::canonical_json;

/// The facts take at most this part of the prompt budget (a quarter).
const SHARE: usize = 4;
/// Characters a fact's line takes besides its JSON (`- ` and the line's end).
const LINE: usize = 3;
/// Most characters of a text in a fact; a longer one is cut there and marked.
const MAX_TEXT_CHARS: usize = 160;
/// What ends a text cut short in a fact, so the model takes it for no whole value.
const CUT_MARK: &str = " [cut short here]";

/// `facts` (most relevant first) within their share of `max_prompt_chars`: long texts
/// shortened, then each fact kept while it fits, in order.
pub(crate) fn within(facts: Vec<Value>, max_prompt_chars: usize) -> Vec<Value> {
    let share = max_prompt_chars / SHARE;
    let mut used = 0;
    facts
        .into_iter()
        .map(|mut fact| {
            shorten_texts(&mut fact);
            fact
        })
        .filter(|fact| {
            let chars = canonical_json(fact).len() + LINE;
            let fits = used + chars <= share;
            if fits {
                used += chars;
            }
            fits
        })
        .collect()
}

/// Every text in `value` longer than [`MAX_TEXT_CHARS`] cut there, with [`CUT_MARK`].
fn shorten_texts(value: &mut Value) {
    match value {
        Value::String(text) if text.chars().count() > MAX_TEXT_CHARS => {
            let kept: String = text.chars().take(MAX_TEXT_CHARS).collect();
            *text = format!("{}{CUT_MARK}", kept.trim_end());
        }
        Value::Array(items) => items.iter_mut().for_each(shorten_texts),
        Value::Object(map) => map.values_mut().for_each(shorten_texts),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The first facts stay whole and in order; a long text is cut and marked; what is
    /// past the share is left out.
    #[test]
    fn facts_keep_to_their_share_most_relevant_first() {
        let long = "word ".repeat(200);
        let mut facts = vec![json!({"id": 1, "title": "Own film"})];
        facts.extend((0..40).map(|i| json!({"id": 100 + i, "title": format!("Held {i}")})));
        facts.push(json!({"done": "POST /list", "arguments": {"description": long}}));
        let kept = within(facts, 4_000);
        assert_eq!(kept[0], json!({"id": 1, "title": "Own film"}));
        assert_eq!(kept[1]["title"], "Held 0");
        let chars: usize = kept.iter().map(|f| canonical_json(f).len() + LINE).sum();
        assert!(chars <= 1_000, "{chars}");
        assert!(kept.len() < 42, "{}", kept.len());

        let write = json!({"done": "POST /list", "arguments": {"description": long}});
        let [cut] = within(vec![write], 24_000)
            .try_into()
            .unwrap_or_else(|v| panic!("{v:?}"));
        let text = cut["arguments"]["description"].as_str().unwrap_or_default();
        assert!(text.ends_with(CUT_MARK) && text.len() < 200, "{text}");
    }
}
