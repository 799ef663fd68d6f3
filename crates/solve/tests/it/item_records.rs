//! The agent is asked to read an item from its own record under toolsmith's protocol (the
//! default), not when the setting says `any`, and never under the paper's protocol.

use std::sync::Arc;

use toolsmith_exec::testing::ScriptedExecutor;
use toolsmith_llm::Message;
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_solve::{
    AgentSettings, Dfsdt, DfsdtSettings, ItemRecords, React, ReactSettings, Solver,
};

use crate::support::*;

const QUERY: &str = "When was Titanic released?";
const RULE: &str = "an API may abridge it. When the request asks about one particular item";

/// The system prompt of the first request a run of `solver` under `settings` sent.
async fn system_prompt(settings: AgentSettings, dfsdt: bool) -> String {
    let fx = fixture();
    let llm = Arc::new(ScriptedLlm::new([Reply::tool_call(
        "Finish",
        answer("Titanic was released on 1997-12-19"),
    )]));
    let mut rt = runtime(llm.clone(), Arc::new(ScriptedExecutor::new()), fx.book);
    rt.settings = settings;
    if dfsdt {
        Dfsdt::new(rt, DfsdtSettings::PAPER)
            .solve(QUERY, fx.toolset)
            .await
            .unwrap();
    } else {
        React::new(rt, ReactSettings::PAPER)
            .solve(QUERY, fx.toolset)
            .await
            .unwrap();
    }
    match llm.requests()[0].messages.first() {
        Some(Message::System(text)) => text.clone(),
        other => panic!("the run opened with {other:?}"),
    }
}

#[tokio::test]
async fn every_solver_is_asked_for_the_items_record_by_default() {
    for dfsdt in [false, true] {
        let prompt = system_prompt(AgentSettings::default(), dfsdt).await;
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
    assert!(!system_prompt(any, false).await.contains(RULE));
    let paper = system_prompt(AgentSettings::PAPER, false).await;
    assert!(!paper.contains(RULE), "{paper}");
    let paper_with_rule = AgentSettings::default().with_protocol(toolsmith_solve::Protocol::Paper);
    assert!(!system_prompt(paper_with_rule, true).await.contains(RULE));
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
