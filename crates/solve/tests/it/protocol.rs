//! toolsmith's protocol against the paper's: calls counted apart, the search budget outside
//! the node count, and DFSDT retrying the root after a give-up.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::json;
use toolsmith_catalog::ApiId;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_retrieve::{Filter, Hit, Retriever};
use toolsmith_solve::{
    AgentSettings, CallCounts, Dfsdt, DfsdtSettings, Finish, React, ReactSettings, Run, RunLimit,
    RunStore, Solver, Toolset, TraceEvent,
};

use crate::support::*;

/// Finds the API whose name the query mentions (`search` or `movie`), else both.
struct ByName;

#[async_trait]
impl Retriever for ByName {
    async fn search(
        &self,
        query: &str,
        _k: usize,
        _filter: &Filter,
    ) -> toolsmith_retrieve::Result<Vec<Hit>> {
        let ids: Vec<ApiId> = if query.contains("search") {
            vec![search_id()]
        } else if query.contains("details") {
            vec![details_id()]
        } else {
            vec![search_id(), details_id()]
        };
        Ok(ids
            .into_iter()
            .map(|api| Hit {
                tool: api.tool().clone(),
                text: api.to_string(),
                api,
                score: 1.0,
            })
            .collect())
    }
}

fn finished_event(run: &Run) -> TraceEvent {
    run.trace
        .iter()
        .rev()
        .find(|e| matches!(e.event, TraceEvent::Finished { .. }))
        .map(|e| e.event.clone())
        .unwrap()
}

#[tokio::test]
async fn rejected_unknown_and_executed_calls_are_counted_apart_and_stored() {
    let fx = fixture();
    // Six calls with broken JSON, one of a made-up tool, one that runs; then the answer.
    let mut calls: Vec<(&str, String)> = (0..6).map(|_| (SEARCH, "{\"query\": ".into())).collect();
    calls.push(("made_up_tool", "{}".into()));
    calls.push((SEARCH, args(json!({"query": "Dune"}))));
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_calls(calls),
        Reply::tool_call("Finish", answer("Dune (2021)")),
    ]));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), json!({"results": []})));
    let run = React::new(runtime(llm, tools.clone(), fx.book), ReactSettings::PAPER)
        .solve("Find Dune", fx.toolset)
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::Answered);
    assert_eq!(tools.calls().len(), 1, "only one call reached the tool");
    let expected = CallCounts {
        executed: 1,
        rejected: 6,
        unknown_tool: 1,
        not_run: 0,
        searches: 0,
    };
    assert_eq!(run.call_counts(), expected);
    assert_eq!(
        expected.to_string(),
        "1 API call executed, 6 rejected, 1 unknown tool"
    );
    // The trace's last event carries the counts.
    assert!(matches!(
        finished_event(&run),
        TraceEvent::Finished { calls: Some(c), limit: None, root_branches: None, .. } if c == expected
    ));
    // And the stored run has them as columns.
    let store = RunStore::in_memory().unwrap();
    let id = store.save(&run).unwrap();
    assert_eq!(store.call_counts(id).unwrap(), expected);
}

/// A movie query that needs three searches and three calls before its answer.
fn three_searches_three_calls() -> Arc<ScriptedLlm> {
    let search = |q: &str| Reply::tool_call("search_tools", args(json!({"query": q})));
    Arc::new(ScriptedLlm::new([
        search("search movies"),
        Reply::tool_call(SEARCH, args(json!({"query": "Dune"}))),
        search("movie details"),
        Reply::tool_call(DETAILS, args(json!({"movie_id": 1}))),
        search("anything"),
        Reply::tool_call(DETAILS, args(json!({"movie_id": 2}))),
        Reply::tool_call("Finish", answer("Dune, 2021")),
    ]))
}

async fn search_run(llm: Arc<ScriptedLlm>, settings: AgentSettings) -> Run {
    let fx = fixture();
    let tools = Arc::new(
        ScriptedExecutor::new()
            .respond(search_id(), json!({"results": [{"id": 1}]}))
            .respond(details_id(), json!({"title": "Dune"})),
    );
    let mut rt = runtime(llm, tools, fx.book);
    rt.retriever = Some(Arc::new(ByName));
    rt.settings = settings;
    React::new(rt, ReactSettings::PAPER)
        .solve("Tell me about Dune", Toolset::default().with_search_tool())
        .await
        .unwrap()
}

#[tokio::test]
async fn searches_have_their_own_budget_outside_the_node_count() {
    // toolsmith: the three searches cost no nodes; the three calls (6 nodes) and Finish fit.
    let run = search_run(three_searches_three_calls(), AgentSettings::default()).await;
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert_eq!(run.call_counts().searches, 3);
    assert_eq!(run.call_counts().executed, 3);
    // The paper: each search costs 2 nodes like any step, so the 12 nodes are spent on the
    // six steps and the chain stops before the Finish it was about to call.
    let llm = three_searches_three_calls();
    let run = search_run(llm.clone(), AgentSettings::PAPER).await;
    assert_eq!(run.finish, Finish::StepLimit);
    assert_eq!(run.limit(), Some(RunLimit::Nodes));
    assert_eq!(run.call_counts().executed, 3);
    assert_eq!(llm.remaining(), 1, "the Finish was never asked for");
}

#[tokio::test]
async fn a_search_beyond_the_budget_ends_the_run_and_says_so() {
    let search = |q: &str| Reply::tool_call("search_tools", args(json!({"query": q})));
    let llm = Arc::new(ScriptedLlm::new([
        search("one"),
        search("two"),
        search("three"),
        search("four"),
        search("five"),
        Reply::tool_call("Finish", answer("never reached")),
    ]));
    let run = search_run(llm.clone(), AgentSettings::default()).await;
    assert_eq!(run.finish, Finish::BudgetExhausted);
    assert_eq!(run.limit(), Some(RunLimit::Searches));
    assert_eq!(run.call_counts().searches, 5);
    let requests = llm.requests();
    assert_eq!(requests.len(), 5);
    // The fourth search's result says it was the last one.
    assert!(requests[4].contains("last search of this task"));
    // Paper mode has no search budget: the node limit ends it (6 steps of 2 nodes).
    let llm = Arc::new(ScriptedLlm::new((0..8).map(|i| search(&format!("s{i}")))));
    let run = search_run(llm, AgentSettings::PAPER).await;
    assert_eq!(
        (run.finish, run.limit(), run.call_counts().searches),
        (Finish::StepLimit, Some(RunLimit::Nodes), 6)
    );
}

#[tokio::test]
async fn with_only_meta_tools_the_prompt_points_at_search_tools() {
    let llm = Arc::new(ScriptedLlm::new([Reply::tool_call(
        "Finish",
        answer("Dune"),
    )]));
    search_run(llm.clone(), AgentSettings::default()).await;
    let system = llm.requests()[0].messages[0].text().to_owned();
    assert!(!system.contains("Functions you may use:"), "{system}");
    assert!(
        system.contains("find the ones you need with search_tools"),
        "{system}"
    );
    assert!(system.contains("search 4 times"), "{system}");
    // With functions listed, they are listed and search_tools is named as the way to more.
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([Reply::tool_call(
        "Finish",
        answer("Dune"),
    )]));
    React::new(
        runtime(llm.clone(), Arc::new(ScriptedExecutor::new()), fx.book),
        ReactSettings::PAPER,
    )
    .solve("q", fx.toolset.with_search_tool())
    .await
    .unwrap();
    let system = llm.requests()[0].messages[0].text().to_owned();
    assert!(
        system.contains("Functions you may use:\n- search_movie_for_movies"),
        "{system}"
    );
    assert!(system.contains("find more with search_tools"), "{system}");
}

async fn dfsdt_root(llm: Arc<ScriptedLlm>, settings: AgentSettings) -> Run {
    let fx = fixture();
    let mut rt = runtime(llm, Arc::new(ScriptedExecutor::new()), fx.book);
    rt.settings = settings;
    Dfsdt::new(rt, DfsdtSettings::PAPER)
        .solve("Find Dune", fx.toolset)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_give_up_at_the_root_ends_the_paper_search_after_one_call() {
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call("Finish", give_up("no idea")),
        Reply::tool_call("Finish", answer("Dune (2021)")),
    ]));
    let run = dfsdt_root(llm.clone(), AgentSettings::PAPER).await;
    assert_eq!(run.finish, Finish::GaveUp);
    assert_eq!(run.llm_calls(), 1);
    assert_eq!(run.root_branches(), Some(1));
}

#[tokio::test]
async fn a_give_up_at_the_root_tries_the_next_root_child_by_default() {
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call("Finish", give_up("no idea")),
        Reply::tool_call("Finish", answer("Dune (2021)")),
    ]));
    let run = dfsdt_root(llm.clone(), AgentSettings::default()).await;
    assert_eq!(
        (run.finish, run.answer.as_deref()),
        (Finish::Answered, Some("Dune (2021)"))
    );
    assert_eq!(run.root_branches(), Some(2));
    // The second root child was asked with the diversity note naming the give-up.
    let requests = llm.requests();
    assert!(requests[1].contains("not your first attempt"));
    assert!(requests[1].contains("give_up_and_restart"));
}

#[tokio::test]
async fn root_retries_stop_at_the_width() {
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call("Finish", give_up("first")),
        Reply::tool_call("Finish", give_up("second")),
        Reply::tool_call("Finish", answer("never asked")),
    ]));
    let run = dfsdt_root(llm.clone(), AgentSettings::default()).await;
    assert_eq!(run.finish, Finish::GaveUp);
    assert_eq!(run.detail.as_deref(), Some("second"));
    assert_eq!(run.root_branches(), Some(2));
    assert_eq!(llm.requests().len(), 2);
}

/// A turn with a thought and one call (three of ToolBench's nodes).
fn thought(text: &str, name: &str, arguments: serde_json::Value) -> Reply {
    Reply::ToolCalls {
        content: Some(text.to_owned()),
        calls: vec![toolsmith_llm::ToolCall::new(
            "call_0",
            name,
            args(arguments),
        )],
    }
}

/// Five calls, each after a thought, then a Finish after a thought.
fn five_calls_with_thoughts() -> Arc<ScriptedLlm> {
    Arc::new(ScriptedLlm::new([
        thought("Find the film.", SEARCH, json!({"query": "Dune"})),
        thought("Read its details.", DETAILS, json!({"movie_id": 1})),
        thought(
            "Find the sequel.",
            SEARCH,
            json!({"query": "Dune Part Two"}),
        ),
        thought("Read the sequel's.", DETAILS, json!({"movie_id": 2})),
        thought("Check the first again.", DETAILS, json!({"movie_id": 1})),
        Reply::ToolCalls {
            content: Some("I have both.".to_owned()),
            calls: vec![toolsmith_llm::ToolCall::new(
                "call_0",
                "Finish",
                answer("Dune (2021) and Part Two (2024)"),
            )],
        },
    ]))
}

fn movie_tools() -> Arc<ScriptedExecutor> {
    Arc::new(
        ScriptedExecutor::new()
            .respond(search_id(), json!({"results": [{"id": 1}]}))
            .respond(details_id(), json!({"title": "Dune"})),
    )
}

async fn five_call_run(solver: &str, settings: AgentSettings) -> (Run, Arc<ScriptedLlm>) {
    let fx = fixture();
    let llm = five_calls_with_thoughts();
    let mut rt = runtime(llm.clone(), movie_tools(), fx.book);
    rt.settings = settings;
    let run = match solver {
        "react" => React::new(rt, ReactSettings::PAPER)
            .solve("Dune and its sequel", fx.toolset)
            .await
            .unwrap(),
        _ => Dfsdt::new(
            rt,
            DfsdtSettings {
                width: 1,
                ..DfsdtSettings::PAPER
            },
        )
        .solve("Dune and its sequel", fx.toolset)
        .await
        .unwrap(),
    };
    (run, llm)
}

#[tokio::test]
async fn a_five_call_path_with_thoughts_finishes_in_steps_and_runs_out_of_nodes_in_the_paper() {
    for solver in ["react", "dfsdt"] {
        // toolsmith: six steps of the ten.
        let (run, _) = five_call_run(solver, AgentSettings::default()).await;
        assert_eq!(run.finish, Finish::Answered, "{solver}: {:?}", run.detail);
        assert_eq!(run.limit(), None, "{solver}");
        assert_eq!(run.call_counts().executed, 5, "{solver}");
        // The paper: three nodes a step, so the 12 nodes end the chain after four calls.
        let (run, llm) = five_call_run(solver, AgentSettings::PAPER).await;
        assert_eq!(run.finish, Finish::StepLimit, "{solver}");
        assert_eq!(run.limit(), Some(RunLimit::Nodes), "{solver}");
        assert_eq!(run.call_counts().executed, 4, "{solver}");
        assert_eq!(
            llm.remaining(),
            2,
            "{solver}: the fifth call and Finish were never asked"
        );
        assert!(run.detail.unwrap().contains("12 nodes"), "{solver}");
    }
}

#[tokio::test]
async fn a_chain_that_never_finishes_ends_at_the_step_limit_and_says_so() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new(
        (0..12).map(|i| thought("Try again.", DETAILS, json!({"movie_id": i}))),
    ));
    let mut rt = runtime(llm.clone(), movie_tools(), fx.book);
    rt.settings = AgentSettings {
        max_steps: 7,
        ..AgentSettings::default()
    };
    let run = React::new(rt, ReactSettings::PAPER)
        .solve("Dune", fx.toolset)
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::StepLimit);
    assert_eq!(run.limit(), Some(RunLimit::Steps));
    assert_eq!(run.detail.as_deref(), Some("no answer within 7 steps"));
    assert_eq!(llm.requests().len(), 7);
    assert!(matches!(
        finished_event(&run),
        TraceEvent::Finished {
            limit: Some(RunLimit::Steps),
            ..
        }
    ));
}
