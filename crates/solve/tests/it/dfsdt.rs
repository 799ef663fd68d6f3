//! DFSDT: backtracking after a give-up, diversity prompts, and its limits.

use std::sync::Arc;

use serde_json::json;
use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_llm::testing::{Reply, ScriptedLlm, When};
use toolsmith_solve::{BacktrackReason, Dfsdt, DfsdtSettings, Finish, Solver, TraceEvent};

use crate::support::*;

#[tokio::test]
async fn a_give_up_backtracks_and_the_second_branch_answers() {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([
        Reply::tool_call(SEARCH, args(json!({"query": "Dune 2021"}))),
        Reply::tool_call("Finish", give_up("search_movie found nothing")),
        Reply::tool_call(SEARCH, args(json!({"query": "Dune"}))),
        Reply::tool_call("Finish", answer("Dune (2021)")),
    ]));
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), json!({"results": []})));
    let run = Dfsdt::new(
        runtime(llm.clone(), tools.clone(), fx.book),
        DfsdtSettings::PAPER,
    )
    .solve("Find Dune", fx.toolset)
    .await
    .unwrap();
    assert_eq!(
        (run.finish, run.answer.as_deref()),
        (Finish::Answered, Some("Dune (2021)"))
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 4);
    // The root is expanded a second time: the model sees its earlier child and is asked for another.
    assert!(
        requests[2].contains("not your first attempt"),
        "{:?}",
        requests[2].last_message()
    );
    assert!(requests[2].contains("Dune 2021"));
    // The diversity note is not kept in the new branch's history.
    assert!(
        !requests[3]
            .messages
            .iter()
            .any(|m| m.text().contains("not your first attempt"))
    );
    let backtracks: Vec<_> = run
        .trace
        .iter()
        .filter(|e| {
            matches!(
                &e.event,
                TraceEvent::Backtrack {
                    reason: BacktrackReason::GiveUp,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(backtracks.len(), 1);
    assert_eq!(tools.calls().len(), 2);
}

fn always_searching() -> Arc<ScriptedLlm> {
    Arc::new(ScriptedLlm::new([]).with_rule_times(
        When::role("agent"),
        Reply::tool_call(SEARCH, args(json!({"query": "x"}))),
        1000,
    ))
}

async fn calls_with(settings: DfsdtSettings) -> (Finish, usize) {
    let fx = fixture();
    let tools = Arc::new(ScriptedExecutor::new().respond(search_id(), json!({"results": []})));
    // The paper's protocol: depth in ToolBench's nodes.
    let mut rt = runtime(always_searching(), tools, fx.book);
    rt.settings = toolsmith_solve::AgentSettings::PAPER;
    let run = Dfsdt::new(rt, settings)
        .solve("q", fx.toolset)
        .await
        .unwrap();
    (run.finish, run.llm_calls())
}

#[tokio::test]
async fn the_search_respects_width_depth_and_call_limits() {
    // The paper's protocol: 12 nodes at 2 per step, 6 levels; width 2 expands
    // 2 + 4 + ... + 64 = 126 nodes.
    assert_eq!(
        calls_with(DfsdtSettings::PAPER).await,
        (Finish::StepLimit, 126)
    );
    assert_eq!(
        calls_with(DfsdtSettings {
            width: 1,
            ..DfsdtSettings::PAPER
        })
        .await,
        (Finish::StepLimit, 6)
    );
    assert_eq!(
        calls_with(DfsdtSettings {
            max_depth: 4,
            ..DfsdtSettings::PAPER
        })
        .await,
        (Finish::StepLimit, 6)
    );
    assert_eq!(
        calls_with(DfsdtSettings {
            max_llm_calls: 10,
            ..DfsdtSettings::PAPER
        })
        .await,
        (Finish::StepLimit, 10)
    );
}
