//! ConAgents: calibration from tool errors (alpha) and interpreter errors (beta).

use std::sync::Arc;

use serde_json::json;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_exec::{FailureKind, JqSandbox, Observation, Provenance};
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};
use toolsmith_solve::{ConAgents, ConAgentsSettings, Finish, Solver, TraceEvent};

use crate::support::*;

fn sandbox() -> Arc<JqSandbox> {
    Arc::new(JqSandbox::new(env!(
        "CARGO_BIN_EXE_toolsmith-solve-sandbox"
    )))
}

fn call(tool: &str, instruction: &str) -> Reply {
    Reply::text(json!({"action": "call", "tool": tool, "instruction": instruction}).to_string())
}

fn finish(answer: &str) -> Reply {
    Reply::text(json!({"action": "finish", "answer": answer}).to_string())
}

/// A response long enough to go through the observing agent.
fn big_search_result() -> serde_json::Value {
    let results: Vec<_> = (0..40).map(|i| json!({"id": 1000 + i, "title": format!("Movie number {i}"), "overview": "x".repeat(40)})).collect();
    json!({"page": 1, "results": results})
}

fn retries(run: &toolsmith_solve::Run, agent: toolsmith_solve::ConAgentsRole) -> usize {
    run.trace
        .iter()
        .filter(|e| matches!(&e.event, TraceEvent::Retry { agent: a, .. } if *a == agent))
        .count()
}

#[tokio::test]
async fn recovers_from_a_400_by_fixing_the_argument_and_from_a_jq_error_by_fixing_the_filter() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([
        call(
            SEARCH,
            "search for the movie Dune and extract the id of the first result",
        ),
        // Execution agent: first with a wrong argument, then fixed after the 400.
        Reply::tool_call(SEARCH, args(json!({"query": ""}))),
        Reply::tool_call(SEARCH, args(json!({"query": "Dune"}))),
        // Observing agent: a broken filter, then a good one.
        Reply::text(r#"{"filter": ".results[0.id"}"#),
        Reply::text(r#"{"filter": ".response.results[0].id"}"#),
        finish("The first result's id is 1000"),
    ]));
    let tools = Arc::new(
        ScriptedExecutor::new()
            .respond_to(
                search_id(),
                &json!({"query": ""}),
                Observation::tool_error(
                    FailureKind::BadParameters,
                    "query must not be empty",
                    Provenance::Live,
                ),
            )
            .respond(search_id(), big_search_result()),
    );
    let solver = ConAgents::new(
        runtime(llm.clone(), tools.clone(), fx.book),
        sandbox(),
        ConAgentsSettings::PAPER,
    );
    let run = solver
        .solve("What is Dune's id?", fx.toolset)
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    assert_eq!(retries(&run, toolsmith_solve::ConAgentsRole::Execution), 1);
    assert_eq!(retries(&run, toolsmith_solve::ConAgentsRole::Observing), 1);
    let requests = llm.requests();
    assert!(
        requests[2].contains("query must not be empty"),
        "the execution retry saw the tool's error"
    );
    assert!(
        requests[4].contains(".results[0.id"),
        "the observing retry saw its broken filter"
    );
    assert!(
        requests[5].contains("1000"),
        "the extracted value went back to the grounding agent"
    );
    assert!(
        !requests[5].contains("Movie number 7"),
        "not the whole response"
    );
    assert_eq!(tools.calls().len(), 2);
    llm.assert_finished();
}

#[tokio::test]
async fn gives_up_a_tool_after_alpha_failures_and_a_filter_after_beta() {
    let fx = fixture();
    let settings = ConAgentsSettings {
        alpha: 2,
        beta: 1,
        max_turns: 3,
        ..ConAgentsSettings::PAPER
    };
    let llm = Arc::new(
        ScriptedLlm::new([])
            .with_rule_times(
                When::role("grounding").and_last_message_contains("Steps so far"),
                finish("could not"),
                1,
            )
            .with_rule_times(
                When::role("grounding"),
                call(SEARCH, "search Dune, extract ids"),
                2,
            )
            .with_rule_times(
                When::role("execution").and_last_message_contains("Dune"),
                Reply::tool_call(SEARCH, args(json!({"query": ""}))),
                3,
            )
            .with_rule_times(
                When::role("observing"),
                Reply::text(r#"{"filter": "error(\"nope\")"}"#),
                2,
            ),
    );
    let tools = Arc::new(ScriptedExecutor::new().respond_to(
        search_id(),
        &json!({"query": ""}),
        Observation::tool_error(
            FailureKind::BadParameters,
            "query must not be empty",
            Provenance::Live,
        ),
    ));
    let solver = ConAgents::new(
        runtime(llm.clone(), tools.clone(), fx.book),
        sandbox(),
        settings,
    );
    let run = solver.solve("Dune?", fx.toolset).await.unwrap();
    assert_eq!(tools.calls().len(), 3, "one call and alpha = 2 retries");
    assert_eq!(retries(&run, toolsmith_solve::ConAgentsRole::Execution), 2);
    assert!(
        llm.requests()
            .last()
            .unwrap()
            .contains("kept failing after 2 retries")
    );
    assert_eq!(run.finish, Finish::Answered);
}

/// The observing agent is shown an outline whose top is `response`; a filter that follows the
/// outline's paths extracts the value, and one that starts below the root finds only null and
/// is sent back with the root named.
#[tokio::test]
async fn a_filter_written_against_the_shown_outline_extracts_the_value() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([
        call(SEARCH, "search Dune, extract the title of the third result"),
        Reply::tool_call(SEARCH, args(json!({"query": "Dune"}))),
        Reply::text(r#"{"filter": ".results[2].title"}"#),
        Reply::text(r#"{"filter": ".response.results[2].title"}"#),
        finish("Movie number 2"),
    ]));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), big_search_result()));
    let run = ConAgents::new(
        runtime(llm.clone(), tools, fx.book),
        sandbox(),
        ConAgentsSettings::PAPER,
    )
    .solve("Third Dune result?", fx.toolset)
    .await
    .unwrap();
    assert_eq!(run.finish, Finish::Answered, "{:?}", run.detail);
    let requests = llm.requests();
    let shown = requests[2].last_message();
    assert!(shown.contains("\nresponse: object (2 keys)"), "{shown}");
    assert!(shown.contains("  results: array (40 items)"), "{shown}");
    assert!(
        shown.contains("every path starts with `.response`"),
        "{shown}"
    );
    assert_eq!(retries(&run, toolsmith_solve::ConAgentsRole::Observing), 1);
    assert!(
        requests[3].contains("only null") && requests[3].contains("`.response`"),
        "{}",
        requests[3].last_message()
    );
    let grounding = requests[4].last_message();
    assert!(
        grounding.contains("result: \"Movie number 2\""),
        "the extracted title went back to the grounding agent: {grounding}"
    );
    assert!(
        !grounding.contains("Movie number 7"),
        "not the whole response"
    );
    llm.assert_finished();
}

#[tokio::test]
async fn hands_back_the_raw_response_after_beta_bad_filters() {
    let fx = fixture();
    let settings = ConAgentsSettings {
        beta: 1,
        ..ConAgentsSettings::PAPER
    };
    let llm = Arc::new(ScriptedLlm::new([
        call(SEARCH, "search Dune, extract ids"),
        Reply::tool_call(SEARCH, args(json!({"query": "Dune"}))),
        Reply::text(r#"{"filter": "error(\"first\")"}"#),
        Reply::text(r#"{"filter": ".results[0.id"}"#),
        finish("partial"),
    ]));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), big_search_result()));
    let run = ConAgents::new(runtime(llm.clone(), tools, fx.book), sandbox(), settings)
        .solve("Dune?", fx.toolset)
        .await
        .unwrap();
    assert_eq!(
        retries(&run, toolsmith_solve::ConAgentsRole::Observing),
        1,
        "beta = 1: one retry, then the raw response"
    );
    let last = llm.requests().last().unwrap().clone();
    assert!(
        last.contains("extraction failed after 1 retries"),
        "{}",
        last.last_message()
    );
    assert!(
        last.contains("Movie number 0"),
        "the grounding agent gets the (cut) raw response instead"
    );
    llm.assert_finished();
}

#[tokio::test]
async fn a_refusal_in_the_final_answer_ends_the_run_as_a_give_up() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([finish(
        "I cannot answer this with the available tools.",
    )]));
    let tools = Arc::new(ScriptedExecutor::new());
    let solver = ConAgents::new(
        runtime(llm, tools, fx.book),
        sandbox(),
        ConAgentsSettings::PAPER,
    );
    let run = solver
        .solve("Which albums did I save?", fx.toolset)
        .await
        .unwrap();
    assert_eq!(run.finish, Finish::GaveUp);
    assert_eq!(run.answer, None);
    assert!(
        run.detail
            .as_deref()
            .is_some_and(|d| d.contains("I cannot answer this")),
        "{:?}",
        run.detail
    );
    // The trace's own end says the same.
    let traced = run.trace.iter().rev().find_map(|e| match &e.event {
        TraceEvent::Finished { finish, .. } => Some(*finish),
        _ => None,
    });
    assert_eq!(traced, Some(Finish::GaveUp));
}
