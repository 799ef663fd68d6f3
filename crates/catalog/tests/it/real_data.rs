//! The importers on the real data the benchmarks use.

use toolsmith_catalog::testing::data_path;
use toolsmith_catalog::{
    DocLabel, DocSelector, DocTarget, Endpoint, ImportOptions, Scope, Store, read_source,
};

fn import(store: &mut Store, relative: &str) -> toolsmith_catalog::ImportReport {
    let batch = read_source(&data_path(relative), &ImportOptions::default()).unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap()
}

#[test]
fn tmdb_imports_as_54_apis_with_schema_and_example() {
    let mut store = Store::in_memory().unwrap();
    let report = import(&mut store, "restbench-tmdb/restgpt/tmdb_oas.json");
    assert_eq!((report.tools_added, report.apis_added), (1, 54));
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    assert_eq!(catalog.tools[0].tool.id.as_str(), "tmdb");
    assert_eq!(
        catalog.tools[0].tool.base_url.as_deref(),
        Some("https://api.themoviedb.org/3")
    );
    for (_, api) in catalog.apis() {
        assert!(
            api.api.response_schema.is_some(),
            "{} has no response schema",
            api.api.id
        );
        assert!(
            !api.api.response_examples.is_empty(),
            "{} has no example",
            api.api.id
        );
        assert!(
            !api.description().is_empty(),
            "{} has no description",
            api.api.id
        );
    }
    let details = store
        .api(&"tmdb/get_movie_movie_id".parse().unwrap())
        .unwrap();
    assert_eq!(
        details.api.endpoint,
        Endpoint::Http {
            method: toolsmith_catalog::HttpMethod::Get,
            path: "/movie/{movie_id}".into()
        }
    );
    let names: Vec<_> = details
        .api
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.location.as_str(), p.required))
        .collect();
    assert!(names.contains(&("movie_id", "path", true)), "{names:?}");
    assert!(
        names.contains(&("append_to_response", "query", false)),
        "{names:?}"
    );
    // RestGPT's and DRAFT's names resolve to the same API.
    let id = "tmdb/get_search_person".parse().unwrap();
    assert_eq!(store.resolve_api("GET /search/person").unwrap(), vec![id]);
    assert_eq!(store.resolve_api("GET_search_person").unwrap().len(), 1);
}

#[test]
fn reimport_is_idempotent_and_refined_docs_attach_as_versions() {
    let mut store = Store::in_memory().unwrap();
    import(&mut store, "restbench-tmdb/restgpt/tmdb_oas.json");
    let again = import(&mut store, "restbench-tmdb/restgpt/tmdb_oas.json");
    assert_eq!(
        (again.tools_added, again.apis_added, again.docs_added),
        (0, 0, 0)
    );
    // Nothing changed, so nothing counts as updated (issue 28, item 10).
    assert_eq!(
        (again.tools_updated, again.apis_updated),
        (0, 0),
        "{again:?}"
    );
    assert_eq!((again.tools_unchanged, again.apis_unchanged), (1, 54));

    let draft = import(&mut store, "restbench-tmdb/draft/TMDB_DRAFT.json");
    assert_eq!(
        (draft.refs_matched, draft.refs_unmatched.len()),
        (54, 0),
        "{:?}",
        draft.refs_unmatched
    );
    let easy = import(&mut store, "restbench-tmdb/easytool/tmdb_tool.json");
    assert_eq!(
        (easy.refs_matched, easy.refs_unmatched.len()),
        (54, 0),
        "{:?}",
        easy.refs_unmatched
    );

    let target: DocTarget = "tmdb/get_movie_movie_id_keywords".parse().unwrap();
    let history = store.doc_history(&target).unwrap();
    let labels: Vec<_> = history.iter().map(|d| d.label.as_str()).collect();
    assert_eq!(labels, ["original", "draft-ref", "easytool-ref"]);
    assert!(
        history[0].active,
        "refined docs do not take over unless asked"
    );
    assert_eq!(history[1].doc.examples.len(), 1, "DRAFT's example is kept");

    // Importing the same refined file again adds nothing.
    let draft_again = import(&mut store, "restbench-tmdb/draft/TMDB_DRAFT.json");
    assert_eq!(
        (draft_again.docs_added, draft_again.docs_unchanged),
        (0, 54)
    );

    let draft_view = store
        .catalog(
            &DocSelector::Label(DocLabel::DRAFT_REF.parse().unwrap()),
            &Scope::default(),
        )
        .unwrap();
    assert!(
        draft_view
            .apis()
            .all(|(_, a)| a.doc.as_ref().unwrap().label.as_str() == "draft-ref")
    );
}

#[test]
fn draft_282_tool_set_with_both_refinements() {
    let mut store = Store::in_memory().unwrap();
    let report = import(&mut store, "toolbench/draft282/Initial.json");
    assert_eq!((report.tools_added, report.apis_added), (282, 1006));
    let draft = import(&mut store, "toolbench/draft282/DRAFT.json");
    assert_eq!(draft.refs_unmatched, Vec::<String>::new());
    assert_eq!(draft.refs_matched, 282 + 1006);
    let easy = import(&mut store, "toolbench/draft282/EasyTool.json");
    assert!(
        easy.refs_unmatched.is_empty(),
        "{:?}",
        &easy.refs_unmatched[..easy.refs_unmatched.len().min(5)]
    );
    // G2's queries name three tools that DRAFT's tool set lacks (a fact of the data).
    let g2 = import(&mut store, "toolbench/draft282/G2.json");
    assert_eq!(g2.tools_added, 3);
    assert_eq!(store.resolve_tool("tb:ytconvert").unwrap().len(), 1);
}

#[test]
fn stabletoolbench_query_files_import_their_api_lists() {
    let mut store = Store::in_memory().unwrap();
    let report = import(
        &mut store,
        "toolbench/stabletoolbench/test_instruction/G1_instruction.json",
    );
    assert!(
        report.tools_added > 100 && report.apis_added > report.tools_added,
        "{report:?}"
    );
    let hits = store
        .resolve_toolbench_api("TheClique", "Transfermarkt search")
        .unwrap();
    assert_eq!(hits.len(), 1);
    let api = store.api(&hits[0]).unwrap();
    assert!(
        api.api.response_schema.is_some(),
        "template_response becomes a schema"
    );
}

#[test]
fn openai_function_lists_import_as_one_tool() {
    let (_dir, path) = crate::data::write_temp(
        "calc.json",
        r#"[{"type": "function", "function": {"name": "add", "description": "Add two numbers",
              "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a"]}}}]"#,
    );
    let mut store = Store::in_memory().unwrap();
    store
        .import(
            &read_source(&path, &ImportOptions::default()).unwrap(),
            toolsmith_catalog::Activate::IfNoneActive,
        )
        .unwrap();
    let api = store.api(&"calc/add".parse().unwrap()).unwrap();
    assert_eq!(api.api.endpoint, Endpoint::Function { name: "add".into() });
    assert_eq!(api.api.params.iter().filter(|p| p.required).count(), 1);
}

#[test]
fn toolenv2404_archive_imports_every_tool_file() {
    let batch = read_source(
        &data_path("toolbench/toolenv2404/toolenv2404_filtered.tar.gz"),
        &ImportOptions::default(),
    )
    .unwrap();
    assert!(batch.failures.is_empty(), "{:?}", batch.failures.first());
    assert_eq!(batch.tools.len(), 12_301);
    assert_eq!(
        batch.api_count(),
        46_803,
        "every api_list entry of the 12,301 files"
    );
    let located = batch
        .tools
        .iter()
        .flat_map(|t| &t.apis)
        .filter(|a| matches!(a.endpoint, Endpoint::Http { .. }))
        .count();
    assert_eq!(located, batch.api_count(), "every RapidAPI API has a URL");
    let mut store = Store::in_memory().unwrap();
    let report = store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    assert_eq!((report.tools_added, report.apis_added), (12_301, 46_803));
    // Tool names that collide across categories get distinct ids; both resolve by their ToolBench name.
    assert!(store.resolve_tool("tb:abc").unwrap().len() > 1);
}

/// Every function name of a catalog: at most 64 characters, unique, and mapping back to its API.
pub(crate) fn assert_function_names_resolve(catalog: &toolsmith_catalog::Catalog) -> usize {
    use std::collections::HashMap;
    use toolsmith_catalog::export::function_name;
    use toolsmith_catalog::names::MAX_FUNCTION_NAME;
    let mut by_name: HashMap<String, toolsmith_catalog::ApiId> = HashMap::new();
    let mut shortened = 0;
    for (_, api) in catalog.apis() {
        let id = &api.api.id;
        let name = function_name(id);
        assert!(name.len() <= MAX_FUNCTION_NAME, "{name} ({id}) is too long");
        assert!(
            name.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "{name}"
        );
        assert!(
            !name.starts_with('_') && !name.ends_with('_'),
            "{name} ({id}) is clipped"
        );
        if name
            != format!(
                "{}_for_{}",
                toolsmith_catalog::names::change_name(id.api().as_str()),
                id.tool()
            )
        {
            shortened += 1;
            // The front survives: the name starts with the API's first word after the method.
            let words: Vec<&str> = id
                .api()
                .as_str()
                .split('_')
                .filter(|w| !w.is_empty())
                .collect();
            let methods = ["get", "post", "put", "patch", "delete", "head", "options"];
            let first = match words.as_slice() {
                [m, next, ..] if methods.contains(m) => next,
                [first, ..] => first,
                [] => unreachable!(),
            };
            let front: String = first
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .take(3)
                .collect();
            assert!(name.starts_with(&front), "{name} ({id}) lost its front");
        }
        if let Some(other) = by_name.insert(name.clone(), id.clone()) {
            panic!("{name} names both {other} and {id}");
        }
    }
    for (_, api) in catalog.apis() {
        assert_eq!(by_name.get(&function_name(&api.api.id)), Some(&api.api.id));
    }
    shortened
}

#[test]
fn tmdb_function_names_are_readable_unique_and_resolve() {
    let catalog = toolsmith_catalog::testing::tmdb_catalog();
    let shortened = assert_function_names_resolve(&catalog);
    assert!(shortened > 0, "TMDB has names over 64 characters");
    let id = "tmdb/get_tv_tv_id_season_season_number_episode_episode_number_images"
        .parse()
        .unwrap();
    // The front is kept (ToolBench's cut gave `et_tv_tv_id_season_..._for_tmdb`).
    assert_eq!(
        toolsmith_catalog::export::function_name(&id),
        "tv_id_season_number_episode_number_images_for_tmdb"
    );
}
