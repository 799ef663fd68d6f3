//! Shapes of the biggest public specs that once failed to import: Stripe's expandable
//! fields (schemas that refer to each other through `anyOf: [id, object]`), which grew
//! without bound when inlined, and GitHub's examples, whose data holds `$ref` keys.

use serde_json::{Map, Value, json};
use toolsmith_catalog::testing::{assert_valid_openapi, openapi_validator};
use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, export, read_source};

use crate::data::write_temp;

fn import(name: &str, spec: &Value) -> Store {
    let (_dir, path) = write_temp(name, &spec.to_string());
    let mut store = Store::in_memory().unwrap();
    store
        .import(
            &read_source(&path, &ImportOptions::default()).unwrap(),
            toolsmith_catalog::Activate::IfNoneActive,
        )
        .unwrap();
    store
}

/// Values of a JSON tree, counting objects, arrays and leaves.
fn nodes(value: &Value) -> usize {
    1 + match value {
        Value::Object(map) => map.values().map(nodes).sum(),
        Value::Array(items) => items.iter().map(nodes).sum(),
        _ => 0,
    }
}

/// Twelve objects, each of which may expand every other one, Stripe style.
fn expandable_spec() -> Value {
    const N: usize = 12;
    let schemas: Map<String, Value> = (0..N)
        .map(|i| {
            let mut properties = Map::new();
            properties.insert("id".to_owned(), json!({"type": "string"}));
            for j in (0..N).filter(|j| *j != i) {
                properties.insert(
                    format!("thing{j}"),
                    json!({"anyOf": [{"type": "string", "maxLength": 5000},
                        {"$ref": format!("#/components/schemas/thing{j}")}],
                        "description": format!("ID of thing {j}, or the object when expanded.")}),
                );
            }
            (
                format!("thing{i}"),
                json!({"type": "object", "title": format!("Thing{i}"), "properties": properties}),
            )
        })
        .collect();
    json!({"openapi": "3.0.0", "info": {"title": "Things", "version": "1"},
        "paths": {"/things/{id}": {"get": {"operationId": "getThing",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/thing0"}}}}}}}},
        "components": {"schemas": schemas}})
}

#[test]
fn mutually_expandable_schemas_import_bounded_and_export_valid() {
    let store = import("things.json", &expandable_spec());
    let api = store.api(&"things/getthing".parse().unwrap()).unwrap();
    let schema = api.api.response_schema.unwrap();
    // Unbounded, every definition was inlined with a fresh budget: nearly 300,000 nodes here.
    let size = nodes(&schema);
    assert!(size < 60_000, "response schema has {size} nodes");
    assert_eq!(schema["title"], "Thing0");
    assert_eq!(
        schema["properties"]["thing1"]["anyOf"][0]["type"], "string",
        "the top level stays inlined"
    );
    // Every reference kept resolves inside the schema's own `$defs`.
    let defs = schema["$defs"]
        .as_object()
        .expect("references kept as $defs");
    let text = schema.to_string();
    for (at, _) in text.match_indices("\"#/$defs/") {
        let name: String = text[at + 9..].chars().take_while(|c| *c != '"').collect();
        assert!(defs.contains_key(&name), "dangling #/$defs/{name}");
    }
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let exported = export::openapi_exported(&catalog.tools[0]);
    assert_valid_openapi(&openapi_validator(), &exported.value);
}

/// Data that looks like a reference: SCIM resources name themselves with a `$ref` URL.
fn scim_member() -> Value {
    json!({"value": "92b58aaa", "$ref": "https://api.example.com/scim/v2/Users/92b58aaa"})
}

#[test]
fn a_ref_key_inside_example_data_is_data_not_a_reference() {
    let member = scim_member();
    let group = json!({"id": "g1", "members": [member]});
    let spec = json!({"openapi": "3.0.3", "info": {"title": "Scim", "version": "1"},
        "paths": {"/groups": {"get": {"operationId": "listGroups",
            "parameters": [{"name": "filter", "in": "query", "schema": {"type": "object",
                "default": member, "enum": [member], "example": member}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"type": "object", "properties": {"members": {"type": "array",
                    "items": {"type": "object", "example": member}}}}, "examples": {
                    "inline": {"summary": "one group", "value": group},
                    "shared": {"$ref": "#/components/examples/group"},
                    "external": {"$ref": "examples/group.json"}}}}}}}}},
        "components": {"examples": {"group": {"summary": "a group", "value": group}}}});
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("examples")).unwrap();
    std::fs::write(
        dir.path().join("examples/group.json"),
        json!({"summary": "a group from a file", "value": group}).to_string(),
    )
    .unwrap();
    let path = dir.path().join("scim.json");
    std::fs::write(&path, spec.to_string()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(
            &read_source(&path, &ImportOptions::default()).unwrap(),
            toolsmith_catalog::Activate::IfNoneActive,
        )
        .unwrap();
    let api = store.api(&"scim/listgroups".parse().unwrap()).unwrap();
    assert_eq!(
        api.api.response_examples,
        vec![group.clone(), group.clone(), group],
        "the `$ref` inside each example's value is kept as written"
    );
    let schema = api.api.response_schema.unwrap();
    assert_eq!(
        schema["properties"]["members"]["items"]["example"],
        scim_member()
    );
    let filter = api.api.params.iter().find(|p| p.name == "filter").unwrap();
    assert_eq!(filter.schema["default"], scim_member());
}

#[test]
fn a_ref_key_inside_swagger_2_response_examples_is_data() {
    let spec = json!({"swagger": "2.0", "info": {"title": "Scim2", "version": "1"},
        "host": "api.example.com",
        "paths": {"/users/{id}": {"get": {"operationId": "getUser",
            "parameters": [{"name": "id", "in": "path", "required": true, "type": "string"}],
            "responses": {"200": {"description": "ok", "schema": {"type": "object"},
                "examples": {"application/json": scim_member()}}}}}}});
    let store = import("scim2.json", &spec);
    let api = store.api(&"scim2/getuser".parse().unwrap()).unwrap();
    assert_eq!(api.api.response_examples, vec![scim_member()]);
}

#[test]
fn a_schema_too_big_to_inline_inlines_its_top_levels_evenly() {
    let store = import("things.json", &expandable_spec());
    let api = store.api(&"things/getthing".parse().unwrap()).unwrap();
    let schema = api.api.response_schema.unwrap();
    // The last field is expanded like the first, not left to whatever budget remained.
    for field in ["thing1", "thing11"] {
        let expanded = &schema["properties"][field]["anyOf"][1];
        assert_eq!(expanded["type"], "object", "{field}: {expanded}");
        assert_eq!(
            expanded["properties"]["thing5"]["anyOf"][1],
            json!({"$ref": "#/$defs/thing5"}),
            "{field}: deeper schemas are definitions"
        );
    }
    // Each definition is copied once: its own references stay references.
    assert_eq!(
        schema["$defs"]["thing5"]["properties"]["thing6"]["anyOf"][1],
        json!({"$ref": "#/$defs/thing6"})
    );
}
