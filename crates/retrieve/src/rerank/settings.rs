//! How the listwise reranking stage is configured (`[retrieve.rerank]`).

use serde::{Deserialize, Serialize};

/// Listwise LLM reranking of the first stage's top candidates: off by default until measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RerankSettings {
    /// Whether the first stage's top candidates are reordered by a model. By default off.
    pub enabled: bool,
    /// How many of the first stage's candidates the model sees (the window). By default 20,
    /// RankGPT's window (Sun et al., EMNLP 2023); 0 turns the stage off.
    pub depth: usize,
    /// Each candidate's doc (its one-line summary) is cut to this many characters in the
    /// prompt. By default 300: RankGPT cuts passages at 300 words, and a tool's one-line
    /// summary rarely needs more than 300 characters to say what it does.
    pub doc_chars: usize,
}

impl RerankSettings {
    /// The defaults: off, a window of 20, docs cut at 300 characters.
    pub const DEFAULT: Self = Self {
        enabled: false,
        depth: 20,
        doc_chars: 300,
    };
}

impl Default for RerankSettings {
    fn default() -> Self {
        Self::DEFAULT
    }
}
