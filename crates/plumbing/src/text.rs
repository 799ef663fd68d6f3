//! Cutting text to a number of characters, always on a character boundary.

/// The longest prefix of `text` with at most `max` characters (never splits a character).
pub fn char_prefix(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}

/// The first `max` characters of `text`, with `…` appended when something was cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    truncate_with(text, max, "…")
}

/// The first `max` characters of `text`, with `marker` appended when something was cut
/// (for outputs whose format fixes the marker, such as `...`).
pub fn truncate_with(text: &str, max: usize, marker: &str) -> String {
    let head = char_prefix(text, max);
    if head.len() == text.len() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(head.len() + marker.len());
    out.push_str(head);
    out.push_str(marker);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_on_character_boundaries_and_marks_the_cut() {
        assert_eq!(truncate_chars("abcdef", 3), "abc…");
        assert_eq!(truncate_chars("abc", 3), "abc");
        assert_eq!(truncate_chars("ééé", 2), "éé…");
        assert_eq!(truncate_chars("", 0), "");
        assert_eq!(truncate_chars("a", 0), "…");
        assert_eq!(truncate_with("abcdef", 4, "..."), "abcd...");
        assert_eq!(truncate_with("abcd", 4, "..."), "abcd");
    }

    #[test]
    fn prefixes_never_split_a_character() {
        assert_eq!(char_prefix("日本語テキスト", 3), "日本語");
        assert_eq!(char_prefix("ab", 5), "ab");
        assert_eq!(char_prefix("héllo", 2), "hé");
        assert_eq!(char_prefix("héllo", 0), "");
    }
}
