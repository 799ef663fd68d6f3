//! Exports that validate (issue 28, items 4, 6 and 10): recursive and shared schemas under
//! `components`, Swagger 2.0 tuples, C1 control characters, ToolEnv2404's wrong-typed
//! defaults, foreign type names and undeclared path parameters, numbers written as
//! strings, and no-content responses.

use serde_json::{Value, json};
use toolsmith_catalog::export::input_schema;
use toolsmith_catalog::lint::{LintKind, lint_catalog};
use toolsmith_catalog::testing::{assert_valid_openapi, openapi_validator};
use toolsmith_catalog::{
    ApiId, Catalog, DocSelector, ImportOptions, Scope, Store, export, read_source,
};

use crate::data::write_temp;

fn import(name: &str, text: &str) -> (Store, Catalog) {
    let (_dir, path) = write_temp(name, text);
    let mut store = Store::in_memory().unwrap();
    store
        .import(
            &read_source(&path, &ImportOptions::default()).unwrap(),
            toolsmith_catalog::Activate::IfNoneActive,
        )
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    (store, catalog)
}

/// The one tool's export, checked against the OpenAPI 3.1 schema and the structural rules.
fn export_valid(catalog: &Catalog) -> export::Exported {
    let exported = export::openapi_exported(&catalog.tools[0]);
    assert_valid_openapi(&openapi_validator(), &exported.value);
    exported
}

fn changed(exported: &export::Exported, words: &str) -> bool {
    exported.changes.iter().any(|c| c.what.contains(words))
}

const RECURSIVE: &str = r##"{
  "openapi": "3.1.0",
  "info": {"title": "Trees", "version": "3"},
  "paths": {"/trees/{id}": {"get": {
    "operationId": "getTree",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
    "responses": {"200": {"description": "ok", "content": {"application/json": {
      "schema": {"$ref": "#/components/schemas/Node"}}}}}}}},
  "components": {"schemas": {"Node": {"type": "object", "properties": {
    "name": {"type": "string"},
    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}}
}"##;

#[test]
fn a_recursive_schema_exports_under_components_and_validates() {
    let (_store, catalog) = import("trees.json", RECURSIVE);
    let exported = export_valid(&catalog);
    let doc = &exported.value;
    let schema = &doc["paths"]["/trees/{id}"]["get"]["responses"]["200"]["content"]["application/json"]
        ["schema"];
    assert!(schema.get("$defs").is_none(), "{schema}");
    let reference = schema["properties"]["children"]["items"]["$ref"]
        .as_str()
        .unwrap();
    assert_eq!(reference, "#/components/schemas/Node");
    assert_eq!(
        doc["components"]["schemas"]["Node"]["properties"]["children"]["items"]["$ref"],
        "#/components/schemas/Node"
    );
}

#[test]
fn an_exported_multi_file_spec_validates() {
    let dir = crate::multi_file::spec_dir();
    let batch = read_source(
        &dir.path().join("spec/openapi.yaml"),
        &ImportOptions::default(),
    )
    .unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let exported = export_valid(&catalog);
    let list = &exported.value["paths"]["/things"]["get"];
    assert_eq!(list["parameters"][0]["name"], "per_page");
    assert!(exported.value["components"]["schemas"].is_object());
}

/// One big schema answered by ten operations: written once, not ten times.
#[test]
fn a_schema_used_many_times_is_written_once() {
    let thing = json!({"type": "object", "properties": {
        "id": {"type": "string", "description": "The thing's id."},
        "name": {"type": "string", "description": "What the thing is called."},
        "size": {"type": "integer", "description": "How big the thing is, in units."},
        "tags": {"type": "array", "items": {"type": "string"}, "description": "Labels."}}});
    let paths: serde_json::Map<String, Value> = (0..10)
        .map(|i| {
            (
                format!("/things{i}"),
                json!({"get": {"operationId": format!("list{i}"), "responses": {"200": {
                    "description": "ok",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}}}}}}),
            )
        })
        .collect();
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Things", "version": "1"},
        "paths": paths, "components": {"schemas": {"Thing": thing}}});
    let source = spec.to_string();
    let (_store, catalog) = import("things.json", &source);
    let exported = export_valid(&catalog);
    let size = exported.value.to_string().len();
    assert!(
        size < source.len() * 2,
        "export {size} bytes, source {}",
        source.len()
    );
    let shared = exported.value["components"]["schemas"].as_object().unwrap();
    assert_eq!(shared.len(), 1, "{shared:?}");
    assert!(changed(&exported, "written once under components/schemas"));
}

const SWAGGER_TUPLES: &str = r#"
swagger: "2.0"
info: {title: Points, version: "1"}
paths:
  /points:
    get:
      operationId: listPoints
      responses:
        "200":
          description: ok
          schema:
            type: array
            items:
              type: array
              items: [{type: number}, {type: number}]
"#;

#[test]
fn swagger_2_tuples_become_prefix_items_and_are_reported() {
    let (_store, catalog) = import("points.yaml", SWAGGER_TUPLES);
    let exported = export_valid(&catalog);
    let schema = &exported.value["paths"]["/points"]["get"]["responses"]["200"]["content"]["application/json"]
        ["schema"];
    assert_eq!(schema["items"]["prefixItems"][1]["type"], "number");
    assert!(
        changed(&exported, "tuple `items`"),
        "{:?}",
        exported.changes
    );
}

#[test]
fn c1_characters_stay_in_the_catalog_and_are_replaced_on_export() {
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
        "paths": {"/film": {"get": {"operationId": "getFilm",
            "description": "The film\u{0092}s details.",
            "responses": {"200": {"description": "ok"}}}}}});
    let (store, catalog) = import("films.json", &spec.to_string());
    let id: ApiId = "films/getfilm".parse().unwrap();
    assert_eq!(
        store.api(&id).unwrap().description(),
        "The film\u{0092}s details.",
        "the catalog keeps the doc as imported"
    );
    let exported = export_valid(&catalog);
    assert_eq!(
        exported.value["paths"]["/film"]["get"]["description"],
        "The film\u{2019}s details."
    );
    assert!(changed(&exported, "C1 control"), "{:?}", exported.changes);
}

/// A ToolEnv2404-style RapidAPI tool: a number defaulting to the string "1", a response
/// typed `interger` and `float`, and a path naming `{mId}` with no such parameter.
const TOOLENV_TOOL: &str = r#"{
  "tool_name": "Merchants", "host": "merchants.p.rapidapi.com", "tool_description": "Merchants.",
  "api_list": [
    {"name": "Merchant items", "url": "https://merchants.p.rapidapi.com/merchant/{mId}/items",
     "method": "GET", "description": "Items a merchant sells.",
     "required_parameters": [],
     "optional_parameters": [{"name": "page", "type": "NUMBER", "description": "Page", "default": "1"},
                             {"name": "size", "type": "NUMBER", "description": "Size", "default": "big"}],
     "schema": {"type": "object", "properties": {"count": {"type": "interger"},
                "price": {"type": "float"}, "label": {"type": "str"}}}}
  ]
}"#;

#[test]
fn toolenv_defaults_types_and_path_parameters_are_repaired_and_reported() {
    let (_store, catalog) = import("merchants.json", TOOLENV_TOOL);
    let exported = export_valid(&catalog);
    let op = exported.value["paths"]["/merchant/{mId}/items"]["get"].clone();
    let param = |name: &str| {
        op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(param("page")["schema"]["default"], 1);
    assert!(param("size")["schema"].get("default").is_none());
    assert_eq!(
        param("mId"),
        json!({"name": "mId", "in": "path", "required": true, "schema": {"type": "string"}})
    );
    let response = &op["responses"]["200"]["content"]["application/json"]["schema"]["properties"];
    assert_eq!(response["count"]["type"], "integer");
    assert_eq!(response["price"]["type"], "number");
    assert_eq!(response["label"]["type"], "string");
    for words in [
        "default \"1\" is not of type number; written as 1",
        "default \"big\" is not of type number; dropped",
        "declares no such parameter",
        "type `interger` written as `integer`",
    ] {
        assert!(
            changed(&exported, words),
            "{words}: {:#?}",
            exported.changes
        );
    }
}

const SPOTIFY_LIKE: &str = r#"{
  "openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
  "paths": {"/albums": {"get": {"operationId": "getAlbums",
    "description": "Albums, a page at a time.",
    "parameters": [{"name": "limit", "in": "query", "description": "Page size.",
      "schema": {"type": "integer", "maximum": "50", "minimum": "0", "default": 20}}],
    "responses": {"200": {"description": "ok", "content": {"application/json": {
      "schema": {"type": "object", "properties": {"items": {"type": "array", "maxItems": "50"}}}}}}}}}}
}"#;

#[test]
fn numbers_written_as_strings_compile_after_import_and_lint_reports_them() {
    let (store, catalog) = import("music.json", SPOTIFY_LIKE);
    let id: ApiId = "music/getalbums".parse().unwrap();
    let api = store.api(&id).unwrap();
    let schema = &api.api.params[0].schema;
    assert_eq!(schema["maximum"], 50);
    let validator = jsonschema::validator_for(schema).expect("the stored schema compiles");
    assert!(validator.is_valid(&json!(50)));
    assert!(!validator.is_valid(&json!(51)), "the bound is enforced");

    let report = lint_catalog(&catalog);
    let found: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.kind == LintKind::NumberAsString)
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(
        found
            .iter()
            .any(|m| m.contains("`maximum` is the string \"50\"")),
        "{found:?}"
    );
    export_valid(&catalog);
}

const REQUIRED_BODY: &str = r#"{
  "openapi": "3.0.0", "info": {"title": "Music", "version": "1"},
  "paths": {"/albums": {"get": {"operationId": "getAlbums", "description": "Albums.",
    "parameters": [{"name": "limit", "in": "query", "description": "Page size.",
      "schema": {"type": "integer", "maximum": "50"}}],
    "responses": {"200": {"description": "ok"}}},
   "put": {"operationId": "saveAlbums", "description": "Saves albums.",
    "requestBody": {"required": true, "content": {"application/json": {"schema": {
      "type": "array", "maxItems": "50", "items": {"type": "string"}}}}},
    "responses": {"200": {"description": "ok"}}}}}
}"#;

/// A model reads an API's input schema: the importer's own notes (the strings it read
/// numbers from, a body's required flag) are not in it, the repaired bound and a required
/// body's place in `required` are.
#[test]
fn a_function_schema_carries_no_importer_notes() {
    let (store, _catalog) = import("music.json", REQUIRED_BODY);
    let get = store.api(&"music/getalbums".parse().unwrap()).unwrap();
    let put = store.api(&"music/savealbums".parse().unwrap()).unwrap();
    let (get, put) = (input_schema(&get), input_schema(&put));
    assert_eq!(get["properties"]["limit"]["maximum"], 50);
    assert_eq!(put["properties"]["body"]["maxItems"], 50);
    assert_eq!(put["required"], json!(["body"]));
    for schema in [get, put] {
        let text = schema.to_string();
        assert!(
            !text.contains("x-toolsmith") && !text.contains("x-body-required"),
            "{text}"
        );
    }
}

const NO_CONTENT: &str = r#"{
  "openapi": "3.0.0", "info": {"title": "Jobs", "version": "1"},
  "paths": {
    "/jobs/{id}": {
      "delete": {"operationId": "deleteJob", "description": "Deletes a job.",
        "parameters": [{"name": "id", "in": "path", "required": true, "description": "The job.", "schema": {"type": "string"}}],
        "responses": {"204": {"description": "Deleted."}}},
      "get": {"operationId": "getJob", "description": "One job.",
        "parameters": [{"name": "id", "in": "path", "required": true, "description": "The job.", "schema": {"type": "string"}}],
        "responses": {"200": {"description": "The job."}}}},
    "/jobs": {"post": {"operationId": "startJob", "description": "Starts a job.",
      "responses": {"202": {"description": "Accepted."}}}}}
}"#;

#[test]
fn no_content_responses_are_not_missing_schemas() {
    let (_store, catalog) = import("jobs.json", NO_CONTENT);
    let report = lint_catalog(&catalog);
    let missing: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.kind == LintKind::NoResponseSchema)
        .map(|f| f.api.to_string())
        .collect();
    assert_eq!(missing, ["jobs/getjob"]);
    let exported = export_valid(&catalog);
    let paths = &exported.value["paths"];
    assert_eq!(
        paths["/jobs/{id}"]["delete"]["responses"],
        json!({"204": {"description": "No content"}})
    );
    assert!(paths["/jobs"]["post"]["responses"].get("202").is_some());
}
