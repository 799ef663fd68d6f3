//! Whether a final answer is a refusal ("I cannot answer this with the available tools").
//!
//! A solver without a give-up action (ConAgents) or a model that ignores it declines through
//! its answer text. Such a run gave up, whatever action ended it, so every solver's end passes
//! through [`is_refusal`] (in `solver::finished`). The check is deliberately narrow: a short
//! answer whose opening sentence declines the task. An answer that states a finding ("No, it is
//! not in the list", "I found no films by him") is an answer, not a refusal.

/// The longest answer still read as a refusal: longer answers carry content a judge must weigh.
const MAX_REFUSAL_CHARS: usize = 400;

/// Ways of saying "not able to".
const UNABLE: &[&str] = &[
    "cannot",
    "can not",
    "can't",
    "could not",
    "couldn't",
    "unable to",
    "not able to",
    "was not possible to",
    "is not possible to",
    "not possible for me to",
];

/// What a refusal declines to do (after an [`UNABLE`] phrase).
const TASKS: &[&str] = &[
    "answer",
    "help",
    "assist",
    "complete",
    "fulfil",
    "fulfill",
    "determine",
    "provide",
    "perform",
    "retrieve",
    "obtain",
    "access",
    "accomplish",
    "resolve",
    "do this",
    "do that",
];

/// Phrases that decline on their own.
const DECLINES: &[&str] = &[
    "cannot be answered",
    "can't be answered",
    "cannot be determined",
    "can't be determined",
    "not enough information",
    "insufficient information",
    "do not have access",
    "don't have access",
    "do not have the necessary",
    "don't have the necessary",
    "do not have enough",
    "don't have enough",
    "no tool",
    "none of the available tools",
    "none of the tools",
    "no available tool",
];

/// How a run's tools are referred to in a refusal ("with the available tools").
const TOOLS: &[&str] = &[
    "available tools",
    "tools available",
    "provided tools",
    "tools provided",
    "given tools",
    "tools given",
    "tools i have",
    "the tools at my disposal",
];

/// Whether `answer` declines the task instead of answering it: a short text (at most
/// [`MAX_REFUSAL_CHARS`]) whose first sentence says it cannot answer, help or find out, or
/// that the tools or information available do not allow it.
pub fn is_refusal(answer: &str) -> bool {
    let text = normalize(answer);
    if text.is_empty() || text.chars().count() > MAX_REFUSAL_CHARS {
        return false;
    }
    let first = first_sentence(&text);
    let unable_then_task = UNABLE.iter().any(|u| {
        first.match_indices(u).any(|(at, _)| {
            let rest = first[at + u.len()..].trim_start();
            TASKS.iter().any(|t| rest.starts_with(t))
        })
    });
    let negated = UNABLE.iter().any(|u| first.contains(u))
        || [" not ", "n't ", " no "].iter().any(|n| first.contains(n));
    let tools_lacking = negated && TOOLS.iter().any(|t| first.contains(t));
    unable_then_task || tools_lacking || DECLINES.iter().any(|d| first.contains(d))
}

/// Lowercase, typographic apostrophes made plain, whitespace collapsed, padded with a space on
/// both sides so word phrases match at the edges.
fn normalize(answer: &str) -> String {
    let plain = answer.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    let words: Vec<&str> = plain.split_whitespace().collect();
    if words.is_empty() {
        return String::new();
    }
    format!(" {} ", words.join(" "))
}

/// The text up to its first sentence end (`.`, `!`, `?` or `;` followed by a space), with a
/// space kept at the end.
fn first_sentence(text: &str) -> &str {
    let bytes = text.as_bytes();
    let end = bytes
        .windows(2)
        .position(|w| matches!(w[0], b'.' | b'!' | b'?' | b';') && w[1] == b' ')
        .map_or(text.len(), |at| at + 2);
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_in_many_wordings_are_recognised() {
        for refusal in [
            "I cannot answer this with the available tools.",
            "I can’t answer that question with the tools provided.",
            "Sorry, I am unable to determine the director's other films.",
            "I could not complete the request: the API returned no data.",
            "Unfortunately it is not possible to answer this using the given tools.",
            "The question cannot be answered with the information available.",
            "I don't have access to a tool that lists playlists.",
            "None of the available tools returns box-office figures.",
            "The available tools do not provide this information.",
            "I was unable to retrieve the album list",
            "Not enough information to answer.",
        ] {
            assert!(is_refusal(refusal), "{refusal}");
        }
    }

    #[test]
    fn answers_that_state_a_finding_are_not_refusals() {
        for answer in [
            "No, Mulholland Drive is not in the top-10 rated list.",
            "Christopher Nolan directed Inception, Interstellar and Tenet.",
            "I found no films by him in 2019; his last film came out in 2017.",
            "The profit will be about $488,574.85.",
            "It cannot be negative: the balance is 12.5.",
            "",
            "   ",
        ] {
            assert!(!is_refusal(answer), "{answer}");
        }
        // A long answer with content is left to the judge, even if it opens with a caveat.
        let long = format!(
            "I could not answer every part. {}",
            "The cast includes many actors. ".repeat(20)
        );
        assert!(!is_refusal(&long));
    }
}
