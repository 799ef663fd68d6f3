//! The trace format: typed fields under stable names, a version on every
//! event, version 0 (the untyped format) still readable, and the runtime
//! recording each kind of tool call with its typed outcome.

use std::sync::Arc;

use serde_json::json;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_exec::{FailureKind, Provenance};
use toolsmith_llm::testing::ScriptedLlm;
use toolsmith_llm::{Role, ToolCall};
use toolsmith_solve::{
    BacktrackReason, CallCounts, CallOutcome, Finish, RunLimit, RunStore, Stamped, TRACE_VERSION,
    TraceEvent, read_jsonl,
};

use crate::support::*;

fn at(at_ms: u64, event: TraceEvent) -> Stamped {
    Stamped { at_ms, event }
}

fn tool_call(
    api: Option<&str>,
    outcome: CallOutcome,
    provenance: Option<Provenance>,
) -> TraceEvent {
    TraceEvent::ToolCall {
        call_id: "c1".to_owned(),
        function: SEARCH.to_owned(),
        api: api.map(|a| a.parse().unwrap()),
        arguments: json!({"query": "Dune"}),
        outcome,
        provenance,
        observation: "{}".to_owned(),
    }
}

/// Every event with the exact line version 1 writes for it.
fn v1_events() -> Vec<(Stamped, &'static str)> {
    vec![
        (
            at(
                1,
                TraceEvent::Started {
                    solver: "react".to_owned(),
                    query: "Who directed Dune?".to_owned(),
                    tools: vec![SEARCH.to_owned(), "Finish".to_owned()],
                },
            ),
            r#"{"v":1,"at_ms":1,"event":"started","solver":"react","query":"Who directed Dune?","tools":["search_movie_for_movies","Finish"]}"#,
        ),
        (
            at(
                2,
                TraceEvent::LlmCall {
                    role: Role::new("grounding"),
                    messages: 2,
                    last_message: "q".to_owned(),
                    reply: String::new(),
                    tool_calls: vec!["search_movie_for_movies({})".to_owned()],
                    prompt_tokens: 10,
                    completion_tokens: 3,
                    latency_ms: 7,
                    cache_hit: false,
                },
            ),
            r#"{"v":1,"at_ms":2,"event":"llm_call","role":"grounding","messages":2,"last_message":"q","reply":"","tool_calls":["search_movie_for_movies({})"],"prompt_tokens":10,"completion_tokens":3,"latency_ms":7,"cache_hit":false}"#,
        ),
        (
            at(
                3,
                tool_call(
                    Some("movies/search_movie"),
                    CallOutcome::Ok,
                    Some(Provenance::Live),
                ),
            ),
            r#"{"v":1,"at_ms":3,"event":"tool_call","call_id":"c1","function":"search_movie_for_movies","api":"movies/search_movie","arguments":{"query":"Dune"},"outcome":"ok","provenance":"live","observation":"{}"}"#,
        ),
        (
            at(
                4,
                tool_call(
                    Some("movies/search_movie"),
                    CallOutcome::Failed(FailureKind::NotFound),
                    Some(Provenance::Replayed),
                ),
            ),
            r#"{"v":1,"at_ms":4,"event":"tool_call","call_id":"c1","function":"search_movie_for_movies","api":"movies/search_movie","arguments":{"query":"Dune"},"outcome":"not_found","provenance":"replayed","observation":"{}"}"#,
        ),
        (
            at(5, tool_call(None, CallOutcome::UnknownTool, None)),
            r#"{"v":1,"at_ms":5,"event":"tool_call","call_id":"c1","function":"search_movie_for_movies","api":null,"arguments":{"query":"Dune"},"outcome":"unknown_tool","provenance":null,"observation":"{}"}"#,
        ),
        (
            at(
                6,
                tool_call(Some("movies/search_movie"), CallOutcome::Rejected, None),
            ),
            r#"{"v":1,"at_ms":6,"event":"tool_call","call_id":"c1","function":"search_movie_for_movies","api":"movies/search_movie","arguments":{"query":"Dune"},"outcome":"rejected","provenance":null,"observation":"{}"}"#,
        ),
        (
            at(
                7,
                tool_call(Some("movies/search_movie"), CallOutcome::NotRun, None),
            ),
            r#"{"v":1,"at_ms":7,"event":"tool_call","call_id":"c1","function":"search_movie_for_movies","api":"movies/search_movie","arguments":{"query":"Dune"},"outcome":"not_run","provenance":null,"observation":"{}"}"#,
        ),
        (
            at(
                8,
                TraceEvent::Retry {
                    agent: toolsmith_solve::ConAgentsRole::Execution,
                    attempt: 1,
                    error: "bad".to_owned(),
                },
            ),
            r#"{"v":1,"at_ms":8,"event":"retry","agent":"execution","attempt":1,"error":"bad"}"#,
        ),
        (
            at(
                9,
                TraceEvent::Backtrack {
                    depth: 3,
                    reason: BacktrackReason::DepthLimit,
                },
            ),
            r#"{"v":1,"at_ms":9,"event":"backtrack","depth":3,"reason":"depth_limit"}"#,
        ),
        (
            at(
                10,
                TraceEvent::Finished {
                    finish: Finish::BudgetExhausted,
                    answer: None,
                    detail: Some("out of tokens".to_owned()),
                    limit: None,
                    calls: None,
                    root_branches: None,
                },
            ),
            // A version 1 line written before `limit`, `calls` and `root_branches` existed.
            r#"{"v":1,"at_ms":10,"event":"finished","finish":"budget_exhausted","answer":null,"detail":"out of tokens"}"#,
        ),
        (
            at(
                11,
                TraceEvent::Finished {
                    finish: Finish::BudgetExhausted,
                    answer: None,
                    detail: Some("searched again".to_owned()),
                    limit: Some(RunLimit::Searches),
                    calls: Some(CallCounts {
                        executed: 2,
                        rejected: 6,
                        unknown_tool: 1,
                        not_run: 0,
                        searches: 5,
                    }),
                    root_branches: Some(2),
                },
            ),
            r#"{"v":1,"at_ms":11,"event":"finished","finish":"budget_exhausted","answer":null,"detail":"searched again","limit":"searches","calls":{"executed":2,"rejected":6,"unknown_tool":1,"not_run":0,"searches":5},"root_branches":2}"#,
        ),
    ]
}

#[test]
fn every_event_round_trips_under_its_stable_names() {
    assert_eq!(TRACE_VERSION, 1);
    for (event, line) in v1_events() {
        assert_eq!(serde_json::to_string(&event).unwrap(), line);
        assert_eq!(serde_json::from_str::<Stamped>(line).unwrap(), event);
    }
}

#[test]
fn a_v1_jsonl_trace_reads_back() {
    let (events, lines): (Vec<_>, Vec<_>) = v1_events().into_iter().unzip();
    let jsonl = format!("{}\n\n", lines.join("\n"));
    assert_eq!(read_jsonl(jsonl.as_bytes()).unwrap(), events);
}

/// A trace as the untyped format (version 0, no `"v"`) wrote it.
const V0_TRACE: &str = r#"{"at_ms":1700000000000,"event":"started","solver":"dfsdt","query":"Who directed Dune?","tools":["search_movie_for_movies","get_movie_for_movies","Finish"]}
{"at_ms":1700000000001,"event":"llm_call","role":"agent","messages":2,"last_message":"Who directed Dune?","reply":"","tool_calls":["made_up({})","search_movie_for_movies({not json)"],"prompt_tokens":12,"completion_tokens":4,"latency_ms":3,"cache_hit":true}
{"at_ms":1700000000002,"event":"tool_call","call_id":"c1","function":"made_up","api":null,"arguments":null,"outcome":"unknown_tool","provenance":"none","observation":"{\"error\":\"No such function name: made_up. Use only the functions offered.\",\"response\":\"\"}"}
{"at_ms":1700000000003,"event":"tool_call","call_id":"c2","function":"search_movie_for_movies","api":"movies/search_movie","arguments":"{not json","outcome":"bad_parameters","provenance":"none","observation":"{\"error\":\"The arguments are not valid JSON\",\"response\":\"\"}"}
{"at_ms":1700000000004,"event":"tool_call","call_id":"c3","function":"get_movie_for_movies","api":"movies/get_movie","arguments":{"movie_id":1},"outcome":"not_found","provenance":"simulated","observation":"{\"error\":\"not_found: no movie 1\",\"response\":\"\"}"}
{"at_ms":1700000000005,"event":"tool_call","call_id":"c4","function":"search_movie_for_movies","api":"movies/search_movie","arguments":{"query":"Dune"},"outcome":"ok","provenance":"replayed","observation":"{\"error\":\"\",\"response\":{\"results\":[]}}"}
{"at_ms":1700000000006,"event":"retry","agent":"execution","attempt":1,"error":"not JSON"}
{"at_ms":1700000000007,"event":"backtrack","depth":3,"reason":"give_up"}
{"at_ms":1700000000008,"event":"finished","finish":"answered","answer":"Denis Villeneuve","detail":null}
"#;

#[test]
fn calls_of_a_trace_written_before_they_were_counted_are_counted_from_its_events() {
    let events = read_jsonl(V0_TRACE.as_bytes()).unwrap();
    let run = toolsmith_solve::Run {
        solver: "dfsdt".into(),
        query: "Who directed Dune?".into(),
        finish: Finish::Answered,
        answer: Some("Denis Villeneuve".into()),
        detail: None,
        trace: events,
    };
    // An unknown tool, a call refused for its arguments, a not-found and a success.
    assert_eq!(
        run.call_counts(),
        CallCounts {
            executed: 2,
            rejected: 1,
            unknown_tool: 1,
            not_run: 0,
            searches: 0,
        }
    );
    assert_eq!(run.limit(), None);
    assert_eq!(run.root_branches(), None);
}

#[test]
fn a_v0_trace_reads_as_typed_events() {
    let events = read_jsonl(V0_TRACE.as_bytes()).unwrap();
    assert_eq!(events.len(), 9);
    assert_eq!(events[0].at_ms, 1_700_000_000_000);
    assert!(
        matches!(&events[1].event, TraceEvent::LlmCall { role, cache_hit: true, .. } if *role == Role::agent())
    );
    let calls: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.event {
            TraceEvent::ToolCall {
                api,
                outcome,
                provenance,
                ..
            } => Some((api.clone(), *outcome, *provenance)),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            (None, CallOutcome::UnknownTool, None),
            (
                Some(search_id()),
                CallOutcome::Failed(FailureKind::BadParameters),
                None
            ),
            (
                Some(details_id()),
                CallOutcome::Failed(FailureKind::NotFound),
                Some(Provenance::Simulated)
            ),
            (
                Some(search_id()),
                CallOutcome::Ok,
                Some(Provenance::Replayed)
            ),
        ]
    );
    assert_eq!(
        events[7].event,
        TraceEvent::Backtrack {
            depth: 3,
            reason: BacktrackReason::GiveUp
        }
    );
    assert_eq!(
        events[8].event,
        TraceEvent::Finished {
            finish: Finish::Answered,
            answer: Some("Denis Villeneuve".to_owned()),
            detail: None,
            limit: None,
            calls: None,
            root_branches: None,
        }
    );
    // Read once, it is written back as version 1.
    let rewritten = serde_json::to_string(&events[8]).unwrap();
    assert!(
        rewritten.starts_with(r#"{"v":1,"at_ms":1700000000008,"event":"finished""#),
        "{rewritten}"
    );
}

#[test]
fn unreadable_traces_say_where_and_why() {
    let bad_name = V0_TRACE.replace(r#""finish":"answered""#, r#""finish":"won""#);
    let err = read_jsonl(bad_name.as_bytes()).unwrap_err().to_string();
    assert!(err.contains("line 9") && err.contains("`won`"), "{err}");
    let future = r#"{"v":2,"at_ms":1,"event":"started","solver":"x","query":"q","tools":[]}"#;
    let err = read_jsonl(future.as_bytes()).unwrap_err().to_string();
    assert!(err.contains("line 1") && err.contains("version 2"), "{err}");
}

#[test]
fn the_run_store_keeps_typed_traces() {
    let store = RunStore::in_memory().unwrap();
    let (events, _): (Vec<_>, Vec<_>) = v1_events().into_iter().unzip();
    let run = toolsmith_solve::Run {
        solver: "react".to_owned(),
        query: "Who directed Dune?".to_owned(),
        finish: Finish::BudgetExhausted,
        answer: None,
        detail: Some("out of tokens".to_owned()),
        trace: events.clone(),
    };
    let id = store.save(&run).unwrap();
    assert_eq!(store.trace(id).unwrap(), events);
}

/// The trace event of the runtime's only tool call.
fn only_tool_call(runtime: &toolsmith_solve::Runtime) -> TraceEvent {
    let mut calls: Vec<_> = runtime
        .tracer
        .events()
        .into_iter()
        .filter(|e| matches!(e.event, TraceEvent::ToolCall { .. }))
        .collect();
    assert_eq!(calls.len(), 1);
    calls.remove(0).event
}

#[tokio::test]
async fn the_runtime_records_an_unknown_tool_as_such() {
    let fx = fixture();
    let tools = Arc::new(ScriptedExecutor::new());
    let runtime = runtime(Arc::new(ScriptedLlm::new([])), tools.clone(), fx.book);
    let call = ToolCall::new("c9", "made_up_tool", "{}");
    let (answered, observation) = runtime.call_api_full(&call, &fx.toolset).await;
    assert!(answered.failed);
    assert!(observation.is_none());
    assert!(tools.calls().is_empty());
    let event = only_tool_call(&runtime);
    let TraceEvent::ToolCall {
        api,
        outcome,
        provenance,
        ..
    } = &event
    else {
        unreachable!()
    };
    assert_eq!(
        (api, *outcome, *provenance),
        (&None, CallOutcome::UnknownTool, None)
    );
    let line = serde_json::to_string(&Stamped { at_ms: 0, event }).unwrap();
    assert!(
        line.contains(r#""api":null,"arguments":null,"outcome":"unknown_tool","provenance":null"#),
        "{line}"
    );
}

#[tokio::test]
async fn arguments_that_break_the_schema_are_refused_before_the_tool() {
    let fx = fixture();
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), json!({"results": []})));
    let runtime = runtime(Arc::new(ScriptedLlm::new([])), tools.clone(), fx.book);
    // `query` is required and a string.
    let call = ToolCall::new("c1", SEARCH, r#"{"query": 42}"#);
    let (answered, observation) = runtime.call_api_full(&call, &fx.toolset).await;
    assert!(answered.failed);
    assert!(
        answered.content.contains("parameter `query`"),
        "{}",
        answered.content
    );
    assert_eq!(
        observation.unwrap().failure(),
        Some(FailureKind::BadParameters)
    );
    assert!(tools.calls().is_empty(), "the tool never saw the bad call");
    assert!(matches!(
        only_tool_call(&runtime),
        TraceEvent::ToolCall {
            outcome: CallOutcome::Failed(FailureKind::BadParameters),
            provenance: Some(Provenance::Live),
            ..
        }
    ));
}
