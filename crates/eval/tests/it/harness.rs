//! The harness end to end: ReAct over 5 RestBench TMDB queries with a scripted LLM (one script
//! per query, so concurrency does not matter) and the simulated TMDB API; stored traces; a
//! replay from the LLM cache with no model; resume after a stop and after an LLM failure.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use serde_json::json;
use toolsmith_catalog::export::function_name;
use toolsmith_catalog::{ApiId, DocSelector, Scope};
use toolsmith_eval::{
    BenchObserver, BenchSpec, BenchStore, Benchmark, CalledApi, ErrorKind, Harness, QueryScores,
    Quiet, ResolvedQuery, SolverKind,
};
use toolsmith_exec::{ApiBook, Provenance, Simulator, Validated};
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_llm::{CacheDb, CacheMode, CachedChat, ChatModel, ChatRequest, ChatResponse};
use toolsmith_solve::{
    AgentSettings, Finish, React, ReactSettings, Runtime, Solver, TRACE_VERSION, Tracer,
};

/// Answers each request from the script of its query; counts every call; fails every call
/// after the first `fail_after` when set (an LLM endpoint going down mid-run).
pub(crate) struct ByQuery {
    scripts: HashMap<String, ScriptedLlm>,
    calls: AtomicUsize,
    fail_after: Option<usize>,
}

impl ByQuery {
    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
    fn calls_for(&self, query: &str) -> usize {
        self.scripts[query].requests().len()
    }
}

#[async_trait]
impl ChatModel for ByQuery {
    async fn chat(&self, req: &ChatRequest) -> toolsmith_llm::Result<ChatResponse> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if self.fail_after.is_some_and(|limit| n > limit) {
            return Err(toolsmith_llm::Error::Status {
                status: 503,
                url: "scripted://down".into(),
                message: "the endpoint went down".into(),
                retry_after: None,
            });
        }
        let query = req.query.as_deref().unwrap_or_default();
        match self.scripts.get(query) {
            Some(script) => script.chat(req).await,
            None => panic!("no script for query {query:?}"),
        }
    }
    fn model_name(&self) -> &str {
        "scripted"
    }
}

/// A model that must never be asked (replays run without one).
struct NoLlm;

#[async_trait]
impl ChatModel for NoLlm {
    async fn chat(&self, _req: &ChatRequest) -> toolsmith_llm::Result<ChatResponse> {
        panic!("the replay asked the LLM")
    }
    fn model_name(&self) -> &str {
        "scripted"
    }
}

pub(crate) struct Tmdb {
    pub(crate) book: Arc<ApiBook>,
    pub(crate) queries: Vec<ResolvedQuery>,
}

/// The TMDB catalog and the first 5 RestGPT queries, resolved.
pub(crate) fn tmdb() -> Tmdb {
    let store = toolsmith_catalog::testing::tmdb_store();
    let dataset = Benchmark::RestbenchTmdb
        .load(&toolsmith_catalog::testing::data_dir())
        .unwrap();
    let resolution = dataset.resolve(&store).unwrap();
    let catalog = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    Tmdb {
        book: Arc::new(ApiBook::from_catalog(&catalog)),
        queries: resolution.queries.into_iter().take(5).collect(),
    }
}

fn call(api: &ApiId, args: serde_json::Value) -> Reply {
    Reply::tool_call(function_name(api), args.to_string())
}

fn answer(text: &str) -> Reply {
    Reply::tool_call(
        "Finish",
        json!({"return_type": "give_answer", "final_answer": text}).to_string(),
    )
}

/// One script per query: queries 0, 1 and 4 follow their gold path; 2 calls its gold APIs in
/// the wrong order (path set, no CP); 3 stops after the first gold API (neither).
/// LLM calls: 3 + 3 + 3 + 2 + 3 = 14.
pub(crate) fn model(queries: &[ResolvedQuery], fail_after: Option<usize>) -> ByQuery {
    let id_arg = [
        "person_id",
        "movie_id",
        "movie_id",
        "collection_id",
        "company_id",
    ];
    let terms = [
        "Sofia Coppola",
        "The Dark Knight",
        "",
        "Star Wars",
        "Walt Disney",
    ];
    let mut scripts = HashMap::new();
    for (i, q) in queries.iter().enumerate() {
        let [first, second] = q.gold.as_slice() else {
            panic!("query {} has a gold path of {} APIs", q.id, q.gold.len())
        };
        let first_args = if terms[i].is_empty() {
            json!({})
        } else {
            json!({"query": terms[i]})
        };
        let second_args = json!({ id_arg[i]: 11 });
        let replies = match i {
            2 => vec![
                call(second, second_args),
                call(first, first_args),
                answer("Frank Darabont"),
            ],
            3 => vec![call(first, first_args), answer("no image found")],
            _ => vec![
                call(first, first_args),
                call(second, second_args),
                answer("done"),
            ],
        };
        scripts.insert(q.text.clone(), ScriptedLlm::new(replies));
    }
    ByQuery {
        scripts,
        calls: AtomicUsize::new(0),
        fail_after,
    }
}

pub(crate) fn harness(book: &Arc<ApiBook>, llm: Arc<dyn ChatModel>) -> Harness {
    harness_with(book, llm, None)
}

/// [`harness`], with a retriever for `retrieve:K` and `search_tools`.
fn harness_with(
    book: &Arc<ApiBook>,
    llm: Arc<dyn ChatModel>,
    retriever: Option<Arc<dyn toolsmith_retrieve::Retriever>>,
) -> Harness {
    let simulator = Validated::new(
        Simulator::new(Arc::clone(book)),
        Arc::clone(book),
        Provenance::Simulated,
    );
    let runtime = Runtime {
        llm,
        executor: Arc::new(simulator),
        retriever,
        book: Arc::clone(book),
        settings: AgentSettings::default(),
        tracer: Tracer::new(),
        jq: None,
    };
    Harness::new(runtime, |rt: Runtime| {
        Box::new(React::new(rt, ReactSettings::PAPER)) as Box<dyn Solver>
    })
}

pub(crate) fn spec(limit: Option<usize>) -> BenchSpec {
    let mut spec = BenchSpec::new(&Benchmark::RestbenchTmdb, SolverKind::React);
    spec.limit = limit;
    spec.concurrency = 3;
    spec
}

/// Records the observer's events.
#[derive(Default)]
struct Events(Mutex<Vec<String>>);

impl BenchObserver for Events {
    fn run_started(&self, total: usize, done: usize) {
        self.0.lock().unwrap().push(format!("start {total} {done}"));
    }
    fn query_finished(&self, query_id: &str, scores: &QueryScores) {
        self.0
            .lock()
            .unwrap()
            .push(format!("{query_id} cp={}", scores.correct_path));
    }
}

fn without_time(mut scores: Vec<(String, QueryScores)>) -> Vec<(String, QueryScores)> {
    scores.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, s) in &mut scores {
        s.wall_ms = 0;
    }
    scores
}

#[tokio::test]
async fn react_on_five_tmdb_queries_scores_stores_and_replays() {
    let tmdb = tmdb();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.db");
    let llm = Arc::new(model(&tmdb.queries, None));
    let cached: Arc<dyn ChatModel> = Arc::new(CachedChat::new(
        Arc::clone(&llm),
        CacheDb::open(&cache).unwrap(),
        CacheMode::ReadWrite,
    ));
    let store = BenchStore::open(&dir.path().join("toolsmith.db")).unwrap();
    let spec = spec(None);
    let run = store.create_run(&spec).unwrap();
    let events = Events::default();
    let summary = harness(&tmdb.book, cached)
        .run(&store, run, &spec, &tmdb.queries, &events)
        .await
        .unwrap();

    assert_eq!(summary.queries, 5);
    assert!((summary.cp - 60.0).abs() < 1e-9, "CP% {}", summary.cp);
    assert!((summary.path_set - 80.0).abs() < 1e-9);
    assert!((summary.success - 80.0).abs() < 1e-9);
    assert!(
        (summary.coverage - 100.0).abs() < 1e-9,
        "all 54 APIs offered"
    );
    assert_eq!(summary.llm_calls, 14);
    assert_eq!(llm.calls(), 14);
    assert_eq!(summary.delta_solution_length, Some(0.0));
    assert_eq!(
        summary.errors.get(&ErrorKind::IncompleteInvocation),
        Some(&1)
    );
    let events = events.0.lock().unwrap().clone();
    assert_eq!(events[0], "start 5 0");
    assert_eq!(events.len(), 6);
    assert_eq!(events.iter().filter(|e| e.ends_with("cp=true")).count(), 3);
    assert!(store.run(run).unwrap().finished_ms.is_some());

    // The stored trace is the typed, versioned one, and the record the metrics read.
    let q0 = &tmdb.queries[0];
    let stored = store.result(run, &q0.id).unwrap().unwrap();
    assert_eq!(stored.run.finish, Finish::Answered);
    assert_eq!(stored.run.api_calls(), q0.gold);
    let called: Vec<&CalledApi> = stored.record.calls.iter().map(|c| &c.api).collect();
    assert_eq!(
        called,
        [
            &CalledApi::Known(q0.gold[0].clone()),
            &CalledApi::Known(q0.gold[1].clone())
        ]
    );
    assert_eq!(stored.offered.len(), 54);
    let trace = serde_json::to_value(&stored.run.trace).unwrap();
    assert!(
        trace
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["v"] == TRACE_VERSION)
    );
    let q3 = store.result(run, &tmdb.queries[3].id).unwrap().unwrap();
    assert!(!q3.scores.correct_path && !q3.scores.success);
    assert_eq!(q3.scores.errors, [ErrorKind::IncompleteInvocation]);

    // A replay from the cache, with no LLM: the same scores.
    let replayed: Arc<dyn ChatModel> = Arc::new(CachedChat::new(
        NoLlm,
        CacheDb::open(&cache).unwrap(),
        CacheMode::Replay,
    ));
    let again = store.create_run(&spec).unwrap();
    let replay_summary = harness(&tmdb.book, replayed)
        .run(&store, again, &spec, &tmdb.queries, &Quiet)
        .await
        .unwrap();
    assert_eq!(
        without_time(store.scores(again).unwrap()),
        without_time(store.scores(run).unwrap())
    );
    assert_eq!(replay_summary.cp, summary.cp);
    assert_eq!(replay_summary.tokens, summary.tokens);
}

#[tokio::test]
async fn a_resumed_run_redoes_nothing_finished() {
    let tmdb = tmdb();
    let store = BenchStore::in_memory().unwrap();

    // Stopped by a limit after 2 queries.
    let first = Arc::new(model(&tmdb.queries, None));
    let stopped = spec(Some(2));
    let run = store.create_run(&stopped).unwrap();
    let partial = harness(&tmdb.book, first.clone())
        .run(&store, run, &stopped, &tmdb.queries, &Quiet)
        .await
        .unwrap();
    assert_eq!(partial.queries, 2);
    assert_eq!(first.calls(), 6);
    assert!(
        store.run(run).unwrap().finished_ms.is_some(),
        "every selected query ran"
    );

    // Resumed over every query: only the other 3 run (3 + 2 + 3 LLM calls).
    let second = Arc::new(model(&tmdb.queries, None));
    let events = Events::default();
    let full = spec(None);
    let summary = harness(&tmdb.book, second.clone())
        .run(&store, run, &full, &tmdb.queries, &events)
        .await
        .unwrap();
    assert_eq!(second.calls(), 8);
    assert_eq!(second.calls_for(&tmdb.queries[0].text), 0);
    assert_eq!(second.calls_for(&tmdb.queries[1].text), 0);
    assert_eq!(events.0.lock().unwrap()[0], "start 5 2");
    assert_eq!(summary.queries, 5);
    assert!((summary.cp - 60.0).abs() < 1e-9);
    assert!(store.run(run).unwrap().finished_ms.is_some());
}

#[tokio::test]
async fn queries_the_llm_failed_on_are_redone_and_only_those() {
    let tmdb = tmdb();
    let store = BenchStore::in_memory().unwrap();
    let mut serial = spec(None);
    serial.concurrency = 1;

    // The endpoint fails from its 6th call: query 0 (3 calls) finishes, query 1 breaks on its
    // third call, 2-4 on their first.
    let flaky = Arc::new(model(&tmdb.queries, Some(5)));
    let run = store.create_run(&serial).unwrap();
    let broken = harness(&tmdb.book, flaky.clone())
        .run(&store, run, &serial, &tmdb.queries, &Quiet)
        .await
        .unwrap();
    assert_eq!(broken.queries, 5, "failed queries are stored too");
    let errors = store
        .scores(run)
        .unwrap()
        .iter()
        .filter(|(_, s)| s.finish == Finish::Error)
        .count();
    assert_eq!(errors, 4);
    assert!(store.run(run).unwrap().finished_ms.is_none());

    let healthy = Arc::new(model(&tmdb.queries, None));
    let summary = harness(&tmdb.book, healthy.clone())
        .run(&store, run, &serial, &tmdb.queries, &Quiet)
        .await
        .unwrap();
    assert_eq!(
        healthy.calls_for(&tmdb.queries[0].text),
        0,
        "query 0 is not redone"
    );
    assert_eq!(healthy.calls(), 11);
    assert_eq!(summary.queries, 5);
    assert!((summary.cp - 60.0).abs() < 1e-9);
    assert!(store.run(run).unwrap().finished_ms.is_some());
}

/// Finds only the second gold API of a query for its text, and only the first when a
/// `search_tools` query asks for a search: a retrieval that missed the lookup step.
struct MissesTheLookup {
    lookup: ApiId,
    detail: ApiId,
}

#[async_trait]
impl toolsmith_retrieve::Retriever for MissesTheLookup {
    async fn search(
        &self,
        query: &str,
        _k: usize,
        _filter: &toolsmith_retrieve::Filter,
    ) -> toolsmith_retrieve::Result<Vec<toolsmith_retrieve::Hit>> {
        let api = if query.contains("find a person") {
            self.lookup.clone()
        } else {
            self.detail.clone()
        };
        Ok(vec![toolsmith_retrieve::Hit {
            tool: api.tool().clone(),
            text: api.to_string(),
            api,
            score: 1.0,
        }])
    }
}

#[tokio::test]
async fn retrieve_with_search_offers_the_top_k_and_the_search_tool_and_counts_what_was_found() {
    let tmdb = tmdb();
    let query = tmdb.queries[0].clone();
    let [lookup, detail] = query.gold.as_slice() else {
        panic!("query 0 has a gold path of two APIs")
    };
    let script = ScriptedLlm::new(vec![
        Reply::tool_call(
            "search_tools",
            json!({"query": "find a person by name"}).to_string(),
        ),
        call(lookup, json!({"query": "Sofia Coppola"})),
        call(detail, json!({"person_id": 11})),
        answer("done"),
    ]);
    let llm = Arc::new(ByQuery {
        scripts: HashMap::from([(query.text.clone(), script)]),
        calls: AtomicUsize::new(0),
        fail_after: None,
    });
    let harness = harness_with(
        &tmdb.book,
        Arc::clone(&llm) as Arc<dyn ChatModel>,
        Some(Arc::new(MissesTheLookup {
            lookup: lookup.clone(),
            detail: detail.clone(),
        })),
    );
    let dir = tempfile::tempdir().unwrap();
    let store = BenchStore::open(&dir.path().join("toolsmith.db")).unwrap();
    let mut spec = spec(None);
    spec.tools = "retrieve:3+search".parse().unwrap();
    let run = store.create_run(&spec).unwrap();
    harness
        .run(&store, run, &spec, std::slice::from_ref(&query), &Quiet)
        .await
        .unwrap();

    // The first request offered the retrieved API and the search tool, not the lookup.
    let first = &llm.scripts[&query.text].requests()[0];
    let names: Vec<&str> = first.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"search_tools"), "{names:?}");
    assert!(names.contains(&function_name(detail).as_str()), "{names:?}");
    assert!(
        !names.contains(&function_name(lookup).as_str()),
        "{names:?}"
    );
    // What the search found ran, and counts as offered.
    let stored = store.result(run, &query.id).unwrap().unwrap();
    assert_eq!(stored.run.api_calls(), query.gold);
    assert!(stored.scores.correct_path && stored.scores.offered_covers);
    assert_eq!(stored.offered, [detail.clone(), lookup.clone()]);
}
