//! OpenAPI's security requirements (`security`, global and per operation;
//! the same shape in Swagger 2.0 and OpenAPI 3.x), resolved against the
//! schemes the spec declares into each API's [`SecurityRequirement`].

use serde_json::Value;

use crate::model::{SecurityRequirement, SecurityScheme};

/// The spec's declared schemes and its global requirement, to resolve each
/// operation's requirement against.
#[derive(Debug)]
pub(crate) struct Requirements<'s> {
    schemes: &'s [SecurityScheme],
    global: Option<SecurityRequirement>,
}

impl<'s> Requirements<'s> {
    /// The requirements of `spec`, whose declared `schemes` were read already.
    pub(crate) fn new(spec: &Value, schemes: &'s [SecurityScheme]) -> Self {
        let global = match spec.get("security") {
            Some(list) => resolve(list, schemes),
            // Schemes declared but never required: many specs forget the
            // global `security`; any one declared scheme is then offered.
            None if !schemes.is_empty() => Some(SecurityRequirement {
                alternatives: schemes.iter().map(|s| vec![s.clone()]).collect(),
            }),
            None => None,
        };
        Self { schemes, global }
    }

    /// The requirement of one operation: its own `security` when it has
    /// one (`[]` lifts the global one), the global one otherwise.
    pub(crate) fn of(&self, op: &Value) -> Option<SecurityRequirement> {
        match op.get("security") {
            Some(list) => resolve(list, self.schemes),
            None => self.global.clone(),
        }
    }
}

/// A `security` list resolved against the declared schemes. An alternative
/// naming a scheme toolsmith cannot send (undeclared, mutual TLS) is dropped;
/// `None` when that leaves nothing of a list that asked for something.
fn resolve(list: &Value, schemes: &[SecurityScheme]) -> Option<SecurityRequirement> {
    let items = list.as_array()?;
    let alternatives: Vec<Vec<SecurityScheme>> = items
        .iter()
        .filter_map(|item| {
            item.as_object()?
                .keys()
                .map(|name| {
                    schemes
                        .iter()
                        .find(|s| scheme_name(s) == Some(name))
                        .cloned()
                })
                .collect::<Option<Vec<_>>>()
        })
        .collect();
    (alternatives.is_empty() == items.is_empty()).then_some(SecurityRequirement { alternatives })
}

/// The name a scheme has in the spec (RapidAPI's scheme has none).
fn scheme_name(scheme: &SecurityScheme) -> Option<&str> {
    match scheme {
        SecurityScheme::ApiKey { scheme, .. }
        | SecurityScheme::Bearer { scheme }
        | SecurityScheme::Basic { scheme } => Some(scheme),
        SecurityScheme::RapidApi { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model::ParamLocation;

    fn schemes() -> Vec<SecurityScheme> {
        vec![
            SecurityScheme::ApiKey {
                scheme: "key".into(),
                name: "X-API-Key".into(),
                location: ParamLocation::Header,
            },
            SecurityScheme::Basic {
                scheme: "basic".into(),
            },
            SecurityScheme::Bearer {
                scheme: "oauth".into(),
            },
        ]
    }

    #[test]
    fn operations_override_the_global_requirement() {
        let schemes = schemes();
        let spec = json!({"security": [{"key": []}]});
        let reqs = Requirements::new(&spec, &schemes);
        let global = reqs.of(&json!({})).unwrap();
        assert_eq!(global.alternatives, vec![vec![schemes[0].clone()]]);
        let own = reqs
            .of(&json!({"security": [{"basic": [], "oauth": ["read"]}, {"key": []}]}))
            .unwrap();
        assert_eq!(
            own.alternatives,
            vec![
                vec![schemes[1].clone(), schemes[2].clone()],
                vec![schemes[0].clone()]
            ]
        );
        let open = reqs.of(&json!({"security": []})).unwrap();
        assert!(open.alternatives.is_empty() && open.is_optional());
        let optional = reqs.of(&json!({"security": [{}, {"key": []}]})).unwrap();
        assert!(optional.is_optional());
    }

    #[test]
    fn a_swagger_2_import_carries_each_operations_requirement() {
        let spec = json!({
            "swagger": "2.0",
            "info": {"title": "Chat", "version": "1"},
            "host": "chat.example.com",
            "securityDefinitions": {
                "token": {"type": "apiKey", "in": "query", "name": "token"},
                "basic": {"type": "basic"}
            },
            "security": [{"token": []}],
            "paths": {
                "/post": {"post": {"operationId": "post", "responses": {"200": {"description": "ok"}}}},
                "/login": {"post": {"operationId": "login", "security": [{"basic": []}],
                    "responses": {"200": {"description": "ok"}}}}
            }
        });
        let bytes = serde_json::to_vec(&spec).unwrap();
        let batch = crate::import::read_bytes(
            std::path::Path::new("chat.json"),
            &bytes,
            &crate::import::ImportOptions::default(),
        )
        .unwrap();
        let apis = &batch.tools[0].apis;
        let requirement = |name: &str| {
            let api = apis.iter().find(|a| a.name.as_str() == name).unwrap();
            api.access.security.clone().unwrap().alternatives
        };
        assert_eq!(
            requirement("post"),
            vec![vec![SecurityScheme::ApiKey {
                scheme: "token".into(),
                name: "token".into(),
                location: ParamLocation::Query,
            }]]
        );
        assert_eq!(
            requirement("login"),
            vec![vec![SecurityScheme::Basic {
                scheme: "basic".into()
            }]]
        );
    }

    #[test]
    fn undeclared_schemes_are_dropped_and_a_silent_spec_offers_each_scheme() {
        let schemes = schemes();
        let reqs = Requirements::new(&json!({}), &schemes);
        assert_eq!(reqs.of(&json!({})).unwrap().alternatives.len(), 3);
        let partly = reqs
            .of(&json!({"security": [{"mtls": []}, {"basic": []}]}))
            .unwrap();
        assert_eq!(partly.alternatives, vec![vec![schemes[1].clone()]]);
        assert_eq!(reqs.of(&json!({"security": [{"mtls": []}]})), None);
        assert_eq!(Requirements::new(&json!({}), &[]).of(&json!({})), None);
    }
}
