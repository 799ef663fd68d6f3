//! What a `tools/call` answer (or its failure) becomes for the agent:
//! `structuredContent`, or text content that is JSON, as a JSON body;
//! other text as text; `isError` as a `tool_failed` observation; a closed
//! connection as `network`; results over the size cap cut, as HTTP bodies are.

use rmcp::ServiceError;
use rmcp::model::{CallToolResult, ContentBlock, ErrorCode};
use serde_json::Value;

use crate::observation::{Body, FailureKind, Observation, Outcome, Provenance};

/// Characters of a failing tool's own text quoted in the failure message.
const MESSAGE_CHARS: usize = 300;

/// The observation of a tool's answer.
pub(crate) fn observe(result: CallToolResult, max_bytes: usize) -> Observation {
    let body = match result.structured_content {
        Some(value) => Body::Json(value),
        None => content_body(&result.content),
    };
    let text = body.to_text();
    let bytes = text.len();
    let truncated = bytes > max_bytes;
    let body = if truncated {
        Body::Text(cut(&text, max_bytes).to_owned())
    } else {
        body
    };
    let outcome = if result.is_error == Some(true) {
        let said = toolsmith_plumbing::text::char_prefix(&text, MESSAGE_CHARS);
        Outcome::ToolError {
            kind: FailureKind::ToolFailed,
            message: if said.trim().is_empty() {
                "the tool reported a failure and said nothing more".to_owned()
            } else {
                format!("the tool reported a failure: {said}")
            },
        }
    } else if truncated {
        Outcome::ToolError {
            kind: FailureKind::ResponseTooLarge,
            message: format!(
                "the result is over {max_bytes} bytes; only its first {max_bytes} bytes are kept"
            ),
        }
    } else {
        Outcome::Ok
    };
    Observation {
        outcome,
        status: None,
        body,
        bytes,
        truncated,
        latency: std::time::Duration::ZERO,
        provenance: Provenance::Live,
    }
}

/// Text blocks joined, as JSON when they parse as JSON; anything else
/// (images, audio, resources) as the blocks' JSON.
fn content_body(content: &[ContentBlock]) -> Body {
    if content.is_empty() {
        return Body::Empty;
    }
    let texts: Option<Vec<&str>> = content
        .iter()
        .map(|block| block.as_text().map(|t| t.text.as_str()))
        .collect();
    match texts {
        Some(texts) => {
            let joined = texts.join("\n");
            match serde_json::from_str::<Value>(joined.trim()) {
                Ok(value) => Body::Json(value),
                Err(_) => Body::Text(joined),
            }
        }
        None => match serde_json::to_value(content) {
            Ok(value) => Body::Json(value),
            Err(err) => Body::Text(format!("(content that cannot be shown: {err})")),
        },
    }
}

/// The longest prefix of `text` within `max` bytes, on a character boundary.
fn cut(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// The observation of a call that got no answer.
pub(crate) fn failure_of(
    server: &str,
    tool: &str,
    err: &ServiceError,
    stderr: &str,
) -> Observation {
    let stderr_note = if stderr.trim().is_empty() {
        String::new()
    } else {
        format!("; its stderr ends with: {}", stderr.trim())
    };
    match err {
        ServiceError::McpError(data) => {
            let kind = match data.code {
                ErrorCode::INVALID_PARAMS => FailureKind::BadParameters,
                ErrorCode::METHOD_NOT_FOUND => FailureKind::Unsupported,
                _ => FailureKind::ServerError,
            };
            Observation::tool_error(
                kind,
                format!(
                    "MCP server `{server}` refused `{tool}` (error {}): {}",
                    data.code.0, data.message
                ),
                Provenance::Live,
            )
        }
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            Observation::transport_error(
                FailureKind::Network,
                format!(
                    "MCP server `{server}` closed the connection during `{tool}` (did it exit?){stderr_note}"
                ),
                Provenance::Live,
            )
        }
        ServiceError::Timeout { timeout } => Observation::transport_error(
            FailureKind::Timeout,
            format!("MCP server `{server}` gave no answer to `{tool}` within {timeout:?}"),
            Provenance::Live,
        ),
        ServiceError::UnexpectedResponse => Observation::tool_error(
            FailureKind::UnparsableResponse,
            format!(
                "MCP server `{server}` answered `{tool}` with something else than a tool result"
            ),
            Provenance::Live,
        ),
        ServiceError::InputRequiredRoundsExceeded { .. } => Observation::tool_error(
            FailureKind::Unsupported,
            format!("MCP server `{server}` kept asking for user input during `{tool}`"),
            Provenance::Live,
        ),
        other => Observation::transport_error(
            FailureKind::Network,
            format!("MCP server `{server}`: `{tool}` failed: {other}"),
            Provenance::Live,
        ),
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ErrorData;
    use serde_json::json;

    use super::*;

    #[test]
    fn structured_content_is_the_body() {
        let obs = observe(CallToolResult::structured(json!({"sum": 5})), 1024);
        assert!(obs.is_ok());
        assert_eq!(obs.body, Body::Json(json!({"sum": 5})));
    }

    #[test]
    fn json_text_is_json_and_other_text_is_text() {
        let obs = observe(
            CallToolResult::success(vec![ContentBlock::text("[1, 2]")]),
            1024,
        );
        assert_eq!(obs.body, Body::Json(json!([1, 2])));
        let obs = observe(
            CallToolResult::success(vec![
                ContentBlock::text("hello"),
                ContentBlock::text("world"),
            ]),
            1024,
        );
        assert_eq!(obs.body, Body::Text("hello\nworld".to_owned()));
        let obs = observe(CallToolResult::success(vec![]), 1024);
        assert_eq!(obs.body, Body::Empty);
        let obs = observe(
            CallToolResult::success(vec![ContentBlock::image("aGk=", "image/png")]),
            1024,
        );
        assert_eq!(obs.body.json().unwrap()[0]["mimeType"], "image/png");
    }

    #[test]
    fn is_error_is_a_tool_failure_quoting_the_tool() {
        let obs = observe(
            CallToolResult::error(vec![ContentBlock::text("no such city")]),
            1024,
        );
        assert_eq!(obs.failure(), Some(FailureKind::ToolFailed));
        assert!(
            matches!(&obs.outcome, Outcome::ToolError { message, .. } if message.contains("no such city"))
        );
    }

    #[test]
    fn big_results_are_cut_on_a_character_boundary() {
        let obs = observe(
            CallToolResult::success(vec![ContentBlock::text("ééééé")]),
            5,
        );
        assert_eq!(obs.failure(), Some(FailureKind::ResponseTooLarge));
        assert_eq!(obs.body, Body::Text("éé".to_owned()));
        assert_eq!(obs.bytes, 10);
        assert!(obs.truncated);
    }

    #[test]
    fn failures_have_their_kinds() {
        let invalid = ServiceError::McpError(ErrorData::invalid_params("unknown tool `x`", None));
        assert_eq!(
            failure_of("s", "x", &invalid, "").failure(),
            Some(FailureKind::BadParameters)
        );
        let closed = failure_of(
            "s",
            "x",
            &ServiceError::TransportClosed,
            "panicked at main.rs",
        );
        assert_eq!(closed.failure(), Some(FailureKind::Network));
        assert!(
            matches!(&closed.outcome, Outcome::TransportError { message, .. } if message.contains("panicked at main.rs"))
        );
    }
}
