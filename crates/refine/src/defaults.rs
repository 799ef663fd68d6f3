//! The schema defaults a simulated call carried beyond the explorer's arguments (issue 31):
//! the simulator fills them in, so a response can reflect values the model never chose, and
//! the analyzer and rewriter must be told them to read the response right.

use serde_json::{Map, Value};
use toolsmith_catalog::Api;

/// Words from which a string ending in a full stop is a sentence, not a value.
const SENTENCE_WORDS: usize = 4;
/// Words from which any string is a sentence.
const MANY_WORDS: usize = 8;

/// The defaults a simulated call of `api` added for the parameters `arguments` leave out.
///
/// Mirrors `exec/src/simulate/request.rs::with_defaults` (and its `prose::usable_default`):
/// a parameter whose schema has a non-null `default`, of a type the schema allows and not
/// reading like a sentence, that the arguments lack. Kept to this one function so that a
/// change to the simulator's rule has one place to follow here.
pub(crate) fn added_defaults(api: &Api, arguments: &Value) -> Map<String, Value> {
    let given = arguments.as_object();
    api.params
        .iter()
        .filter(|p| given.is_none_or(|args| !args.contains_key(&p.name)))
        .filter_map(|p| {
            let default = p.schema.get("default")?;
            let usable = !default.is_null()
                && allowed_type(&p.schema, default)
                && default.as_str().is_none_or(|t| !reads_like_sentence(t));
            usable.then(|| (p.name.clone(), default.clone()))
        })
        .collect()
}

/// Whether `value`'s JSON type is one the schema's `type` names (any, when it names none).
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
        _ => true,
    })
}

/// Whether `text` reads like a sentence (a description put where the default belongs).
fn reads_like_sentence(text: &str) -> bool {
    let words = text.split_whitespace().count();
    words >= MANY_WORDS || (words >= SENTENCE_WORDS && text.trim_end().ends_with('.'))
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolsmith_catalog::{Endpoint, Param, ParamLocation};

    use super::*;

    fn param(name: &str, schema: Value) -> Param {
        Param {
            name: name.into(),
            location: ParamLocation::Query,
            required: false,
            schema,
            description: String::new(),
            list_format: Default::default(),
        }
    }

    #[test]
    fn only_usable_defaults_of_parameters_left_out_are_added() {
        let api = Api {
            id: "t/a".parse().unwrap(),
            name: "a".into(),
            source_name: "a".into(),
            endpoint: Endpoint::Function { name: "a".into() },
            params: vec![
                param("start", json!({"type": "string", "default": "2020-01-01"})),
                param("end", json!({"type": "string", "default": "2019-12-31"})),
                param(
                    "limit",
                    json!({"type": "integer", "default": "Number of items to return per page."}),
                ),
                param(
                    "lang",
                    json!({"type": "string", "default": "The language of the results, as a code."}),
                ),
                param("page", json!({"type": "integer", "default": 1})),
                param("q", json!({"type": "string"})),
                param("nothing", json!({"default": null})),
            ],
            request_body: None,
            response_schema: None,
            response_examples: Vec::new(),
            access: Default::default(),
        };
        let added = added_defaults(&api, &json!({"start": "2024-05-01", "q": "x"}));
        assert_eq!(
            Value::Object(added),
            json!({"end": "2019-12-31", "page": 1}),
            "given, null, mistyped and sentence defaults are not added"
        );
        assert_eq!(added_defaults(&api, &Value::Null).len(), 3);
    }
}
