//! Multi-file OpenAPI specs (issue 28, item 1): operations, parameters, responses and
//! schemas in other files of the spec's folder are read in; anything outside it is refused.

use std::path::Path;

use toolsmith_catalog::{
    ApiId, DocSelector, ImportOptions, ParamLocation, Scope, Store, read_bytes, read_source,
};

const ROOT: &str = r#"
openapi: 3.0.3
info: {title: Things, version: "2.1"}
servers: [{url: "https://things.example/v1"}]
paths:
  /things:
    get:
      $ref: "ops/list_things.yml"
  /things/{thing_id}:
    $ref: "paths/thing.yml"
"#;

const LIST_THINGS: &str = r#"
operationId: listThings
summary: List things
description: Lists every thing in the account, a page at a time.
parameters:
  - $ref: "../params/per_page.yml"
  - {name: tag, in: query, schema: {type: string}, description: Only things with this tag}
responses:
  "200":
    $ref: "../responses/things.yml"
"#;

const PER_PAGE: &str = r#"
name: per_page
in: query
description: Things per page.
schema: {type: integer, maximum: 200}
"#;

const THINGS_RESPONSE: &str = r#"
description: A page of things.
content:
  application/json:
    schema:
      type: object
      properties:
        things: {type: array, items: {$ref: "../models/thing.yml"}}
"#;

/// A thing whose parts are things: a recursive schema across files.
const THING: &str = r##"
type: object
properties:
  id: {type: string}
  parts: {type: array, items: {$ref: "#"}}
  owner: {$ref: "owner.yml#/Owner"}
"##;

const OWNER: &str = "Owner: {type: object, properties: {name: {type: string}}}\n";

const THING_PATH: &str = r#"
get:
  operationId: getThing
  description: One thing by id.
  parameters:
    - {name: thing_id, in: path, required: true, schema: {type: string}}
  responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "../models/thing.yml"}}}}}
"#;

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

pub(crate) fn spec_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("spec"),
        &[
            ("openapi.yaml", ROOT),
            ("ops/list_things.yml", LIST_THINGS),
            ("params/per_page.yml", PER_PAGE),
            ("responses/things.yml", THINGS_RESPONSE),
            ("models/thing.yml", THING),
            ("models/owner.yml", OWNER),
            ("paths/thing.yml", THING_PATH),
        ],
    );
    dir
}

#[test]
fn a_multi_file_spec_imports_with_descriptions_and_parameters() {
    let dir = spec_dir();
    let batch = read_source(
        &dir.path().join("spec/openapi.yaml"),
        &ImportOptions::default(),
    )
    .unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();

    let id: ApiId = "things/listthings".parse().unwrap();
    let list = store.api(&id).unwrap();
    assert_eq!(
        list.description(),
        "Lists every thing in the account, a page at a time."
    );
    let names: Vec<&str> = list.api.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["per_page", "tag"]);
    assert_eq!(list.api.params[0].schema["maximum"], 200);
    assert_eq!(list.api.params[0].location, ParamLocation::Query);
    let response = list.api.response_schema.as_ref().unwrap();
    let thing = &response["properties"]["things"]["items"];
    assert_eq!(
        thing["properties"]["owner"]["properties"]["name"]["type"],
        "string"
    );
    // The recursion is kept as a reference into the schema's own `$defs`.
    let parts = thing["properties"]["parts"]["items"]["$ref"]
        .as_str()
        .unwrap();
    let def = parts.strip_prefix("#/$defs/").unwrap();
    assert!(response["$defs"].get(def).is_some(), "{response}");

    let get: ApiId = "things/getthing".parse().unwrap();
    let get = store.api(&get).unwrap();
    assert_eq!(get.description(), "One thing by id.");
    assert_eq!(get.api.params[0].name, "thing_id");
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    assert_eq!(catalog.api_count(), 2);
}

#[test]
fn a_change_in_a_referenced_file_changes_the_source_hash() {
    let dir = spec_dir();
    let root = dir.path().join("spec/openapi.yaml");
    let before = read_source(&root, &ImportOptions::default()).unwrap();
    std::fs::write(
        dir.path().join("spec/params/per_page.yml"),
        PER_PAGE.replace("200", "100"),
    )
    .unwrap();
    let after = read_source(&root, &ImportOptions::default()).unwrap();
    assert_ne!(before.sha256, after.sha256);
}

#[test]
fn a_reference_out_of_the_spec_folder_is_refused() {
    let dir = spec_dir();
    write(dir.path(), &[("secret.yml", "name: x\nin: query\n")]);
    let escaping = LIST_THINGS.replace("../params/per_page.yml", "../../secret.yml");
    write(
        &dir.path().join("spec"),
        &[("ops/list_things.yml", escaping.as_str())],
    );
    let err = read_source(
        &dir.path().join("spec/openapi.yaml"),
        &ImportOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("../../secret.yml"), "{err}");
    assert!(err.contains("outside the spec's folder"), "{err}");
    assert!(
        err.contains("list_things.yml"),
        "names the file with the ref: {err}"
    );
}

#[test]
fn remote_and_missing_references_are_refused_by_name() {
    let dir = spec_dir();
    let remote = ROOT.replace("ops/list_things.yml", "https://evil.example/op.yml");
    write(
        &dir.path().join("spec"),
        &[("openapi.yaml", remote.as_str())],
    );
    let root = dir.path().join("spec/openapi.yaml");
    let err = read_source(&root, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("https://evil.example/op.yml"), "{err}");
    assert!(err.contains("remote $ref"), "{err}");

    let missing = ROOT.replace("ops/list_things.yml", "ops/gone.yml");
    write(
        &dir.path().join("spec"),
        &[("openapi.yaml", missing.as_str())],
    );
    let err = read_source(&root, &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("ops/gone.yml"), "{err}");
}

#[test]
fn a_spec_read_from_memory_refuses_external_references() {
    let err = read_bytes(
        Path::new("root.yaml"),
        ROOT.as_bytes(),
        &ImportOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("ops/list_things.yml"), "{err}");
    assert!(err.contains("#/paths/~1things/get"), "{err}");
}

/// DigitalOcean's shapes: an operation file whose only answer is a `default` response in a
/// shared file, and `properties` that is itself a reference into another file.
#[test]
fn a_default_response_and_referenced_properties_are_read_from_their_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = r#"
openapi: 3.0.0
info: {title: Boxes, version: "1"}
servers: [{url: "https://boxes.example"}]
paths:
  /v2/boxes:
    post:
      $ref: "resources/boxes/create_box.yml"
"#;
    let create = r#"
operationId: create_box
summary: Create a box.
responses:
  "410":
    description: Retired.
    content: {application/json: {schema: {type: object}, example: {id: gone}}}
  default:
    $ref: ../../shared/responses/box.yml
"#;
    let response = r#"
description: The box.
content:
  application/json:
    schema:
      type: object
      properties:
        $ref: "../models/box_attributes.yml#/box"
"#;
    let attributes = "box: {box_id: {type: string}, label: {type: string}}\n";
    write(
        &dir.path().join("spec"),
        &[
            ("root.yaml", root),
            ("resources/boxes/create_box.yml", create),
            ("shared/responses/box.yml", response),
            ("shared/models/box_attributes.yml", attributes),
        ],
    );
    let batch = read_source(
        &dir.path().join("spec/root.yaml"),
        &ImportOptions::default(),
    )
    .unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let id: ApiId = "boxes/create_box".parse().unwrap();
    let api = store.api(&id).unwrap();
    let schema = api.api.response_schema.as_ref().unwrap().to_string();
    assert!(schema.contains("box_id"), "{schema}");
    assert!(
        !schema.contains(".yml"),
        "no external reference left: {schema}"
    );
}

/// Spotify's published spec points a vendor extension at a file outside its folder that it
/// does not ship: the extension is not the API, so the spec imports whole.
#[test]
fn a_reference_inside_a_vendor_extension_is_not_followed() {
    let dir = spec_dir();
    let with_extension = format!(
        "{ROOT}x-policy:\n  $ref: ../../policies.yaml\ncomponents:\n  x-vendor-notes: {{$ref: missing.yml}}\n"
    );
    write(
        &dir.path().join("spec"),
        &[("openapi.yaml", with_extension.as_str())],
    );
    let batch = read_source(
        &dir.path().join("spec/openapi.yaml"),
        &ImportOptions::default(),
    )
    .unwrap();
    let apis: usize = batch.tools.iter().map(|t| t.apis.len()).sum();
    assert_eq!(apis, 2, "both operations imported");
}
