//! `refine --method queries`: a `queries` doc version per API with its synthetic requests,
//! and a run stopped at the budget resumes without asking about finished APIs again.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolsmith_llm::testing::{Reply, ScriptedEmbedder, ScriptedLlm, When};
use toolsmith_llm::{Budget, BudgetLimits, ChatModel, Metered};
use toolsmith_refine::{
    Method, QueryExpansion, QueryWriter, QueryWriterSettings, RefineStore, RunEnd, RunId, RunSpec,
    Runner, Stop,
};

use crate::support::{Recorder, details, queries_doc, search, store, tools};

const SEARCHES: [&str; 3] = ["Dune", "Alien", "Heat"];
const MOVIE_IDS: [u64; 3] = [603, 438_631, 949];

/// Answers the writer for either API with three distinct requests.
fn llm() -> ScriptedLlm {
    let searches: Vec<Value> = SEARCHES
        .iter()
        .map(|t| json!({"text": format!("Is there a film called {t}"), "calls": [{"arguments": {"query": t}}]}))
        .collect();
    let details: Vec<Value> = MOVIE_IDS
        .iter()
        .map(|id| json!({"text": format!("Everything about movie number {id}"), "calls": [{"arguments": {"movie_id": id}}]}))
        .collect();
    ScriptedLlm::new([])
        .with_rule(
            When::last_message_contains("### movies/get_search_movie"),
            Reply::text(json!({ "requests": searches }).to_string()),
        )
        .with_rule(
            When::last_message_contains("### movies/get_movie_movie_id"),
            Reply::text(json!({ "requests": details }).to_string()),
        )
}

fn expansion(llm: Arc<dyn ChatModel>) -> QueryExpansion {
    let settings = QueryWriterSettings {
        count: 3,
        ..QueryWriterSettings::PAPER
    };
    let embedder = Arc::new(ScriptedEmbedder::default());
    QueryExpansion::new(QueryWriter::new(llm, Some(embedder), settings).unwrap())
}

fn new_run(refine: &RefineStore) -> RunId {
    refine
        .create_run(&RunSpec {
            method: Method::Queries,
            apis: vec![search(), details()],
            settings: json!({"count": 3}),
            mode: toolsmith_exec::Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: None,
        })
        .unwrap()
}

#[tokio::test]
async fn each_api_gets_a_queries_version_keeping_its_description_and_examples() {
    let catalog = Mutex::new(store());
    let planned = tools(&catalog.lock().unwrap(), &[search(), details()]);
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine);
    let scripted = llm();
    let expansion = expansion(Arc::new(scripted.clone()));
    let report = Runner::new(&expansion, &catalog, &refine, &Recorder::default(), 2)
        .run(run, &planned)
        .await
        .unwrap();
    assert_eq!(report.end, RunEnd::Finished);
    assert_eq!(report.apis.len(), 2);
    assert!(report.failed.is_empty() && report.refused.is_empty());
    assert!(
        report.tools.iter().all(|(_, version)| version.is_none()),
        "tool descriptions are left alone: {:?}",
        report.tools
    );
    assert_eq!(scripted.requests().len(), 2, "one writer request per API");

    let store = catalog.into_inner().unwrap();
    let start = planned[0]
        .apis
        .iter()
        .find(|a| a.api.id == search())
        .unwrap();
    let doc = queries_doc(&store, &search());
    assert!(!doc.active, "a queries version is not activated");
    assert_eq!(doc.doc.description, start.description());
    assert_eq!(
        doc.doc.examples,
        start.doc.as_ref().unwrap().doc.examples,
        "examples are kept as they were"
    );
    assert_eq!(
        doc.doc.queries,
        [
            "Is there a film called Dune",
            "Is there a film called Alien",
            "Is there a film called Heat"
        ]
    );
    assert_eq!(queries_doc(&store, &details()).doc.queries.len(), 3);
    let rounds = refine.rounds(run, &details()).unwrap();
    assert_eq!(rounds.len(), 1);
    assert_eq!(rounds[0].stop, Some(Stop::Done));
    assert_eq!(rounds[0].queries.len(), 3);
}

#[tokio::test]
async fn a_run_stopped_at_the_budget_resumes_without_asking_about_finished_apis() {
    let catalog = Mutex::new(store());
    let planned = tools(&catalog.lock().unwrap(), &[search(), details()]);
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine);
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: Some(1),
        max_tokens: None,
    }));
    let first = Arc::new(Metered::new(llm(), budget));
    let report = Runner::new(
        &expansion(first),
        &catalog,
        &refine,
        &Recorder::default(),
        1,
    )
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

    let second = llm();
    let report = Runner::new(
        &expansion(Arc::new(second.clone())),
        &catalog,
        &refine,
        &Recorder::default(),
        1,
    )
    .run(run, &planned)
    .await
    .unwrap();
    assert_eq!(report.end, RunEnd::Finished);
    assert_eq!(report.already_done, 1);
    assert_eq!(report.apis.len(), 1);
    assert_eq!(report.apis[0].0, other);
    let asked = second.requests();
    assert_eq!(asked.len(), 1, "only the unfinished API is asked about");
    assert!(asked[0].last_message().contains(&format!("### {other}\n")));
    let store = catalog.into_inner().unwrap();
    for api in [search(), details()] {
        assert_eq!(queries_doc(&store, &api).doc.queries.len(), 3);
    }
}
