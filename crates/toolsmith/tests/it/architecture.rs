//! The crates depend on each other only in the direction data flows:
//! catalog -> refine -> retrieve -> solve -> evaluate.

use std::collections::BTreeMap;

/// Which toolsmith crates each toolsmith crate may depend on (normal dependencies).
/// `toolsmith-plumbing` is the leaf every crate may use; it depends on none.
const ALLOWED: &[(&str, &[&str])] = &[
    ("toolsmith-plumbing", &[]),
    ("toolsmith-catalog", &["toolsmith-plumbing"]),
    ("toolsmith-llm", &["toolsmith-plumbing"]),
    // Test servers depend on no toolsmith crate: they only speak HTTP and MCP.
    ("toolsmith-testbed", &[]),
    // toolsmith-testbed only under exec's test feature `mcp-fixture` (its stdio test server binary).
    (
        "toolsmith-exec",
        &[
            "toolsmith-plumbing",
            "toolsmith-catalog",
            "toolsmith-llm",
            "toolsmith-testbed",
        ],
    ),
    (
        "toolsmith-retrieve",
        &["toolsmith-plumbing", "toolsmith-catalog", "toolsmith-llm"],
    ),
    (
        "toolsmith-refine",
        &[
            "toolsmith-plumbing",
            "toolsmith-catalog",
            "toolsmith-llm",
            "toolsmith-exec",
        ],
    ),
    (
        "toolsmith-solve",
        &[
            "toolsmith-plumbing",
            "toolsmith-catalog",
            "toolsmith-llm",
            "toolsmith-exec",
            "toolsmith-retrieve",
        ],
    ),
];

#[test]
fn crate_dependencies_follow_the_data_flow() {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    for package in meta["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        let Some(ok) = allowed.get(name) else {
            continue;
        };
        for dep in package["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            let normal = dep["kind"].is_null();
            if normal && dep_name.starts_with("toolsmith") {
                assert!(
                    ok.contains(&dep_name),
                    "{name} must not depend on {dep_name}"
                );
            }
        }
    }
}
