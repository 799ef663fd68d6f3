//! Broken inputs get clear errors naming the file and place, never a panic.

use proptest::prelude::*;
use toolsmith_catalog::testing::{TMDB_SPEC, data_path};
use toolsmith_catalog::{Error, Format, ImportOptions, read_source};

use crate::data::write_temp;

fn err_of(name: &str, text: &str) -> String {
    let (_dir, path) = write_temp(name, text);
    read_source(&path, &ImportOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn malformed_json_names_line_and_column() {
    let e = err_of("spec.json", "{\"openapi\": \"3.0.0\",\n \"paths\": {\n}");
    assert!(
        e.contains("spec.json:3:") && e.contains("malformed JSON"),
        "{e}"
    );
}

#[test]
fn dangling_refs_name_the_pointer() {
    let spec = r##"{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {
        "parameters": [{"$ref": "#/components/parameters/Missing"}], "responses": {}}}}}"##;
    let e = err_of("t.json", spec);
    assert!(
        e.contains("#/paths/~1a/get/parameters/0") && e.contains("dangling $ref"),
        "{e}"
    );
}

#[test]
fn self_referencing_refs_are_errors() {
    let spec = r##"{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {
        "parameters": [{"$ref": "#/components/parameters/P"}], "responses": {}}}},
        "components": {"parameters": {"P": {"$ref": "#/components/parameters/P"}}}}"##;
    assert!(err_of("t.json", spec).contains("resolves only to itself"));
}

#[test]
fn duplicate_operations_are_errors() {
    let spec = r#"{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/a": {"get": {"operationId": "same", "responses": {}}},
        "/b": {"get": {"operationId": "same", "responses": {}}}}}"#;
    let e = err_of("t.json", spec);
    assert!(
        e.contains("duplicate operation `same`") && e.contains("#/paths/~1a/get"),
        "{e}"
    );
}

#[test]
fn unknown_formats_say_so() {
    let e = err_of("what.json", r#"{"hello": 1}"#);
    assert!(e.contains("unknown format"), "{e}");
}

#[test]
fn broken_archives_are_reported() {
    let (_dir, path) = write_temp("tools.tar.gz", "this is not gzip");
    let err = read_source(&path, &ImportOptions::default()).unwrap_err();
    assert!(matches!(err, Error::Several(_)), "{err}");
    assert!(err.to_string().contains("tools.tar.gz"), "{err}");
}

fn tmdb_text() -> String {
    std::fs::read_to_string(data_path(TMDB_SPEC)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A spec cut anywhere is an error, never a panic.
    #[test]
    fn truncated_specs_never_panic(cut in 0usize..1_000_000) {
        let text = tmdb_text();
        let cut = cut % text.len();
        let cut = (0..=cut).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        let (_dir, path) = write_temp("t.json", &text[..cut]);
        let _ = read_source(&path, &ImportOptions { format: Some(Format::OpenApi), ..ImportOptions::default() });
    }

    /// Random edits of a small spec give a result or an error, never a panic.
    #[test]
    fn mutated_specs_never_panic(edits in proptest::collection::vec((0usize..2000, any::<char>()), 1..8)) {
        let mut text: Vec<char> = r##"{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {"/a/{id}": {"parameters": [{"name": "id", "in": "path"}],
          "get": {"operationId": "a", "parameters": [{"$ref": "#/components/parameters/Q"}], "requestBody": {"content": {"application/json": {"schema": {"allOf": [{"$ref": "#/components/schemas/S"}]}}}},
          "responses": {"200": {"description": "", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/S"}}}}}}}},
          "components": {"parameters": {"Q": {"name": "q", "in": "query", "schema": {"type": "string"}}},
          "schemas": {"S": {"type": "object", "properties": {"s": {"$ref": "#/components/schemas/S"}}}}}}"##.chars().collect();
        for (at, c) in edits {
            let at = at % text.len();
            text[at] = c;
        }
        let text: String = text.into_iter().collect();
        let (_dir, path) = write_temp("t.json", &text);
        let _ = read_source(&path, &ImportOptions::default());
    }
}
