//! What every command shares: the help lists enumerated values, stdout write errors, the
//! log on stderr, tables.

use std::process::{Command, Stdio};

use crate::support::{Workspace, shared};

fn toolsmith() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolsmith"));
    command
        .env_remove("RUST_LOG")
        .env_remove("TOOLSMITH_CONFIG")
        .env_remove("TOOLSMITH_DB");
    command
}

/// The short help (`-h`), where enumerated values read `[possible values: a, b]`.
fn help(args: &[&str]) -> String {
    let out = toolsmith().args(args).arg("-h").output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn help_lists_the_values_of_enumerated_flags() {
    let top = help(&[]);
    assert!(
        top.contains("--quiet") && top.contains("--verbose"),
        "{top}"
    );
    let search = help(&["search"]);
    assert!(
        search.contains("[possible values: bm25, dense, hybrid]"),
        "{search}"
    );
    // The long help lists them one per line, with what each means.
    let out = toolsmith().args(["search", "--help"]).output().unwrap();
    let long = String::from_utf8(out.stdout).unwrap();
    assert!(
        long.contains("Possible values:") && long.contains("- hybrid:"),
        "{long}"
    );
    for (command, values) in [
        (
            vec!["solve"],
            "[possible values: react, dfsdt, conagents, anytool]",
        ),
        (
            vec!["call"],
            "[possible values: live, record, replay, replay-or-simulate, simulate]",
        ),
        (vec!["solve"], "[possible values: off, read-write, replay]"),
        (
            vec!["export"],
            "[possible values: openapi, openai, mcp, markdown]",
        ),
        (
            vec!["bench", "retrieval"],
            "[possible values: bm25, dense, hybrid]",
        ),
        (vec!["import"], "openai-functions"),
    ] {
        let text = help(&command);
        assert!(text.contains(values), "{command:?}:\n{text}");
    }
}

#[test]
fn a_closed_stdout_ends_the_run_quietly_with_success() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = toolsmith()
        .arg("--db")
        .arg(ws.db())
        .args(["tools", "--json"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[cfg(target_os = "linux")]
#[test]
fn any_other_stdout_error_is_reported() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = toolsmith()
        .arg("--db")
        .arg(ws.db())
        .args(["tools", "--json"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: writing to stdout"), "{err}");
}

#[test]
fn the_log_goes_to_stderr_at_the_level_of_v_unless_rust_log_says_otherwise() {
    let ws = Workspace::new();
    let run = |extra: &[&str], rust_log: Option<&str>| {
        let mut command = toolsmith();
        command
            .arg("--db")
            .arg(ws.db())
            .args(extra)
            .args(["tools", "--json"]);
        if let Some(filter) = rust_log {
            command.env("RUST_LOG", filter);
        }
        let out = command.output().unwrap();
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "[]",
            "stdout stays JSON"
        );
        String::from_utf8(out.stderr).unwrap()
    };
    assert!(!run(&[], None).contains("opening the catalog"));
    assert!(!run(&["-v"], None).contains("opening the catalog"));
    assert!(run(&["-vv"], None).contains("opening the catalog"));
    assert!(run(&[], Some("debug")).contains("opening the catalog"));
    assert!(!run(&["-vv"], Some("off")).contains("opening the catalog"));
}

#[test]
fn text_output_is_a_table_and_quiet_changes_no_output() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    let text = ws.ok(&["tools", "--tool", "tmdb"]);
    let header = text.lines().next().unwrap();
    assert!(header.contains("API") && header.contains("call"), "{text}");
    let row = text
        .lines()
        .find(|l| l.contains("tmdb/get_search_person"))
        .unwrap();
    assert!(row.contains("GET /search/person"), "{row}");
    // Columns line up: every row puts its call where the header's `call` is.
    let at = header.find("call").unwrap();
    assert_eq!(row.find("GET /search/person"), Some(at), "{text}");
    assert_eq!(ws.ok(&["-q", "tools", "--tool", "tmdb"]), text);
    let stats = ws.ok(&["stats"]);
    assert!(
        stats.contains("doc version") && stats.contains("cl100k"),
        "{stats}"
    );
}
