//! The date an agent is told is today: stated under toolsmith's protocol, never under the
//! paper's, whose prompts stay as they were.

use std::sync::Arc;

use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_llm::Message;
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_solve::{AgentSettings, React, ReactSettings, Solver};

use crate::support::*;

const DATE: &str = "2026-11-30";
const QUERY: &str = "Which films by Sofia Coppola are upcoming?";

/// The system prompt of the first request a ReAct run under `settings` sent.
async fn react_system_prompt(settings: AgentSettings) -> String {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([Reply::tool_call(
        "Finish",
        answer("no film is upcoming"),
    )]));
    let mut rt = runtime(llm.clone(), Arc::new(ScriptedExecutor::new()), fx.book);
    rt.settings = settings;
    React::new(rt, ReactSettings::PAPER)
        .solve(QUERY, fx.toolset)
        .await
        .unwrap();
    match llm.requests()[0].messages.first() {
        Some(Message::System(text)) => text.clone(),
        other => panic!("the chain opened with {other:?}"),
    }
}

fn dated(settings: AgentSettings) -> AgentSettings {
    AgentSettings {
        today: Some(DATE.parse().unwrap()),
        ..settings
    }
}

#[tokio::test]
async fn react_states_the_given_date_under_toolsmiths_protocol() {
    let prompt = react_system_prompt(dated(AgentSettings::TOOLSMITH)).await;
    assert!(
        prompt.starts_with(
            "You solve the user's request by calling functions, one step at a time. \
             Today is Monday, 2026-11-30.\n"
        ),
        "{prompt}"
    );
    let undated = react_system_prompt(AgentSettings::TOOLSMITH).await;
    assert!(!undated.contains("Today is"), "{undated}");
}

#[tokio::test]
async fn the_papers_prompt_states_no_date_and_stays_the_papers() {
    let paper = react_system_prompt(dated(AgentSettings::PAPER)).await;
    assert!(!paper.contains(DATE) && !paper.contains("Today"), "{paper}");
    assert_eq!(paper, react_system_prompt(AgentSettings::PAPER).await);
    assert!(
        paper.starts_with(
            "You solve the user's request by calling functions, one step at a time.\n\n"
        ),
        "{paper}"
    );
}

#[tokio::test]
async fn conagents_grounding_states_the_date_only_under_toolsmiths_protocol() {
    let prompt = grounding_prompt(dated(AgentSettings::TOOLSMITH), QUERY).await;
    assert!(
        prompt.contains("what it extracted. Today is Monday, 2026-11-30.\n"),
        "{prompt}"
    );
    let paper = grounding_prompt(dated(AgentSettings::PAPER), QUERY).await;
    assert!(!paper.contains("Today"), "{paper}");
    assert_eq!(paper, grounding_prompt(AgentSettings::PAPER, QUERY).await);
}
