//! The paper's reflection (§4.3, and the reference code's warm start): the solver re-runs from
//! its earlier path, cleaned of the steps that called APIs no longer in the pool and of its
//! final step, with the reason the attempt failed.

use toolsmith_llm::Message;

/// The user note that closes a cleaned history.
pub(crate) fn reason_note(reason: &str) -> String {
    format!(
        "Your earlier attempt did not solve the request: {reason}. Steps that used APIs removed \
         from your tools were dropped. Continue from here with the tools you have now."
    )
}

/// `path` (messages after the opening) split into steps (an assistant turn and the tool
/// results and notes after it), without the last step (the finish or give-up) and without
/// every step that called a function `keep` refuses, followed by the reason note.
pub(crate) fn cleaned(path: &[Message], keep: impl Fn(&str) -> bool, reason: &str) -> Vec<Message> {
    let mut steps: Vec<Vec<Message>> = Vec::new();
    for message in path {
        match (message, steps.last_mut()) {
            (Message::Assistant { .. }, _) | (_, None) => steps.push(vec![message.clone()]),
            (_, Some(step)) => step.push(message.clone()),
        }
    }
    steps.pop();
    let mut out: Vec<Message> = steps
        .into_iter()
        .filter(|step| {
            step.iter().all(|m| match m {
                Message::Assistant { tool_calls, .. } => tool_calls.iter().all(|c| keep(&c.name)),
                _ => true,
            })
        })
        .flatten()
        .collect();
    out.push(Message::user(reason_note(reason)));
    out
}

#[cfg(test)]
mod tests {
    use toolsmith_llm::ToolCall;

    use super::*;

    fn call(id: &str, name: &str) -> Message {
        Message::Assistant {
            content: None,
            tool_calls: vec![ToolCall {
                id: id.to_owned(),
                name: name.to_owned(),
                arguments: "{}".to_owned(),
            }],
        }
    }

    #[test]
    fn pruned_steps_and_the_final_step_go_and_the_reason_comes() {
        let path = vec![
            call("1", "search"),
            Message::tool("1", "found 7"),
            call("2", "details"),
            Message::tool("2", "error 500"),
            Message::user("call a function"),
            call("3", "other"),
            Message::tool("3", "ok"),
            call("4", "Finish"),
            Message::tool("4", "gave up"),
        ];
        let out = cleaned(&path, |name| name != "details", "details failed");
        let texts: Vec<&str> = out.iter().map(Message::text).collect();
        assert_eq!(out.len(), 5, "{out:?}");
        assert_eq!(out[0], call("1", "search"));
        assert_eq!(texts[1], "found 7");
        assert_eq!(out[2], call("3", "other"));
        assert!(texts[4].contains("details failed"), "{texts:?}");
        assert!(!texts.contains(&"error 500"));
        assert!(!texts.contains(&"gave up"));
    }
}
