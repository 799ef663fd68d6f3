//! Local token counting with cl100k_base, for servers that send no `usage` and for test doubles.
//!
//! The BPE table is built once per process (a `OnceLock`), on first use.

use std::sync::OnceLock;

use tiktoken_rs::CoreBPE;

fn bpe() -> Option<&'static CoreBPE> {
    static BPE: OnceLock<Option<CoreBPE>> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::cl100k_base().ok()).as_ref()
}

/// Tokens of `text` under cl100k_base (special tokens counted as text). Falls back to
/// one token per 4 bytes if the table cannot be built, which does not happen with the
/// table compiled into tiktoken-rs.
pub fn count_tokens(text: &str) -> u64 {
    if text.is_empty() {
        return 0;
    }
    match bpe() {
        Some(bpe) => bpe.encode_ordinary(text).len() as u64,
        None => (text.len() as u64).div_ceil(4),
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
