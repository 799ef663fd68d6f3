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
    // ToolExpNet's tool graph: below retrieve (which expands results with its dependency edges).
    (
        "toolsmith-graph",
        &["toolsmith-plumbing", "toolsmith-catalog", "toolsmith-llm"],
    ),
    (
        "toolsmith-retrieve",
        &[
            "toolsmith-plumbing",
            "toolsmith-catalog",
            "toolsmith-llm",
            "toolsmith-graph",
        ],
    ),
    // refine may run a solver as ToolExpNet's actor; solve never imports refine.
    (
        "toolsmith-refine",
        &[
            "toolsmith-plumbing",
            "toolsmith-catalog",
            "toolsmith-llm",
            "toolsmith-exec",
            "toolsmith-graph",
            "toolsmith-solve",
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
    // serve serves every stage up to solve to agents (MCP, HTTP); nothing imports it but the binary.
    (
        "toolsmith-serve",
        &[
            "toolsmith-plumbing",
            "toolsmith-catalog",
            "toolsmith-exec",
            "toolsmith-retrieve",
            "toolsmith-solve",
        ],
    ),
    // eval judges every stage: it may run them all, and nothing but the binary imports it.
    (
        "toolsmith-eval",
        &[
            "toolsmith-plumbing",
            "toolsmith-catalog",
            "toolsmith-llm",
            "toolsmith-exec",
            "toolsmith-retrieve",
            "toolsmith-solve",
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

/// No stage depends on the stage that judges it (eval) or on the binary, not even for its
/// tests or examples: a dev-dependency arrow is still an arrow.
#[test]
fn no_crate_depends_on_eval_or_the_binary() {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for package in meta["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        if name == "toolsmith" || name == "toolsmith-eval" {
            continue;
        }
        for dep in package["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            assert!(
                dep_name != "toolsmith-eval" && dep_name != "toolsmith",
                "{name} depends on {dep_name} ({} dependency)",
                dep["kind"].as_str().unwrap_or("normal")
            );
        }
    }
}

/// The binary's modules (one per file under `src/`) and the modules each one names through
/// `crate::…`, `super::…` or `self::…` paths, in `use` lines and inline alike; a parent
/// module also uses each of its children.
fn module_graph() -> BTreeMap<String, std::collections::BTreeSet<String>> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                // `src/bin/*` are separate crates.
                if path.file_name().is_some_and(|n| n != "bin") {
                    dirs.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let module_of = |path: &std::path::Path| -> String {
        let rel = path.strip_prefix(&src).unwrap().with_extension("");
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .filter(|p| p != "mod")
            .collect();
        match parts.as_slice() {
            [one] if one == "lib" || one == "main" => "crate".to_owned(),
            _ => parts.join("::"),
        }
    };
    let modules: std::collections::BTreeSet<String> = files.iter().map(|f| module_of(f)).collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let this = module_of(file);
        let text = std::fs::read_to_string(file).unwrap();
        // Test modules may reach anywhere; only the product code counts.
        let text = text.split("#[cfg(test)]").next().unwrap_or("");
        let parent = this
            .rsplit_once("::")
            .map_or("crate", |(p, _)| p)
            .to_owned();
        let mut edges = std::collections::BTreeSet::new();
        for path in crate_paths(text) {
            let path = if let Some(rest) = path.strip_prefix("super::") {
                format!("{parent}::{rest}")
            } else if let Some(rest) = path.strip_prefix("self::") {
                format!("{this}::{rest}")
            } else if let Some(rest) = path.strip_prefix("crate::") {
                rest.to_owned()
            } else {
                continue;
            };
            // The longest prefix that is a module: `cli::SearchArgs` is `cli`.
            let segments: Vec<&str> = path.split("::").collect();
            let target = (1..=segments.len())
                .rev()
                .map(|n| segments[..n].join("::"))
                .find(|m| modules.contains(m));
            if let Some(target) = target.filter(|t| *t != this) {
                edges.insert(target);
            }
        }
        graph.insert(this, edges);
    }
    // A parent module uses its children (`mod x;`, `x::run`): a child naming its parent
    // closes a circle too.
    for module in &modules {
        if let Some((parent, _)) = module.rsplit_once("::") {
            graph
                .entry(parent.to_owned())
                .or_default()
                .insert(module.clone());
        } else if module != "crate" {
            graph
                .entry("crate".to_owned())
                .or_default()
                .insert(module.clone());
        }
    }
    graph
}

/// Every `crate::…`/`super::…`/`self::…` path of a source text, `use` groups expanded
/// (`crate::{a, b::c}` gives `crate::a` and `crate::b::c`).
fn crate_paths(text: &str) -> Vec<String> {
    fn expand(prefix: &str, group: &str, out: &mut Vec<String>) {
        let mut depth = 0;
        let mut start = 0;
        let bytes: Vec<char> = group.chars().collect();
        let mut parts = Vec::new();
        for (i, c) in bytes.iter().enumerate() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(bytes[start..i].iter().collect::<String>());
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(bytes[start..].iter().collect::<String>());
        for part in parts {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            match part.split_once('{') {
                Some((head, rest)) => {
                    let inner = rest.strip_suffix('}').unwrap_or(rest);
                    expand(&format!("{prefix}{head}"), inner, out);
                }
                None => out.push(format!("{prefix}{part}")),
            }
        }
    }
    let mut out = Vec::new();
    let flat: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join(" ");
    for root in ["crate::", "super::", "self::"] {
        let mut rest = flat.as_str();
        while let Some(at) = rest.find(root) {
            let before = rest[..at].chars().last();
            rest = &rest[at..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                rest = &rest[root.len()..];
                continue;
            }
            // A path: identifiers, `::`, and for `use` a balanced `{…}` group.
            let mut end = root.len();
            let chars: Vec<char> = rest.chars().collect();
            let mut depth = 0;
            while end < chars.len() {
                let c = chars[end];
                match c {
                    '{' => depth += 1,
                    '}' if depth > 0 => depth -= 1,
                    _ if depth > 0 => {}
                    c if c.is_alphanumeric() || c == '_' || c == ':' || c == '*' => {}
                    _ => break,
                }
                end += 1;
            }
            let path: String = chars[..end].iter().collect();
            let path = path.split(" as ").next().unwrap_or(&path).to_owned();
            match path.split_once('{') {
                Some((head, group)) => {
                    let group = group.strip_suffix('}').unwrap_or(group);
                    expand(head, group, &mut out);
                }
                None => out.push(path.trim_end_matches(':').to_owned()),
            }
            rest = &rest[path.len().min(rest.len())..];
        }
    }
    out
}

/// A cycle in the graph, if there is one.
fn find_cycle(graph: &BTreeMap<String, std::collections::BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, std::collections::BTreeSet<String>>,
        done: &mut std::collections::BTreeSet<String>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, done, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = std::collections::BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

#[test]
fn the_binarys_modules_import_each_other_without_circles() {
    let graph = module_graph();
    // The parser sees the edges that exist (it is not vacuously green).
    assert!(graph["commands::search"].contains("cli"), "{graph:#?}");
    assert!(
        graph["commands::search"].contains("retrieval"),
        "{graph:#?}"
    );
    assert!(graph["context"].contains("settings"), "{graph:#?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("module cycle: {}", cycle.join(" -> "));
    }
    // `cli` holds only clap types: it names no command, no context, no settings.
    for target in &graph["cli"] {
        assert!(target == "env", "cli must not import {target}");
    }
    // No command module is another command's helper (a command's own submodules, such as
    // `commands::serve::call_log`, are its parts, not another command).
    for (module, targets) in &graph {
        if module.starts_with("commands::") {
            let own = format!("{module}::");
            for target in targets {
                assert!(
                    !target.starts_with("commands") || target.starts_with(&own),
                    "{module} imports {target}: move the shared piece out of `commands`"
                );
            }
        }
    }
    // The config file's submodules do not reach back into it.
    for target in &graph["settings::mcp"] {
        assert!(target != "settings", "settings::mcp imports settings");
    }
}

#[test]
fn the_graph_check_finds_cycles_and_use_groups() {
    let paths = crate_paths(
        "use crate::{cli::{A, B}, printer};\nlet x = crate::settings::Config::load();\nuse super::*;",
    );
    assert_eq!(
        paths,
        [
            "crate::cli::A",
            "crate::cli::B",
            "crate::printer",
            "crate::settings::Config::load",
            "super::*"
        ]
    );
    let graph: BTreeMap<String, std::collections::BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"])]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
            .collect();
    assert_eq!(find_cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
}
