//! Cutting a long observation for the judge so that what the final answer cites survives.
//!
//! A plain head cut can remove the very value the answer is judged on (a release date deep in
//! a details object, an id far down a list). [`excerpt`] keeps the head of the observation and,
//! for each value the answer quotes (numbers, ids, capitalised names) that occurs past the
//! head, a window around its first occurrence; the parts left out are marked `[...]`. The
//! result never exceeds the limit by more than its markers.

/// Marks a part of the observation left out.
const GAP: &str = " [...] ";

/// Characters kept on each side of a cited value (when the budget allows).
const CONTEXT: usize = 60;

/// At most this many cited values are looked for.
const MAX_CITED: usize = 24;

/// `observation` within about `limit` characters: whole when it fits; else its head plus a
/// window around the first occurrence of each value `answer` cites that the head misses.
pub(crate) fn excerpt(observation: &str, answer: &str, limit: usize) -> String {
    let chars: Vec<char> = observation.chars().collect();
    if chars.len() <= limit {
        return observation.to_owned();
    }
    let found = cited_spans(observation, answer);
    let slots = found.len() + 1;
    let slot = limit / slots;
    let missed: Vec<(usize, usize)> = found.into_iter().filter(|(_, end)| *end > slot).collect();
    if missed.is_empty() {
        return head_cut(&chars, limit);
    }
    let slot = limit / (missed.len() + 1);
    let windows: Vec<(usize, usize)> = missed
        .into_iter()
        .map(|(start, end)| {
            let side = (slot.saturating_sub(end - start) / 2).min(CONTEXT);
            (start.saturating_sub(side), (end + side).min(chars.len()))
        })
        .collect();
    // The head takes what the windows leave.
    let used: usize = windows.iter().map(|(start, end)| end - start).sum();
    let head = limit.saturating_sub(used).max(slot);
    let mut spans = windows;
    spans.push((0, head));
    join(&chars, &merge(spans))
}

/// The head of `chars` cut at `limit`, marked.
fn head_cut(chars: &[char], limit: usize) -> String {
    let mut out: String = chars[..limit.min(chars.len())].iter().collect();
    out.push_str(GAP.trim_end());
    out
}

/// Spans sorted by start with overlapping or touching ones merged.
fn merge(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (start, end) in spans {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// The spans' text, a gap marker wherever something was left out.
fn join(chars: &[char], spans: &[(usize, usize)]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (start, end) in spans {
        if *start > at {
            out.push_str(if at == 0 { GAP.trim_start() } else { GAP });
        }
        out.extend(&chars[*start..*end]);
        at = *end;
    }
    if at < chars.len() {
        out.push_str(GAP.trim_end());
    }
    out
}

/// Character spans of the first occurrence in `observation` of each value `answer` cites,
/// sorted by position.
fn cited_spans(observation: &str, answer: &str) -> Vec<(usize, usize)> {
    let mut spans: Vec<(usize, usize)> = cited_values(answer)
        .iter()
        .filter_map(|value| {
            let byte = observation.find(value.as_str())?;
            let start = observation[..byte].chars().count();
            Some((start, start + value.chars().count()))
        })
        .collect();
    spans.sort_unstable();
    spans.dedup();
    spans
}

/// The values an answer quotes: numbers of two or more characters (as written, and without
/// thousands separators), tokens mixing letters and digits (ids), and capitalised words of
/// three or more letters (names, titles). Common sentence words are not values.
fn cited_values(answer: &str) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    let mut push = |v: String| {
        if !values.contains(&v) && values.len() < MAX_CITED {
            values.push(v);
        }
    };
    for token in answer.split(|c: char| !(c.is_alphanumeric() || "-_.,:/".contains(c))) {
        let token = token.trim_matches(|c: char| !c.is_alphanumeric());
        let digits = token.chars().filter(char::is_ascii_digit).count();
        let letters = token.chars().filter(|c| c.is_alphabetic()).count();
        if digits > 0 && letters == 0 && token.chars().count() >= 2 {
            push(token.to_owned());
            if token.contains(',') {
                push(token.replace(',', ""));
            }
        } else if (digits > 0 && letters > 0) || is_name(token) {
            push(token.to_owned());
        }
    }
    values
}

/// A capitalised word of three or more letters that is not a common sentence opener.
fn is_name(token: &str) -> bool {
    const COMMON: [&str; 16] = [
        "The", "This", "That", "These", "Those", "There", "Here", "And", "But", "For", "With",
        "Its", "His", "Her", "Their", "Yes",
    ];
    token.chars().count() >= 3
        && token.chars().next().is_some_and(char::is_uppercase)
        && token.chars().all(char::is_alphabetic)
        && !COMMON.contains(&token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_observation_is_kept_whole() {
        assert_eq!(excerpt("{\"id\": 1}", "1", 500), "{\"id\": 1}");
    }

    #[test]
    fn a_value_past_the_cut_survives_with_its_context() {
        let filler = format!("{{\"overview\": \"{}\", ", "x".repeat(2000));
        let observation = format!("{filler}\"release_date\": \"1994-09-23\", \"runtime\": 142}}");
        let shown = excerpt(&observation, "It was released on 1994-09-23.", 500);
        assert!(
            shown.contains("\"release_date\": \"1994-09-23\""),
            "{shown}"
        );
        assert!(
            shown.starts_with("{\"overview\""),
            "the head is kept: {shown}"
        );
        assert!(shown.contains("[...]"), "{shown}");
        assert!(shown.chars().count() <= 500 + 2 * GAP.len(), "{shown}");
        // The head takes the room the window leaves.
        assert!(shown.chars().count() > 400, "{shown}");
    }

    #[test]
    fn without_a_cited_value_past_the_head_the_head_is_cut() {
        let observation = format!(
            "{{\"name\": \"Dune\", \"overview\": \"{}\"}}",
            "y".repeat(900)
        );
        let shown = excerpt(&observation, "Dune is a film.", 100);
        assert!(shown.starts_with("{\"name\": \"Dune\""));
        assert!(shown.ends_with("[...]"));
        assert_eq!(shown.chars().count(), 100 + "[...]".len() + 1);
    }

    #[test]
    fn the_values_an_answer_cites() {
        let values = cited_values(
            "The Shawshank Redemption (id tt0111161) earned $28,341,469 and is rated 9.3; it runs 142 minutes.",
        );
        for v in [
            "Shawshank",
            "Redemption",
            "tt0111161",
            "28,341,469",
            "28341469",
            "9.3",
            "142",
        ] {
            assert!(values.contains(&v.to_owned()), "{v} in {values:?}");
        }
        assert!(!values.contains(&"The".to_owned()));
    }
}
