//! `toolsmith lint` and `toolsmith export` on specs that contradict themselves or put two
//! APIs on one method and path (issue 16, items 6 and 10).

use serde_json::Value;
use toolsmith_catalog::testing::{
    COLLIDING_RAPIDAPI_TOOL, assert_valid_functions, assert_valid_openapi, openapi_validator,
};

use crate::support::{Workspace, shared};

#[test]
fn lint_reports_the_tmdb_contradictions_with_counts() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    let report: Value =
        serde_json::from_str(&ws.ok(&["lint", "--json", "--tool", "tmdb"])).unwrap();
    assert_eq!(report["apis"], 54);
    assert_eq!(report["counts"]["type_enum_mismatch"], 2);
    let findings = report["findings"].as_array().unwrap();
    let has = |param: &str, kind: &str| {
        findings
            .iter()
            .any(|f| f["param"] == param && f["kind"] == kind)
    };
    assert!(has("with_status", "type_enum_mismatch"));
    assert!(has("with_type", "type_enum_mismatch"));
    assert!(has("vote_count.gte", "contradictory_description"));
    assert!(has("with_release_type", "contradictory_description"));

    let text = ws.ok(&["lint", "--limit", "3"]);
    assert!(text.contains("contradictory_description"), "{text}");
    assert!(
        text.contains("more (--limit N, or --json for all)"),
        "{text}"
    );
    assert!(text.contains("of 54 APIs have findings"), "{text}");

    let missing = ws.run(&["lint", "--tool", "nope"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no tools match"));
}

#[test]
fn export_keeps_going_and_says_what_it_changed() {
    let ws = Workspace::new();
    let tools = ws.dir.path().join("tools/Transportation");
    std::fs::create_dir_all(&tools).unwrap();
    std::fs::write(tools.join("cars.json"), COLLIDING_RAPIDAPI_TOOL).unwrap();
    ws.ok(&["import", ws.dir.path().join("tools").to_str().unwrap()]);
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);

    let out_dir = ws.dir.path().join("openapi/");
    let out = ws.run(&[
        "export",
        "--format",
        "openapi",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("wrote 2 OpenAPI files"), "{stderr}");
    assert!(
        stderr.contains(
            "cars/vehicle_by_vin: another API is also GET /vehicle: keyed `/vehicle#vehicle_by_vin`"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("tmdb: 2 change(s)"), "{stderr}");
    let cars: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("cars.openapi.json")).unwrap())
            .unwrap();
    assert_eq!(
        cars["paths"]["/vehicle#vehicle_by_vin"]["get"]["x-toolsmith-path"],
        "/vehicle"
    );
    // What the CLI wrote passes the OpenAPI 3.1 schema.
    let validator = openapi_validator();
    for file in ["cars.openapi.json", "tmdb.openapi.json"] {
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join(file)).unwrap()).unwrap();
        assert_valid_openapi(&validator, &doc);
    }

    let openai = ws.run(&["export", "--format", "openai"]);
    assert!(openai.status.success());
    let functions: Value = serde_json::from_slice(&openai.stdout).unwrap();
    let names: Vec<&str> = functions
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 56);
    let valid = assert_valid_functions(functions.as_array().unwrap().iter().map(|f| {
        (
            f["function"]["name"].as_str().unwrap().to_owned(),
            f["function"]["parameters"].clone(),
        )
    }));
    assert_eq!(valid, 56);
    assert!(names.iter().all(|n| n.len() <= 64));
    assert!(names.contains(&"tv_id_season_number_episode_number_images_for_tmdb"));
    let plate = functions
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["function"]["name"] == "vehicle_by_plate_for_cars")
        .unwrap();
    assert_eq!(
        plate["function"]["parameters"]["required"],
        serde_json::json!(["plate"])
    );
    assert!(String::from_utf8_lossy(&openai.stderr).contains("`plate` is declared twice"));
}
