//! The date an agent is told is today: stated under toolsmith's protocol, never under the
//! paper's, whose prompts stay as they were.

use toolsmith_solve::AgentSettings;

use crate::support::*;

const DATE: &str = "2026-11-30";
const QUERY: &str = "Which films by Sofia Coppola are upcoming?";
const ANSWER: &str = "no film is upcoming";

fn dated(settings: AgentSettings) -> AgentSettings {
    AgentSettings {
        today: Some(DATE.parse().unwrap()),
        ..settings
    }
}

#[tokio::test]
async fn react_states_the_given_date_under_toolsmiths_protocol() {
    let prompt = agent_prompt(dated(AgentSettings::TOOLSMITH), QUERY, ANSWER, false).await;
    assert!(
        prompt.starts_with(
            "You solve the user's request by calling functions, one step at a time. \
             Today is Monday, 2026-11-30.\n"
        ),
        "{prompt}"
    );
    let undated = agent_prompt(AgentSettings::TOOLSMITH, QUERY, ANSWER, false).await;
    assert!(!undated.contains("Today is"), "{undated}");
}

#[tokio::test]
async fn the_papers_prompt_states_no_date_and_stays_the_papers() {
    let paper = agent_prompt(dated(AgentSettings::PAPER), QUERY, ANSWER, false).await;
    assert!(!paper.contains(DATE) && !paper.contains("Today"), "{paper}");
    assert_eq!(
        paper,
        agent_prompt(AgentSettings::PAPER, QUERY, ANSWER, false).await
    );
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
