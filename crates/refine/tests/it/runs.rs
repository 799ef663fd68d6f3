//! The run machinery: a budget ends a run cleanly, `--resume` redoes no finished API or round.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith_catalog::DocTarget;
use toolsmith_llm::testing::{Reply, ScriptedEmbedder, ScriptedLlm, When};
use toolsmith_llm::{Budget, BudgetLimits, Metered};
use toolsmith_refine::{
    Draft, DraftSettings, EasyTool, EasyToolSettings, Method, RefineStore, Round, RunEnd, RunSpec,
    Runner, Stop,
};

use crate::draft::{NEW_DOC, analyzer, explorer, rewriter, spec};
use crate::support::{Recorder, details, executor, search, store, tools};

fn easytool_llm() -> ScriptedLlm {
    ScriptedLlm::new([])
        .with_rule(
            When::last_message_contains("Rewrite the documentation"),
            Reply::text(json!({"description": "Concise.", "examples": []}).to_string()),
        )
        .with_rule(
            When::last_message_contains("Write a short description of the tool"),
            Reply::text(json!({"description": "Movies: two functions."}).to_string()),
        )
}

#[tokio::test]
async fn a_budget_stops_the_run_cleanly_and_resume_does_not_redo_finished_apis() {
    let catalog = Mutex::new(store());
    let (planned, exec) = {
        let s = catalog.lock().unwrap();
        (tools(&s, &[search(), details()]), executor(&s))
    };
    let refine = RefineStore::in_memory().unwrap();
    let run = refine
        .create_run(&RunSpec {
            method: Method::EasyTool,
            apis: vec![search(), details()],
            settings: json!({}),
            mode: toolsmith_exec::Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: None,
        })
        .unwrap();
    // One LLM call allowed: the first API finishes, the second hits the budget.
    let first = easytool_llm();
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: Some(1),
        max_tokens: None,
    }));
    let llm = Arc::new(Metered::new(first.clone(), budget));
    let easytool = EasyTool::new(llm, Arc::clone(&exec), EasyToolSettings::PAPER).unwrap();
    let report = Runner::new(&easytool, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();
    assert!(matches!(report.end, RunEnd::Budget(_)), "{:?}", report.end);
    assert_eq!(report.apis.len(), 1);
    let finished = report.apis[0].0.clone();
    let other = if finished == search() {
        details()
    } else {
        search()
    };
    assert!(
        matches!(
            refine.run(run).unwrap().ended,
            Some(toolsmith_refine::RunEnd::Budget(_))
        ),
        "the run ended at the budget"
    );
    assert!(refine.api_done(run, &finished).unwrap());
    assert!(!refine.api_done(run, &other).unwrap());
    assert!(report.tools.is_empty(), "the tool waits for all its APIs");

    // Resume with a fresh budget: only the unfinished API and the tool are asked about.
    let second = easytool_llm();
    let easytool = EasyTool::new(Arc::new(second.clone()), exec, EasyToolSettings::PAPER).unwrap();
    let report = Runner::new(&easytool, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();
    assert_eq!(report.end, RunEnd::Finished);
    assert_eq!(report.already_done, 1);
    assert_eq!(report.apis.len(), 1);
    assert_eq!(report.apis[0].0, other);
    let requests = second.requests();
    assert_eq!(
        requests.len(),
        2,
        "one API instruction and the tool description"
    );
    let finished_name = finished.api().as_str().to_owned();
    assert!(
        !requests[0].last_message().contains(&finished_name),
        "the finished API is not redone"
    );
    assert_eq!(report.tools.len(), 1);
    let store = catalog.into_inner().unwrap();
    for api in [search(), details()] {
        let docs = store.doc_history(&DocTarget::Api(api)).unwrap();
        assert!(docs.iter().any(|d| d.label.as_str() == "easytool"));
    }
}

#[tokio::test]
async fn a_draft_run_stopped_mid_api_resumes_at_the_next_round() {
    let catalog = Mutex::new(store());
    let (planned, exec) = {
        let s = catalog.lock().unwrap();
        (tools(&s, &[search()]), executor(&s))
    };
    let refine = RefineStore::in_memory().unwrap();
    let run = refine.create_run(&spec()).unwrap();
    let settings = DraftSettings {
        max_rounds: 3,
        adaptive_stop: false,
        ..DraftSettings::PAPER
    };
    // Round 1 takes 3 calls; the 5th call (round 2's analyzer) is over the budget.
    let first = ScriptedLlm::new([
        explorer("Find the movie Dune", json!({"query": "Dune"})),
        analyzer(),
        rewriter(NEW_DOC),
        explorer("Films named Alien", json!({"query": "Alien"})),
    ]);
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: Some(4),
        max_tokens: None,
    }));
    let draft = Draft::new(
        Arc::new(Metered::new(first.clone(), budget)),
        Arc::new(ScriptedEmbedder::default()),
        Arc::clone(&exec),
        settings.clone(),
    )
    .unwrap();
    let report = Runner::new(&draft, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();
    first.assert_finished();
    assert!(matches!(report.end, RunEnd::Budget(_)));
    assert_eq!(
        refine.rounds(run, &search()).unwrap().len(),
        1,
        "round 1 was checkpointed"
    );

    let second = ScriptedLlm::new([
        explorer("Films named Alien", json!({"query": "Alien"})),
        analyzer(),
        rewriter(NEW_DOC),
        explorer("Films named Heat", json!({"query": "Heat"})),
        analyzer(),
        rewriter(NEW_DOC),
        Reply::text(json!({"description": "Movies: search films by title."}).to_string()),
    ]);
    let draft = Draft::new(
        Arc::new(second.clone()),
        Arc::new(ScriptedEmbedder::default()),
        exec,
        settings,
    )
    .unwrap();
    let report = Runner::new(&draft, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();
    second.assert_finished();
    assert_eq!(report.end, RunEnd::Finished);
    let rounds = refine.rounds(run, &search()).unwrap();
    assert_eq!(
        rounds.iter().map(|r| r.round).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(rounds[2].stop, Some(Stop::MaxRounds));
    let resumed_first = &second.requests()[0];
    assert_eq!(resumed_first.role.as_str(), "explorer");
    assert!(
        resumed_first.last_message().contains("Find the movie Dune"),
        "round 1's query is known to the resumed explorer"
    );
    // One doc version per round, none twice, and the final one under `draft`.
    let history = catalog
        .lock()
        .unwrap()
        .doc_history(&DocTarget::Api(search()))
        .unwrap();
    let labels: Vec<&str> = history.iter().map(|v| v.label.as_str()).collect();
    assert_eq!(
        labels,
        ["original", "draft.r1", "draft.r2", "draft.r3", "draft"]
    );
    assert_eq!(
        history[2].source,
        format!("refine run {run} (draft, round 2)")
    );
    assert!(history.iter().skip(1).all(|v| !v.active));
}

#[tokio::test]
async fn a_round_checkpointed_without_its_doc_version_gets_it_on_resume() {
    let catalog = Mutex::new(store());
    let (planned, exec) = {
        let s = catalog.lock().unwrap();
        (tools(&s, &[search()]), executor(&s))
    };
    let refine = RefineStore::in_memory().unwrap();
    let run = refine.create_run(&spec()).unwrap();
    // A run killed right after round 1's checkpoint, before its doc version was stored.
    let mut round = Round::new(1, NEW_DOC);
    round.delta = Some(0.1);
    refine.save_round(run, &search(), &round).unwrap();
    let settings = DraftSettings {
        max_rounds: 2,
        adaptive_stop: false,
        ..DraftSettings::PAPER
    };
    let llm = ScriptedLlm::new([
        explorer("Films named Alien", json!({"query": "Alien"})),
        analyzer(),
        rewriter("Finds films by title text."),
        Reply::text(json!({"description": "Movies: search films by title."}).to_string()),
    ]);
    let draft = Draft::new(
        Arc::new(llm.clone()),
        Arc::new(ScriptedEmbedder::default()),
        exec,
        settings,
    )
    .unwrap();
    Runner::new(&draft, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();
    llm.assert_finished();
    let history = catalog
        .lock()
        .unwrap()
        .doc_history(&DocTarget::Api(search()))
        .unwrap();
    let versions: Vec<(&str, &str)> = history
        .iter()
        .map(|v| (v.label.as_str(), v.doc.description.as_str()))
        .collect();
    assert_eq!(
        versions[1..],
        [
            ("draft.r1", NEW_DOC),
            ("draft.r2", "Finds films by title text."),
            ("draft", "Finds films by title text.")
        ]
    );
}
