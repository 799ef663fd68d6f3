//! Local token counting with cl100k_base, for servers that send no `usage` and for test doubles.
//!
//! The BPE table is tiktoken-rs's own singleton, built once per process on first use.

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
