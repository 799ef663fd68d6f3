//! Budgets stop a run cleanly with what was used; the ledger accounts per role and query.

use std::sync::Arc;

use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_llm::{
    Budget, BudgetLimit, BudgetLimits, CacheDb, CacheMode, CachedChat, ChatModel, ChatRequest,
    Error, Message, Metered, OpenAiClient, Role,
};

use crate::support::{Canned, MockServer, completion};

#[tokio::test]
async fn the_call_budget_stops_a_run_midway_with_usage_so_far() -> anyhow::Result<()> {
    let server = MockServer::start([])
        .await
        .always(Canned::json(completion("step")));
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: Some(3),
        max_tokens: None,
    }));
    let llm = Metered::new(OpenAiClient::new(&server.settings())?, Arc::clone(&budget));

    let mut answered = 0;
    let stop = loop {
        let req = ChatRequest::new("agent", vec![Message::user(format!("step {answered}"))])
            .with_query("q1");
        match llm.chat(&req).await {
            Ok(_) => answered += 1,
            Err(e) => break e,
        }
        assert!(answered < 10, "the budget never stopped the run");
    };
    assert_eq!(answered, 3);
    match stop {
        Error::Budget(exhausted) => {
            assert_eq!(exhausted.limit, BudgetLimit::Calls(3));
            assert_eq!(exhausted.used.calls, 3);
            assert_eq!(exhausted.used.prompt_tokens, 33);
            assert_eq!(exhausted.used.completion_tokens, 21);
        }
        other => panic!("expected a budget error, got {other:?}"),
    }
    assert_eq!(
        server.hits(),
        3,
        "the refused call never reached the server"
    );
    let ledger = budget.ledger();
    assert_eq!(ledger.by_query["q1"].calls, 3);
    assert_eq!(ledger.total.tokens(), 54);
    Ok(())
}

#[tokio::test]
async fn the_token_budget_lets_the_crossing_call_finish_then_stops() -> anyhow::Result<()> {
    let llm = ScriptedLlm::new(
        (0..5).map(|_| Reply::text("a fairly long answer with several tokens in it")),
    );
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: None,
        max_tokens: Some(25),
    }));
    let metered = Metered::new(llm.clone(), Arc::clone(&budget));
    let req = ChatRequest::new("explorer", vec![Message::user("explore the API")]);
    let mut ok = 0;
    let err = loop {
        match metered.chat(&req).await {
            Ok(_) => ok += 1,
            Err(e) => break e,
        }
    };
    assert!((1..5).contains(&ok), "stopped mid-run after {ok} calls");
    let Error::Budget(exhausted) = err else {
        panic!("expected a budget error, got {err:?}")
    };
    assert_eq!(exhausted.limit, BudgetLimit::Tokens(25));
    assert!(exhausted.used.tokens() >= 25);
    assert!(
        exhausted.to_string().contains("budget exhausted"),
        "{exhausted}"
    );
    assert_eq!(llm.requests().len(), ok);
    Ok(())
}

#[tokio::test]
async fn cache_hits_cost_no_budget_but_are_in_the_ledger() -> anyhow::Result<()> {
    let llm = ScriptedLlm::new([Reply::text("once")]);
    let budget = Arc::new(Budget::new(BudgetLimits {
        max_calls: Some(5),
        max_tokens: None,
    }));
    let cached = CachedChat::new(llm.clone(), CacheDb::in_memory()?, CacheMode::ReadWrite);
    let metered = Metered::new(cached, Arc::clone(&budget));
    let req = ChatRequest::new("judge", vec![Message::user("grade this")]).with_query("q9");
    assert!(!metered.chat(&req).await?.cache_hit);
    assert!(metered.chat(&req).await?.cache_hit);
    assert_eq!(llm.requests().len(), 1);
    assert_eq!(budget.used().calls, 1, "the hit was refunded");
    let ledger = budget.ledger();
    assert_eq!(ledger.total.calls, 2);
    assert_eq!(ledger.total.cache_hits, 1);
    assert!(ledger.total.cached_prompt_tokens > 0);
    assert_eq!(
        ledger.total.prompt_tokens,
        ledger.total.cached_prompt_tokens
    );
    assert_eq!(ledger.by_role[&Role::new("judge")].calls, 2);
    assert_eq!(ledger.by_query["q9"].cache_hits, 1);

    // The limit is checked before the cache is consulted: a spent budget stops the run even
    // where the cache could answer.
    let spent = Arc::new(Budget::new(BudgetLimits {
        max_calls: Some(0),
        max_tokens: None,
    }));
    let cached = CachedChat::new(llm.clone(), CacheDb::in_memory()?, CacheMode::ReadWrite);
    let refused = Metered::new(cached, spent).chat(&req).await;
    assert!(matches!(refused, Err(Error::Budget(_))), "{refused:?}");
    Ok(())
}
