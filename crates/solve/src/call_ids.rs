//! Tool call ids made unique within a conversation. A reply replayed from the cache was
//! written for another conversation, and some models number their calls per turn, so a new
//! reply can reuse an id an earlier turn used: two calls would then share one id, and a tool
//! result would answer both (providers reject such a history, and a reader cannot tell the
//! results apart).

use std::collections::HashSet;

use toolsmith_llm::{ChatResponse, Message};

/// `response` with every call id that `history` (or an earlier call of the same reply) already
/// uses renamed `<id>_2`, `<id>_3`, ...: the first free one.
pub(crate) fn with_fresh_call_ids(mut response: ChatResponse, history: &[Message]) -> ChatResponse {
    let mut used: HashSet<String> = history.iter().flat_map(ids_of).collect();
    for call in &mut response.tool_calls {
        if used.contains(&call.id) {
            call.id = (2..)
                .map(|n| format!("{}_{n}", call.id))
                .find(|fresh| !used.contains(fresh))
                .unwrap_or_else(|| format!("{}_{}", call.id, used.len() + 2));
        }
        used.insert(call.id.clone());
    }
    response
}

/// The call ids a message holds: an assistant turn's calls, or the call a tool result answers.
fn ids_of(message: &Message) -> Vec<String> {
    match message {
        Message::Assistant { tool_calls, .. } => tool_calls.iter().map(|c| c.id.clone()).collect(),
        Message::Tool { call_id, .. } => vec![call_id.clone()],
        Message::System(_) | Message::User(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use toolsmith_llm::{FinishReason, ToolCall, Usage};

    use super::*;

    fn reply(ids: &[&str]) -> ChatResponse {
        ChatResponse {
            tool_calls: ids
                .iter()
                .map(|id| ToolCall::new(*id, "search", "{}"))
                .collect(),
            content: None,
            finish_reason: FinishReason::ToolCalls,
            usage: Usage::default(),
            cache_hit: false,
            model: String::new(),
            raw: String::new(),
        }
    }

    #[test]
    fn a_reused_id_gets_the_first_free_suffix_and_new_ids_stay() {
        let history = vec![
            Message::user("q"),
            reply(&["call_71_0", "call_71_0_2"]).to_message(),
            Message::tool("call_71_0", "a"),
            Message::tool("call_71_0_2", "b"),
        ];
        let fresh = with_fresh_call_ids(reply(&["call_71_0", "call_9_0", "call_9_0"]), &history);
        let ids: Vec<&str> = fresh.tool_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["call_71_0_3", "call_9_0", "call_9_0_2"]);
        let untouched = with_fresh_call_ids(reply(&["c1"]), &history);
        assert_eq!(untouched.tool_calls[0].id, "c1");
    }
}
