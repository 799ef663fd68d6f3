//! ToolBench gold APIs named by a tool that exists in several categories resolve through the
//! category their query's `api_list` gives them; names the catalog lacks stay skipped and are
//! counted apart from ambiguous ones. A fixture of ToolEnv2404's shape (`<Category>/<tool>.json`)
//! and StableToolBench's query shape.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolsmith_catalog::{Activate, ImportOptions, Store, read_source};
use toolsmith_eval::{GoldApi, SkipCauses, load};

/// A fresh directory under the system temp dir, removed by the caller.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolsmith-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A RapidAPI tool file under `root/<category>/`.
fn tool_file(root: &Path, category: &str, tool: &str, apis: &[&str]) {
    let dir = root.join(category);
    std::fs::create_dir_all(&dir).unwrap();
    let apis: Vec<Value> = apis
        .iter()
        .map(|a| json!({"name": a, "url": format!("https://x.p.rapidapi.com/{a}"), "method": "GET", "description": a}))
        .collect();
    let file = dir.join(format!("{}.json", tool.replace(' ', "_").to_lowercase()));
    let body = json!({"tool_name": tool, "host": "x.p.rapidapi.com", "tool_description": tool, "api_list": apis});
    std::fs::write(file, body.to_string()).unwrap();
}

/// A StableToolBench query: gold `[tool, api]` pairs, `api_list` entries with their category.
fn query(id: u32, gold: &[(&str, &str)], offered: &[(&str, &str, &str)]) -> Value {
    let api_list: Vec<Value> = offered
        .iter()
        .map(|(category, tool, api)| {
            json!({"category_name": category, "tool_name": tool, "api_name": api, "api_description": ""})
        })
        .collect();
    json!({"query": format!("query {id}"), "query_id": id, "relevant APIs": gold, "api_list": api_list})
}

fn catalog(root: &Path) -> Store {
    tool_file(
        root,
        "Sports",
        "Demo Project",
        &["Get Order", "Get Product"],
    );
    tool_file(root, "Music", "Demo Project", &["Get Order", "Get Product"]);
    tool_file(root, "Weather", "Forecast", &["Today"]);
    let mut store = Store::in_memory().unwrap();
    let batch = read_source(root, &ImportOptions::default()).unwrap();
    store.import(&batch, Activate::IfNoneActive).unwrap();
    store
}

#[test]
fn a_tool_name_shared_by_categories_resolves_through_the_querys_category() {
    let dir = scratch("gold-categories");
    let store = catalog(&dir.join("tools"));
    let queries = json!([
        // Sports' Demo Project, and a tool of a single category.
        query(
            1,
            &[("Demo Project", "Get Order"), ("Forecast", "Today")],
            &[
                ("Sports", "Demo Project", "Get Order"),
                ("Weather", "Forecast", "Today"),
                ("Music", "Demo Project", "Get Product")
            ]
        ),
        // Music's, spelled as ToolBench's files sometimes do (extra space, other case).
        query(
            2,
            &[("Demo  project", "get order")],
            &[("Music", "Demo  project", "get order")]
        ),
        // A category the tool is not filed under: the catalog lacks that API.
        query(
            3,
            &[("Demo Project", "Get Order")],
            &[("Media", "Demo Project", "Get Order")]
        ),
        // No `api_list` entry gives the category: still ambiguous.
        query(4, &[("Demo Project", "Get Product")], &[]),
        // A tool the catalog does not have at all.
        query(
            5,
            &[("Forecast", "Today"), ("Kick API", "Get Clips")],
            &[
                ("Weather", "Forecast", "Today"),
                ("Data", "Kick API", "Get Clips")
            ]
        ),
        // A single match is kept even when the query files it elsewhere (tools move).
        query(
            6,
            &[("Forecast", "Today")],
            &[("Travel", "Forecast", "Today")]
        ),
    ]);
    let path = dir.join("G1_category.json");
    std::fs::write(&path, queries.to_string()).unwrap();
    let dataset = load(&path).unwrap();
    assert_eq!(
        dataset.queries[0].gold[0],
        GoldApi::ToolBench {
            tool: "Demo Project".into(),
            api: "Get Order".into(),
            category: Some("Sports".into()),
        }
    );
    let r = dataset.resolve(&store).unwrap();
    let tool_category = |id: &toolsmith_catalog::ApiId| store.tool(id.tool()).unwrap().category;
    let ids: Vec<&str> = r.queries.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "6"]);
    assert_eq!(tool_category(&r.queries[0].gold[0]), "Sports");
    assert_eq!(r.queries[0].gold[0].api().as_str(), "get_order");
    assert_eq!(tool_category(&r.queries[1].gold[0]), "Music");
    // Candidates carry their category too: query 1 offers Music's Get Product.
    assert_eq!(r.queries[0].candidates.len(), 3);
    assert_eq!(tool_category(&r.queries[0].candidates[2]), "Music");
    assert_eq!(r.skipped, 3);
    assert_eq!(
        r.skip_causes(),
        SkipCauses {
            missing: 2,
            ambiguous: 1,
            no_gold: 0
        }
    );
    let missing: Vec<(&str, bool)> = r
        .unresolved
        .iter()
        .map(|u| (u.query.as_str(), u.is_missing()))
        .collect();
    assert_eq!(missing, [("3", true), ("4", false), ("5", true)]);
    assert_eq!(r.unresolved[1].matches.len(), 2, "both Demo Projects");
    std::fs::remove_dir_all(&dir).unwrap();
}
