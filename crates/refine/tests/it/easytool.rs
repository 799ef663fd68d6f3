//! EasyTool: executed examples kept or dropped, the clean-up, the tool description.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith_catalog::{DocLabel, DocSelector, DocTarget, Scope};
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};
use toolsmith_refine::{EasyTool, EasyToolSettings, Method, RefineStore, RunEnd, RunSpec, Runner};

use crate::support::{Recorder, executor, search, store, tools};

#[tokio::test]
async fn keeps_the_example_that_runs_and_drops_the_one_that_fails_after_one_regeneration() {
    let store = store();
    let planned = tools(&store, &[search()]);
    let exec = executor(&store);
    let llm = ScriptedLlm::new([])
        .with_rule(
            When::last_message_contains("Rewrite the documentation"),
            Reply::text(
                json!({"description": "Finds movies whose title matches a text.",
                "examples": [
                    {"request": "Find the movie Dune", "arguments": {"query": "Dune"}},
                    {"request": "Show me something good", "arguments": {}}
                ]})
                .to_string(),
            ),
        )
        .with_rule(
            When::last_message_contains("failed when it was executed"),
            Reply::text(
                json!({"request": "Show me something good", "arguments": {"title": "x"}})
                    .to_string(),
            ),
        )
        .with_rule(
            When::last_message_contains("Write a short description of the tool"),
            Reply::text(
                json!({"description": "Movies finds films. It has 1 function: search by title."})
                    .to_string(),
            ),
        );
    let settings = EasyToolSettings {
        examples_per_api: 2,
        ..EasyToolSettings::PAPER
    };
    let easytool = EasyTool::new(Arc::new(llm.clone()), exec, settings).unwrap();
    let refine = RefineStore::in_memory().unwrap();
    let run = refine
        .create_run(&RunSpec {
            method: Method::EasyTool,
            apis: vec![search()],
            settings: json!({}),
            mode: toolsmith_exec::Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: None,
        })
        .unwrap();
    let catalog = Mutex::new(store);
    let recorder = Recorder::default();
    let report = Runner::new(&easytool, &catalog, &refine, &recorder, 2)
        .run(run, &planned)
        .await
        .unwrap();
    assert_eq!(report.end, RunEnd::Finished);
    assert_eq!(report.apis.len(), 1);

    let rounds = refine.rounds(run, &search()).unwrap();
    assert_eq!(rounds.len(), 1);
    let round = &rounds[0];
    assert_eq!(round.examples.len(), 1, "{round:?}");
    assert_eq!(round.examples[0].query, "Find the movie Dune");
    assert_eq!(round.dropped.len(), 1);
    assert!(
        round.dropped[0].reason.contains("bad_parameters"),
        "{:?}",
        round.dropped
    );
    let regenerations = llm
        .requests()
        .iter()
        .filter(|r| r.last_message().contains("failed when it was executed"))
        .count();
    assert_eq!(
        regenerations, 1,
        "a failed example is regenerated exactly once"
    );

    let store = catalog.into_inner().unwrap();
    let view = store
        .catalog(
            &DocSelector::Label(DocLabel::try_from("easytool".to_owned()).unwrap()),
            &Scope::default(),
        )
        .unwrap();
    let (tool, api) = view.apis().find(|(_, a)| a.api.id == search()).unwrap();
    let doc = api.doc.as_ref().unwrap();
    assert_eq!(doc.label.as_str(), "easytool");
    assert!(!doc.active, "refined docs are not activated by the run");
    assert_eq!(
        doc.doc.description,
        "Finds movies whose title matches a text."
    );
    assert_eq!(doc.doc.examples.len(), 1);
    assert_eq!(tool.doc.as_ref().unwrap().label.as_str(), "easytool");
    // The tool prompt saw the cleaned description: no price, no URL.
    let tool_prompt = llm
        .requests()
        .into_iter()
        .find(|r| {
            r.last_message()
                .contains("Write a short description of the tool")
        })
        .unwrap();
    assert!(tool_prompt.last_message().contains("Movie data."));
    assert!(!tool_prompt.last_message().contains("$5"));
    assert!(!tool_prompt.last_message().contains("https://"));
    let history = store.doc_history(&DocTarget::Api(search())).unwrap();
    assert_eq!(history.len(), 2, "original kept, easytool added");
    assert!(
        recorder
            .events
            .lock()
            .unwrap()
            .contains(&"stopped finished".to_owned())
    );
}

#[tokio::test]
async fn an_unusable_instruction_keeps_the_cleaned_doc_and_never_panics() {
    let store = store();
    let planned = tools(&store, &[search()]);
    let exec = executor(&store);
    let llm = ScriptedLlm::new([])
        .with_rule(
            When::last_message_contains("Rewrite the documentation"),
            Reply::text("no JSON at all"),
        )
        .with_rule(When::role("rewriter"), Reply::text("still nothing"));
    let easytool = EasyTool::new(Arc::new(llm), exec, EasyToolSettings::PAPER).unwrap();
    let refine = RefineStore::in_memory().unwrap();
    let run = refine
        .create_run(&RunSpec {
            method: Method::EasyTool,
            apis: vec![search()],
            settings: json!({}),
            mode: toolsmith_exec::Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: None,
        })
        .unwrap();
    let catalog = Mutex::new(store);
    let report = Runner::new(
        &easytool,
        &catalog,
        &refine,
        &toolsmith_refine::NoObserver,
        1,
    )
    .run(run, &planned)
    .await
    .unwrap();
    assert_eq!(report.apis, vec![(search(), None)], "nothing new to store");
    let round = &refine.rounds(run, &search()).unwrap()[0];
    assert!(
        round.refused.as_deref().unwrap().contains("unusable reply"),
        "{round:?}"
    );
    let store = catalog.into_inner().unwrap();
    assert_eq!(
        store.doc_history(&DocTarget::Api(search())).unwrap().len(),
        1
    );
}
