//! Exports that stay valid at catalog scale (issue 16, item 10): every OpenAPI document passes
//! the official OpenAPI 3.1 schema (tests/assets, Apache-2.0), every parameter schema passes
//! the JSON Schema meta-schema, function names are unique, `required` lists a name once.

use std::time::Instant;

use serde_json::{Value, json};
use toolsmith_catalog::export::{self, Exported};
use toolsmith_catalog::lint::{LintKind, lint_catalog};
use toolsmith_catalog::testing::{
    COLLIDING_RAPIDAPI_TOOL, assert_valid_functions, assert_valid_openapi, data_path,
    openapi_validator, tmdb_catalog,
};
use toolsmith_catalog::{
    Catalog, DocSelector, ImportOptions, Scope, Store, read_bytes, read_source,
};

use crate::real_data::assert_function_names_resolve;

fn openai_functions(exported: &Exported) -> impl Iterator<Item = (String, Value)> + '_ {
    exported.value.as_array().unwrap().iter().map(|t| {
        (
            t["function"]["name"].as_str().unwrap().to_owned(),
            t["function"]["parameters"].clone(),
        )
    })
}

fn mcp_functions(exported: &Exported) -> impl Iterator<Item = (String, Value)> + '_ {
    exported.value["tools"].as_array().unwrap().iter().map(|t| {
        (
            t["name"].as_str().unwrap().to_owned(),
            t["inputSchema"].clone(),
        )
    })
}

#[test]
fn tmdb_exports_are_valid() {
    let catalog = tmdb_catalog();
    let validator = openapi_validator();
    let openapi = export::openapi_exported(&catalog.tools[0]);
    assert_valid_openapi(&validator, &openapi.value);
    // The mechanical fix is reported: with_status and with_type take their values' type.
    let fixed: Vec<&str> = openapi.changes.iter().map(|c| c.what.as_str()).collect();
    assert!(
        fixed
            .iter()
            .any(|w| w.contains("`with_status`: type set to \"integer\"")),
        "{fixed:?}"
    );
    let with_status = &openapi.value["paths"]["/discover/tv"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "with_status")
        .unwrap()["schema"];
    assert_eq!(with_status["type"], "integer");
    assert_eq!(
        assert_valid_functions(openai_functions(&export::openai_tools_exported(&catalog))),
        54
    );
    assert_eq!(
        assert_valid_functions(mcp_functions(&export::mcp_tools_exported(&catalog))),
        54
    );
}

#[test]
fn two_apis_on_one_path_are_disambiguated_and_reported() {
    let batch = read_bytes(
        "Transportation/cars.json".as_ref(),
        COLLIDING_RAPIDAPI_TOOL.as_bytes(),
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
    let exported = export::openapi_exported(&catalog.tools[0]);
    assert_valid_openapi(&openapi_validator(), &exported.value);
    let paths = exported.value["paths"].as_object().unwrap();
    let keys: Vec<&String> = paths.keys().collect();
    assert_eq!(keys, ["/vehicle", "/vehicle#vehicle_by_vin"]);
    let second = &paths["/vehicle#vehicle_by_vin"]["get"];
    assert_eq!(second["x-toolsmith-path"], "/vehicle");
    assert_eq!(second["operationId"], "vehicle_by_vin");
    assert!(exported.value["info"]["x-toolsmith-disambiguation"].is_string());
    let changes: Vec<(String, &str)> = exported
        .changes
        .iter()
        .map(|c| (c.api.as_ref().unwrap().to_string(), c.what.as_str()))
        .collect();
    assert!(
        changes
            .iter()
            .any(|(api, what)| api == "cars/vehicle_by_vin"
                && what.contains("keyed `/vehicle#vehicle_by_vin`")),
        "{changes:?}"
    );
    assert!(
        changes
            .iter()
            .any(|(api, what)| api == "cars/vehicle_by_plate"
                && what.contains("`plate` is declared twice")),
        "{changes:?}"
    );
    // The exported spec imports back to the same endpoints.
    let text = serde_json::to_vec(&exported.value).unwrap();
    let back = read_bytes(
        "cars.openapi.json".as_ref(),
        &text,
        &ImportOptions::default(),
    )
    .unwrap();
    let endpoints: Vec<String> = back.tools[0]
        .apis
        .iter()
        .map(|a| format!("{:?}", a.endpoint))
        .collect();
    assert_eq!(endpoints.len(), 2);
    assert!(
        endpoints.iter().all(|e| e.contains("\"/vehicle\"")),
        "{endpoints:?}"
    );
    let tools = export::openai_tools_exported(&catalog);
    assert_valid_functions(openai_functions(&tools));
    let plate = &tools.value[0]["function"]["parameters"];
    assert_eq!(plate["required"], json!(["plate"]));
}

/// Exports of the whole ToolEnv2404 catalog finish, valid, with names that resolve back.
/// Prints the figures (times and change counts) and the lint counts.
#[test]
fn toolenv2404_exports_finish_and_validate() {
    let started = Instant::now();
    let batch = read_source(
        &data_path("toolbench/toolenv2404/toolenv2404_filtered.tar.gz"),
        &ImportOptions::default(),
    )
    .unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog: Catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    assert_eq!(catalog.api_count(), 46_803);
    eprintln!("import: {:.1} s", started.elapsed().as_secs_f64());

    let shortened = assert_function_names_resolve(&catalog);
    assert!(shortened > 100, "{shortened}");
    eprintln!("function names: {shortened} shortened, all unique");

    let t = Instant::now();
    let openai = export::openai_tools_exported(&catalog);
    let openai_time = t.elapsed();
    assert_eq!(assert_valid_functions(openai_functions(&openai)), 46_803);
    let dedup = openai
        .changes
        .iter()
        .filter(|c| c.what.contains("declared twice"))
        .count();
    assert!(dedup > 0, "ToolEnv2404 has parameters listed twice");
    eprintln!(
        "openai: {:.2} s, 46803 functions, {} changes ({dedup} duplicate parameters)",
        openai_time.as_secs_f64(),
        openai.changes.len()
    );

    let t = Instant::now();
    let mcp = export::mcp_tools_exported(&catalog);
    eprintln!(
        "mcp: {:.2} s, {} changes",
        t.elapsed().as_secs_f64(),
        mcp.changes.len()
    );
    assert_valid_functions(mcp_functions(&mcp));

    let t = Instant::now();
    let documents: Vec<Exported> = catalog.tools.iter().map(export::openapi_exported).collect();
    let openapi_time = t.elapsed();
    let validator = openapi_validator();
    for doc in &documents {
        assert_valid_openapi(&validator, &doc.value);
    }
    let changes: usize = documents.iter().map(|d| d.changes.len()).sum();
    let rekeyed: usize = documents
        .iter()
        .flat_map(|d| &d.changes)
        .filter(|c| c.what.contains("keyed"))
        .count();
    assert!(
        rekeyed > 0,
        "ToolEnv2404 has APIs sharing a method and path"
    );
    eprintln!(
        "openapi: {:.2} s, {} documents, {changes} changes ({rekeyed} operations re-keyed), all valid",
        openapi_time.as_secs_f64(),
        documents.len()
    );

    let t = Instant::now();
    let report = lint_catalog(&catalog);
    eprintln!(
        "lint: {:.2} s, {} of {} APIs with findings",
        t.elapsed().as_secs_f64(),
        report.apis_with_findings(),
        report.apis
    );
    for (kind, n) in report.counts() {
        eprintln!("  {kind}: {n}");
    }
    assert!(report.counts()[&LintKind::NoResponseSchema] > 0);
}
