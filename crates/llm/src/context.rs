//! The context check every request passes before it is sent: a prompt (plus the reply room it
//! reserves with `max_tokens`) larger than the model's configured context
//! ([`LlmSettings::context_tokens`](crate::LlmSettings::context_tokens)) is refused with
//! [`Error::ContextExceeded`], so no provider is sent (or charged for) a request it must reject.

use crate::chat::{ChatRequest, Message};
use crate::error::{Error, Result};
use crate::tokens::estimate_usage;

/// Chat framing counted per message (as [`estimate_usage`] counts it).
const FRAMING_PER_MESSAGE: u64 = 4;

/// Refuses `req` for `model` when its prompt tokens plus its `max_tokens` exceed `context`.
/// A token covers at least one byte, so a request with fewer bytes than `context` is let
/// through without counting; only a large one is tokenized.
pub(crate) fn check_context(req: &ChatRequest, model: &str, context: Option<u64>) -> Result<()> {
    let Some(context) = context else {
        return Ok(());
    };
    let reserved = req.sampling.max_tokens.map_or(0, u64::from);
    if request_bytes(req).saturating_add(reserved) <= context {
        return Ok(());
    }
    let prompt_tokens = estimate_usage(req, None, &[]).prompt_tokens;
    if prompt_tokens.saturating_add(reserved) <= context {
        return Ok(());
    }
    Err(Error::ContextExceeded {
        model: model.to_owned(),
        role: req.role.to_string(),
        prompt_tokens,
        reserved,
        context_tokens: context,
    })
}

/// An upper bound of the request's prompt tokens: its text in bytes, plus the framing.
fn request_bytes(req: &ChatRequest) -> u64 {
    let mut bytes = 0usize;
    for m in &req.messages {
        bytes = bytes.saturating_add(m.text().len());
        if let Message::Assistant { tool_calls, .. } = m {
            for c in tool_calls {
                bytes = bytes
                    .saturating_add(c.name.len())
                    .saturating_add(c.arguments.len());
            }
        }
    }
    for t in &req.tools {
        bytes = bytes
            .saturating_add(t.name.len())
            .saturating_add(t.description.len())
            .saturating_add(t.parameters.to_string().len());
    }
    let framing = FRAMING_PER_MESSAGE.saturating_mul(req.messages.len() as u64);
    u64::try_from(bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(framing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::Sampling;

    fn request(text: &str, max_tokens: Option<u32>) -> ChatRequest {
        ChatRequest::new("judge", vec![Message::user(text)]).with_sampling(Sampling {
            max_tokens,
            ..Sampling::default()
        })
    }

    #[test]
    fn requests_over_the_context_are_refused_with_their_size() {
        // "hello world " is 2 tokens; 3,000 of them are about 6,000 tokens.
        let big = "hello world ".repeat(3000);
        let err = check_context(&request(&big, Some(1000)), "m", Some(4096)).unwrap_err();
        match &err {
            Error::ContextExceeded {
                prompt_tokens,
                reserved,
                context_tokens,
                ..
            } => {
                assert!(*prompt_tokens > 4096, "{prompt_tokens}");
                assert_eq!((*reserved, *context_tokens), (1000, 4096));
            }
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().contains("context_tokens"), "{err}");
        // Within the context, or with no context configured: fine.
        assert!(check_context(&request(&big, Some(1000)), "m", Some(16_000)).is_ok());
        assert!(check_context(&request(&big, None), "m", None).is_ok());
        // The reply's room counts: a prompt that fits alone, but not with max_tokens.
        let small = "hello world ".repeat(100);
        assert!(check_context(&request(&small, None), "m", Some(300)).is_ok());
        assert!(check_context(&request(&small, Some(200)), "m", Some(300)).is_err());
    }
}
