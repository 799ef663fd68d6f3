//! Documented values that are really prose: specs put a parameter's description
//! in its `default` (`per_page` defaulting to "Number of items to return ..."), or
//! a sentence in a field's `example`. Such a value is not an argument nor a draft
//! value. The rule: a documented value is ignored when its JSON type is not one
//! the schema's `type` allows, or when it is a string that reads like a sentence
//! ([`reads_like_sentence`]) where the field is not itself prose ([`PROSE_FIELDS`]).
//!
//! A parameter's default is also no value when it is a placeholder (`YOUR_API_KEY`,
//! `Enter the message id`, `<user>`; [`reads_like_placeholder`]) or when the parameter
//! names one thing (an id, a key, a token: ToolBench's hub shows a sample profile key
//! or message id as its "default"), which no default can stand for in every call.

use serde_json::Value;

use super::idshape;

/// Words from which a string ending in a full stop (or `...`) is a sentence.
const SENTENCE_WORDS: usize = 4;
/// Words from which any string is a sentence, whatever it ends with.
const MANY_WORDS: usize = 8;
/// Fields whose values are prose, where a sentence is a fine example.
const PROSE_FIELDS: &[&str] = &[
    "about",
    "answer",
    "bio",
    "biography",
    "body",
    "caption",
    "comment",
    "content",
    "description",
    "instructions",
    "message",
    "note",
    "notes",
    "overview",
    "plot",
    "question",
    "review",
    "snippet",
    "summary",
    "tagline",
    "text",
];

/// Whether `text` reads like a sentence rather than a value: at least
/// [`SENTENCE_WORDS`] words ending in a full stop, or at least [`MANY_WORDS`] words.
pub(crate) fn reads_like_sentence(text: &str) -> bool {
    let words = text.split_whitespace().count();
    words >= MANY_WORDS || (words >= SENTENCE_WORDS && text.trim_end().ends_with('.'))
}

/// Words that open a placeholder (`Enter the message id`).
const PLACEHOLDER_OPENERS: &[&str] = &["enter", "insert", "type", "put", "add", "replace"];
/// Text that marks a placeholder anywhere in it (`YOUR_API_KEY`, `e.g. 42`).
const PLACEHOLDER_MARKS: &[&str] = &["your", "e.g.", "placeholder", "xxx", "example", "sample"];
/// Name endings of parameters that name one thing, as ids do (`profile_key`, `token`).
const ONE_THING: &[&str] = &["key", "token", "secret", "urn"];

/// Whether a parameter's documented `default` may stand for the argument `name`: its
/// type is one the schema allows, it is neither a sentence nor a placeholder, and the
/// parameter names no one thing (an id, a key).
pub(crate) fn usable_default(name: &str, schema: &Value, value: &Value) -> bool {
    let lower = name.to_ascii_lowercase();
    let one_thing = idshape::names_id(name) || ONE_THING.iter().any(|end| lower.ends_with(end));
    !one_thing
        && allowed_type(schema, value)
        && value
            .as_str()
            .is_none_or(|t| !reads_like_sentence(t) && !reads_like_placeholder(t))
}

/// Whether `text` is a placeholder for a value rather than one: it opens with an
/// instruction (`Enter ...`), holds a marker (`your`, `e.g.`, `xxx`), or is wrapped in
/// angle or curly brackets (`<user_id>`, `{id}`).
pub(crate) fn reads_like_placeholder(text: &str) -> bool {
    let lower = text.trim().to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '.')
        .filter(|w| !w.is_empty())
        .collect();
    let opens = words.len() > 1
        && words
            .first()
            .is_some_and(|w| PLACEHOLDER_OPENERS.contains(w));
    let marked = words
        .iter()
        .any(|w| PLACEHOLDER_MARKS.contains(w) || w.starts_with("xxx"));
    let wrapped = (lower.starts_with('<') && lower.ends_with('>'))
        || (lower.starts_with('{') && lower.ends_with('}'));
    opens || marked || wrapped
}

/// Whether a string `example` of the field `name` may stand as its value: a sentence
/// only in a prose field (`overview`, `description`).
pub(crate) fn usable_example(name: &str, text: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let prose = PROSE_FIELDS
        .iter()
        .any(|p| lower == *p || lower.ends_with(&format!("_{p}")));
    prose || !reads_like_sentence(text)
}

/// The integer range a field's description states when its schema has none ("The value will
/// be between 0 and 100", "from 1 to 5"): Spotify's `popularity` has no `maximum`, and a draw
/// of 751 reads as nonsense to the model that gets it.
pub(crate) fn described_range(schema: &Value) -> Option<(i64, i64)> {
    let bounded = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];
    if bounded.iter().any(|k| schema.get(*k).is_some()) {
        return None;
    }
    let text = schema.get("description")?.as_str()?.to_ascii_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(4).find_map(|w| {
        let pair = matches!((w[0], w[2]), ("between", "and") | ("from", "to"));
        let number = |t: &str| t.trim_end_matches(['.', ';', ':']).parse::<i64>().ok();
        match (pair, number(w[1]), number(w[3])) {
            (true, Some(lo), Some(hi)) if lo < hi => Some((lo, hi)),
            _ => None,
        }
    })
}

/// Whether the JSON type of `value` is one the schema's `type` names (any, when it
/// names none).
fn allowed_type(schema: &Value, value: &Value) -> bool {
    let named: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return true,
    };
    named.iter().any(|t| match *t {
        "integer" => value.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_described_range_bounds_a_field_without_one() {
        let popularity = serde_json::json!({"type": "integer",
            "description": "The popularity of the album. The value will be between 0 and 100, with 100 being the most popular."});
        assert_eq!(described_range(&popularity), Some((0, 100)));
        let stars = serde_json::json!({"description": "A rating from 1 to 5."});
        assert_eq!(described_range(&stars), Some((1, 5)));
        let bounded = serde_json::json!({"maximum": 10, "description": "between 0 and 100"});
        assert_eq!(described_range(&bounded), None);
        let prose = serde_json::json!({"description": "Between the lines and more."});
        assert_eq!(described_range(&prose), None);
    }
    use serde_json::json;

    #[test]
    fn a_description_is_no_default_and_a_value_is() {
        let int = json!({"type": "integer"});
        let text = json!({"type": "string"});
        assert!(!usable_default(
            "per_page",
            &int,
            &json!("Number of items to return ...")
        ));
        assert!(!usable_default("per_page", &int, &json!("20")));
        assert!(usable_default("per_page", &int, &json!(20)));
        assert!(usable_default("sort_by", &text, &json!("popularity.desc")));
        assert!(usable_default("query", &text, &json!("The Dark Knight")));
        assert!(!usable_default(
            "sort",
            &text,
            &json!("The order of the results, by date.")
        ));
        // A placeholder, and a sample of one thing, are no defaults either.
        for (name, sample) in [
            ("message_id", "Message to delete"),
            ("message_id", "1700000000.123"),
            ("profile_key", "ACoAAB2Fz9kB"),
            ("userId", "44196397"),
            ("api_key", "YOUR_API_KEY"),
            ("user", "<username>"),
            ("query", "Enter a search term"),
            ("email", "e.g. ada@example.com"),
        ] {
            assert!(
                !usable_default(name, &text, &json!(sample)),
                "{name}: {sample}"
            );
        }
        for (name, value) in [("market", "US"), ("type", "track"), ("add_on", "none")] {
            assert!(
                usable_default(name, &text, &json!(value)),
                "{name}: {value}"
            );
        }
        assert!(usable_example(
            "overview",
            "A thief who steals secrets through dreams."
        ));
        assert!(!usable_example(
            "language",
            "The language the film was made in."
        ));
    }
}
