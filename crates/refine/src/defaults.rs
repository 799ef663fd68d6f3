//! The schema defaults a simulated call carried beyond the explorer's arguments (issue 31):
//! the simulator fills them in, so a response can reflect values the model never chose, and
//! the analyzer and rewriter must be told them to read the response right.

use serde_json::{Map, Value};
use toolsmith_catalog::Api;

/// The defaults a simulated call of `api` added for the parameters `arguments` leave out, by
/// the simulator's own rule ([`toolsmith_exec::filled_default`]).
pub(crate) fn added_defaults(api: &Api, arguments: &Value) -> Map<String, Value> {
    let given = arguments.as_object();
    api.params
        .iter()
        .filter(|p| given.is_none_or(|args| !args.contains_key(&p.name)))
        .filter_map(|p| Some((p.name.clone(), toolsmith_exec::filled_default(p)?.clone())))
        .collect()
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
