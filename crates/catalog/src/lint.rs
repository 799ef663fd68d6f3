//! Lint of API docs: the places where a spec contradicts itself before a model
//! ever reads it (an enum whose values are not of the declared type, a `.gte`
//! filter described as "less than or equal", an integer that asks for a
//! comma-separated list, ...).
//!
//! [`lint_catalog`] reports every [`Finding`] per API with a count per
//! [`LintKind`]; [`effective_schema`] is the one mechanical fix applied when a
//! parameter is rendered or exported (an enum's type follows its values). The
//! rest is left to refinement, which can read the report.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::id::ApiId;
use crate::model::{Api, Endpoint, Param};
use crate::repair::NUMBER_STRINGS;
use crate::store::{ApiEntry, Catalog};

/// What kind of problem a [`Finding`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LintKind {
    /// The `enum` values are not of the declared `type` (fixed at render time
    /// when the values share one type).
    TypeEnumMismatch,
    /// The description says the opposite of the parameter's name (`.gte`
    /// described as "less than") or asks for what its type cannot hold (an
    /// integer taking comma-separated values).
    ContradictoryDescription,
    /// A required parameter declares a default, which can never apply.
    RequiredWithDefault,
    /// An API or parameter without a description.
    EmptyDescription,
    /// Two parameters of one API, or two APIs of one tool, described alike.
    DuplicateDescription,
    /// A description names a parameter the API does not have.
    UnknownParamInDescription,
    /// An HTTP API whose response has no schema (a documented no-content
    /// response, 202/204/205 without a body, is not one).
    NoResponseSchema,
    /// A number written as a string where a schema keyword needs a number
    /// (Spotify's `"maximum": "50"`); repaired on import.
    NumberAsString,
}

impl LintKind {
    /// Every kind, in report order.
    pub const ALL: [Self; 8] = [
        Self::TypeEnumMismatch,
        Self::ContradictoryDescription,
        Self::RequiredWithDefault,
        Self::EmptyDescription,
        Self::DuplicateDescription,
        Self::UnknownParamInDescription,
        Self::NoResponseSchema,
        Self::NumberAsString,
    ];

    /// The kind's stable name, as in `--json` output.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TypeEnumMismatch => "type_enum_mismatch",
            Self::ContradictoryDescription => "contradictory_description",
            Self::RequiredWithDefault => "required_with_default",
            Self::EmptyDescription => "empty_description",
            Self::DuplicateDescription => "duplicate_description",
            Self::UnknownParamInDescription => "unknown_param_in_description",
            Self::NoResponseSchema => "no_response_schema",
            Self::NumberAsString => "number_as_string",
        }
    }
}

impl fmt::Display for LintKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem of one API (and, when it is about one, a parameter).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The API.
    pub api: ApiId,
    /// The parameter, when the problem is one parameter's.
    pub param: Option<String>,
    /// What kind of problem.
    pub kind: LintKind,
    /// What is wrong, in words.
    pub message: String,
    /// Whether rendering and export already fix it ([`effective_schema`]).
    pub fixed_at_render: bool,
}

/// The lint of a catalog view.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LintReport {
    /// Number of APIs linted.
    pub apis: usize,
    /// Every finding, tool by tool, API by API.
    pub findings: Vec<Finding>,
}

impl LintReport {
    /// Findings per kind (every kind present, zero included).
    pub fn counts(&self) -> BTreeMap<LintKind, usize> {
        let mut counts: BTreeMap<LintKind, usize> = LintKind::ALL.iter().map(|k| (*k, 0)).collect();
        for f in &self.findings {
            *counts.entry(f.kind).or_default() += 1;
        }
        counts
    }

    /// Number of APIs with at least one finding.
    pub fn apis_with_findings(&self) -> usize {
        let mut ids: Vec<&ApiId> = self.findings.iter().map(|f| &f.api).collect();
        ids.dedup();
        ids.len()
    }
}

/// Lints every API of a catalog view (its chosen docs).
pub fn lint_catalog(catalog: &Catalog) -> LintReport {
    let mut report = LintReport::default();
    for tool in &catalog.tools {
        let mut seen: HashMap<&str, &ApiId> = HashMap::new();
        for api in &tool.apis {
            report.apis += 1;
            report.findings.extend(lint_api(api));
            let description = api.description().trim();
            if description.is_empty() {
                continue;
            }
            if let Some(first) = seen.get(description) {
                report.findings.push(Finding {
                    api: api.api.id.clone(),
                    param: None,
                    kind: LintKind::DuplicateDescription,
                    message: format!("described exactly as {first}"),
                    fixed_at_render: false,
                });
            } else {
                seen.insert(description, &api.api.id);
            }
        }
    }
    report
}

/// The findings of one API on its own (the tool-wide duplicate check is
/// [`lint_catalog`]'s).
pub fn lint_api(entry: &ApiEntry) -> Vec<Finding> {
    let api = &entry.api;
    let mut raw = api_findings(entry);
    raw.extend(param_findings(api));
    raw.extend(unknown_names_findings(entry));
    raw.into_iter()
        .map(|(param, kind, message, fixed_at_render)| Finding {
            api: api.id.clone(),
            param: param.map(|p| p.name.clone()),
            kind,
            message,
            fixed_at_render,
        })
        .collect()
}

/// A finding before it is tied to its API: the parameter, the kind, the message and
/// whether rendering fixes it.
type RawFinding<'a> = (Option<&'a Param>, LintKind, String, bool);

/// The API's own findings: an empty description, numbers written as strings in any of its
/// schemas, a response without a schema.
fn api_findings(entry: &ApiEntry) -> Vec<RawFinding<'_>> {
    let api = &entry.api;
    let mut out = Vec::new();
    if entry.description().trim().is_empty() {
        let message = "the API has no description".to_owned();
        out.push((None, LintKind::EmptyDescription, message, false));
    }
    let schemas = api
        .params
        .iter()
        .map(|p| (Some(p), &p.schema))
        .chain(api.request_body.iter().map(|s| (None, s)))
        .chain(api.response_schema.iter().map(|s| (None, s)));
    for (param, schema) in schemas {
        for (keyword, text) in number_strings(schema) {
            let message = format!("`{keyword}` is the string {text}; imported as a number");
            out.push((param, LintKind::NumberAsString, message, true));
        }
    }
    if api.response_schema.is_none() && !matches!(api.endpoint, Endpoint::Function { .. }) {
        let message = "the response has no schema".to_owned();
        out.push((None, LintKind::NoResponseSchema, message, false));
    }
    out
}

/// Each parameter's findings: an enum of another type, a description that contradicts the
/// schema, a required parameter with a default, an empty or a repeated description.
fn param_findings(api: &Api) -> Vec<RawFinding<'_>> {
    let mut out = Vec::new();
    let mut described: HashMap<String, &str> = HashMap::new();
    for p in &api.params {
        if let Some((declared, values)) = enum_mismatch(&p.schema) {
            let fixed = enum_type(&p.schema).is_some();
            let message = format!("typed {declared} but its values are {values}");
            out.push((Some(p), LintKind::TypeEnumMismatch, message, fixed));
        }
        if let Some(why) = contradiction(p) {
            out.push((Some(p), LintKind::ContradictoryDescription, why, false));
        }
        if p.required && p.schema.get("default").is_some() {
            let message = "required, yet it declares a default".to_owned();
            out.push((Some(p), LintKind::RequiredWithDefault, message, false));
        }
        let description = p.description.trim();
        if description.is_empty() {
            out.push((
                Some(p),
                LintKind::EmptyDescription,
                "no description".to_owned(),
                false,
            ));
        } else if let Some(first) = described.get(&description.to_lowercase()) {
            let message = format!("described exactly as `{first}`");
            out.push((Some(p), LintKind::DuplicateDescription, message, false));
        } else {
            described.insert(description.to_lowercase(), &p.name);
        }
    }
    out
}

/// The parameters the API's or its parameters' descriptions name that it does not have,
/// each once.
fn unknown_names_findings(entry: &ApiEntry) -> Vec<RawFinding<'_>> {
    let api = &entry.api;
    let mut texts = vec![entry.description()];
    texts.extend(api.params.iter().map(|p| p.description.as_str()));
    let mut named = Vec::new();
    for text in texts {
        for name in unknown_params_named(api, text) {
            if !named.contains(&name) {
                named.push(name);
            }
        }
    }
    named
        .into_iter()
        .map(|name| {
            let message =
                format!("the description names a parameter `{name}` the API does not have");
            (None, LintKind::UnknownParamInDescription, message, false)
        })
        .collect()
}

/// The keyword marking the response schema the importer stores for a documented
/// no-content success (202, 204 or 205 without a body): its value is the status.
pub const NO_CONTENT: &str = "x-toolsmith-no-content";

/// The response schema of a success with no body: `null`, with its status under
/// [`NO_CONTENT`], so lint does not call it missing and exports write it back.
pub fn no_content_schema(status: u16) -> Value {
    serde_json::json!({
        "type": "null",
        "description": format!("No content: the API answers HTTP {status} with an empty body."),
        NO_CONTENT: status,
    })
}

/// The status of a [`no_content_schema`], if `schema` is one.
pub fn no_content_status(schema: &Value) -> Option<u16> {
    schema
        .get(NO_CONTENT)
        .and_then(Value::as_u64)
        .and_then(|s| u16::try_from(s).ok())
}

/// The keyword marking a stored response schema whose documented success status is not
/// `200` (a `201 Created`, a `202 Accepted` with a body): its value is the status.
pub const SUCCESS_STATUS: &str = "x-toolsmith-status";

/// The success status a stored response schema documents: a no-content one's, else the
/// one under [`SUCCESS_STATUS`], else none (`200` by default).
pub fn success_status(schema: &Value) -> Option<u16> {
    no_content_status(schema).or_else(|| {
        schema
            .get(SUCCESS_STATUS)
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
    })
}

/// The keywords a schema (or any schema inside it) had as strings where a number
/// belongs, with the strings: what the importer noted in [`NUMBER_STRINGS`].
fn number_strings(schema: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(noted)) = map.get(NUMBER_STRINGS) {
                    out.extend(noted.iter().map(|(k, v)| (k.clone(), v.to_string())));
                }
                stack.extend(
                    map.iter()
                        .filter(|(k, _)| {
                            !matches!(
                                k.as_str(),
                                "example" | "examples" | "default" | "enum" | "const"
                            )
                        })
                        .map(|(_, v)| v),
                );
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out
}

/// The parameters `text` names (a quoted or snake_case word next to "parameter", "param" or
/// "argument") that `api` does not have: what [`LintKind::UnknownParamInDescription`]
/// reports, for a fixer that rewrites the text. A word that is a documented value of one of
/// its parameters (`set the parameter 'popularity'`) names a value, not a parameter.
pub fn unknown_params_named(api: &Api, text: &str) -> Vec<String> {
    let values = documented_values(api);
    named_params(text)
        .into_iter()
        .filter(|name| {
            let known = api.params.iter().any(|p| p.name.eq_ignore_ascii_case(name))
                || (name == "body" && api.request_body.is_some());
            let value = values.iter().any(|v| v.eq_ignore_ascii_case(name));
            !known && !value
        })
        .collect()
}

/// The values `api`'s parameters document: their enum values, defaults and examples (of a
/// list's items too), as text.
fn documented_values(api: &Api) -> Vec<String> {
    let mut out = Vec::new();
    for p in &api.params {
        for schema in [Some(&p.schema), p.schema.get("items")]
            .into_iter()
            .flatten()
        {
            let listed = ["enum", "examples"]
                .iter()
                .filter_map(|k| schema.get(*k).and_then(Value::as_array))
                .flatten();
            let single = ["default", "example"].iter().filter_map(|k| schema.get(*k));
            out.extend(listed.chain(single).map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }));
        }
    }
    out
}

/// The schema a parameter is rendered and exported with: its own, except that
/// an `enum` whose values all share one JSON type other than the declared one
/// takes that type (TMDB's `with_status` is typed string with values 0..5).
pub fn effective_schema(schema: &Value) -> Cow<'_, Value> {
    match (enum_mismatch(schema), enum_type(schema)) {
        (Some(_), Some(kind)) => {
            let mut fixed = schema.clone();
            fixed["type"] = Value::String(kind.to_owned());
            Cow::Owned(fixed)
        }
        _ => Cow::Borrowed(schema),
    }
}

/// The JSON Schema type of a value (`integer` for whole numbers).
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The one type every enum value has, if they share one.
fn enum_type(schema: &Value) -> Option<&'static str> {
    let values = schema.get("enum")?.as_array()?;
    let first = json_type(values.first()?);
    values
        .iter()
        .all(|v| json_type(v) == first)
        .then_some(first)
}

/// `(declared type, the values' types)` when some enum value is not of the
/// declared type (integers count as numbers; null is allowed anywhere).
fn enum_mismatch(schema: &Value) -> Option<(String, String)> {
    let declared: Vec<&str> = match schema.get("type")? {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    let values = schema.get("enum")?.as_array()?;
    let fits = |v: &Value| {
        let t = json_type(v);
        t == "null" || declared.contains(&t) || (t == "integer" && declared.contains(&"number"))
    };
    if values.iter().all(fits) {
        return None;
    }
    let mut kinds: Vec<&str> = values.iter().map(json_type).collect();
    kinds.sort_unstable();
    kinds.dedup();
    Some((declared.join("|"), kinds.join(" and ")))
}

/// Why a parameter's description contradicts its name or type, if it does.
fn contradiction(p: &Param) -> Option<String> {
    let text = p.description.to_lowercase();
    if text.is_empty() {
        return None;
    }
    let name = p.name.to_lowercase();
    // Bounds by name only: `_after`/`_before`-style names are often cursors (Stripe's
    // `starting_after` is "the ID of the object created before ..."), so they are left out.
    let lower_bound = [".gte", ".gt", "_gte", "_gt", "_min", "min_"];
    let upper_bound = [".lte", ".lt", "_lte", "_lt", "_max", "max_"];
    let says_at_most = [
        "less than",
        "at most",
        "smaller than",
        "lower than",
        "maximum",
        "before",
    ];
    let says_at_least = [
        "greater than",
        "greater or equal",
        "at least",
        "larger than",
        "higher than",
        "minimum",
        "after",
    ];
    let bound = |marks: &[&str]| {
        marks.iter().any(|m| {
            if m.ends_with('_') {
                name.starts_with(m)
            } else {
                name.ends_with(m)
            }
        })
    };
    let says = |phrases: &[&'static str]| first_phrase(&text, phrases);
    if bound(&lower_bound)
        && let (Some(phrase), None) = (says(&says_at_most), says(&says_at_least))
    {
        return Some(format!(
            "a lower bound by its name, but described as \"{phrase}\""
        ));
    }
    if bound(&upper_bound)
        && let (Some(phrase), None) = (says(&says_at_least), says(&says_at_most))
    {
        return Some(format!(
            "an upper bound by its name, but described as \"{phrase}\""
        ));
    }
    let scalar = match p.schema.get("type").and_then(Value::as_str) {
        Some(t @ ("integer" | "number" | "boolean")) => Some(t),
        _ => None,
    };
    if let Some(kind) = scalar
        && p.schema.get("enum").is_none()
    {
        let list = [
            "comma separated",
            "comma-separated",
            "pipe separated",
            "pipe-separated",
            "separated by comma",
            "a comma (",
            "a comma or",
            "separated list",
        ];
        if let Some(phrase) = list.iter().find(|w| text.contains(**w)) {
            return Some(format!(
                "typed {kind}, but asks for a list (\"{}\")",
                phrase.trim_end_matches(" (")
            ));
        }
    }
    None
}

/// The first of `phrases` that `text` contains at word boundaries.
fn first_phrase(text: &str, phrases: &[&'static str]) -> Option<&'static str> {
    phrases.iter().find(|w| contains_words(text, w)).copied()
}

/// Whether `phrase` occurs in `text` at word boundaries.
fn contains_words(text: &str, phrase: &str) -> bool {
    text.match_indices(phrase).any(|(at, _)| {
        let before = text.get(..at).and_then(|s| s.chars().next_back());
        let after = text.get(at + phrase.len()..).and_then(|s| s.chars().next());
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Identifiers a description calls a parameter: a quoted or snake_case word
/// right before or after "parameter" / "param" / "argument", unless it reads as a
/// value ([`is_value`]).
fn named_params(text: &str) -> Vec<String> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let is_marker = |t: &str| {
        let t = t
            .trim_matches(|c: char| !c.is_ascii_alphabetic())
            .to_lowercase();
        matches!(
            t.as_str(),
            "parameter" | "parameters" | "param" | "params" | "argument" | "arguments"
        )
    };
    let mut out = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        if !is_marker(token) {
            continue;
        }
        let neighbours = [i.checked_sub(1), Some(i + 1)];
        for j in neighbours.into_iter().flatten() {
            let Some(raw) = tokens.get(j) else {
                continue;
            };
            let before = j.checked_sub(1).and_then(|k| tokens.get(k)).copied();
            if is_value(raw, before) {
                continue;
            }
            let quoted = raw.contains(['`', '\'', '"']);
            let word = raw.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
            let identifier = !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                && word.starts_with(|c: char| c.is_ascii_alphabetic());
            if identifier && (quoted || word.contains('_')) {
                out.push(word.to_owned());
            }
        }
    }
    out
}

/// Whether the word `raw` (after the word `before`) is a value rather than a parameter's
/// name: it follows "to", "=", "is" or "as" (`... to 'US' ...`), or it is a code of two or
/// three capitals (`'US'`, `"EUR"`), as country, language and currency codes are.
fn is_value(raw: &str, before: Option<&str>) -> bool {
    let follows_verb = raw.starts_with('=')
        || before.is_some_and(|b| {
            b.ends_with('=')
                || matches!(
                    b.trim_matches(|c: char| !c.is_ascii_alphabetic())
                        .to_lowercase()
                        .as_str(),
                    "to" | "is" | "as"
                )
        });
    let word = raw.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    let code = (2..=3).contains(&word.len()) && word.chars().all(|c| c.is_ascii_uppercase());
    follows_verb || code
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::ParamLocation;

    fn param(name: &str, schema: Value, description: &str) -> Param {
        Param {
            name: name.to_owned(),
            location: ParamLocation::Query,
            required: false,
            schema,
            description: description.to_owned(),
            list_format: Default::default(),
        }
    }

    #[test]
    fn an_enum_takes_the_type_of_its_values() {
        let schema = json!({"type": "string", "enum": [0, 1, 2]});
        assert_eq!(effective_schema(&schema)["type"], "integer");
        let fine = json!({"type": "number", "enum": [1, 2.5]});
        assert!(matches!(effective_schema(&fine), Cow::Borrowed(_)));
        let mixed = json!({"type": "string", "enum": ["a", 1]});
        assert!(matches!(effective_schema(&mixed), Cow::Borrowed(_)));
        assert!(enum_mismatch(&mixed).is_some());
    }

    #[test]
    fn bounds_described_backwards_are_contradictions() {
        let p = param(
            "vote_count.gte",
            json!({"type": "integer"}),
            "Only movies with a count less than or equal to the value.",
        );
        assert!(contradiction(&p).is_some_and(|w| w.contains("less than")));
        let ok = param(
            "vote_count.gte",
            json!({"type": "integer"}),
            "greater or equal to the value",
        );
        assert_eq!(contradiction(&ok), None);
        let list = param(
            "with_release_type",
            json!({"type": "integer"}),
            "Specify a comma (AND) or pipe (OR) separated value",
        );
        assert!(contradiction(&list).is_some_and(|w| w.contains("typed integer")));
        let updated = param(
            "updated_at",
            json!({"type": "string"}),
            "before the deadline",
        );
        assert_eq!(contradiction(&updated), None, "`_at` is not a bound");
    }

    #[test]
    fn parameters_named_in_text_are_found() {
        assert_eq!(
            named_params("Use the `page_size` parameter to page."),
            ["page_size"]
        );
        assert_eq!(named_params("Set parameter 'lang' first"), ["lang"]);
        assert!(named_params("This parameter is optional").is_empty());
    }

    #[test]
    fn values_next_to_the_word_parameter_are_not_names() {
        for text in [
            "Set the country parameter to 'US' for American results.",
            "Pass the region parameter \"US\" for American results.",
            "Prices come in the `EUR` parameter currency.",
            "Sorting defaults to 'release_date' parameter order.",
            "The order is `newest_first` parameter-wise.",
            "Filter with parameter ='new_only' set.",
        ] {
            assert!(
                named_params(text).is_empty(),
                "{text}: {:?}",
                named_params(text)
            );
        }
        assert_eq!(
            named_params("Use the `USA_code` parameter, not `ISO` parameter."),
            ["USA_code"],
            "only a code of two or three capitals is a value"
        );
    }

    #[test]
    fn a_documented_value_is_not_an_unknown_parameter() {
        let api = Api {
            id: "t/a".parse().unwrap(),
            name: "a".into(),
            source_name: "a".into(),
            endpoint: Endpoint::Function { name: "a".into() },
            params: vec![
                param(
                    "sort",
                    json!({"type": "string", "enum": ["popularity_desc", "vote_count"], "default": "top_rated"}),
                    "Order",
                ),
                param(
                    "fields",
                    json!({"type": "array", "items": {"type": "string", "example": "release_year"}}),
                    "Fields",
                ),
                param(
                    "lang",
                    json!({"type": "string", "examples": ["en_gb"]}),
                    "Language",
                ),
            ],
            request_body: None,
            response_schema: None,
            response_examples: Vec::new(),
            access: Default::default(),
        };
        let text = "Give parameter `popularity_desc`, the 'top_rated' parameter, parameter \
            'release_year', the `EN_GB` parameter, or the `ticker` parameter.";
        assert_eq!(unknown_params_named(&api, text), ["ticker"]);
        let entry = ApiEntry {
            api,
            doc: Some(crate::model::DocVersion {
                version: 1,
                label: crate::id::DocLabel::original(),
                source: String::new(),
                created_at_ms: 0,
                active: true,
                doc: crate::model::Doc::text(
                    "Set the region parameter 'US' to sort; name the stock in parameter `symbol_id`.",
                ),
            }),
        };
        let unknown: Vec<String> = lint_api(&entry)
            .into_iter()
            .filter(|f| f.kind == LintKind::UnknownParamInDescription)
            .map(|f| f.message)
            .collect();
        assert_eq!(
            unknown,
            ["the description names a parameter `symbol_id` the API does not have"]
        );
    }
}
