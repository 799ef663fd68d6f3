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
            "toolsmith-refine",
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

/// The binary's module graph.
fn module_graph() -> BTreeMap<String, std::collections::BTreeSet<String>> {
    crate_module_graph(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

/// A crate's modules (one per file under its `src/`) and the modules each one names through
/// `crate::…`, `super::…` or `self::…` paths, in `use` lines and inline alike; a parent
/// module also uses each of its children.
fn crate_module_graph(
    src: &std::path::Path,
) -> BTreeMap<String, std::collections::BTreeSet<String>> {
    let src = src.to_path_buf();
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
    // Product code only: test modules may reach anywhere.
    let texts: BTreeMap<String, String> = files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file).unwrap();
            (module_of(file), product_code(&text).to_owned())
        })
        .collect();
    // `pub use` re-exports: `crate::Role` names the module that defines `Role`.
    let mut reexports: BTreeMap<String, String> = BTreeMap::new();
    for (this, text) in &texts {
        for path in reexported_paths(text) {
            let (path, name) = match path.split_once(" as ") {
                Some((path, alias)) => (path.trim().to_owned(), alias.trim().to_owned()),
                None => {
                    let name = path.rsplit("::").next().unwrap_or(&path).to_owned();
                    (path, name)
                }
            };
            if let Some(full) = absolute(this, &path, &modules) {
                reexports.insert(item_path(this, &name), full);
            }
        }
    }
    let mut graph = BTreeMap::new();
    for (this, text) in &texts {
        let mut edges = std::collections::BTreeSet::new();
        for path in crate_paths(text) {
            if let Some(full) = absolute(this, &path, &modules) {
                let target = defining_module(&full, &modules, &reexports);
                if target != *this {
                    edges.insert(target);
                }
            }
        }
        graph.insert(this.clone(), edges);
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

/// A source text up to its test module (`#[cfg(test)] mod …`, last in a file by
/// convention); a `#[cfg(test)]` on another item does not end the product code.
fn product_code(text: &str) -> &str {
    let mut from = 0;
    while let Some(at) = text[from..].find("#[cfg(test)]") {
        let at = from + at;
        let rest = text[at + "#[cfg(test)]".len()..].trim_start();
        if rest.starts_with("mod ") || rest.starts_with("pub mod ") {
            return &text[..at];
        }
        from = at + 1;
    }
    text
}

/// `name` inside `module` as a path from the crate root (`crate` is the root).
fn item_path(module: &str, name: &str) -> String {
    if module == "crate" {
        name.to_owned()
    } else {
        format!("{module}::{name}")
    }
}

/// A path as written in `this` (`crate::a::B`, `super::B`, `self::b::C`, or `b::C` naming a
/// child module) as a path from the crate root; `None` for another crate's path.
fn absolute(
    this: &str,
    path: &str,
    modules: &std::collections::BTreeSet<String>,
) -> Option<String> {
    let parent = this.rsplit_once("::").map_or("crate", |(p, _)| p);
    if let Some(rest) = path.strip_prefix("crate::") {
        Some(rest.to_owned())
    } else if let Some(rest) = path.strip_prefix("super::") {
        Some(item_path(parent, rest))
    } else if let Some(rest) = path.strip_prefix("self::") {
        Some(item_path(this, rest))
    } else {
        let first = path.split("::").next().unwrap_or(path);
        modules
            .contains(&item_path(this, first))
            .then(|| item_path(this, path))
    }
}

/// The module that defines the item a root path names: the longest prefix that is a
/// module, followed through `pub use` re-exports.
fn defining_module(
    path: &str,
    modules: &std::collections::BTreeSet<String>,
    reexports: &BTreeMap<String, String>,
) -> String {
    let mut path = path.to_owned();
    for _ in 0..8 {
        let segments: Vec<&str> = path.split("::").collect();
        let (module, next) = (1..=segments.len())
            .rev()
            .find(|n| modules.contains(&segments[..*n].join("::")))
            .map_or(("crate".to_owned(), 0), |n| (segments[..n].join("::"), n));
        match segments.get(next).map(|name| item_path(&module, name)) {
            Some(item) if reexports.contains_key(&item) && reexports[&item] != path => {
                path = reexports[&item].clone();
            }
            _ => return module,
        }
    }
    "crate".to_owned()
}

/// The paths of a source text's `pub use` lines (`pub(crate) use` too), groups expanded,
/// an alias kept as `path as alias`.
fn reexported_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in text.split(';') {
        let piece = piece.trim();
        let Some(at) = piece.find("use ") else {
            continue;
        };
        let head = piece[..at].trim_end();
        let head = head.rsplit(['\n', '}']).next().unwrap_or(head).trim();
        if !head.starts_with("pub") || head.contains("//") {
            continue;
        }
        let body: String = piece[at + 4..]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let body = body.replace(" as ", "\u{0}");
        let body: String = body.chars().filter(|c| !c.is_whitespace()).collect();
        let body = body.replace('\u{0}', " as ");
        expand_group("", &body, &mut out);
    }
    out
}

/// `prefix` joined to each part of a `use` group (`a::{b, c::{d}}`), nested groups expanded.
fn expand_group(prefix: &str, group: &str, out: &mut Vec<String>) {
    let chars: Vec<char> = group.chars().collect();
    let (mut depth, mut start, mut parts) = (0, 0, Vec::new());
    for (i, c) in chars.iter().enumerate() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(chars[start..i].iter().collect::<String>());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(chars[start..].iter().collect::<String>());
    for part in parts {
        let part = part.trim();
        match part.split_once('{') {
            _ if part.is_empty() => {}
            Some((head, rest)) => {
                let inner = rest.strip_suffix('}').unwrap_or(rest);
                expand_group(&format!("{prefix}{head}"), inner, out);
            }
            None => out.push(format!("{prefix}{part}")),
        }
    }
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

/// Every circle of a module graph, one per strongly connected set of modules (a set where
/// each module reaches every other), each shown as one cycle through that set.
fn all_cycles(graph: &BTreeMap<String, std::collections::BTreeSet<String>>) -> Vec<Vec<String>> {
    let reach = |from: &str| -> std::collections::BTreeSet<String> {
        let mut seen = std::collections::BTreeSet::new();
        let mut todo = vec![from.to_owned()];
        while let Some(node) = todo.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, std::collections::BTreeSet<String>> =
        graph.keys().map(|k| (k, reach(k))).collect();
    let mut placed = std::collections::BTreeSet::new();
    let mut cycles = Vec::new();
    for node in graph.keys() {
        if placed.contains(node) || !reaches[node].contains(node) {
            continue;
        }
        let set: std::collections::BTreeSet<String> = reaches[node]
            .iter()
            .filter(|other| reaches.get(other).is_some_and(|r| r.contains(node)))
            .cloned()
            .collect();
        placed.extend(set.iter().cloned());
        let sub: BTreeMap<String, std::collections::BTreeSet<String>> = set
            .iter()
            .map(|n| {
                let edges = graph[n].iter().filter(|t| set.contains(*t)).cloned();
                (n.clone(), edges.collect())
            })
            .collect();
        if let Some(mut cycle) = find_cycle(&sub) {
            let others: Vec<String> = set.into_iter().filter(|n| !cycle.contains(n)).collect();
            if !others.is_empty() {
                cycle.push(format!("(entangled with {})", others.join(", ")));
            }
            cycles.push(cycle);
        }
    }
    cycles
}

/// No library crate has modules that import each other in a circle: a leaf type sits in
/// its own module, below every module that uses it.
#[test]
fn no_crate_has_an_import_circle() {
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        checked += 1;
        for cycle in all_cycles(&crate_module_graph(&src)) {
            found.push(format!("{name}: {}", cycle.join(" -> ")));
        }
    }
    assert!(
        checked >= 10,
        "only {checked} crates found under {crates:?}"
    );
    assert!(found.is_empty(), "module circles:\n{}", found.join("\n"));
}

/// The crate check sees through `pub use` re-exports, keeps code after a `#[cfg(test)]` item
/// that is not the test module, and lists each circle once.
#[test]
fn the_crate_check_follows_reexports_and_lists_every_circle() {
    assert_eq!(
        reexported_paths("pub use crate::a::{B, c::D as E};\nuse x::Y;\npub(crate) use b::F;"),
        ["crate::a::B", "crate::a::c::D as E", "b::F"]
    );
    assert_eq!(
        product_code("a\n#[cfg(test)]\nfn f() {}\nb\n#[cfg(test)]\nmod tests {}"),
        "a\n#[cfg(test)]\nfn f() {}\nb\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "lib.rs",
            "pub use role::Role;\nmod role;\nmod settings;\nmod chat;",
        ),
        // `crate::Role` is `role::Role`: settings -> role.
        ("settings.rs", "use crate::Role;\npub fn url() {}"),
        // role -> settings closes a circle through the re-export.
        (
            "role.rs",
            "pub struct Role;\nfn f() { crate::settings::url() }",
        ),
        ("chat.rs", "use crate::Role;"),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let graph = crate_module_graph(dir.path());
    assert!(graph["chat"].contains("role"), "{graph:#?}");
    assert_eq!(all_cycles(&graph), [["role", "settings", "role"]]);
    let two: BTreeMap<String, std::collections::BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["a"]),
        ("c", vec!["d"]),
        ("d", vec!["c", "a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(all_cycles(&two), [["a", "b", "a"], ["c", "d", "c"]]);
}
