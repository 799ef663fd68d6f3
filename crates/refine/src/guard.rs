//! Checks on a doc a model wrote, before it replaces the previous one: an empty doc or one
//! that grew far past the original is refused (the API keeps its last good version), and
//! harmless wrapping (code fences, quotes, surrounding blank lines) is repaired.

/// Length (in characters) the growth limit is measured against when the original doc is
/// shorter: an API documented in three words may still get a useful sentence or two.
const MIN_GROWTH_BASE_CHARS: usize = 120;

/// A new description, repaired, or the reason it was refused; `original_chars` is the length
/// of the doc it replaces.
pub(crate) fn check_description(
    new: &str,
    original_chars: usize,
    max_growth: f32,
) -> Result<String, String> {
    let limit = max_description_chars(original_chars, max_growth);
    check_description_within(new, limit).map_err(|e| {
        format!(
            "{e} ({max_growth}x the original's {original_chars}, counted as at least \
             {MIN_GROWTH_BASE_CHARS})"
        )
    })
}

/// A new description, repaired, or the reason it was refused: empty, or over `limit`
/// characters.
pub(crate) fn check_description_within(new: &str, limit: usize) -> Result<String, String> {
    let repaired = repair(new);
    if repaired.is_empty() {
        return Err("the rewritten doc is empty".into());
    }
    let len = repaired.chars().count();
    if len > limit {
        return Err(format!(
            "the rewritten doc has {len} characters, over its limit of {limit}"
        ));
    }
    Ok(repaired)
}

/// The longest description [`check_description`] accepts, so a prompt can say it up front.
pub(crate) fn max_description_chars(original_chars: usize, max_growth: f32) -> usize {
    let base = original_chars.max(MIN_GROWTH_BASE_CHARS);
    // `as` saturates: a growth limit is a positive setting, so this is the rounded product.
    (base as f64 * f64::from(max_growth)).round() as usize
}

/// Strips code fences, one pair of surrounding quotes and outer whitespace.
fn repair(text: &str) -> String {
    let mut t = text.trim();
    if let Some(rest) = t.strip_prefix("```") {
        let body = rest.split_once('\n').map_or("", |(_, b)| b);
        t = body.strip_suffix("```").unwrap_or(body).trim();
    }
    for q in ['"', '\''] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            t = t[1..t.len() - 1].trim();
        }
    }
    t.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_overlong_docs_are_refused_and_wrapping_is_repaired() {
        assert!(check_description("  \n", 14, 10.0).is_err());
        let long = "word ".repeat(400);
        let err = check_description(&long, 14, 10.0).unwrap_err();
        assert!(err.contains("over its limit of 1200 (10x"), "{err}");
        assert_eq!(max_description_chars(14, 10.0), 1200);
        assert_eq!(max_description_chars(300, 10.0), 3000);
        assert!(check_description(&"w".repeat(1200), 14, 10.0).is_ok());
        assert_eq!(
            check_description("```text\nFinds movies by title.\n```", 1, 10.0).unwrap(),
            "Finds movies by title."
        );
        assert_eq!(
            check_description("\"Finds movies.\"", 1, 10.0).unwrap(),
            "Finds movies."
        );
    }
}
