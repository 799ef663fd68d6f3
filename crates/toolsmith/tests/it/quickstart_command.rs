//! `toolsmith quickstart`: the tour's steps run for real against the example API, and a
//! second run updates what the first stored.

use crate::support::Workspace;

#[test]
fn quickstart_imports_searches_and_calls_the_example_api_then_says_how_to_add_an_llm() {
    let ws = Workspace::new();
    let no_data = ws.dir.path().join("no-data");
    std::fs::create_dir_all(&no_data).unwrap();
    let no_data = no_data.to_string_lossy().into_owned();

    let first = ws.ok(&["quickstart", "--data-dir", &no_data]);
    assert!(first.contains("11 APIs added"), "{first}");
    assert!(
        first.contains(
            "$ toolsmith call library/search_books --args '{\"title\": \"solaris\"}' --mode live"
        ),
        "each step shows the command a user would type: {first}"
    );
    // The simulated call answers from the schema; the live one reached the running API.
    assert!(first.contains("\"provenance\": \"simulated\""), "{first}");
    assert!(first.contains("\"title\": \"Solaris\""), "{first}");
    assert!(first.contains("\"provenance\": \"live\""), "{first}");
    assert!(
        first.contains("library/create_loan"),
        "search shows the loan API: {first}"
    );
    assert!(first.contains("skipped the retrieval benchmark"), "{first}");
    assert!(first.contains("export OPENAI_BASE_URL="), "{first}");

    let second = ws.ok(&["quickstart", "--data-dir", &no_data]);
    assert!(second.contains("0 APIs added, 11 updated"), "{second}");
}
