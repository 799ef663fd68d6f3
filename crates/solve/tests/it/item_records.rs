//! The agent is asked to read an item from its own record under toolsmith's protocol (the
//! default), not when the setting says `any`, and never under the paper's protocol.

use toolsmith_solve::{AgentSettings, ItemRecords};

use crate::support::*;

const QUERY: &str = "When was Titanic released?";
const ANSWER: &str = "Titanic was released on 1997-12-19";
const RULE: &str = "an API may abridge it. When the request asks about one particular item";

#[tokio::test]
async fn every_solver_is_asked_for_the_items_record_by_default() {
    for dfsdt in [false, true] {
        let prompt = agent_prompt(AgentSettings::default(), QUERY, ANSWER, dfsdt).await;
        assert!(prompt.contains(RULE), "dfsdt {dfsdt}: {prompt}");
    }
    let grounding = grounding_prompt(AgentSettings::default(), QUERY).await;
    assert!(grounding.contains(RULE), "{grounding}");
    let any = AgentSettings {
        item_records: ItemRecords::Any,
        ..AgentSettings::TOOLSMITH
    };
    assert!(!grounding_prompt(any, QUERY).await.contains(RULE));
    assert!(
        !grounding_prompt(AgentSettings::PAPER, QUERY)
            .await
            .contains(RULE)
    );
}

#[tokio::test]
async fn the_setting_any_and_the_papers_protocol_leave_the_rule_out() {
    let any = AgentSettings {
        item_records: ItemRecords::Any,
        ..AgentSettings::TOOLSMITH
    };
    assert!(!agent_prompt(any, QUERY, ANSWER, false).await.contains(RULE));
    let paper = agent_prompt(AgentSettings::PAPER, QUERY, ANSWER, false).await;
    assert!(!paper.contains(RULE), "{paper}");
    let paper_with_rule = AgentSettings::default().with_protocol(toolsmith_solve::Protocol::Paper);
    assert!(
        !agent_prompt(paper_with_rule, QUERY, ANSWER, true)
            .await
            .contains(RULE)
    );
}

#[test]
fn the_setting_reads_from_config_by_name() {
    let settings: AgentSettings =
        serde_json::from_value(serde_json::json!({"item_records": "any"})).unwrap();
    assert_eq!(settings.item_records, ItemRecords::Any);
    let default: AgentSettings = serde_json::from_value(serde_json::json!({})).unwrap();
    assert_eq!(default.item_records, ItemRecords::Prefer);
    assert!(
        serde_json::from_value::<AgentSettings>(serde_json::json!({"item_records": "often"}))
            .is_err()
    );
}
