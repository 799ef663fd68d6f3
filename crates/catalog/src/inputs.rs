//! The inputs an API documents: its parameters and what its request body lists. A caller that
//! holds a model's arguments to the documented inputs (DRAFT's explorer, the query writer)
//! asks here, so "open body" means one thing everywhere: an object body whose fields are not
//! listed, or that allows more than it lists, cannot be checked. A lookup (an API taking free
//! text, such as a search) is told here too, for the tool graph and the simulator alike.

use serde_json::Value;

use crate::model::{Api, Param, ParamLocation};

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

    /// Its required free-text inputs: string parameters (no enum) in the path, query or body
    /// that name no id (`query`, `q`, not `movie_id`). An API with some is a lookup, such as a
    /// search: it turns the user's own words into results (the tool graph lets it start a
    /// chain), and how many results it finds depends on how narrow those words are.
    pub fn lookup_inputs(&self) -> Vec<&str> {
        self.params
            .iter()
            .filter(|p| {
                p.required
                    && !matches!(p.location, ParamLocation::Header | ParamLocation::Cookie)
                    && p.schema
                        .get("type")
                        .and_then(Value::as_str)
                        .is_none_or(|t| t == "string")
                    && p.schema.get("enum").is_none()
                    && !p.name.eq_ignore_ascii_case("id")
                    && id_entity(&p.name).is_none()
            })
            .map(|p| p.name.as_str())
            .collect()
    }

    /// One parameter per argument name, as a model passes them: where a spec declares a name
    /// twice (Spotify's `ids` in the query and in the body), the last declaration, which the
    /// function schema keeps too ([`crate::export::input_schema`]), at the place the name first
    /// appears. Every text that lists the parameters for a model reads them here, so a doc never
    /// shows one argument twice.
    pub fn arguments(&self) -> Vec<&Param> {
        let mut out: Vec<&Param> = Vec::with_capacity(self.params.len());
        for p in &self.params {
            match out.iter_mut().find(|q| q.name == p.name) {
                Some(earlier) => *earlier = p,
                None => out.push(p),
            }
        }
        out
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

/// The thing an id-like name names: `movie_id`, `movieId`, `movie-id` -> `movie`; `None` for
/// `id` itself and for a name that is no id's (`valid`, `paid`).
pub fn id_entity(name: &str) -> Option<String> {
    let lower = name.to_lowercase();
    for suffix in ["_id", "-id"] {
        if let Some(x) = lower.strip_suffix(suffix) {
            return (!x.is_empty()).then(|| x.to_owned());
        }
    }
    // camelCase: `movieId`.
    let x = name.strip_suffix("Id")?;
    (!x.is_empty() && x.chars().all(|c| c.is_ascii_alphanumeric())).then(|| x.to_lowercase())
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
    fn an_id_like_name_names_its_entity() {
        assert_eq!(id_entity("movie_id").as_deref(), Some("movie"));
        assert_eq!(id_entity("movieId").as_deref(), Some("movie"));
        assert_eq!(id_entity("movie-id").as_deref(), Some("movie"));
        assert_eq!(id_entity("id"), None);
        assert_eq!(id_entity("valid"), None);
    }

    /// A required string that names no id is a lookup input; an optional one, an id, an
    /// enum, a number or a header is not.
    #[test]
    fn a_lookup_input_is_a_required_free_text_parameter() {
        let mut api = api_with_inputs(&["query", "person_id", "id", "kind", "year", "key"], None);
        for p in &mut api.params {
            p.required = true;
        }
        api.params[3].schema = json!({"type": "string", "enum": ["a", "b"]});
        api.params[4].schema = json!({"type": "integer"});
        api.params[5].location = ParamLocation::Header;
        assert_eq!(api.lookup_inputs(), ["query"]);
        api.params[0].required = false;
        assert!(api.lookup_inputs().is_empty());
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
