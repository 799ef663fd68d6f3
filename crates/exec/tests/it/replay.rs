//! Record and replay through the response cache, and the coverage counts.

use std::sync::Arc;

use serde_json::json;
use toolsmith_catalog::ApiId;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_exec::{
    ArithOp, Error, Executor, FailureKind, Mode, ModeExecutor, NativeTools, Observation,
    Provenance, ResponseCache, Simulator,
};

#[tokio::test]
async fn record_then_replay_gives_the_same_body() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("toolsmith.db");
    let tools = Arc::new(NativeTools::funcqa());
    let api = tools.api_id(ArithOp::Multiply);
    let args = json!({"input": [0.848, 0.3766]});
    let recorded = {
        let cache = Arc::new(ResponseCache::open(&db).unwrap());
        let recorder = ModeExecutor::new(Mode::Record, cache).live(tools.clone());
        recorder.call(&api, &args).await.unwrap()
    };
    assert_eq!(recorded.provenance, Provenance::Live);
    // A new process: reopen the file.
    let cache = Arc::new(ResponseCache::open(&db).unwrap());
    let replay = ModeExecutor::new(Mode::Replay, Arc::clone(&cache));
    let replayed = replay
        .call(&api, &json!({"input": [0.848, 0.3766]}))
        .await
        .unwrap();
    assert_eq!(replayed.provenance, Provenance::Replayed);
    assert_eq!(replayed.body, recorded.body);
    assert_eq!(replayed.outcome, recorded.outcome);
    // A miss names the API and the arguments.
    let miss = replay
        .call(&api, &json!({"input": [1, 2]}))
        .await
        .unwrap_err();
    assert!(matches!(miss, Error::ReplayMiss { .. }));
    let text = miss.to_string();
    assert!(
        text.contains("funcqa/multiply") && text.contains("[1,2]"),
        "{text}"
    );
    let coverage = cache.coverage().unwrap();
    assert_eq!(coverage.replayed, 1);
    assert_eq!(coverage.recorded, 1);
}

#[tokio::test]
async fn key_order_of_arguments_does_not_matter() {
    let api: ApiId = "tmdb/get_search_movie".parse().unwrap();
    let live = Arc::new(ScriptedExecutor::new().respond(api.clone(), json!({"results": []})));
    let cache = Arc::new(ResponseCache::in_memory().unwrap());
    let recorder = ModeExecutor::new(Mode::Record, Arc::clone(&cache)).live(live);
    recorder
        .call(&api, &json!({"query": "Dune", "page": 1}))
        .await
        .unwrap();
    let replay = ModeExecutor::new(Mode::Replay, cache);
    let obs = replay
        .call(&api, &json!({"page": 1, "query": "Dune"}))
        .await
        .unwrap();
    assert_eq!(obs.body.json(), Some(&json!({"results": []})));
}

#[tokio::test]
async fn transient_failures_are_not_recorded() {
    let api: ApiId = "t/flaky".parse().unwrap();
    let args = json!({});
    let failing = Observation::tool_error(FailureKind::RateLimited, "slow down", Provenance::Live);
    let live = Arc::new(ScriptedExecutor::new().respond_to(api.clone(), &args, failing));
    let cache = Arc::new(ResponseCache::in_memory().unwrap());
    let recorder = ModeExecutor::new(Mode::Record, Arc::clone(&cache)).live(live);
    let obs = recorder.call(&api, &args).await.unwrap();
    assert_eq!(obs.failure(), Some(FailureKind::RateLimited));
    assert!(cache.get(&api, &args).unwrap().is_none());
}

#[tokio::test]
async fn replay_or_simulate_falls_back_and_coverage_counts_each_source() {
    let book = crate::tmdb();
    let sim = Arc::new(Simulator::new(book));
    let cache = Arc::new(ResponseCache::in_memory().unwrap());
    let search: ApiId = "tmdb/get_search_movie".parse().unwrap();
    let recorded = json!({"page": 1, "results": [], "total_results": 0, "total_pages": 0});
    let live = Arc::new(ScriptedExecutor::new().respond(search.clone(), recorded.clone()));
    ModeExecutor::new(Mode::Record, Arc::clone(&cache))
        .live(live)
        .call(&search, &json!({"query": "Alien"}))
        .await
        .unwrap();
    let exec = ModeExecutor::new(Mode::ReplayOrSimulate, Arc::clone(&cache)).simulator(sim);
    let hit = exec
        .call(&search, &json!({"query": "Alien"}))
        .await
        .unwrap();
    assert_eq!(hit.provenance, Provenance::Replayed);
    assert_eq!(hit.body.json(), Some(&recorded));
    let miss = exec.call(&search, &json!({"query": "Heat"})).await.unwrap();
    assert_eq!(miss.provenance, Provenance::Simulated);
    let coverage = cache.coverage().unwrap();
    assert_eq!(
        (coverage.live, coverage.replayed, coverage.simulated),
        (1, 1, 1)
    );
}

#[tokio::test]
async fn modes_without_their_backend_say_so() {
    let cache = Arc::new(ResponseCache::in_memory().unwrap());
    let api: ApiId = "t/x".parse().unwrap();
    let err = ModeExecutor::new(Mode::Live, cache)
        .call(&api, &json!({}))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::MissingBackend {
                backend: "live",
                ..
            }
        ),
        "{err}"
    );
    for mode in Mode::ALL {
        assert_eq!(mode.as_str().parse::<Mode>().unwrap(), mode);
    }
}
