//! The explorer's arguments held to the API's documented inputs (issue 31). A name the API
//! does not document is dropped before the call, so neither the call nor the doc learns from
//! a parameter the API may not have; the analyzer is told what was dropped. An API whose
//! request body is open (its fields are not listed, or more are allowed) cannot be checked:
//! its arguments go as given.

use serde_json::{Map, Value};
use toolsmith_catalog::Api;

/// The explorer's arguments split into those sent and those dropped as undocumented.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Checked {
    /// The arguments the call is made with.
    pub(super) sent: Map<String, Value>,
    /// The arguments dropped: names the API documents no input for.
    pub(super) dropped: Map<String, Value>,
}

/// Splits `arguments` into those `api` documents (its parameters, `body` when it takes one,
/// the listed fields of its body) and the rest; nothing is dropped when its body is open.
pub(super) fn check(api: &Api, arguments: Map<String, Value>) -> Checked {
    let (sent, dropped) = arguments
        .into_iter()
        .partition(|(name, _)| api.documents_input(name) != Some(false));
    Checked { sent, dropped }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolsmith_catalog::testing::api_with_inputs;

    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn undocumented_names_are_dropped_unless_the_body_is_open() {
        let query = api_with_inputs(&["q"], None);
        let checked = check(&query, args(json!({"q": "x", "region": "US", "Q": 1})));
        assert_eq!(Value::Object(checked.sent), json!({"q": "x"}));
        assert_eq!(
            Value::Object(checked.dropped),
            json!({"region": "US", "Q": 1}),
            "names are matched exactly, as the executors send them"
        );

        let listed = api_with_inputs(
            &[],
            Some(json!({"type": "object", "properties": {"title": {}}})),
        );
        let checked = check(&listed, args(json!({"title": "t", "body": {}, "x": 1})));
        assert_eq!(
            Value::Object(checked.sent),
            json!({"title": "t", "body": {}})
        );
        assert_eq!(Value::Object(checked.dropped), json!({"x": 1}));

        for open in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"title": {}}, "additionalProperties": true}),
            json!({"oneOf": [{"type": "object"}]}),
        ] {
            let checked = check(
                &api_with_inputs(&[], Some(open.clone())),
                args(json!({"x": 1})),
            );
            assert!(checked.dropped.is_empty(), "{open}");
            assert_eq!(Value::Object(checked.sent), json!({"x": 1}));
        }
    }
}
