//! ReAct: a dependent two-step chain, parallel calls, bad tool calls, budgets.

use std::sync::Arc;

use serde_json::json;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_llm::{Budget, BudgetLimits, Message, Metered};
use toolsmith_solve::{CallOutcome, Finish, React, ReactSettings, Solver, TraceEvent};

use crate::support::*;

#[tokio::test]
async fn react_searches_then_fetches_details_by_the_returned_id() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call(SEARCH, args(json!({"query": "Dune"}))),
        Reply::tool_call(DETAILS, args(json!({"movie_id": 438631}))),
        Reply::tool_call("Finish", answer("Denis Villeneuve")),
    ]));
    let tools = Arc::new(
        ScriptedExecutor::new()
            .respond(
                search_id(),
                json!({"results": [{"id": 438631, "title": "Dune"}]}),
            )
            .respond(
                details_id(),
                json!({"id": 438631, "director": "Denis Villeneuve"}),
            ),
    );
    let solver = React::new(
        runtime(llm.clone(), tools.clone(), fx.book),
        ReactSettings::PAPER,
    );
    let run = solver
        .solve("Who directed Dune?", fx.toolset)
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::Answered);
    assert_eq!(run.answer.as_deref(), Some("Denis Villeneuve"));
    assert_eq!(run.api_calls(), [search_id(), details_id()]);
    assert_eq!(tools.calls()[1].1, json!({"movie_id": 438631}));
    let requests = llm.requests();
    assert!(
        requests[1].contains("438631"),
        "the search result reached the model before the second step"
    );
    assert_eq!(run.llm_calls(), 3);
    llm.assert_finished();
}

#[tokio::test]
async fn parallel_calls_are_answered_in_the_order_of_their_ids() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_calls([
            (SEARCH, args(json!({"query": "Dune"}))),
            (SEARCH, args(json!({"query": "Alien"}))),
            ("nope", "{}".to_owned()),
        ]),
        Reply::tool_call("Finish", answer("both found")),
    ]));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), json!({"results": []})));
    let run = React::new(runtime(llm.clone(), tools, fx.book), ReactSettings::PAPER)
        .solve("Find Dune and Alien", fx.toolset)
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::Answered);
    let second = &llm.requests()[1];
    let tool_messages: Vec<(String, String)> = second
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool { call_id, content } => Some((call_id.clone(), content.clone())),
            _ => None,
        })
        .collect();
    let ids: Vec<&str> = tool_messages.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["call_0", "call_1", "call_2"]);
    assert!(
        tool_messages[2].1.contains("No such function name: nope"),
        "{}",
        tool_messages[2].1
    );
}

#[tokio::test]
async fn bad_tool_calls_become_observations_the_agent_recovers_from() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call("made_up_tool", "{}"),
        Reply::tool_call(SEARCH, "{not json"),
        Reply::text("I think the answer is Dune."),
        Reply::tool_call("Finish", answer("Dune")),
    ]));
    let tools = Arc::new(ScriptedExecutor::new());
    let run = React::new(
        runtime(llm.clone(), tools.clone(), fx.book),
        ReactSettings {
            tries: 1,
            max_depth: 40,
        },
    )
    .solve("q", fx.toolset)
    .await
    .unwrap();
    assert_eq!(run.finish, Finish::Answered);
    assert!(tools.calls().is_empty(), "neither bad call reached a tool");
    let requests = llm.requests();
    assert!(requests[1].contains("No such function name: made_up_tool"));
    assert!(requests[2].contains("not valid JSON"));
    assert!(
        requests[3].contains("Continue by calling a function"),
        "a reply without a call gets a reminder"
    );
    let calls: Vec<_> = run
        .trace
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
            (Some(search_id()), CallOutcome::Rejected, None)
        ]
    );
}

#[tokio::test]
async fn a_model_that_never_finishes_stops_at_the_depth_limit() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([]).with_rule_times(
        toolsmith_llm::testing::When::role("agent"),
        Reply::tool_call(SEARCH, args(json!({"query": "again"}))),
        100,
    ));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), json!({"results": []})));
    // The paper's protocol counts ToolBench's nodes.
    let mut rt = runtime(llm.clone(), tools.clone(), fx.book.clone());
    rt.settings = toolsmith_solve::AgentSettings::PAPER;
    let run = React::new(rt, ReactSettings::PAPER)
        .solve("loop forever", fx.toolset.clone())
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::StepLimit);
    assert_eq!(
        run.llm_calls(),
        6,
        "12 nodes at 2 nodes per thoughtless step"
    );
    // toolsmith's counts steps: 10 turns, whatever each holds.
    let run = React::new(runtime(llm.clone(), tools, fx.book), ReactSettings::PAPER)
        .solve("loop forever", fx.toolset)
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::StepLimit);
    assert_eq!(run.llm_calls(), 10, "10 steps");
    assert!(matches!(
        run.trace.last().unwrap().event,
        TraceEvent::Finished { .. }
    ));
}

#[tokio::test]
async fn budget_exhaustion_ends_the_run_cleanly() {
    let fx = fixture();
    let scripted = ScriptedLlm::new([]).with_rule_times(
        toolsmith_llm::testing::When::role("agent"),
        Reply::tool_call(SEARCH, args(json!({"query": "x"}))),
        100,
    );
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: Some(2),
        max_tokens: None,
    }));
    let llm = Arc::new(Metered::new(scripted, budget.clone()));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), json!({"results": []})));
    let run = React::new(runtime(llm, tools, fx.book), ReactSettings::PAPER)
        .solve("q", fx.toolset)
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::BudgetExhausted);
    assert_eq!(run.llm_calls(), 2);
    assert!(run.detail.unwrap().contains("call"));
}

#[tokio::test]
async fn cot_at_n_tries_again_after_a_give_up() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call("Finish", give_up("search failed")),
        Reply::tool_call("Finish", answer("second try")),
    ]));
    let run = React::new(
        runtime(llm, Arc::new(ScriptedExecutor::new()), fx.book),
        ReactSettings {
            tries: 2,
            max_depth: 12,
        },
    )
    .solve("q", fx.toolset)
    .await
    .unwrap();
    assert_eq!(
        (run.finish, run.answer.as_deref()),
        (Finish::Answered, Some("second try"))
    );
}

/// The observation the model got for its one search, with `style`.
async fn long_search_observation(style: toolsmith_solve::ObservationStyle) -> String {
    let fx = fixture();
    let results: Vec<_> = (0..20)
        .map(|i| {
            json!({"id": 1000 + i, "title": format!("Film {i}"),
                   "overview": "Somebody goes somewhere and finds something. ".repeat(5),
                   "poster_path": "/7WsyChQLEftFiDOVTGkv3hFpyyt.jpg"})
        })
        .collect();
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call(SEARCH, args(json!({"query": "Film"}))),
        Reply::tool_call("Finish", answer("Film 0")),
    ]));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), json!({"results": results})));
    let mut runtime = runtime(llm, tools, fx.book);
    runtime.settings.observation_style = style;
    let run = React::new(runtime, ReactSettings::PAPER)
        .solve("q", fx.toolset)
        .await
        .unwrap();
    run.trace
        .iter()
        .find_map(|e| match &e.event {
            TraceEvent::ToolCall { observation, .. } => Some(observation.clone()),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn long_observations_are_compacted_by_default_and_cut_in_paper_mode() {
    use toolsmith_solve::ObservationStyle;
    let compact = long_search_observation(ObservationStyle::Compact).await;
    assert!(compact.chars().count() <= 1024, "{compact}");
    let value: serde_json::Value = serde_json::from_str(&compact).unwrap();
    let shown = value["response"]["results"].as_array().unwrap();
    assert_eq!(shown.len(), 20, "{compact}");
    for (i, movie) in shown.iter().enumerate() {
        assert_eq!(movie["id"], 1000 + i);
    }
    let paper = long_search_observation(ObservationStyle::Paper).await;
    assert!(
        paper.ends_with("...") && paper.chars().count() == 1027,
        "{paper}"
    );
    assert!(serde_json::from_str::<serde_json::Value>(&paper).is_err());
}

#[tokio::test]
async fn a_compacted_observation_shows_the_fields_the_task_and_the_thought_name() {
    // Twenty films: their ids and titles fill the observation; the task asks for the most
    // popular one, the thought for their vote average.
    let fx = fixture();
    let results: Vec<_> = (0..20)
        .map(|i| {
            json!({"id": 1000 + i, "title": format!("Film {i}"),
                   "overview": "Somebody goes somewhere and finds something. ".repeat(5),
                   "original_title": format!("Film {i}"), "release_date": "2001-02-03",
                   "popularity": 90.5 - f64::from(i), "vote_average": 7.25,
                   "poster_path": "/7WsyChQLEftFiDOVTGkv3hFpyyt.jpg"})
        })
        .collect();
    let search = toolsmith_llm::ToolCall::new("call_0", SEARCH, args(json!({"query": "Film"})));
    let llm = Arc::new(ScriptedLlm::new([
        Reply::ToolCalls {
            content: Some("I will search the films and compare their vote average.".into()),
            calls: vec![search],
        },
        Reply::tool_call("Finish", answer("Film 0")),
    ]));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), json!({"results": results})));
    let mut runtime = runtime(llm, tools, fx.book);
    runtime.settings.observation_style = toolsmith_solve::ObservationStyle::Compact;
    let run = React::new(runtime, ReactSettings::PAPER)
        .solve("Which film is the most popular?", fx.toolset)
        .await
        .unwrap();
    let observation = run
        .trace
        .iter()
        .find_map(|e| match &e.event {
            TraceEvent::ToolCall { observation, .. } => Some(observation.clone()),
            _ => None,
        })
        .unwrap();
    assert!(observation.chars().count() <= 1024, "{observation}");
    let value: serde_json::Value = serde_json::from_str(&observation).unwrap();
    let shown: Vec<_> = value["response"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v.is_object())
        .collect();
    assert!(shown.len() >= 5, "{observation}");
    for (i, film) in shown.iter().enumerate() {
        assert_eq!(film["id"], 1000 + i, "{observation}");
        assert_eq!(
            film["popularity"], results[i]["popularity"],
            "{observation}"
        );
        assert_eq!(film["vote_average"], 7.25, "{observation}");
    }
}

#[tokio::test]
async fn turns_that_reuse_a_call_id_reach_the_model_with_distinct_ids() {
    // Every scripted turn names its call `call_0`, as a reply replayed from the cache can.
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call(SEARCH, args(json!({"query": "Dune"}))),
        Reply::tool_call(DETAILS, args(json!({"movie_id": 438631}))),
        Reply::tool_call("Finish", answer("Denis Villeneuve")),
    ]));
    let tools = Arc::new(
        ScriptedExecutor::new()
            .respond(search_id(), json!({"results": [{"id": 438631}]}))
            .respond(details_id(), json!({"id": 438631})),
    );
    let solver = React::new(runtime(llm.clone(), tools, fx.book), ReactSettings::PAPER);
    let run = solver
        .solve("Who directed Dune?", fx.toolset)
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::Answered);
    let last = llm.requests().pop().unwrap();
    let (mut asked, mut answered) = (Vec::new(), Vec::new());
    for m in &last.messages {
        match m {
            Message::Assistant { tool_calls, .. } => {
                asked.extend(tool_calls.iter().map(|c| c.id.clone()))
            }
            Message::Tool { call_id, .. } => answered.push(call_id.clone()),
            _ => {}
        }
    }
    assert_eq!(asked, ["call_0", "call_0_2"]);
    assert_eq!(answered, asked, "each result answers its own call");
}
