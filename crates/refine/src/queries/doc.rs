//! How the writer shows one API: the catalog's markdown, with each parameter listed once and
//! a type that agrees with its description, so the prompt never contradicts itself.

use serde_json::Value;
use toolsmith_catalog::{ApiEntry, Param, render};

/// `api` as the writer reads it: one line per argument name ([`toolsmith_catalog::Api::arguments`]:
/// a field that a spec lists both in the query and in the body is one argument), and a
/// number typed parameter whose description asks for separated values shown as the text it
/// really is (TMDB's `with_release_type`: integer, "a comma (AND) or pipe (OR) separated
/// value").
pub(crate) fn step_markdown(api: &ApiEntry) -> String {
    let mut bare = api.clone();
    bare.api.params.clear();
    let mut out = render::api_markdown(&bare).trim_end().to_owned();
    let lines: Vec<String> = api.api.arguments().into_iter().map(param_line).collect();
    if !lines.is_empty() {
        out.push_str("\n\nParameters:\n");
        out.push_str(&lines.join("\n"));
    }
    out
}

fn param_line(p: &Param) -> String {
    if !is_joined_list(p) {
        return render::param_line(p);
    }
    let mut shown = p.clone();
    if let Some(schema) = shown.schema.as_object_mut() {
        schema.insert("type".into(), Value::String("string".into()));
    }
    render::param_line(&shown)
}

/// A number typed parameter whose description says it takes several values separated by a
/// character: its value on the wire is text such as `2|3`.
fn is_joined_list(p: &Param) -> bool {
    let numeric = matches!(
        p.schema.get("type").and_then(Value::as_str),
        Some("integer" | "number")
    );
    numeric && p.description.to_lowercase().contains("separated")
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolsmith_catalog::{Api, ApiEntry, Endpoint, HttpMethod, Param, ParamLocation};

    use super::step_markdown;

    fn param(name: &str, location: ParamLocation, schema: serde_json::Value, d: &str) -> Param {
        Param {
            name: name.into(),
            location,
            required: false,
            schema,
            description: d.into(),
            list_format: Default::default(),
        }
    }

    #[test]
    fn a_parameter_shows_once_and_a_separated_number_list_as_text() {
        let params = vec![
            param(
                "ids",
                ParamLocation::Query,
                json!({"type": "string"}),
                "Ids.",
            ),
            param("ids", ParamLocation::Body, json!({"type": "array"}), "Ids."),
            param(
                "with_release_type",
                ParamLocation::Query,
                json!({"type": "integer"}),
                "A comma (AND) or pipe (OR) separated value.",
            ),
            param(
                "page",
                ParamLocation::Query,
                json!({"type": "integer"}),
                "Page.",
            ),
        ];
        let api = Api {
            id: "tmdb/discover_movie".parse().unwrap(),
            name: "Discover".into(),
            source_name: "discover_movie".into(),
            endpoint: Endpoint::Http {
                method: HttpMethod::Get,
                path: "/discover/movie".into(),
            },
            params,
            request_body: None,
            response_schema: None,
            response_examples: Vec::new(),
            access: Default::default(),
        };
        let shown = step_markdown(&ApiEntry { api, doc: None });
        assert_eq!(shown.matches("- ids (").count(), 1, "{shown}");
        assert!(
            shown.contains("- ids (body, array)"),
            "the declaration the function schema keeps: {shown}"
        );
        assert!(
            shown.contains("- with_release_type (query, string)"),
            "{shown}"
        );
        assert!(shown.contains("- page (query, integer)"), "{shown}");
        assert_eq!(shown.matches("Parameters:").count(), 1, "{shown}");
    }
}
