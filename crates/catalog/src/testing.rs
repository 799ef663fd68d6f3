//! Test fixtures for every crate's tests (feature `test-utils`): the RestBench TMDB catalog,
//! imported from the shared benchmark data ([`toolsmith_plumbing::data`]), and the checks an
//! export must pass ([`openapi_validator`], [`assert_valid_openapi`], [`assert_valid_functions`]).

use std::collections::HashSet;
use std::path::PathBuf;

use serde_json::Value;

use crate::names::MAX_FUNCTION_NAME;
use crate::{
    Api, Catalog, DocSelector, Endpoint, ImportOptions, Param, ParamLocation, Scope, Store,
    read_source,
};

/// The official OpenAPI 3.1 schema (tests/assets, Apache-2.0), as YAML.
const OPENAPI_31_SCHEMA: &str = include_str!("../tests/assets/openapi-3.1-schema.yaml");

/// RestBench's TMDB OpenAPI spec, relative to the benchmark data folder.
pub const TMDB_SPEC: &str = "restbench-tmdb/restgpt/tmdb_oas.json";

/// A RapidAPI tool file (`Cars`) with two named APIs on `GET /vehicle` and a parameter listed
/// twice: the collisions importers and exporters must disambiguate and report.
pub const COLLIDING_RAPIDAPI_TOOL: &str = r#"{
  "tool_name": "Cars", "host": "cars.p.rapidapi.com", "tool_description": "Cars.",
  "api_list": [
    {"name": "Vehicle by plate", "url": "https://cars.p.rapidapi.com/vehicle", "method": "GET",
     "description": "Look a vehicle up by plate.",
     "required_parameters": [{"name": "plate", "type": "STRING", "description": "Plate", "default": ""},
                             {"name": "plate", "type": "STRING", "description": "Plate again", "default": ""}],
     "optional_parameters": []},
    {"name": "Vehicle by VIN", "url": "https://cars.p.rapidapi.com/vehicle", "method": "GET",
     "description": "Look a vehicle up by VIN.",
     "required_parameters": [{"name": "vin", "type": "STRING", "description": "VIN", "default": ""}],
     "optional_parameters": []}
  ]
}"#;

/// The shared benchmark data folder ([`toolsmith_plumbing::data::data_dir`]).
///
/// # Panics
/// When the folder cannot be found: a fixture that cannot load must stop the test with a
/// message saying what to set.
#[allow(clippy::panic)]
pub fn data_dir() -> PathBuf {
    toolsmith_plumbing::data::data_dir().unwrap_or_else(|e| panic!("{e}"))
}

/// The path of a file in the shared benchmark data folder.
///
/// # Panics
/// When the data folder cannot be found or the file is missing.
#[allow(clippy::panic)]
pub fn data_path(relative: &str) -> PathBuf {
    let path = data_dir().join(relative);
    if !path.exists() {
        panic!(
            "benchmark data missing: {} (set {})",
            path.display(),
            toolsmith_plumbing::data::ENV
        );
    }
    path
}

/// RestBench's TMDB spec (54 APIs) imported into a fresh in-memory store.
///
/// # Panics
/// When the data is missing or does not import (see [`data_path`]).
#[allow(clippy::panic)]
pub fn tmdb_store() -> Store {
    let path = data_path(TMDB_SPEC);
    let load = || -> crate::Result<Store> {
        let mut store = Store::in_memory()?;
        store.import(
            &read_source(&path, &ImportOptions::default())?,
            crate::Activate::IfNoneActive,
        )?;
        Ok(store)
    };
    load().unwrap_or_else(|e| panic!("importing {}: {e}", path.display()))
}

/// The active view of [`tmdb_store`]: the TMDB catalog as every stage reads it.
///
/// # Panics
/// When the data is missing or does not import (see [`data_path`]).
#[allow(clippy::panic)]
pub fn tmdb_catalog() -> Catalog {
    tmdb_store()
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap_or_else(|e| panic!("reading the TMDB catalog: {e}"))
}

/// A validator for OpenAPI 3.1 documents, from the official schema.
///
/// # Panics
/// When the bundled schema does not parse or compile.
#[allow(clippy::panic)]
pub fn openapi_validator() -> jsonschema::Validator {
    let schema: Value = serde_norway::from_str(OPENAPI_31_SCHEMA)
        .unwrap_or_else(|e| panic!("the bundled OpenAPI 3.1 schema: {e}"));
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("compiling the OpenAPI 3.1 schema: {e}"))
}

/// Asserts that `schema` passes its JSON Schema meta-schema (2020-12 when it names none);
/// `at` says where it came from in the message.
///
/// # Panics
/// When it does not.
#[allow(clippy::panic)]
pub fn assert_meta_valid(schema: &Value, at: &str) {
    if let Err(e) = jsonschema::meta::validate(schema) {
        panic!("{at}: not a valid JSON Schema: {e}\n{schema}");
    }
}

/// Asserts that an exported OpenAPI document passes `validator` ([`openapi_validator`]),
/// with unique operation ids, each parameter once per operation, path parameters required
/// and every parameter schema meta-valid.
///
/// # Panics
/// When any of that fails, naming the tool, operation and parameter.
#[allow(clippy::panic)]
pub fn assert_valid_openapi(validator: &jsonschema::Validator, doc: &Value) {
    let tool = doc["info"]["x-toolsmith-tool"].as_str().unwrap_or("?");
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .take(3)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{tool}: {errors:#?}");
    assert_structurally_valid(doc);
    let mut operation_ids = HashSet::new();
    let paths = doc["paths"]
        .as_object()
        .unwrap_or_else(|| panic!("{tool}: no paths object"));
    for (path, item) in paths {
        let operations = item
            .as_object()
            .unwrap_or_else(|| panic!("{tool} {path}: not an object"));
        for (method, op) in operations {
            let id = op["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{tool} {method} {path}: no operationId"));
            assert!(
                operation_ids.insert(id.to_owned()),
                "{tool}: operationId {id} twice"
            );
            let mut seen = HashSet::new();
            for p in op["parameters"].as_array().into_iter().flatten() {
                let key = (p["name"].to_string(), p["in"].to_string());
                assert!(seen.insert(key), "{tool} {method} {path}: {p} twice");
                if p["in"] == "path" {
                    assert_eq!(p["required"], true, "{tool} {method} {path}: {p}");
                }
                assert_meta_valid(
                    &p["schema"],
                    &format!("{tool} {method} {path} {}", p["name"]),
                );
            }
        }
    }
}

/// Asserts what the OpenAPI 3.1 schema alone does not check: every local `$ref` resolves
/// inside the document, every `{name}` of a path is declared as a path parameter of each of
/// its operations, every `default` has its schema's `type`, no `items` is a list (a Swagger
/// 2.0 tuple), and no string holds a C1 control character (U+0080..U+009F), which
/// YAML-based validators reject.
///
/// # Panics
/// When any of that fails, naming what and where.
#[allow(clippy::panic)]
pub fn assert_structurally_valid(doc: &Value) {
    let tool = doc["info"]["x-toolsmith-tool"].as_str().unwrap_or("?");
    let text = doc.to_string();
    if let Some(c) = text.chars().find(|c| ('\u{80}'..='\u{9f}').contains(c)) {
        panic!("{tool}: C1 control U+{:04X} in the document", c as u32);
    }
    walk_schemas(doc, "#", &mut |value, at| {
        if let Some(reference) = value.get("$ref").and_then(Value::as_str)
            && let Some(pointer) = reference.strip_prefix('#')
        {
            assert!(
                doc.pointer(pointer).is_some(),
                "{tool}: dangling $ref {reference} at {at}"
            );
        }
        assert!(
            !value.get("items").is_some_and(Value::is_array),
            "{tool}: tuple `items` at {at}"
        );
        if let (Some(kind), Some(default)) = (
            value.get("type").and_then(Value::as_str),
            value.get("default"),
        ) {
            let fits = match kind {
                "string" => default.is_string(),
                "number" => default.is_number(),
                "integer" => default.is_i64() || default.is_u64(),
                "boolean" => default.is_boolean(),
                "array" => default.is_array(),
                "object" => default.is_object(),
                _ => true,
            };
            assert!(
                fits || default.is_null(),
                "{tool}: default {default} is not a {kind} at {at}"
            );
        }
    });
    for (key, item) in doc["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let path = op["x-toolsmith-path"].as_str().unwrap_or(key);
            let names = path
                .split('{')
                .skip(1)
                .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
                .filter(|name| !name.is_empty());
            for name in names {
                let declared = op["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|p| p["in"] == "path" && p["name"] == name);
                assert!(
                    declared,
                    "{tool} {method} {path}: path parameter `{name}` undeclared"
                );
            }
        }
    }
}

/// Calls `visit` on every object of a document with its pointer.
fn walk_schemas(value: &Value, at: &str, visit: &mut dyn FnMut(&Value, &str)) {
    match value {
        Value::Object(map) => {
            visit(value, at);
            for (key, child) in map {
                if !matches!(
                    key.as_str(),
                    "example" | "examples" | "x-usage-examples" | "enum" | "default" | "const"
                ) {
                    walk_schemas(child, &format!("{at}/{key}"), visit);
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk_schemas(item, &format!("{at}/{i}"), visit);
            }
        }
        _ => {}
    }
}

/// Asserts that function tools (OpenAI's `function` objects or MCP tools, as `(name,
/// parameters)`) are valid: names unique, at most 64 characters of `[a-zA-Z0-9_-]`;
/// parameters a meta-valid schema whose `required` is unique and names properties. Returns
/// how many there were.
///
/// # Panics
/// When any of that fails, naming the function.
#[allow(clippy::panic)]
pub fn assert_valid_functions(functions: impl Iterator<Item = (String, Value)>) -> usize {
    let mut names = HashSet::new();
    let mut count = 0;
    for (name, parameters) in functions {
        count += 1;
        assert!(
            name.len() <= MAX_FUNCTION_NAME && !name.is_empty(),
            "{name}"
        );
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
            "{name}"
        );
        assert!(names.insert(name.clone()), "function {name} twice");
        assert_meta_valid(&parameters, &name);
        let required: Vec<&str> = parameters["required"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: no `required` list"))
            .iter()
            .map(|v| {
                v.as_str()
                    .unwrap_or_else(|| panic!("{name}: a `required` entry is not a name"))
            })
            .collect();
        let unique: HashSet<&&str> = required.iter().collect();
        assert_eq!(unique.len(), required.len(), "{name}: {required:?}");
        for r in &required {
            assert!(
                parameters["properties"].get(r).is_some(),
                "{name}: {r} required, absent"
            );
        }
    }
    count
}

/// A function API `t/a` with string query parameters of `params`' names and `body` as its
/// request body schema: the inputs that argument checks read.
#[allow(clippy::expect_used)]
pub fn api_with_inputs(params: &[&str], body: Option<Value>) -> Api {
    Api {
        id: "t/a".parse().expect("a valid id"),
        name: "a".into(),
        source_name: "a".into(),
        endpoint: Endpoint::Function { name: "a".into() },
        params: params
            .iter()
            .map(|name| Param {
                name: (*name).into(),
                location: ParamLocation::Query,
                required: false,
                schema: serde_json::json!({"type": "string"}),
                description: String::new(),
                list_format: Default::default(),
            })
            .collect(),
        request_body: body,
        response_schema: None,
        response_examples: Vec::new(),
        access: Default::default(),
    }
}
