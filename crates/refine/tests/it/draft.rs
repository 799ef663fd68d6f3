//! DRAFT: diversity re-asks, adaptive stop and its ablations, refused rewrites.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith_catalog::{DocTarget, Store};
use toolsmith_llm::testing::{Reply, ScriptedEmbedder, ScriptedLlm};
use toolsmith_refine::{
    Draft, DraftSettings, Method, RefineStore, RunId, RunReport, RunSpec, Runner, Stop,
};

use crate::support::{Recorder, executor, search, store, tools};

pub(crate) fn explorer(query: &str, args: serde_json::Value) -> Reply {
    Reply::text(json!({"query": query, "arguments": args}).to_string())
}

pub(crate) fn analyzer() -> Reply {
    Reply::text(json!({"suggestions": "Say what the results hold."}).to_string())
}

pub(crate) fn rewriter(description: &str) -> Reply {
    Reply::text(
        json!({"description": description, "next_exploration": "try a release year"}).to_string(),
    )
}

pub(crate) const NEW_DOC: &str = "Looks up films whose title contains the given text; answers with a results list of ids and titles.";

pub(crate) fn spec() -> RunSpec {
    RunSpec {
        method: Method::Draft,
        apis: vec![search()],
        settings: json!({}),
        mode: toolsmith_exec::Mode::Simulate,
        from_label: "original".parse().unwrap(),
        writer: None,
    }
}

pub(crate) async fn run_draft(
    llm: &ScriptedLlm,
    settings: DraftSettings,
    catalog: &Mutex<Store>,
    refine: &RefineStore,
    run: RunId,
    recorder: &Recorder,
) -> RunReport {
    let (planned, exec) = {
        let store = catalog.lock().unwrap();
        (tools(&store, &[search()]), executor(&store))
    };
    let draft = Draft::new(
        Arc::new(llm.clone()),
        Arc::new(ScriptedEmbedder::default()),
        exec,
        settings,
    )
    .unwrap();
    Runner::new(&draft, catalog, refine, recorder, 1)
        .run(run, &planned)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_explorer_is_asked_again_when_its_query_is_too_similar_and_the_loop_stops_when_the_doc_settles()
 {
    let llm = ScriptedLlm::new([
        explorer("Find the movie Dune", json!({"query": "Dune"})),
        analyzer(),
        rewriter(NEW_DOC),
        // Round 2: the same request again is refused by the diversity check.
        explorer("Find the movie Dune", json!({"query": "Dune"})),
        explorer(
            "Which films were called Alien in 1979?",
            json!({"query": "Alien"}),
        ),
        analyzer(),
        rewriter(NEW_DOC),
        // The tool's description once its API is done.
        Reply::text(json!({"description": "Movies: search films by title."}).to_string()),
    ]);
    let catalog = Mutex::new(store());
    let refine = RefineStore::in_memory().unwrap();
    let run = refine.create_run(&spec()).unwrap();
    let recorder = Recorder::default();
    let report = run_draft(
        &llm,
        DraftSettings::PAPER,
        &catalog,
        &refine,
        run,
        &recorder,
    )
    .await;
    llm.assert_finished();
    assert_eq!(report.apis.len(), 1);

    let rounds = refine.rounds(run, &search()).unwrap();
    assert_eq!(
        rounds.len(),
        2,
        "stopped at the first round with Delta > tau"
    );
    assert!(rounds[0].delta.unwrap() <= 0.75, "{:?}", rounds[0].delta);
    assert_eq!(rounds[0].stop, None);
    assert!(rounds[1].delta.unwrap() > 0.75);
    assert_eq!(rounds[1].stop, Some(Stop::Settled));
    assert_eq!(rounds[1].rejected_queries.len(), 1);
    assert_eq!(rounds[1].rejected_queries[0].query, "Find the movie Dune");
    assert!(rounds[1].rejected_queries[0].cosine >= 0.9);
    assert_eq!(
        rounds[1].exploration.as_ref().unwrap().query,
        "Which films were called Alien in 1979?"
    );
    let requests = llm.requests();
    assert!(
        requests[4].last_message().contains("too close"),
        "the explorer is told why"
    );
    assert!(rounds[0].exploration.as_ref().unwrap().invented());
    assert!(
        requests[1]
            .last_message()
            .contains("synthesized from the API's specification"),
        "the analyzer is told a simulated response's values are no evidence"
    );
    assert!(
        requests[2]
            .last_message()
            .contains("trust its shape, not its values")
    );
    assert!(
        requests[2].last_message().contains("under 300 characters"),
        "the rewriter is told the length limit its doc must keep"
    );
    assert!(
        requests[3].last_message().contains("Find the movie Dune"),
        "explored queries are shown"
    );
    assert!(
        requests[3].last_message().contains("try a release year"),
        "the rewriter's direction is passed on"
    );

    // The history holds every round, with what was explored, suggested and written.
    let history = refine.history(&search()).unwrap();
    assert_eq!(history.len(), 2);
    assert!(
        history
            .iter()
            .all(|h| h.round.exploration.is_some() && h.round.suggestions.is_some())
    );
    let store = catalog.into_inner().unwrap();
    let docs = store.doc_history(&DocTarget::Api(search())).unwrap();
    let draft = docs.iter().find(|d| d.label.as_str() == "draft").unwrap();
    assert_eq!(draft.doc.description, NEW_DOC);
    assert_eq!(
        draft.doc.examples[0].query,
        "Which films were called Alien in 1979?"
    );
    let events = recorder.events.lock().unwrap().clone();
    assert_eq!(
        events.iter().filter(|e| e.starts_with("round ")).count(),
        2,
        "{events:?}"
    );
}

#[tokio::test]
async fn without_adaptive_stop_or_diversity_every_round_runs_and_repeats_are_kept() {
    let mut script = Vec::new();
    for _ in 0..3 {
        script.extend([
            explorer("Find the movie Dune", json!({"query": "Dune"})),
            analyzer(),
            rewriter(NEW_DOC),
        ]);
    }
    script.push(Reply::text(
        json!({"description": "Movies: search films by title."}).to_string(),
    ));
    let llm = ScriptedLlm::new(script);
    let settings = DraftSettings {
        max_rounds: 3,
        adaptive_stop: false,
        diversity: false,
        ..DraftSettings::PAPER
    };
    let catalog = Mutex::new(store());
    let refine = RefineStore::in_memory().unwrap();
    let run = refine.create_run(&spec()).unwrap();
    run_draft(&llm, settings, &catalog, &refine, run, &Recorder::default()).await;
    llm.assert_finished();
    let rounds = refine.rounds(run, &search()).unwrap();
    assert_eq!(rounds.len(), 3);
    assert!(
        rounds[1].delta.unwrap() > 0.75,
        "it would have stopped here"
    );
    assert!(rounds.iter().all(|r| r.rejected_queries.is_empty()));
    assert_eq!(rounds[2].stop, Some(Stop::MaxRounds));
}

#[tokio::test]
async fn empty_and_overlong_rewrites_and_bad_json_leave_the_doc_at_its_previous_version() {
    // Within ten times the original, over the 300 characters of `max_chars`.
    let long = "A very long description. ".repeat(20);
    let llm = ScriptedLlm::new([
        // Round 1: the call fails (no arguments) and the rewrite is empty.
        explorer("Search something", json!({})),
        analyzer(),
        rewriter(""),
        // Round 2: a doc far longer than the original.
        explorer("Search for Alien", json!({})),
        analyzer(),
        rewriter(&long),
        // Round 3: the rewriter never answers with JSON (first reply and two repairs).
        explorer("Search for Heat", json!({})),
        analyzer(),
        Reply::text("I think the description is fine"),
        Reply::text("{\"description\": "),
        Reply::text(""),
        Reply::text(json!({"description": "Movies: search films by title."}).to_string()),
    ]);
    let catalog = Mutex::new(store());
    let refine = RefineStore::in_memory().unwrap();
    let run = refine.create_run(&spec()).unwrap();
    let report = run_draft(
        &llm,
        DraftSettings::PAPER,
        &catalog,
        &refine,
        run,
        &Recorder::default(),
    )
    .await;
    llm.assert_finished();
    assert_eq!(
        report.apis,
        vec![(search(), None)],
        "no new API doc version"
    );
    let rounds = refine.rounds(run, &search()).unwrap();
    assert_eq!(rounds.len(), 3);
    assert!(
        rounds[0].refused.as_deref().unwrap().contains("empty"),
        "{:?}",
        rounds[0]
    );
    assert!(
        rounds[1]
            .refused
            .as_deref()
            .unwrap()
            .contains("over its limit of 300"),
        "{:?}",
        rounds[1]
    );
    assert!(
        rounds[2].refused.as_deref().unwrap().contains("rewriter"),
        "{:?}",
        rounds[2]
    );
    assert_eq!(rounds[2].stop, Some(Stop::Malformed));
    assert!(
        rounds
            .iter()
            .all(|r| r.description == "Search movies by title")
    );
    let store = catalog.into_inner().unwrap();
    let docs = store.doc_history(&DocTarget::Api(search())).unwrap();
    assert_eq!(docs.len(), 1, "only the original");
}

/// Answers every call as the real service would (provenance `live`).
struct LiveService;

#[async_trait::async_trait]
impl toolsmith_exec::Executor for LiveService {
    async fn call(
        &self,
        _api: &toolsmith_catalog::ApiId,
        _args: &serde_json::Value,
    ) -> toolsmith_exec::Result<toolsmith_exec::Observation> {
        Ok(toolsmith_exec::Observation::ok_json(
            json!({"results": [{"id": 1, "title": "Dune"}]}),
            toolsmith_exec::Provenance::Live,
        ))
    }
}

#[tokio::test]
async fn a_live_response_is_shown_to_the_analyzer_as_evidence() {
    let llm = ScriptedLlm::new([
        explorer("Find the movie Dune", json!({"query": "Dune"})),
        analyzer(),
        rewriter(NEW_DOC),
        Reply::text(json!({"description": "Movies: search films by title."}).to_string()),
    ]);
    let catalog = Mutex::new(store());
    let refine = RefineStore::in_memory().unwrap();
    let run = refine.create_run(&spec()).unwrap();
    let planned = tools(&catalog.lock().unwrap(), &[search()]);
    let settings = DraftSettings {
        max_rounds: 1,
        ..DraftSettings::PAPER
    };
    let draft = Draft::new(
        Arc::new(llm.clone()),
        Arc::new(ScriptedEmbedder::default()),
        Arc::new(LiveService),
        settings,
    )
    .unwrap();
    Runner::new(&draft, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();
    llm.assert_finished();
    let rounds = refine.rounds(run, &search()).unwrap();
    assert!(!rounds[0].exploration.as_ref().unwrap().invented());
    let requests = llm.requests();
    assert!(!requests[1].last_message().contains("synthesized"));
    assert!(!requests[2].last_message().contains("trust its shape"));
}
