//! Each query of a run gets a simulator session of its own: what one query created or
//! deleted is not seen by the next, whatever the order (scripted model, simulate mode, a
//! small pet-shop spec).

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};
use toolsmith_catalog::export::function_name;
use toolsmith_catalog::{ApiId, DocSelector, ImportOptions, Scope, Store, read_bytes};
use toolsmith_eval::{
    BenchSpec, BenchStore, Benchmark, Harness, Quiet, ResolvedQuery, SolverKind, ToolsOffered,
};
use toolsmith_exec::{
    ApiBook, Fill, Mode, ModeExecutor, OracleAsk, Provenance, ResponseCache, ResponseOracle,
    Simulator, SimulatorSettings, Validated,
};
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_llm::{ChatModel, ChatRequest, ChatResponse};
use toolsmith_solve::{
    AgentSettings, CallOutcome, React, ReactSettings, Runtime, Solver, TraceEvent, Tracer,
};

fn shop() -> Arc<ApiBook> {
    let pet = json!({"type": "object", "properties": {
        "id": {"type": "integer"}, "name": {"type": "string"}}});
    let ok = |schema: Value| {
        json!({"200": {"description": "ok",
        "content": {"application/json": {"schema": schema}}}})
    };
    let pet_id = json!({"name": "pet_id", "in": "path", "required": true,
        "schema": {"type": "integer"}});
    let spec = json!({"openapi": "3.0.0", "info": {"title": "Shop", "version": "1"}, "paths": {
        "/pets": {
            "get": {"responses": ok(json!({"type": "array", "items": pet.clone()}))},
            "post": {"requestBody": {"content": {"application/json": {"schema": pet.clone()}}},
                "responses": {"201": {"description": "created",
                    "content": {"application/json": {"schema": pet.clone()}}}}}},
        "/pets/{pet_id}": {
            "get": {"parameters": [pet_id.clone()], "responses": ok(pet)},
            "delete": {"parameters": [pet_id], "responses": {"204": {"description": "gone"}}}}
    }});
    let bytes = serde_json::to_vec(&spec).unwrap();
    let batch = read_bytes("shop.json".as_ref(), &bytes, &ImportOptions::default()).unwrap();
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    Arc::new(ApiBook::from_catalog(&catalog))
}

fn op(book: &ApiBook, method: &str, path: &str) -> ApiId {
    book.ids()
        .find(|id| {
            let api = &book.get(id).unwrap().api.api;
            api.endpoint.method().map(|m| m.to_string()) == Some(method.to_owned())
                && api.endpoint.path() == Some(path)
        })
        .cloned()
        .unwrap_or_else(|| panic!("no {method} {path}"))
}

/// Answers each request from its query's script.
struct ByQuery(HashMap<String, ScriptedLlm>);

#[async_trait]
impl ChatModel for ByQuery {
    async fn chat(&self, req: &ChatRequest) -> toolsmith_llm::Result<ChatResponse> {
        let query = req.query.as_deref().unwrap_or_default();
        self.0[query].chat(req).await
    }
    fn model_name(&self) -> &str {
        "scripted"
    }
}

fn call(api: &ApiId, args: Value) -> Reply {
    Reply::tool_call(function_name(api), args.to_string())
}

fn done() -> Reply {
    Reply::tool_call(
        "Finish",
        json!({"return_type": "give_answer", "final_answer": "done"}).to_string(),
    )
}

const DELETE: &str = "Remove pet 7 from the shop";
const READ: &str = "What is pet 7 called?";
const CREATE: &str = "Add a pet named Rex";
const LIST: &str = "List the pets of the shop";

fn model(book: &ApiBook) -> ByQuery {
    let scripts = [
        (
            DELETE,
            call(&op(book, "DELETE", "/pets/{pet_id}"), json!({"pet_id": 7})),
        ),
        (
            READ,
            call(&op(book, "GET", "/pets/{pet_id}"), json!({"pet_id": 7})),
        ),
        (
            CREATE,
            call(&op(book, "POST", "/pets"), json!({"name": "Rex"})),
        ),
        (LIST, call(&op(book, "GET", "/pets"), json!({}))),
    ];
    ByQuery(
        scripts
            .into_iter()
            .map(|(q, first)| (q.to_owned(), ScriptedLlm::new([first, done()])))
            .collect(),
    )
}

/// The shop's executor as `bench run` builds it: the simulator behind argument checks,
/// behind the mode switch.
fn harness(book: &Arc<ApiBook>) -> Harness {
    harness_over(book, Simulator::new(Arc::clone(book)))
}

/// [`harness`] over a given simulator.
fn harness_over(book: &Arc<ApiBook>, simulator: Simulator) -> Harness {
    let simulator = Validated::new(simulator, Arc::clone(book), Provenance::Simulated);
    let executor = ModeExecutor::new(
        Mode::Simulate,
        Arc::new(ResponseCache::in_memory().unwrap()),
    )
    .simulator(Arc::new(simulator));
    let runtime = Runtime {
        llm: Arc::new(model(book)),
        executor: Arc::new(executor),
        retriever: None,
        book: Arc::clone(book),
        settings: AgentSettings::default(),
        tracer: Tracer::new(),
        jq: None,
    };
    Harness::new(runtime, |rt: Runtime| {
        Box::new(React::new(rt, ReactSettings::PAPER)) as Box<dyn Solver>
    })
}

/// The queries of `order` as a dataset's.
fn resolved(order: &[&str]) -> Vec<ResolvedQuery> {
    order
        .iter()
        .map(|text| ResolvedQuery {
            id: (*text).to_owned(),
            text: (*text).to_owned(),
            gold: Vec::new(),
            candidates: Vec::new(),
            answer: None,
        })
        .collect()
}

/// The outcome and observation of the one tool call of `query` in a run over `order`.
async fn seen_by(book: &Arc<ApiBook>, order: &[&str], query: &str) -> (CallOutcome, String) {
    let queries = resolved(order);
    let mut spec = BenchSpec::new(&Benchmark::File("shop.json".into()), SolverKind::React);
    spec.tools = ToolsOffered::All;
    // One at a time, in the given order: the earlier query has finished before the next.
    spec.concurrency = 1;
    let store = BenchStore::in_memory().unwrap();
    let run = store.create_run(&spec).unwrap();
    harness(book)
        .run(&store, run, &spec, &queries, &Quiet)
        .await
        .unwrap();
    let result = store.result(run, query).unwrap().unwrap();
    result
        .run
        .trace
        .iter()
        .find_map(|e| match &e.event {
            TraceEvent::ToolCall {
                outcome,
                observation,
                ..
            } => Some((*outcome, observation.clone())),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn a_query_never_sees_what_an_earlier_query_deleted_or_created() {
    let book = shop();
    let alone = seen_by(&book, &[READ], READ).await;
    assert_eq!(alone.0, CallOutcome::Ok, "{alone:?}");
    for order in [[DELETE, READ], [READ, DELETE]] {
        let read = seen_by(&book, &order, READ).await;
        assert_eq!(read, alone, "pet 7 as read after {order:?}");
        let deleted = seen_by(&book, &order, DELETE).await;
        assert_eq!(deleted.0, CallOutcome::Ok, "the delete itself: {deleted:?}");
    }
    let pristine = seen_by(&book, &[LIST], LIST).await;
    assert!(!pristine.1.contains("Rex"), "{pristine:?}");
    for order in [[CREATE, LIST], [LIST, CREATE]] {
        let listed = seen_by(&book, &order, LIST).await;
        assert_eq!(listed, pristine, "the list after {order:?}");
    }
}

/// Records the task each fill was asked under, and answers with the draft.
#[derive(Default)]
struct Tasks(std::sync::Mutex<Vec<Option<String>>>);

#[async_trait]
impl ResponseOracle for Tasks {
    async fn respond(&self, ask: &OracleAsk<'_>) -> Result<Value, String> {
        if let Ok(mut tasks) = self.0.lock() {
            tasks.push(ask.task.map(str::to_owned));
        }
        ask.draft.cloned().ok_or_else(|| "no draft".to_owned())
    }
}

#[tokio::test]
async fn each_query_s_session_serves_its_own_text_as_the_task() {
    let book = shop();
    let tasks = Arc::new(Tasks::default());
    let settings = SimulatorSettings {
        fill: Fill::Llm,
        ..SimulatorSettings::default()
    };
    let oracle: Arc<dyn ResponseOracle> = Arc::clone(&tasks) as _;
    let simulator = Simulator::with_settings(Arc::clone(&book), &settings).with_oracle(oracle);
    let mut spec = BenchSpec::new(&Benchmark::File("shop.json".into()), SolverKind::React);
    spec.tools = ToolsOffered::All;
    spec.concurrency = 1;
    let store = BenchStore::in_memory().unwrap();
    let run = store.create_run(&spec).unwrap();
    harness_over(&book, simulator)
        .run(&store, run, &spec, &resolved(&[READ, LIST]), &Quiet)
        .await
        .unwrap();
    let asked = tasks.0.lock().unwrap().clone();
    assert_eq!(asked, [Some(READ.to_owned()), Some(LIST.to_owned())]);
}
