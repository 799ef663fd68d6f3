//! `toolsmith lint` and `toolsmith export` on specs that contradict themselves or put two
//! APIs on one method and path (issue 16, items 6 and 10); multi-file specs, by path and by URL,
//! and what lint and export make of them (issue 28).

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
    assert!(stderr.contains("tmdb: 4 change(s)"), "{stderr}");
    assert!(
        stderr.contains("held C1 control characters (U+0080..U+009F); replaced"),
        "{stderr}"
    );
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

/// A root spec whose operation is a `$ref` to another file, as DigitalOcean publishes it
/// (issue 28, item 1), with a Spotify-style `"maximum": "50"` (item 6) and a 204 (item 10).
const MULTI_ROOT: &str = r#"
openapi: 3.0.3
info: {title: Things, version: "1"}
paths:
  /things:
    get:
      $ref: "ops/list_things.yml"
  /things/{id}:
    delete:
      operationId: deleteThing
      description: Deletes a thing.
      parameters: [{name: id, in: path, required: true, description: The thing., schema: {type: string}}]
      responses: {"204": {description: Deleted.}}
"#;

const MULTI_OP: &str = r#"
operationId: listThings
description: Lists every thing in the account.
parameters:
  - {name: per_page, in: query, description: Things per page., schema: {type: integer, maximum: "50"}}
responses:
  "200":
    description: A page.
    content: {application/json: {schema: {type: array, items: {type: string}}}}
"#;

fn write_spec(dir: &std::path::Path, op_ref: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("ops")).unwrap();
    std::fs::write(dir.join("ops/list_things.yml"), MULTI_OP).unwrap();
    let root = dir.join("root.yaml");
    std::fs::write(&root, MULTI_ROOT.replace("ops/list_things.yml", op_ref)).unwrap();
    root
}

#[test]
fn a_multi_file_spec_imports_lints_and_exports_from_the_cli() {
    let ws = Workspace::new();
    let root = write_spec(&ws.dir.path().join("spec"), "ops/list_things.yml");
    let out = ws.ok(&["import", root.to_str().unwrap()]);
    assert!(out.contains("2 APIs added"), "{out}");
    let again = ws.ok(&["import", root.to_str().unwrap()]);
    assert!(
        again.contains(
            "0 tools added, 0 updated, 1 unchanged; 0 APIs added, 0 updated, 2 unchanged"
        ),
        "{again}"
    );

    let report: Value = serde_json::from_str(&ws.ok(&["lint", "--json"])).unwrap();
    assert_eq!(report["counts"]["number_as_string"], 1, "{report:#}");
    assert_eq!(report["counts"]["no_response_schema"], 0, "{report:#}");

    let file = ws.dir.path().join("things.openapi.json");
    ws.ok(&[
        "export",
        "--format",
        "openapi",
        "--out",
        file.to_str().unwrap(),
    ]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_valid_openapi(&openapi_validator(), &doc);
    let list = &doc["paths"]["/things"]["get"];
    assert_eq!(list["description"], "Lists every thing in the account.");
    assert_eq!(list["parameters"][0]["schema"]["maximum"], 50);

    let outside = write_spec(&ws.dir.path().join("spec2"), "../spec/ops/list_things.yml");
    let refused = ws.run(&["import", outside.to_str().unwrap()]);
    assert!(
        !refused.status.success(),
        "a $ref out of the spec's folder fails"
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("outside the spec's folder"), "{stderr}");
}

/// Serves the files of `dir` over HTTP on loopback, one request per connection.
fn serve_dir(dir: std::path::PathBuf) -> std::net::SocketAddr {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            reader.read_line(&mut line).unwrap();
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap() <= 2 {
                    break;
                }
            }
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
            let reply = match std::fs::read(dir.join(path.trim_start_matches('/'))) {
                Ok(body) => {
                    let mut reply = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    )
                    .into_bytes();
                    reply.extend(body);
                    reply
                }
                Err(_) => {
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                        .to_vec()
                }
            };
            let _ = stream.write_all(&reply);
        }
    });
    addr
}

#[test]
fn a_multi_file_spec_by_url_reads_refs_from_its_own_host_only() {
    let ws = Workspace::new();
    let dir = ws.dir.path().join("site");
    write_spec(&dir, "ops/list_things.yml");
    let addr = serve_dir(dir.clone());
    let url = format!("http://{addr}/root.yaml");
    let out = ws.ok(&["import", &url]);
    assert!(out.contains("2 APIs added"), "{out}");
    let file = ws.dir.path().join("things.openapi.json");
    ws.ok(&[
        "export",
        "--format",
        "openapi",
        "--out",
        file.to_str().unwrap(),
    ]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        doc["paths"]["/things"]["get"]["description"],
        "Lists every thing in the account."
    );

    // `localhost` is another host than `127.0.0.1`, even on the same port.
    let other = format!("http://localhost:{}/ops/list_things.yml", addr.port());
    write_spec(&dir, &other);
    let refused = ws.run(&["import", &url]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("is not on the spec's host"), "{stderr}");
}
