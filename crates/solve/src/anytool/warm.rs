//! The paper's reflection (§4.3, and the reference code's warm start): the solver re-runs from
//! its earlier path, cleaned of the calls to APIs no longer in the pool and of its final step,
//! with the reasons every earlier attempt failed.

use std::collections::HashSet;

use toolsmith_llm::Message;

/// How every reasons note begins (so a later cleaning finds and replaces an earlier one).
const NOTE_HEAD: &str = "Your earlier attempt";

/// The user note that closes a cleaned history: why each earlier attempt failed, oldest first.
pub(crate) fn reasons_note(reasons: &[String]) -> String {
    let tail = "Calls to APIs removed from your tools were dropped. Continue from here with the \
                tools you have now.";
    match reasons {
        [one] => format!("{NOTE_HEAD} did not solve the request: {one}. {tail}"),
        many => {
            let listed: Vec<String> = many
                .iter()
                .enumerate()
                .map(|(i, r)| format!("{}. {r}", i + 1))
                .collect();
            format!(
                "{NOTE_HEAD}s ({}) did not solve the request:\n{}\n{tail}",
                many.len(),
                listed.join("\n")
            )
        }
    }
}

/// Whether `message` is a reasons note of an earlier cleaning.
fn is_note(message: &Message) -> bool {
    matches!(message, Message::User(text) if text.starts_with(NOTE_HEAD))
}

/// `path` (messages after the opening) split into steps (an assistant turn and the tool
/// results and notes after it), without the last step (the finish or give-up), without the
/// calls to functions `keep` refuses and their results (a step keeps its other calls; a step
/// left with none goes whole), and without earlier reasons notes, followed by the note of
/// every reason in `reasons`.
pub(crate) fn cleaned(
    path: &[Message],
    keep: impl Fn(&str) -> bool,
    reasons: &[String],
) -> Vec<Message> {
    let mut steps: Vec<Vec<Message>> = Vec::new();
    for message in path.iter().filter(|m| !is_note(m)) {
        match (message, steps.last_mut()) {
            (Message::Assistant { .. }, _) | (_, None) => steps.push(vec![message.clone()]),
            (_, Some(step)) => step.push(message.clone()),
        }
    }
    steps.pop();
    let mut out: Vec<Message> = steps
        .into_iter()
        .filter_map(|step| pruned(step, &keep))
        .flatten()
        .collect();
    out.push(Message::user(reasons_note(reasons)));
    out
}

/// One step without the calls `keep` refuses and their results; `None` when it called
/// functions and none is left.
fn pruned(step: Vec<Message>, keep: &impl Fn(&str) -> bool) -> Option<Vec<Message>> {
    let mut dropped: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(step.len());
    for message in step {
        match message {
            Message::Assistant {
                content,
                tool_calls,
            } => {
                let called = !tool_calls.is_empty();
                let (kept, gone): (Vec<_>, Vec<_>) =
                    tool_calls.into_iter().partition(|c| keep(&c.name));
                if called && kept.is_empty() {
                    return None;
                }
                dropped.extend(gone.into_iter().map(|c| c.id));
                out.push(Message::Assistant {
                    content,
                    tool_calls: kept,
                });
            }
            Message::Tool { call_id, .. } if dropped.contains(&call_id) => {}
            other => out.push(other),
        }
    }
    Some(out)
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
        let out = cleaned(
            &path,
            |name| name != "details",
            &["details failed".to_owned()],
        );
        let texts: Vec<&str> = out.iter().map(Message::text).collect();
        assert_eq!(out.len(), 5, "{out:?}");
        assert_eq!(out[0], call("1", "search"));
        assert_eq!(texts[1], "found 7");
        assert_eq!(out[2], call("3", "other"));
        assert!(texts[4].contains("details failed"), "{texts:?}");
        assert!(!texts.contains(&"error 500"));
        assert!(!texts.contains(&"gave up"));
    }

    #[test]
    fn a_pruned_call_leaves_the_allowed_call_of_its_step() {
        let both = Message::Assistant {
            content: Some("look both up".to_owned()),
            tool_calls: vec![
                ToolCall {
                    id: "1".to_owned(),
                    name: "search".to_owned(),
                    arguments: "{}".to_owned(),
                },
                ToolCall {
                    id: "2".to_owned(),
                    name: "details".to_owned(),
                    arguments: "{}".to_owned(),
                },
            ],
        };
        let path = vec![
            both,
            Message::tool("1", "found 7"),
            Message::tool("2", "error 500"),
            call("3", "Finish"),
        ];
        let out = cleaned(
            &path,
            |name| name != "details",
            &["details failed".to_owned()],
        );
        assert_eq!(out.len(), 3, "{out:?}");
        match &out[0] {
            Message::Assistant {
                content,
                tool_calls,
            } => {
                assert_eq!(content.as_deref(), Some("look both up"));
                let names: Vec<&str> = tool_calls.iter().map(|c| c.name.as_str()).collect();
                assert_eq!(names, ["search"]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(out[1].text(), "found 7");
    }

    #[test]
    fn a_second_cleaning_lists_every_reason_once() {
        let reasons = ["first failed".to_owned(), "second failed".to_owned()];
        let path = vec![
            call("1", "search"),
            Message::tool("1", "found 7"),
            Message::user(reasons_note(&reasons[..1])),
            call("2", "other"),
            Message::tool("2", "ok"),
            call("3", "Finish"),
        ];
        let out = cleaned(&path, |_| true, &reasons);
        let notes: Vec<&str> = out
            .iter()
            .filter(|m| is_note(m))
            .map(Message::text)
            .collect();
        assert_eq!(notes.len(), 1, "{out:?}");
        assert!(notes[0].contains("1. first failed"), "{}", notes[0]);
        assert!(notes[0].contains("2. second failed"), "{}", notes[0]);
        assert_eq!(out.len(), 5, "{out:?}");
    }
}
