//! Values a simulator or a model invented are no evidence about an API (issue 31). Which
//! observations are invented, what a prompt is shown of one under [`InventedValues`], and a
//! deterministic post-check: the literals of an invented response that a rewritten doc quotes
//! although neither the original doc nor the spec has them are flagged in the round, and
//! (except under `trust`) the sentences holding them are removed. Only distinctive values
//! are literals (names and titles with capitals, ids, URLs, numbers of 3+ digits): an
//! ordinary word (`text`, `email`, a unit letter, a field, parameter or enum name) is no
//! invented fact, and a sentence using one is kept.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_catalog::Api;
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

/// The distinctive values of an invented response (see [`distinctive`]) and every number with
/// at least 3 digits; of a text body, only its numbers. Empty for evidence. An ordinary word
/// is no invented fact: the words `api`'s schema and the response use as field names,
/// parameter names and enum values are never literals.
pub(crate) fn literals(obs: &Observation, api: &Api) -> Vec<String> {
    if !is_invented(obs.provenance) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let body = match &obs.body {
        Body::Empty => None,
        Body::Json(v) => Some(v.clone()),
        Body::Text(t) => match serde_json::from_str::<Value>(t) {
            Ok(v) => Some(v),
            Err(_) => {
                out.extend(
                    t.split(|c: char| !c.is_ascii_digit())
                        .filter(|d| d.len() >= MIN_NUMBER_DIGITS)
                        .map(str::to_owned),
                );
                None
            }
        },
    };
    if let Some(v) = body {
        let mut ordinary = schema_words(api);
        collect_words(&v, false, &mut ordinary);
        json_literals(&v, &ordinary, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// The words `api` names in its schemas, lowercased: parameter names, property names and
/// enum values.
fn schema_words(api: &Api) -> HashSet<String> {
    let mut words: HashSet<String> = api.params.iter().map(|p| p.name.to_lowercase()).collect();
    let schemas = api.params.iter().map(|p| &p.schema);
    for schema in schemas.chain(&api.request_body).chain(&api.response_schema) {
        collect_words(schema, true, &mut words);
    }
    words
}

/// Adds the object keys of `v` (lowercased) to `words`, and, when `enums`, the string values
/// listed under an `enum` keyword.
fn collect_words(v: &Value, enums: bool, words: &mut HashSet<String>) {
    match v {
        Value::Object(map) => {
            for (key, value) in map {
                words.insert(key.to_lowercase());
                if enums && key == "enum" {
                    let listed = value.as_array().into_iter().flatten();
                    words.extend(listed.filter_map(Value::as_str).map(str::to_lowercase));
                }
                collect_words(value, enums, words);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_words(i, enums, words)),
        _ => {}
    }
}

/// Whether a string value is a distinctive fact a doc must not quote rather than an ordinary
/// word: at least 4 characters (never a unit letter), not one of the `ordinary` words, and a
/// URL, host or address, a number of 3+ digits, an id mixing letters and digits, or a name or
/// title with a capital. Lowercase words and phrases (`text`, `email`, `plain text`) are none.
fn distinctive(s: &str, ordinary: &HashSet<String>) -> bool {
    if s.chars().count() < MIN_STRING_CHARS || ordinary.contains(&s.to_lowercase()) {
        return false;
    }
    let host = !s.contains(char::is_whitespace)
        && s.split('.').filter(|part| !part.is_empty()).count() >= 2;
    let url = s.contains("://") || s.contains('@') || host;
    let digits = s.chars().filter(char::is_ascii_digit).count();
    let id = s.split_whitespace().any(|token| {
        token.chars().any(char::is_alphabetic) && token.chars().any(|c| c.is_ascii_digit())
    });
    url || digits >= MIN_NUMBER_DIGITS || id || s.chars().any(char::is_uppercase)
}

fn json_literals(v: &Value, ordinary: &HashSet<String>, out: &mut Vec<String>) {
    match v {
        Value::String(s) => {
            let s = s.trim();
            if distinctive(s, ordinary) {
                out.push(s.to_owned());
            }
        }
        Value::Number(n) => {
            let text = n.to_string();
            if text.chars().filter(char::is_ascii_digit).count() >= MIN_NUMBER_DIGITS {
                out.push(text);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| json_literals(i, ordinary, out)),
        Value::Object(map) => map.values().for_each(|i| json_literals(i, ordinary, out)),
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
            let hits: Vec<&&String> = foreign.iter().filter(|l| quoted_in(sentence, l)).collect();
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

/// Whether `sentence` quotes `literal`: with its capitals when it has any (a lowercase
/// `text` in prose quotes no value `Text`), else in any case. A capitalized single word
/// (`Sent`, `Dune`) opening the sentence is no quote: there every word has its capital.
fn quoted_in(sentence: &str, literal: &str) -> bool {
    if !literal.chars().any(char::is_uppercase) {
        return contains_literal(&sentence.to_lowercase(), literal);
    }
    let mut chars = literal.chars();
    let capitalized = chars.next().is_some_and(char::is_uppercase) && chars.all(char::is_lowercase);
    let opening = sentence.trim_start_matches(|c: char| !c.is_alphanumeric());
    match opening.strip_prefix(literal) {
        Some(rest) if capitalized => contains_literal(rest, literal),
        _ => contains_literal(sentence, literal),
    }
}

/// Whether `needle` occurs in `haystack` as a whole token: no letter or
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

    /// An API with one `format` parameter (enum `Text`, `Html`) and a response schema with
    /// a `channel` field.
    fn api() -> Api {
        let format = toolsmith_catalog::Param {
            name: "format".into(),
            location: toolsmith_catalog::ParamLocation::Query,
            required: false,
            schema: json!({"type": "string", "enum": ["Text", "Html"]}),
            description: String::new(),
            list_format: Default::default(),
        };
        Api {
            id: "t/send".parse().unwrap(),
            name: "send".into(),
            source_name: "send".into(),
            endpoint: toolsmith_catalog::Endpoint::Function {
                name: "send".into(),
            },
            params: vec![format],
            request_body: None,
            response_schema: Some(
                json!({"type": "object", "properties": {"channel": {"type": "string"}}}),
            ),
            response_examples: Vec::new(),
            access: Default::default(),
        }
    }

    #[test]
    fn ordinary_words_are_no_literals_and_distinctive_values_are() {
        // The words stand-ins reported blocked: `text`, `email`, `m`, and their kin.
        let body = json!({"messages": [{"format": "Text", "channel": "Channel", "kind": "text",
            "via": "email", "Email": "Email", "unit": "m", "style": "plain text",
            "to": "ann@example.com", "link": "https://example.com/m/1", "id": "tt1375666",
            "host": "mail.example.org", "end": "done.",
            "title": "Inception Redux", "code": "20451", "views": 27205, "rank": 7}]});
        assert_eq!(
            literals(&simulated(body), &api()),
            vec![
                "20451",
                "27205",
                "Inception Redux",
                "ann@example.com",
                "https://example.com/m/1",
                "mail.example.org",
                "tt1375666"
            ]
        );
    }

    #[test]
    fn a_sentence_with_ordinary_words_is_kept_and_one_quoting_a_name_is_not() {
        let body = json!({"format": "Text", "type": "Email", "unit": "m",
            "title": "Inception Redux", "note": "Sent"});
        let lits = literals(&simulated(body), &api());
        let doc = "Sends a message as text or email; sizes are in m. Sent items list their title. \
            The first is Inception Redux. Its state reads Sent.";
        let (kept, quotes) = check(doc, &lits, "", InventedValues::ShapeOnly);
        assert_eq!(
            kept,
            "Sends a message as text or email; sizes are in m. Sent items list their title."
        );
        let values: Vec<&str> = quotes.iter().map(|q| q.value.as_str()).collect();
        assert_eq!(values, vec!["Inception Redux", "Sent"]);
    }

    #[test]
    fn literals_are_long_strings_and_numbers_of_invented_responses_only() {
        let body = json!({"results": [{"id": 27205, "title": "Inception", "rank": 7,
            "status": "released", "overview": "A thief"}], "page": 1.25});
        assert_eq!(
            literals(&simulated(body.clone()), &api()),
            vec!["1.25", "27205", "A thief", "Inception"]
        );
        assert!(literals(&Observation::ok_json(body, Provenance::Live), &api()).is_empty());
        let text = Observation {
            body: Body::Text("no movie 7 or 1234".into()),
            ..simulated(Value::Null)
        };
        assert_eq!(literals(&text, &api()), vec!["1234"]);
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
