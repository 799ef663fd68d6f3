//! The inputs an API documents: its parameters and what its request body lists. A caller that
//! holds a model's arguments to the documented inputs (DRAFT's explorer, the query writer)
//! asks here, so "open body" means one thing everywhere: an object body whose fields are not
//! listed, or that allows more than it lists, cannot be checked.

use serde_json::Value;

use crate::model::Api;

/// What an API's request body says about the fields it takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyFields<'a> {
    /// No request body.
    None,
    /// An object body listing its fields, with no others allowed beyond them.
    Listed(Vec<&'a str>),
    /// A body that is not an object (a string, a list): only `body` itself is an input.
    Whole,
    /// An object body that does not list its fields, or allows more than it lists.
    Open,
}

impl Api {
    /// What its request body says about the fields it takes.
    pub fn body_fields(&self) -> BodyFields<'_> {
        let Some(schema) = &self.request_body else {
            return BodyFields::None;
        };
        let typed = schema.get("type").and_then(Value::as_str);
        if typed.is_some_and(|t| t != "object") {
            return BodyFields::Whole;
        }
        let more_allowed = schema
            .get("additionalProperties")
            .is_some_and(|extra| *extra != Value::Bool(false));
        match schema.get("properties").and_then(Value::as_object) {
            Some(listed) if !more_allowed => {
                BodyFields::Listed(listed.keys().map(String::as_str).collect())
            }
            _ => BodyFields::Open,
        }
    }

    /// Whether `name` is an input it documents (a parameter, `body` when it takes one, a
    /// listed field of its body); `None` when its body is open, so any name may be one.
    pub fn documents_input(&self, name: &str) -> Option<bool> {
        let fields = self.body_fields();
        if fields == BodyFields::Open {
            return None;
        }
        Some(
            self.params.iter().any(|p| p.name == name)
                || (name == "body" && self.request_body.is_some())
                || matches!(&fields, BodyFields::Listed(listed) if listed.contains(&name)),
        )
    }

    /// Whether it takes no input at all (no parameter, no body or an object body with no
    /// fields): every call of it is the same call.
    pub fn takes_nothing(&self) -> bool {
        self.params.is_empty()
            && match self.body_fields() {
                BodyFields::None => true,
                BodyFields::Listed(fields) => fields.is_empty(),
                BodyFields::Whole | BodyFields::Open => false,
            }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::testing::api_with_inputs;

    #[test]
    fn documented_inputs_are_parameters_body_and_listed_fields_unless_the_body_is_open() {
        let query = api_with_inputs(&["q"], None);
        assert_eq!(query.documents_input("q"), Some(true));
        assert_eq!(query.documents_input("Q"), Some(false), "matched exactly");
        assert_eq!(query.documents_input("body"), Some(false));

        let listed = api_with_inputs(
            &[],
            Some(json!({"type": "object", "properties": {"title": {}}})),
        );
        assert_eq!(listed.body_fields(), BodyFields::Listed(vec!["title"]));
        assert_eq!(listed.documents_input("title"), Some(true));
        assert_eq!(listed.documents_input("body"), Some(true));
        assert_eq!(listed.documents_input("x"), Some(false));

        for open in [
            json!({"type": "object"}),
            json!({"type": "object", "properties": {"title": {}}, "additionalProperties": true}),
            json!({"oneOf": [{"type": "object"}]}),
        ] {
            let open_api = api_with_inputs(&["q"], Some(open.clone()));
            assert_eq!(open_api.body_fields(), BodyFields::Open, "{open}");
            assert_eq!(open_api.documents_input("x"), None, "{open}");
        }
        let whole = api_with_inputs(&[], Some(json!({"type": "string"})));
        assert_eq!(whole.body_fields(), BodyFields::Whole);
        assert_eq!(whole.documents_input("body"), Some(true));
        assert_eq!(whole.documents_input("x"), Some(false));
    }

    #[test]
    fn only_an_api_without_parameters_or_body_fields_takes_nothing() {
        assert!(api_with_inputs(&[], None).takes_nothing());
        assert!(
            api_with_inputs(&[], Some(json!({"type": "object", "properties": {}}))).takes_nothing()
        );
        assert!(!api_with_inputs(&["q"], None).takes_nothing());
        assert!(!api_with_inputs(&[], Some(json!({"type": "object"}))).takes_nothing());
        assert!(!api_with_inputs(&[], Some(json!({"type": "string"}))).takes_nothing());
        let one_field = api_with_inputs(
            &[],
            Some(json!({"type": "object", "properties": {"a": {}}})),
        );
        assert!(!one_field.takes_nothing());
    }
}
