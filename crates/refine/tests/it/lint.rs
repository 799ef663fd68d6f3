//! Refinement reads lint: EasyTool's clean-up fixes what lint fixes mechanically, and both
//! methods tell the model the API's findings.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith_catalog::lint::{LintKind, lint_api};
use toolsmith_catalog::{ApiId, DocLabel, DocSelector, ImportOptions, Scope, Store, read_bytes};
use toolsmith_llm::testing::{Reply, ScriptedEmbedder, ScriptedLlm, When};
use toolsmith_refine::{
    Draft, DraftSettings, EasyTool, EasyToolSettings, Method, RefineStore, RunSpec, Runner,
};

use crate::draft::{analyzer, explorer, rewriter};
use crate::support::{Recorder, executor, tools};

/// A discover API whose doc contradicts itself: a near-miss and an unknown parameter named in
/// its description (and a country code it names a parameter's value, which is no finding), a
/// lower bound described as "less than", an integer enum typed string, and a response bound
/// written as a string (repaired on import: nothing a doc could fix).
const SPEC: &[u8] = br#"{"openapi": "3.0.0", "info": {"title": "Films", "version": "1"},
  "paths": {"/discover/movie": {"get": {"summary": "Discover movies",
    "description": "Discover movies by filters. Set the `vote_count_gte` parameter to a minimum count. The `region_code` parameter picks a country: for American films set the parameter \"US\".",
    "parameters": [
      {"name": "vote_count.gte", "in": "query", "schema": {"type": "integer"},
       "description": "Only movies with a vote count less than or equal to the value."},
      {"name": "with_status", "in": "query", "schema": {"type": "string", "enum": [0, 1, 2]},
       "description": "Release status code."}],
    "responses": {"200": {"description": "Movies", "content": {"application/json": {"schema": {
      "type": "object", "properties": {"results": {"type": "array", "maxItems": "20", "items": {"type": "object",
        "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}}}}}}}}}}}}}"#;

fn discover() -> ApiId {
    "films/get_discover_movie".parse().unwrap()
}

fn store() -> Store {
    let mut store = Store::in_memory().unwrap();
    let batch = read_bytes("films.json".as_ref(), SPEC, &ImportOptions::default()).unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    store
}

fn kinds(store: &Store, label: Option<&str>) -> Vec<LintKind> {
    let selector = label.map_or(DocSelector::Active, |l| {
        DocSelector::Label(DocLabel::try_from(l.to_owned()).unwrap())
    });
    let view = store.catalog(&selector, &Scope::default()).unwrap();
    let (_, api) = view.apis().find(|(_, a)| a.api.id == discover()).unwrap();
    if let Some(l) = label {
        assert_eq!(api.doc.as_ref().unwrap().label.as_str(), l);
    }
    lint_api(api).into_iter().map(|f| f.kind).collect()
}

fn spec(method: Method) -> RunSpec {
    RunSpec {
        method,
        apis: vec![discover()],
        settings: json!({}),
        mode: toolsmith_exec::Mode::Simulate,
        from_label: "original".parse().unwrap(),
        writer: None,
    }
}

#[tokio::test]
async fn easytool_fixes_the_mechanical_findings_and_tells_the_model_the_rest() {
    let store = store();
    let before = kinds(&store, None);
    assert_eq!(
        before
            .iter()
            .filter(|k| **k == LintKind::UnknownParamInDescription)
            .count(),
        2,
        "{before:?}"
    );
    assert!(before.contains(&LintKind::NumberAsString), "{before:?}");
    let planned = tools(&store, &[discover()]);
    let exec = executor(&store);
    // The model writes the near-miss name again: the clean-up corrects its output too.
    let llm = ScriptedLlm::new([])
        .with_rule(
            When::last_message_contains("Rewrite the documentation"),
            Reply::text(
                json!({"description": "Finds movies by filters; the `vote_count_gte` parameter is a minimum vote count.",
                       "examples": []})
                .to_string(),
            ),
        )
        .with_rule(
            When::last_message_contains("Write a short description of the tool"),
            Reply::text(json!({"description": "Films: discover movies."}).to_string()),
        );
    let easytool = EasyTool::new(Arc::new(llm.clone()), exec, EasyToolSettings::PAPER).unwrap();
    let refine = RefineStore::in_memory().unwrap();
    let run = refine.create_run(&spec(Method::EasyTool)).unwrap();
    let catalog = Mutex::new(store);
    Runner::new(&easytool, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();

    let prompt = llm
        .requests()
        .into_iter()
        .find(|r| r.last_message().contains("Rewrite the documentation"))
        .unwrap()
        .last_message()
        .to_owned();
    // The findings reach the prompt as facts ...
    assert!(
        prompt.contains("A checker found these problems"),
        "{prompt}"
    );
    assert!(
        prompt.contains("parameter `vote_count.gte`: a lower bound by its name"),
        "{prompt}"
    );
    assert!(
        prompt.contains("parameter `with_status`: typed string but its values are integer"),
        "{prompt}"
    );
    // ... after the clean-up fixed the description's parameter names.
    assert!(
        prompt.contains("Set the `vote_count.gte` parameter"),
        "{prompt}"
    );
    assert!(!prompt.contains("region_code"), "{prompt}");
    assert!(!prompt.contains("unknown_param_in_description"), "{prompt}");
    // A bound the importer repaired is no fact about the doc.
    assert!(!prompt.contains("number_as_string"), "{prompt}");

    let store = catalog.into_inner().unwrap();
    let after = kinds(&store, Some("easytool"));
    assert!(
        !after.contains(&LintKind::UnknownParamInDescription),
        "{after:?}"
    );
    let view = store
        .catalog(
            &DocSelector::Label(DocLabel::try_from("easytool".to_owned()).unwrap()),
            &Scope::default(),
        )
        .unwrap();
    let (_, api) = view.apis().find(|(_, a)| a.api.id == discover()).unwrap();
    assert_eq!(
        api.description(),
        "Finds movies by filters; the `vote_count.gte` parameter is a minimum vote count."
    );
}

#[tokio::test]
async fn drafts_analyzer_is_told_the_findings_of_the_current_doc() {
    let catalog = Mutex::new(store());
    let (planned, exec) = {
        let s = catalog.lock().unwrap();
        (tools(&s, &[discover()]), executor(&s))
    };
    let llm = ScriptedLlm::new([
        explorer("Well rated movies", json!({"vote_count.gte": 100})),
        analyzer(),
        rewriter("Discovers movies by filters; `vote_count.gte` is a minimum vote count."),
        Reply::text(json!({"description": "Films: discover movies."}).to_string()),
    ]);
    let settings = DraftSettings {
        max_rounds: 1,
        ..DraftSettings::PAPER
    };
    let draft = Draft::new(
        Arc::new(llm.clone()),
        Arc::new(ScriptedEmbedder::default()),
        exec,
        settings,
    )
    .unwrap();
    let refine = RefineStore::in_memory().unwrap();
    let run = refine.create_run(&spec(Method::Draft)).unwrap();
    Runner::new(&draft, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();
    llm.assert_finished();
    let requests = llm.requests();
    let analyzer = requests
        .iter()
        .find(|r| r.role.as_str() == "analyzer")
        .unwrap()
        .last_message();
    assert!(
        analyzer.contains("A checker found these problems"),
        "{analyzer}"
    );
    for fact in [
        "the description names a parameter `vote_count_gte` the API does not have",
        "the description names a parameter `region_code` the API does not have",
        "parameter `vote_count.gte`: a lower bound by its name",
        "parameter `with_status`: typed string but its values are integer",
    ] {
        assert!(analyzer.contains(fact), "{fact}: {analyzer}");
    }
    assert!(
        !analyzer.contains("parameter `US`"),
        "a country code is a value, not a parameter to drop: {analyzer}"
    );
    // The explorer, which only proposes calls, is not told.
    let explorer = requests
        .iter()
        .find(|r| r.role.as_str() == "explorer")
        .unwrap()
        .last_message();
    assert!(!explorer.contains("A checker found"), "{explorer}");
}
