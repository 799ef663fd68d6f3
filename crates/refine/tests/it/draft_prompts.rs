//! Issue 31, what DRAFT's analyzer and rewriter are told: the schema defaults a simulated call
//! carried, and lint findings only while the description can act on them.

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolsmith_catalog::{
    ApiId, Catalog, DocSelector, ImportOptions, Scope, Store, ToolEntry, read_bytes,
};
use toolsmith_exec::{ApiBook, Executor, Provenance, Simulator, Validated};
use toolsmith_llm::ChatRequest;
use toolsmith_llm::testing::{Reply, ScriptedEmbedder, ScriptedLlm};
use toolsmith_refine::{Draft, DraftSettings, Method, RefineStore, Round, RunSpec, Runner};

use crate::draft::{analyzer, explorer, rewriter};
use crate::support::Recorder;

/// One API of daily prices: `end_date` defaults to a day before `start_date`'s default,
/// `interval` is required yet has a default, and `adjusted` has no description.
const SPEC: &[u8] = br#"{"openapi": "3.0.0", "info": {"title": "Stocks", "version": "1"},
  "paths": {"/prices": {"get": {"summary": "Daily prices of a stock",
    "parameters": [
      {"name": "symbol", "in": "query", "required": true, "description": "Ticker symbol", "schema": {"type": "string"}},
      {"name": "start_date", "in": "query", "description": "First day", "schema": {"type": "string", "default": "2020-01-01"}},
      {"name": "end_date", "in": "query", "description": "Last day", "schema": {"type": "string", "default": "2019-12-31"}},
      {"name": "interval", "in": "query", "required": true, "description": "Bar size", "schema": {"type": "string", "default": "1d"}},
      {"name": "adjusted", "in": "query", "schema": {"type": "boolean"}}],
    "responses": {"200": {"description": "Prices", "content": {"application/json": {"schema": {
      "type": "object", "properties": {"prices": {"type": "array", "items": {"type": "object",
        "properties": {"date": {"type": "string"}, "close": {"type": "number"}}}}}}}}}}}}}
}"#;

fn prices() -> ApiId {
    "stocks/get_prices".parse().unwrap()
}

fn store() -> Store {
    let mut store = Store::in_memory().unwrap();
    let batch = read_bytes("stocks.json".as_ref(), SPEC, &ImportOptions::default()).unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    store
}

fn catalog(store: &Store) -> Catalog {
    store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap()
}

fn planned(store: &Store) -> Vec<ToolEntry> {
    toolsmith_refine::plan(&catalog(store), |id| *id == prices())
}

/// The schema simulator behind validation, as `refine --mode simulate` runs it.
fn simulator(store: &Store) -> Arc<dyn Executor> {
    let book = Arc::new(ApiBook::from_catalog(&catalog(store)));
    Arc::new(Validated::new(
        Simulator::new(Arc::clone(&book)),
        book,
        Provenance::Simulated,
    ))
}

/// Runs DRAFT over `prices` for `rounds` rounds (no early stop) with `script`, and returns
/// every request the model got and the rounds stored.
async fn run(rounds: u32, script: Vec<Reply>) -> (Vec<ChatRequest>, Vec<Round>) {
    let llm = ScriptedLlm::new(script);
    let store = store();
    let (tools, exec) = (planned(&store), simulator(&store));
    let catalog = Mutex::new(store);
    let refine = RefineStore::in_memory().unwrap();
    let run = refine
        .create_run(&RunSpec {
            method: Method::Draft,
            apis: vec![prices()],
            settings: json!({}),
            mode: toolsmith_exec::Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: None,
        })
        .unwrap();
    let settings = DraftSettings {
        max_rounds: rounds,
        adaptive_stop: false,
        diversity: false,
        ..DraftSettings::PAPER
    };
    let draft = Draft::new(
        Arc::new(llm.clone()),
        Arc::new(ScriptedEmbedder::default()),
        exec,
        settings,
    )
    .unwrap();
    Runner::new(&draft, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &tools)
        .await
        .unwrap();
    llm.assert_finished();
    let stored = refine.rounds(run, &prices()).unwrap();
    assert_eq!(stored.len() as u32, rounds);
    (llm.requests(), stored)
}

fn tool_reply() -> Reply {
    Reply::text(json!({"description": "Stocks: daily prices."}).to_string())
}

#[tokio::test]
async fn the_analyzer_and_rewriter_see_the_schema_defaults_a_simulated_call_carried() {
    let (requests, rounds) = run(
        1,
        vec![
            explorer(
                "Prices of Apple since May",
                json!({"symbol": "AAPL", "start_date": "2024-05-01", "interval": "1d"}),
            ),
            analyzer(),
            rewriter("Daily closing prices of one stock between two dates."),
            tool_reply(),
        ],
    )
    .await;
    let added = r#"schema defaults for parameters left out: {"end_date":"2019-12-31"}"#;
    let analyzer = requests[1].last_message();
    assert!(analyzer.contains(added), "{analyzer}");
    let rewriter = requests[2].last_message().replace('\n', " ");
    assert!(rewriter.contains(added), "{rewriter}");
    assert!(
        !requests[0].last_message().contains("left out"),
        "the explorer is not told: it chose the arguments"
    );
    let trial = rounds[0].exploration.as_ref().unwrap();
    assert_eq!(
        serde_json::Value::Object(trial.defaults.clone()),
        json!({"end_date": "2019-12-31"}),
        "the round records what was sent"
    );
}

#[tokio::test]
async fn schema_findings_are_told_in_the_first_round_only_and_the_descriptions_own_every_round() {
    let call = || {
        explorer(
            "Prices of Apple",
            json!({"symbol": "AAPL", "interval": "1d"}),
        )
    };
    let (requests, _) = run(
        2,
        vec![
            call(),
            analyzer(),
            rewriter("Daily closing prices of a stock; name it with the `ticker` parameter."),
            call(),
            analyzer(),
            rewriter("Daily closing prices of one stock, named by its ticker symbol."),
            tool_reply(),
        ],
    )
    .await;
    let required_default = "parameter `interval`: required, yet it declares a default";
    let undescribed = "parameter `adjusted`: no description";
    let unknown = "names a parameter `ticker` the API does not have";
    let first = requests[1].last_message();
    assert!(first.contains(required_default), "{first}");
    assert!(first.contains(undescribed), "{first}");
    assert!(!first.contains(unknown), "{first}");
    let second = requests[4].last_message();
    assert!(
        !second.contains(required_default) && !second.contains(undescribed),
        "a schema finding is not repeated: {second}"
    );
    assert!(
        second.contains(unknown),
        "what the description itself gets wrong is told every round: {second}"
    );
}
