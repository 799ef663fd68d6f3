//! Values a simulator or a model invented are no evidence about an API (issue 31). Which
//! observations are invented, what a prompt is shown of one under [`InventedValues`], and a
//! deterministic post-check: the literals of an invented response that a rewritten doc quotes
//! although neither the original doc nor the spec has them are flagged in the round, and
//! (except under `trust`) the sentences holding them are removed.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_exec::{Body, Observation, Provenance};

/// Shortest string value taken for a literal, in characters.
const MIN_STRING_CHARS: usize = 4;
/// Fewest digits of a number taken for a literal.
const MIN_NUMBER_DIGITS: usize = 3;
/// Abbreviations a sentence does not end after.
const ABBREVIATIONS: &[&str] = &["e.g.", "i.e.", "etc.", "vs.", "approx."];

/// A literal of a rewritten doc that only an invented response held (neither the original
/// doc, the spec nor the request had it): flagged, and its sentence removed unless
/// `[refine] invented_values = "trust"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InventedQuote {
    /// The value quoted.
    pub value: String,
    /// The sentence holding it.
    pub sentence: String,
    /// Whether the sentence was removed from the doc.
    pub removed: bool,
}

/// What a refiner may learn from a response the simulator or a model invented
/// (`[refine] invented_values`). Live and replayed responses are evidence under every rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InventedValues {
    /// The prompt marks the response as invented (its fields and types are evidence, its
    /// values, counts and records are not), and a rewritten sentence quoting a value found
    /// only in it is removed.
    #[default]
    ShapeOnly,
    /// The prompt shows only the response's skeleton (every value replaced by its type, one
    /// item per array), and a quoting sentence is removed as under `shape_only`.
    Exclude,
    /// Every response is evidence (the behaviour before issue 31): no mark, nothing removed;
    /// quotes are still flagged in the round.
    Trust,
}

impl InventedValues {
    /// The setting's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ShapeOnly => "shape_only",
            Self::Exclude => "exclude",
            Self::Trust => "trust",
        }
    }
}

/// Whether a response of this provenance was made up rather than returned by the API.
pub(crate) fn is_invented(provenance: Provenance) -> bool {
    matches!(provenance, Provenance::Simulated | Provenance::SimulatedLlm)
}

/// How a prompt presents one response: its text and, when it is to be read as invented,
/// where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Shown {
    /// The body as the model reads it (the skeleton under `exclude`).
    pub text: String,
    /// `""` for evidence; `spec` (built from the schema) or `llm` (written by a model) for an
    /// invented response the prompt marks.
    pub invented: &'static str,
    /// Whether the values were replaced by their types.
    pub skeleton: bool,
    /// Whether the invented body is only an error or a bare status message (an example
    /// captured with the catalog): no evidence of what the API returns.
    pub status_only: bool,
}

/// What the prompt shows of `obs` under `rule`.
pub(crate) fn show(obs: &Observation, rule: InventedValues) -> Shown {
    let marked = rule != InventedValues::Trust && is_invented(obs.provenance);
    let skeleton = marked && rule == InventedValues::Exclude;
    let text = if skeleton {
        skeleton_of(&obs.body)
    } else {
        obs.body.to_text()
    };
    let invented = match obs.provenance {
        _ if !marked => "",
        Provenance::SimulatedLlm => "llm",
        _ => "spec",
    };
    Shown {
        text,
        invented,
        skeleton,
        status_only: marked && crate::status_body::is_status_only(&obs.body),
    }
}

/// The body with every value replaced by its type name and each array cut to its first item.
fn skeleton_of(body: &Body) -> String {
    fn walk(v: &Value) -> Value {
        match v {
            Value::Null => Value::Null,
            Value::Bool(_) => Value::String("<boolean>".into()),
            Value::Number(n) if n.is_f64() => Value::String("<number>".into()),
            Value::Number(_) => Value::String("<integer>".into()),
            Value::String(_) => Value::String("<string>".into()),
            Value::Array(items) => Value::Array(items.first().map(walk).into_iter().collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), walk(v))).collect())
            }
        }
    }
    match body {
        Body::Empty => String::new(),
        Body::Json(v) => walk(v).to_string(),
        Body::Text(t) => match serde_json::from_str::<Value>(t) {
            Ok(v) => walk(&v).to_string(),
            Err(_) => format!("<text of {} characters>", t.chars().count()),
        },
    }
}

/// The literal values of an invented response: every string value of at least 4 characters
/// (a single lowercase word excepted: status words such as `success` are also prose) and every
/// number with at least 3 digits; of a text body, only its numbers. Empty for evidence.
pub(crate) fn literals(obs: &Observation) -> Vec<String> {
    if !is_invented(obs.provenance) {
        return Vec::new();
    }
    let mut out = Vec::new();
    match &obs.body {
        Body::Empty => {}
        Body::Json(v) => json_literals(v, &mut out),
        Body::Text(t) => match serde_json::from_str::<Value>(t) {
            Ok(v) => json_literals(&v, &mut out),
            Err(_) => out.extend(
                t.split(|c: char| !c.is_ascii_digit())
                    .filter(|d| d.len() >= MIN_NUMBER_DIGITS)
                    .map(str::to_owned),
            ),
        },
    }
    out.sort();
    out.dedup();
    out
}

fn json_literals(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => {
            let s = s.trim();
            let plain_word = s.chars().all(|c| c.is_ascii_lowercase());
            if s.chars().count() >= MIN_STRING_CHARS && !plain_word {
                out.push(s.to_owned());
            }
        }
        Value::Number(n) => {
            let text = n.to_string();
            if text.chars().filter(char::is_ascii_digit).count() >= MIN_NUMBER_DIGITS {
                out.push(text);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| json_literals(i, out)),
        Value::Object(map) => map.values().for_each(|i| json_literals(i, out)),
        Value::Bool(_) | Value::Null => {}
    }
}

/// Checks a rewritten `doc` against the `literals` of an invented response: each literal it
/// quotes that `known` (the original doc, the spec, the request and arguments the model
/// chose) lacks is flagged with its sentence. Under `shape_only` and `exclude` those
/// sentences are removed; under `trust` the doc is returned unchanged.
pub(crate) fn check(
    doc: &str,
    literals: &[String],
    known: &str,
    rule: InventedValues,
) -> (String, Vec<InventedQuote>) {
    let known = known.to_lowercase();
    let foreign: Vec<&String> = literals
        .iter()
        .filter(|l| !contains_literal(&known, &l.to_lowercase()))
        .collect();
    let remove = rule != InventedValues::Trust;
    let mut quotes = Vec::new();
    let mut lines = Vec::new();
    for line in doc.lines() {
        let mut kept = Vec::new();
        for sentence in sentences(line) {
            let lower = sentence.to_lowercase();
            let hits: Vec<&&String> = foreign
                .iter()
                .filter(|l| contains_literal(&lower, &l.to_lowercase()))
                .collect();
            quotes.extend(hits.iter().map(|l| InventedQuote {
                value: (**l).clone(),
                sentence: sentence.to_owned(),
                removed: remove,
            }));
            if hits.is_empty() || !remove {
                kept.push(sentence);
            }
        }
        if !kept.is_empty() || line.trim().is_empty() {
            lines.push(kept.join(" "));
        }
    }
    if quotes.is_empty() || !remove {
        return (doc.to_owned(), quotes);
    }
    (lines.join("\n").trim().to_owned(), quotes)
}

/// Whether `needle` occurs in `haystack` (both lowercased) as a whole token: no letter or
/// digit right before or after it.
fn contains_literal(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let bounded = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    haystack.match_indices(needle).any(|(at, _)| {
        bounded(haystack[..at].chars().next_back())
            && bounded(haystack[at + needle.len()..].chars().next())
    })
}

/// The sentences of one line, cut after `.`, `!` or `?` followed by whitespace (not after
/// `e.g.` and the like), each trimmed.
fn sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = i + c.len_utf8();
        let at_break = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        if matches!(c, '.' | '!' | '?') && at_break {
            let piece = &line[start..end];
            let lower = piece.to_lowercase();
            if !ABBREVIATIONS.iter().any(|a| lower.ends_with(a)) {
                out.push(piece.trim());
                start = end;
            }
        }
    }
    out.push(line[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn simulated(body: Value) -> Observation {
        Observation::ok_json(body, Provenance::SimulatedLlm)
    }

    #[test]
    fn literals_are_long_strings_and_numbers_of_invented_responses_only() {
        let body = json!({"results": [{"id": 27205, "title": "Inception", "rank": 7,
            "status": "released", "overview": "A thief"}], "page": 1.25});
        assert_eq!(
            literals(&simulated(body.clone())),
            vec!["1.25", "27205", "A thief", "Inception"]
        );
        assert!(literals(&Observation::ok_json(body, Provenance::Live)).is_empty());
        let text = Observation {
            body: Body::Text("no movie 7 or 1234".into()),
            ..simulated(Value::Null)
        };
        assert_eq!(literals(&text), vec!["1234"]);
    }

    #[test]
    fn a_sentence_quoting_an_unknown_literal_is_flagged_and_removed_except_under_trust() {
        let doc = "Finds films by title, e.g. \"Inception\" (id 27205). Results hold ids and titles.\nPaged.";
        let lits = vec![
            "27205".to_owned(),
            "Inception".to_owned(),
            "Dune".to_owned(),
        ];
        let (clean, quotes) = check(doc, &lits, "search Dune", InventedValues::ShapeOnly);
        assert_eq!(clean, "Results hold ids and titles.\nPaged.");
        assert_eq!(quotes.len(), 2);
        assert!(
            quotes
                .iter()
                .all(|q| q.removed && q.sentence.starts_with("Finds films"))
        );
        let (kept, quotes) = check(doc, &lits, "", InventedValues::Trust);
        assert_eq!(kept, doc);
        assert!(quotes.iter().all(|q| !q.removed));
        // A literal the spec or request holds is no invention; a longer number is not 2720.
        let (same, quotes) = check(doc, &["2720".into()], "", InventedValues::ShapeOnly);
        assert_eq!((same.as_str(), quotes.len()), (doc, 0));
        let known = "Example: Inception, id 27205";
        assert!(
            check(doc, &lits, known, InventedValues::Exclude)
                .1
                .is_empty()
        );
    }

    #[test]
    fn exclude_shows_the_skeleton_and_trust_shows_the_body_unmarked() {
        let obs = simulated(json!({"results": [{"id": 1, "title": "A"}, {"id": 2}], "ok": true}));
        let shown = show(&obs, InventedValues::Exclude);
        assert_eq!(
            shown.text,
            r#"{"results":[{"id":"<integer>","title":"<string>"}],"ok":"<boolean>"}"#
        );
        assert_eq!((shown.invented, shown.skeleton), ("llm", true));
        let trusted = show(&obs, InventedValues::Trust);
        assert_eq!((trusted.invented, trusted.skeleton), ("", false));
        assert_eq!(trusted.text, obs.body.to_text());
        let live = Observation::ok_json(json!({"id": 1}), Provenance::Replayed);
        assert_eq!(show(&live, InventedValues::Exclude).invented, "");
    }

    #[test]
    fn an_invented_error_body_is_marked_status_only_and_a_real_one_is_evidence() {
        let scraped = json!({"message": "You are not subscribed to this API."});
        let obs = Observation::ok_json(scraped.clone(), Provenance::Simulated);
        let shown = show(&obs, InventedValues::ShapeOnly);
        assert_eq!((shown.invented, shown.status_only), ("spec", true));
        assert!(!show(&obs, InventedValues::Trust).status_only);
        let live = Observation::ok_json(scraped, Provenance::Live);
        assert!(!show(&live, InventedValues::ShapeOnly).status_only);
        let payload = Observation::ok_json(json!({"results": []}), Provenance::Simulated);
        assert!(!show(&payload, InventedValues::ShapeOnly).status_only);
    }
}
