//! The OpenAPI importer on small hand-written specs, and the export round trip.

use serde_json::json;
use toolsmith_catalog::{
    DocSelector, Endpoint, HttpMethod, ImportOptions, ListFormat, ParamLocation, Scope,
    SecurityScheme, Store, export, read_source,
};

use crate::data::write_temp;

const SWAGGER_YAML: &str = r#"
swagger: "2.0"
info: {title: Library, version: "1"}
host: books.example
basePath: /api
schemes: [https]
securityDefinitions:
  key: {type: apiKey, name: X-Key, in: header}
definitions:
  Book:
    type: object
    properties:
      id: {type: integer}
      title: {type: string}
parameters:
  Limit: {name: limit, in: query, type: integer, default: 10}
paths:
  /books:
    parameters:
      - $ref: '#/parameters/Limit'
    get:
      operationId: listBooks
      summary: List books
      parameters:
        - {name: q, in: query, type: string, description: Words in the title}
      responses:
        "200":
          description: ok
          schema: {type: array, items: {$ref: '#/definitions/Book'}}
          examples:
            application/json: [{id: 1, title: Dune}]
    post:
      operationId: addBook
      parameters:
        - {name: body, in: body, required: true, schema: {$ref: '#/definitions/Book'}}
      responses: {"201": {description: created}}
  /books/{id}:
    delete:
      operationId: deleteBook
      parameters: [{name: id, in: path, type: integer}]
      responses: {"204": {description: gone}}
"#;

fn import_text(name: &str, text: &str) -> Store {
    let (_dir, path) = write_temp(name, text);
    let mut store = Store::in_memory().unwrap();
    store
        .import(
            &read_source(&path, &ImportOptions::default()).unwrap(),
            toolsmith_catalog::Activate::IfNoneActive,
        )
        .unwrap();
    store
}

#[test]
fn swagger_2_yaml_with_shared_parameters_body_and_security() {
    let store = import_text("library.yaml", SWAGGER_YAML);
    let tool = store.tool(&"library".parse().unwrap()).unwrap();
    assert_eq!(tool.base_url.as_deref(), Some("https://books.example/api"));
    assert_eq!(
        tool.security,
        vec![SecurityScheme::ApiKey {
            scheme: "key".into(),
            name: "X-Key".into(),
            location: ParamLocation::Header
        }]
    );
    let list = store.api(&"library/listbooks".parse().unwrap()).unwrap();
    let params: Vec<_> = list.api.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["limit", "q"], "path-level parameters come first");
    assert_eq!(
        list.api.params[0].schema,
        json!({"type": "integer", "default": 10})
    );
    assert_eq!(
        list.api.response_schema.as_ref().unwrap()["items"]["properties"]["title"],
        json!({"type": "string"})
    );
    assert_eq!(
        list.api.response_examples,
        vec![json!([{"id": 1, "title": "Dune"}])]
    );
    let add = store.api(&"library/addbook".parse().unwrap()).unwrap();
    assert_eq!(
        add.api.endpoint,
        Endpoint::Http {
            method: HttpMethod::Post,
            path: "/books".into()
        }
    );
    assert!(
        add.api
            .params
            .iter()
            .any(|p| p.name == "title" && p.location == ParamLocation::Body)
    );
    assert!(
        store
            .api(&"library/deletebook".parse().unwrap())
            .unwrap()
            .api
            .params[0]
            .required,
        "path params are required"
    );
}

#[test]
fn openapi_3_1_all_of_request_bodies_and_recursion() {
    let spec = json!({
        "openapi": "3.1.0", "info": {"title": "Tree", "version": "1"},
        "components": {
            "schemas": {
                "Named": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
                "Node": {"allOf": [{"$ref": "#/components/schemas/Named"},
                    {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}]}
            },
            "requestBodies": {"NodeBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Named"}}}}},
            "responses": {"NodeResponse": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Node"}, "example": {"name": "root", "children": []}}}}}
        },
        "paths": {"/nodes": {
            "put": {"operationId": "putNode", "requestBody": {"$ref": "#/components/requestBodies/NodeBody"},
                    "responses": {"200": {"$ref": "#/components/responses/NodeResponse"}}},
            "patch": {"operationId": "patchNode", "responses": {"default": {"description": "x"}}}
        }}
    });
    let store = import_text("tree.json", &spec.to_string());
    let put = store.api(&"tree/putnode".parse().unwrap()).unwrap();
    let schema = put.api.response_schema.unwrap();
    assert_eq!(
        schema["required"],
        json!(["name"]),
        "allOf merged: {schema}"
    );
    assert_eq!(
        schema["properties"]["children"]["items"],
        json!({"$ref": "#/$defs/Node"})
    );
    assert!(
        schema["$defs"]["Node"].is_object(),
        "recursive schema kept as a definition"
    );
    assert_eq!(
        put.api.response_examples,
        vec![json!({"name": "root", "children": []})]
    );
    let name = put.api.params.iter().find(|p| p.name == "name").unwrap();
    assert!(name.required && name.location == ParamLocation::Body);
    assert!(store.api(&"tree/patchnode".parse().unwrap()).is_ok());
}

#[test]
fn operations_without_ids_are_named_by_method_and_path() {
    let spec = json!({"openapi": "3.0.3", "info": {"title": "x", "version": "1"},
        "paths": {"/users/{user_id}/posts": {"get": {"responses": {}}}}});
    let store = import_text("site-openapi.json", &spec.to_string());
    assert!(
        store
            .api(&"site/get_users_user_id_posts".parse().unwrap())
            .is_ok()
    );
}

#[test]
fn export_then_reimport_gives_the_same_apis_and_parameters() {
    let original = import_text("library.yaml", SWAGGER_YAML);
    let view = original
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let exported = export::openapi(&view.tools[0]).unwrap();
    assert_eq!(exported["openapi"], "3.1.0");
    let again = import_text("exported.json", &exported.to_string());
    let view2 = again
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    assert_eq!(
        view2.tools[0].tool.id, view.tools[0].tool.id,
        "x-toolsmith-tool keeps the id"
    );
    let shape = |c: &toolsmith_catalog::Catalog| -> Vec<_> {
        c.apis()
            .map(|(_, a)| {
                (
                    a.api.id.to_string(),
                    a.api.endpoint.clone(),
                    a.api.params.clone(),
                    a.description().to_owned(),
                )
            })
            .collect()
    };
    assert_eq!(shape(&view2), shape(&view));
}

#[test]
fn tmdb_round_trips_through_openapi_3_1() {
    let view = toolsmith_catalog::testing::tmdb_catalog();
    let exported = export::openapi(&view.tools[0]).unwrap();
    let again = import_text("tmdb.openapi.json", &exported.to_string());
    let view2 = again
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let ids = |c: &toolsmith_catalog::Catalog| {
        c.apis()
            .map(|(_, a)| (a.api.id.to_string(), a.api.params.len()))
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&view2), ids(&view));
    let tools = export::openai_tools(&view);
    assert_eq!(tools.as_array().unwrap().len(), 54);
    assert_eq!(tools[0]["type"], "function");
    let mcp = export::mcp_tools(&view);
    assert!(mcp["tools"][0]["inputSchema"]["properties"].is_object());
}

const LIST_PARAMS_YAML: &str = r#"
openapi: "3.0.3"
info: {title: Lists, version: "1"}
servers: [{url: "https://lists.example"}]
paths:
  /items:
    get:
      operationId: getItems
      parameters:
        - {name: ids, in: query, style: form, explode: false, schema: {type: array, items: {type: string}}}
        - {name: tags, in: query, schema: {type: array, items: {type: string}}}
        - {name: codes, in: query, style: pipeDelimited, schema: {type: array, items: {type: integer}}}
      responses: {"200": {description: ok}}
"#;

const SWAGGER_LISTS_YAML: &str = r#"
swagger: "2.0"
info: {title: Lists, version: "1"}
host: lists.example
paths:
  /items:
    get:
      operationId: getItems
      parameters:
        - {name: ids, in: query, type: array, items: {type: string}}
        - {name: tags, in: query, type: array, collectionFormat: multi, items: {type: string}}
      responses: {"200": {description: ok}}
"#;

/// Each query parameter's list format, by name.
fn list_formats(store: &Store) -> Vec<(String, ListFormat)> {
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let (_, api) = view.apis().next().unwrap();
    api.api
        .params
        .iter()
        .map(|p| (p.name.clone(), p.list_format))
        .collect()
}

#[test]
fn list_parameters_keep_the_wire_format_the_spec_gives() {
    let openapi = import_text("lists.yaml", LIST_PARAMS_YAML);
    let expected = vec![
        ("ids".to_owned(), ListFormat::Comma),
        ("tags".to_owned(), ListFormat::Repeat),
        ("codes".to_owned(), ListFormat::Pipe),
    ];
    assert_eq!(list_formats(&openapi), expected);
    let swagger = import_text("lists-2.yaml", SWAGGER_LISTS_YAML);
    assert_eq!(
        list_formats(&swagger),
        [
            ("ids".to_owned(), ListFormat::Comma),
            ("tags".to_owned(), ListFormat::Repeat)
        ],
        "Swagger 2 joins with commas unless `collectionFormat: multi`"
    );
    let view = openapi
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let exported = export::openapi(&view.tools[0]).unwrap();
    let again = import_text("lists-again.json", &exported.to_string());
    assert_eq!(list_formats(&again), expected, "the export keeps them");
}

/// A Spotify-shaped follow endpoint: parameters described only inside their schemas, a
/// `required` written as the string "true", and `ids` declared in the query and in the body.
const FOLLOW_JSON: &str = r#"{
  "openapi": "3.0.3",
  "info": {"title": "Music", "version": "1"},
  "servers": [{"url": "https://music.example/v1"}],
  "paths": {"/me/following": {"put": {
    "operationId": "follow-artists",
    "summary": "Follow artists",
    "parameters": [
      {"name": "type", "in": "query", "required": "true",
       "schema": {"type": "string", "enum": ["artist", "user"], "description": "The kind of id."}},
      {"name": "ids", "in": "query",
       "schema": {"type": "string", "description": "Comma-separated ids."}}
    ],
    "requestBody": {"content": {"application/json": {"schema": {
      "type": "object",
      "required": ["ids"],
      "properties": {"ids": {"type": "array", "items": {"type": "string"},
                             "description": "A JSON array of ids."}}
    }}}},
    "responses": {"204": {"description": "done"}}
  }}}
}"#;

#[test]
fn schema_descriptions_string_flags_and_a_name_in_query_and_body_read_as_the_agent_sees_them() {
    let store = import_text("follow.json", FOLLOW_JSON);
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    let entry = &catalog.tools[0].apis[0];
    let kind = entry.api.params.iter().find(|p| p.name == "type").unwrap();
    assert_eq!(kind.description, "The kind of id.", "read from its schema");
    assert!(
        kind.required,
        "`required: \"true\"` is a required parameter"
    );

    let markdown = toolsmith_catalog::render::api_markdown(entry);
    assert_eq!(markdown.matches("- ids (").count(), 1, "{markdown}");
    assert!(
        markdown.contains("- ids (body, array, required): A JSON array of ids."),
        "the declaration the function schema keeps: {markdown}"
    );
    let schema = export::input_schema(entry);
    assert_eq!(schema["properties"]["ids"]["type"], "array", "{schema}");
    assert!(markdown.contains("- type (query, string, required): The kind of id."));
}
