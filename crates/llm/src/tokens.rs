//! Local token counting with cl100k_base, for servers that send no `usage` and for test doubles.
//!
//! The BPE table is tiktoken-rs's own singleton, built once per process on first use.

use crate::chat::{ChatRequest, Message, ToolCall, Usage};

/// Tokens of `text` under cl100k_base (special tokens counted as text).
pub(crate) fn count_tokens(text: &str) -> u64 {
    if text.is_empty() {
        return 0;
    }
    let tokens = tiktoken_rs::cl100k_base_singleton()
        .encode_ordinary(text)
        .len();
    u64::try_from(tokens).unwrap_or(u64::MAX)
}

/// Token counts with cl100k_base for servers that send no `usage`.
pub(crate) fn estimate_usage(
    req: &ChatRequest,
    content: Option<&str>,
    calls: &[ToolCall],
) -> Usage {
    // ~4 tokens of chat framing per message, as OpenAI's cookbook counts them.
    let framing = 4u64.saturating_mul(req.messages.len() as u64);
    let mut prompt = framing;
    for m in &req.messages {
        prompt = prompt.saturating_add(count_tokens(m.text()));
        if let Message::Assistant { tool_calls, .. } = m {
            for c in tool_calls {
                prompt = prompt
                    .saturating_add(count_tokens(&c.name))
                    .saturating_add(count_tokens(&c.arguments));
            }
        }
    }
    for t in &req.tools {
        prompt = prompt
            .saturating_add(count_tokens(&t.name))
            .saturating_add(count_tokens(&t.description))
            .saturating_add(count_tokens(&t.parameters.to_string()));
    }
    let mut completion = count_tokens(content.unwrap_or(""));
    for c in calls {
        completion = completion
            .saturating_add(count_tokens(&c.name))
            .saturating_add(count_tokens(&c.arguments));
    }
    Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        estimated: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_cl100k() {
        assert_eq!(count_tokens(""), 0);
        assert_eq!(count_tokens("hello world"), 2);
        assert!(count_tokens("a much longer sentence about API documentation") > 5);
    }
}
