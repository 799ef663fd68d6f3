//! `refine --method queries` with `apis_per_call` above 1: one model request writes the views
//! of a chunk of a tool's APIs (sorted by id), each API keeps its own, a short API alone is
//! asked again, and a resumed run asks the very same prompt.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolsmith_catalog::{ApiId, DocSelector, ImportOptions, Scope, Store, ToolEntry, read_bytes};
use toolsmith_llm::testing::{Reply, ScriptedEmbedder, ScriptedLlm, When};
use toolsmith_llm::{ChatModel, Role};
use toolsmith_refine::{
    Method, QueryExpansion, QueryWriter, QueryWriterSettings, RefineStore, Round, RunEnd, RunId,
    RunReport, RunSpec, Runner, Stop,
};

use crate::support::{Recorder, queries_of};

const SPEC: &[u8] = br#"{"openapi": "3.0.0", "info": {"title": "Cinema", "version": "1", "description": "Films, people and genres."},
  "paths": {
    "/search/movie": {"get": {"summary": "Search movies by title",
      "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}]}},
    "/movie/{movie_id}": {"get": {"summary": "Movie details",
      "parameters": [{"name": "movie_id", "in": "path", "required": true, "schema": {"type": "integer"}}]}},
    "/search/person": {"get": {"summary": "Search people by name",
      "parameters": [{"name": "query", "in": "query", "required": true, "schema": {"type": "string"}}]}},
    "/person/{person_id}": {"get": {"summary": "Person details",
      "parameters": [{"name": "person_id", "in": "path", "required": true, "schema": {"type": "integer"}}]}},
    "/genre/list": {"get": {"summary": "The list of movie genres"}}
  }}"#;

fn id(name: &str) -> ApiId {
    format!("cinema/{name}").parse().unwrap()
}

/// The five APIs sorted by id: chunks of three are the first three and the last two.
fn sorted() -> [ApiId; 5] {
    [
        id("get_genre_list"),
        id("get_movie_movie_id"),
        id("get_person_person_id"),
        id("get_search_movie"),
        id("get_search_person"),
    ]
}

fn store() -> Store {
    let mut store = Store::in_memory().unwrap();
    let batch = read_bytes("cinema.json".as_ref(), SPEC, &ImportOptions::default()).unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    store
}

fn planned(store: &Store, apis: &[ApiId]) -> Vec<ToolEntry> {
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    toolsmith_refine::plan(&catalog, |api| apis.contains(api))
}

fn settings(apis_per_call: usize) -> QueryWriterSettings {
    QueryWriterSettings {
        count: 3,
        apis_per_call,
        ..QueryWriterSettings::PAPER
    }
}

fn expansion(llm: Arc<dyn ChatModel>, apis_per_call: usize) -> QueryExpansion {
    let embedder = Arc::new(ScriptedEmbedder::default());
    QueryExpansion::new(QueryWriter::new(llm, Some(embedder), settings(apis_per_call)).unwrap())
}

/// Runs the expansion with chunks of three over `tools`, `concurrency` APIs at once, asking
/// `llm`.
async fn run_chunks3(
    llm: &ScriptedLlm,
    catalog: &Mutex<Store>,
    refine: &RefineStore,
    run: RunId,
    tools: &[ToolEntry],
    concurrency: usize,
) -> RunReport {
    Runner::new(
        &expansion(Arc::new(llm.clone()), 3),
        catalog,
        refine,
        &Recorder::default(),
        concurrency,
    )
    .run(run, tools)
    .await
    .unwrap()
}

fn new_run(refine: &RefineStore, apis: &[ApiId]) -> RunId {
    refine
        .create_run(&RunSpec {
            method: Method::Queries,
            apis: apis.to_vec(),
            settings: serde_json::to_value(settings(3)).unwrap(),
            mode: toolsmith_exec::Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: None,
        })
        .unwrap()
}

/// Three views for each API, in the order the chunks list them.
fn views() -> [[&'static str; 3]; 5] {
    [
        [
            "What kinds of films can I browse",
            "Show me every genre you know about",
            "list categories like horror or comedy",
        ],
        [
            "Tell me everything about movie 603",
            "How long does film 438631 run",
            "budget and release date of title 949",
        ],
        [
            "Who is person 287 and where were they born",
            "biography for actor id 500",
            "Give me the birthday of cast member 1892",
        ],
        [
            "Is there a film called Dune",
            "find the movie Heat from 1995",
            "Search titles matching Alien",
        ],
        [
            "Look up the actress Sigourney Weaver",
            "which people are named Keanu",
            "Find director Denis Villeneuve",
        ],
    ]
}

/// Replies to the first request of each chunk: its APIs' views, with the genre list's first
/// item naming its function.
fn llm() -> ScriptedLlm {
    let v = views();
    let first = json!({
        "1": ["Call get_genre_list for me", v[0][0], v[0][1], v[0][2]],
        "2": v[1],
        "3": v[2],
    });
    let second = json!({"1": v[3], "2": v[4]});
    ScriptedLlm::new([])
        .with_rule(
            When::last_message_contains("### cinema/get_genre_list"),
            Reply::text(first.to_string()),
        )
        .with_rule(
            When::last_message_contains("### cinema/get_search_movie"),
            Reply::text(second.to_string()),
        )
}

fn prompts(llm: &ScriptedLlm) -> Vec<String> {
    llm.requests()
        .iter()
        .map(|r| r.last_message().to_owned())
        .collect()
}

#[tokio::test]
async fn one_request_writes_each_chunk_and_every_api_keeps_its_own_views() {
    let catalog = Mutex::new(store());
    let apis = sorted();
    let tools = planned(&catalog.lock().unwrap(), &apis);
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine, &apis);
    let scripted = llm();
    let report = run_chunks3(&scripted, &catalog, &refine, run, &tools, 4).await;
    assert_eq!(report.end, RunEnd::Finished);
    assert_eq!(report.apis.len(), 5);
    assert!(report.failed.is_empty() && report.refused.is_empty());

    let requests = scripted.requests();
    assert_eq!(requests.len(), 2, "one request per chunk (3 and 2 APIs)");
    assert!(requests.iter().all(|r| r.role == Role::new(Role::QUERIES)));
    let asked = prompts(&scripted);
    let (first, second) = if asked[0].contains("### cinema/get_genre_list") {
        (&asked[0], &asked[1])
    } else {
        (&asked[1], &asked[0])
    };
    for (prompt, members) in [(first, &apis[..3]), (second, &apis[3..])] {
        for api in &apis {
            assert_eq!(
                prompt.contains(&format!("### {api}\n")),
                members.contains(api),
                "{api} in\n{prompt}"
            );
        }
        assert_eq!(
            prompt.matches("## Cinema (`cinema`)").count(),
            1,
            "{prompt}"
        );
        assert!(prompt.contains("Films, people and genres."), "{prompt}");
    }
    assert!(first.contains("API 3 (write 3 request(s)):"), "{first}");

    let store = catalog.into_inner().unwrap();
    for (api, own) in apis.iter().zip(views()) {
        assert_eq!(queries_of(&store, api), own, "{api}");
        let rounds = refine.rounds(run, api).unwrap();
        assert_eq!(rounds.len(), 1);
        assert_eq!(rounds[0].stop, Some(Stop::Done));
    }
    let genres = &refine.rounds(run, &apis[0]).unwrap()[0];
    assert_eq!(genres.dropped.len(), 1, "{:?}", genres.dropped);
    assert_eq!(
        genres.dropped[0].example.query,
        "Call get_genre_list for me"
    );
    assert!(
        genres.dropped[0]
            .reason
            .contains("names the function `get_genre_list`"),
        "{}",
        genres.dropped[0].reason
    );
    assert!(refine.rounds(run, &apis[1]).unwrap()[0].dropped.is_empty());
}

#[tokio::test]
async fn a_follow_up_asks_only_the_short_apis_for_what_they_lack() {
    let catalog = Mutex::new(store());
    let apis = sorted();
    let chunk = &apis[..3];
    let tools = planned(&catalog.lock().unwrap(), chunk);
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine, chunk);
    let v = views();
    let first = json!({
        "1": v[0],
        "2": [v[1][0], v[1][0], 42, "  "],
        "3": v[2],
    });
    let follow_up = json!({"1": [v[1][1], v[1][2]]});
    let scripted = ScriptedLlm::new([
        Reply::text(first.to_string()),
        Reply::text(follow_up.to_string()),
    ]);
    let report = run_chunks3(&scripted, &catalog, &refine, run, &tools, 3).await;
    assert_eq!(report.end, RunEnd::Finished);
    scripted.assert_finished();

    let asked = prompts(&scripted);
    assert_eq!(asked.len(), 2, "the first request and one follow-up");
    let again = &asked[1];
    assert!(again.contains(&format!("### {}\n", apis[1])), "{again}");
    for other in [&apis[0], &apis[2]] {
        assert!(!again.contains(&format!("### {other}\n")), "{again}");
    }
    assert!(again.contains("API 1 (write 2 request(s)):"), "{again}");
    assert!(!again.contains("API 2 ("), "{again}");
    assert!(
        again.contains(&format!(
            "do not repeat or reword any of them:\n- {}\n",
            v[1][0]
        )),
        "the follow-up shows what the API has: {again}"
    );

    let store = catalog.into_inner().unwrap();
    assert_eq!(queries_of(&store, &apis[1]), v[1]);
    let round: Round = refine.rounds(run, &apis[1]).unwrap().remove(0);
    assert_eq!(round.rejected_queries.len(), 1, "the repeat");
    assert_eq!(round.rejected_queries[0].query, v[1][0]);
    let reasons: Vec<&str> = round.dropped.iter().map(|d| d.reason.as_str()).collect();
    assert_eq!(reasons, ["not a string", "an empty request"]);
    assert_eq!(queries_of(&store, &apis[0]), v[0]);
}

#[tokio::test]
async fn a_resumed_run_asks_the_very_same_prompts_as_the_first_attempt() {
    let apis = sorted();
    let first_attempt = llm();
    {
        let catalog = Mutex::new(store());
        let tools = planned(&catalog.lock().unwrap(), &apis);
        let refine = RefineStore::in_memory().unwrap();
        let run = new_run(&refine, &apis);
        let report = run_chunks3(&first_attempt, &catalog, &refine, run, &tools, 1).await;
        assert_eq!(report.apis.len(), 5);
    }

    // An earlier attempt finished the middle API of the first chunk and nothing else.
    let catalog = Mutex::new(store());
    let tools = planned(&catalog.lock().unwrap(), &apis);
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine, &apis);
    let mut finished = Round::new(1, "Movie details");
    finished.queries = vec!["a view from before".into()];
    finished.stop = Some(Stop::Done);
    refine.save_round(run, &apis[1], &finished).unwrap();
    refine.finish_api(run, &apis[1], None).unwrap();

    let resumed = llm();
    let report = run_chunks3(&resumed, &catalog, &refine, run, &tools, 1).await;
    assert_eq!(report.end, RunEnd::Finished);
    assert_eq!(report.already_done, 1);
    assert_eq!(report.apis.len(), 4);

    let mut before = prompts(&first_attempt);
    let mut after = prompts(&resumed);
    before.sort();
    after.sort();
    assert_eq!(after.len(), 2);
    assert_eq!(
        after, before,
        "the same prompts, so the response cache answers them"
    );
    let requests = resumed.requests();
    let chunk = requests
        .iter()
        .find(|r| r.last_message().contains("### cinema/get_genre_list"))
        .unwrap();
    assert!(chunk.last_message().contains(&format!("### {}\n", apis[1])));
    assert_eq!(
        refine.rounds(run, &apis[1]).unwrap(),
        [finished],
        "the finished API is not redone"
    );
    let store = catalog.into_inner().unwrap();
    assert_eq!(queries_of(&store, &apis[2]), views()[2]);
}

#[test]
fn batching_divides_the_estimated_requests_by_about_the_chunk_size() {
    let store = store();
    let jobs = toolsmith_refine::jobs(&planned(&store, &sorted()));
    let total = |s: QueryWriterSettings| {
        let mut sum = toolsmith_refine::Estimate::default();
        for job in &jobs {
            sum += s.estimate(job);
        }
        sum
    };
    let one = total(settings(1));
    let three = total(settings(3));
    let asks = u64::from(QueryWriterSettings::PAPER.max_asks);
    assert_eq!(one.requests, 5 * asks, "a request per API and ask");
    assert_eq!(
        three.requests,
        2 * asks,
        "a request per chunk (3 and 2 APIs) and ask"
    );
    assert_eq!(three.llm_calls * 5, one.llm_calls * 2);
    assert!(
        three.tokens * 3 < one.tokens * 2,
        "texts only: {} vs {}",
        three.tokens,
        one.tokens
    );
    let the_first_of_each_chunk: Vec<bool> = jobs
        .iter()
        .map(|job| settings(3).estimate(job).requests > 0)
        .collect();
    let ids: Vec<&ApiId> = jobs.iter().map(|j| j.id()).collect();
    for (id, counted) in ids.iter().zip(&the_first_of_each_chunk) {
        assert_eq!(*counted, **id == sorted()[0] || **id == sorted()[3], "{id}");
    }
}

#[test]
fn apis_per_call_zero_is_refused() {
    let llm: Arc<dyn ChatModel> = Arc::new(ScriptedLlm::new([]));
    let err = QueryWriter::new(llm, None, settings(0)).err().unwrap();
    assert!(err.to_string().contains("apis_per_call"), "{err}");
}

#[test]
fn a_stored_setting_without_apis_per_call_reads_as_one() {
    let read: QueryWriterSettings = serde_json::from_value(json!({"count": 3})).unwrap();
    assert_eq!(read.apis_per_call, 1, "old runs' settings resume per API");
    let value: Value = serde_json::to_value(settings(4)).unwrap();
    assert_eq!(value["apis_per_call"], 4);
}

#[tokio::test]
async fn a_failed_chunk_write_fails_only_the_api_that_made_it_and_a_resume_retries_it() {
    let catalog = Mutex::new(store());
    let apis = sorted();
    let chunk = &apis[..3];
    let tools = planned(&catalog.lock().unwrap(), chunk);
    let refine = RefineStore::in_memory().unwrap();
    let run = new_run(&refine, chunk);
    let v = views();
    let reply = json!({"1": v[0], "2": v[1], "3": v[2]}).to_string();
    let flaky = ScriptedLlm::new([Reply::status(400, "bad request"), Reply::text(&reply)]);
    let report = run_chunks3(&flaky, &catalog, &refine, run, &tools, 3).await;
    flaky.assert_finished();
    assert_eq!(report.failed.len(), 1, "{:?}", report.failed);
    assert!(
        report.failed[0].1.contains("bad request"),
        "{:?}",
        report.failed
    );
    assert_eq!(report.apis.len(), 2, "the siblings wrote the chunk again");
    let failed = report.failed[0].0.clone();
    assert!(refine.rounds(run, &failed).unwrap().is_empty());

    let retry = ScriptedLlm::new([Reply::text(reply)]);
    let report = run_chunks3(&retry, &catalog, &refine, run, &tools, 3).await;
    retry.assert_finished();
    assert_eq!(report.end, RunEnd::Finished);
    assert_eq!((report.already_done, report.apis.len()), (2, 1));
    assert_eq!(report.apis[0].0, failed);
    let store = catalog.into_inner().unwrap();
    for (api, own) in chunk.iter().zip(views()) {
        assert_eq!(queries_of(&store, api), own, "{api}");
    }
}
