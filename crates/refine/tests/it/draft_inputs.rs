//! Issue 31, what DRAFT calls with: an argument the API does not document is dropped from the
//! call and named to the analyzer, and an API that takes no input is explored once.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolsmith_catalog::{ApiId, ImportOptions, Store, read_bytes};
use toolsmith_exec::{Executor, Observation};
use toolsmith_llm::testing::{Reply, ScriptedEmbedder, ScriptedLlm};
use toolsmith_refine::{Draft, DraftSettings, Method, RefineStore, Round, RunSpec, Runner, Stop};

use crate::draft::{NEW_DOC, analyzer, explorer};
use crate::support::{Recorder, catalog, executor, search, tools};

/// The movie search of `support` and a configuration API that takes nothing.
const SPEC: &[u8] = br#"{"openapi": "3.0.0", "info": {"title": "Movies", "version": "1"},
  "paths": {
    "/search/movie": {"get": {"summary": "Search movies by title",
      "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}],
      "responses": {"200": {"description": "Movies", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"results": {"type": "array", "items": {"type": "object",
          "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}}}}}}}}}}},
    "/configuration": {"get": {"summary": "Image sizes",
      "responses": {"200": {"description": "Sizes", "content": {"application/json": {"schema": {
        "type": "object", "properties": {"sizes": {"type": "array", "items": {"type": "string"}}}}}}}}}}
  }}"#;

fn configuration() -> ApiId {
    "movies/get_configuration".parse().unwrap()
}

fn store() -> Store {
    let mut store = Store::in_memory().unwrap();
    let batch = read_bytes("movies.json".as_ref(), SPEC, &ImportOptions::default()).unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    store
}

/// The simulator of `support`, recording every call it is asked to make.
struct Recording {
    inner: Arc<dyn Executor>,
    calls: Mutex<Vec<(ApiId, Value)>>,
}

#[async_trait::async_trait]
impl Executor for Recording {
    async fn call(&self, api: &ApiId, args: &Value) -> toolsmith_exec::Result<Observation> {
        self.calls.lock().unwrap().push((api.clone(), args.clone()));
        self.inner.call(api, args).await
    }
}

fn rewriter(description: &str, direction: &str) -> Reply {
    Reply::text(json!({"description": description, "next_exploration": direction}).to_string())
}

/// Runs DRAFT over `api` with `script`: the requests the model got, the calls the executor
/// got, and the rounds stored.
async fn run(
    api: ApiId,
    settings: DraftSettings,
    script: Vec<Reply>,
) -> (
    Vec<toolsmith_llm::ChatRequest>,
    Vec<(ApiId, Value)>,
    Vec<Round>,
) {
    let llm = ScriptedLlm::new(script);
    let store = store();
    let planned = tools(&store, std::slice::from_ref(&api));
    let recording = Arc::new(Recording {
        inner: executor(&store),
        calls: Mutex::new(Vec::new()),
    });
    let catalog = Mutex::new(store);
    let refine = RefineStore::in_memory().unwrap();
    let run = refine
        .create_run(&RunSpec {
            method: Method::Draft,
            apis: vec![api.clone()],
            settings: json!({}),
            mode: toolsmith_exec::Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: None,
        })
        .unwrap();
    let draft = Draft::new(
        Arc::new(llm.clone()),
        Arc::new(ScriptedEmbedder::default()),
        Arc::clone(&recording) as Arc<dyn Executor>,
        settings,
    )
    .unwrap();
    Runner::new(&draft, &catalog, &refine, &Recorder::default(), 1)
        .run(run, &planned)
        .await
        .unwrap();
    llm.assert_finished();
    let calls = recording.calls.lock().unwrap().clone();
    (llm.requests(), calls, refine.rounds(run, &api).unwrap())
}

fn tool_description() -> Reply {
    Reply::text(json!({"description": "Movies: search films by title."}).to_string())
}

#[tokio::test]
async fn an_argument_the_api_does_not_document_is_dropped_from_the_call_and_named_to_the_analyzer()
{
    let settings = DraftSettings {
        max_rounds: 2,
        adaptive_stop: false,
        ..DraftSettings::PAPER
    };
    let (requests, calls, rounds) = run(
        search(),
        settings,
        vec![
            explorer("Find the movie Dune", json!({"query": "Dune"})),
            analyzer(),
            // The direction asks for a parameter the API lacks; the explorer follows it.
            rewriter(NEW_DOC, "try the region parameter set to US"),
            explorer(
                "Which films called Alien are shown in the US?",
                json!({"query": "Alien", "region": "US"}),
            ),
            analyzer(),
            rewriter(NEW_DOC, "try a title with a year"),
            tool_description(),
        ],
    )
    .await;
    assert_eq!(
        calls,
        [
            (search(), json!({"query": "Dune"})),
            (search(), json!({"query": "Alien"}))
        ],
        "the executor never receives `region`"
    );
    assert!(
        requests[2]
            .last_message()
            .contains("Never ask for a parameter the API does not document"),
        "the rewriter is asked for a direction within the documented parameters"
    );
    assert!(
        requests[3]
            .last_message()
            .contains("try the region parameter set to US"),
        "the direction reaches the explorer"
    );
    let analyzer_prompt = requests[4].last_message();
    assert!(
        analyzer_prompt.contains(
            "left out of the call because the API documents no parameter\nof their names: {\"region\":\"US\"}"
        ),
        "{analyzer_prompt}"
    );
    assert!(
        analyzer_prompt.contains(r#"with arguments {"query":"Alien"}"#),
        "the analyzer sees the arguments sent: {analyzer_prompt}"
    );
    assert!(
        !requests[1].last_message().contains("left out of the call"),
        "nothing is said when nothing was dropped"
    );
    assert!(requests[5].last_message().contains(
        "left out of the call,\nas the API documents no parameter of their names: {\"region\":\"US\"}"
    ));
    let trial = rounds[1].exploration.as_ref().unwrap();
    assert_eq!(trial.arguments, json!({"query": "Alien"}));
    assert_eq!(
        Value::Object(trial.undocumented.clone()),
        json!({"region": "US"})
    );
    assert!(
        rounds[0]
            .exploration
            .as_ref()
            .unwrap()
            .undocumented
            .is_empty()
    );
    assert_eq!(
        rounds[1].examples[0].arguments,
        json!({"query": "Alien"}),
        "the example kept is the call made"
    );
}

#[tokio::test]
async fn an_api_that_takes_no_input_is_called_once_and_stops_after_its_first_rewrite() {
    let (requests, calls, rounds) = run(
        configuration(),
        DraftSettings::PAPER,
        vec![
            // The explorer's made-up argument is dropped: the call is the API's only call.
            explorer("Which image sizes can I ask for?", json!({"size": "w500"})),
            analyzer(),
            rewriter(
                "Lists the image sizes the service offers; takes no arguments.",
                "try another request",
            ),
            tool_description(),
        ],
    )
    .await;
    assert_eq!(requests.len(), 4, "no second explorer request");
    assert_eq!(calls, [(configuration(), json!({}))]);
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    assert_eq!(rounds[0].stop, Some(Stop::NoParameters));
    assert_eq!(Stop::NoParameters.as_str(), "no_parameters");
    assert!(
        rounds[0].delta.unwrap() <= 0.75,
        "the doc had not settled: the stop is the API's lack of input"
    );
    assert_eq!(
        rounds[0].description,
        "Lists the image sizes the service offers; takes no arguments."
    );
}

#[test]
fn the_estimate_counts_one_round_for_an_api_that_takes_no_input() {
    let store = store();
    let apis = [search(), configuration()];
    let jobs = toolsmith_refine::jobs(&toolsmith_refine::plan(&catalog(&store), |id| {
        apis.contains(id)
    }));
    let estimate = |api: &ApiId| {
        let job = jobs.iter().find(|j| j.id() == api).unwrap();
        DraftSettings::PAPER.estimate(job)
    };
    // Per round the explorer's 3 tries, the analyzer and the rewriter; one call per round.
    assert_eq!(estimate(&search()).requests, 5 * (3 + 2));
    assert_eq!(estimate(&search()).tool_calls, 5);
    assert_eq!(estimate(&configuration()).requests, 3 + 2);
    assert_eq!(estimate(&configuration()).tool_calls, 1);
}
