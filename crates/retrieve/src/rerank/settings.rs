//! How the listwise reranking stage is configured (`[retrieve.rerank]`).

use serde::{Deserialize, Serialize};

/// Which candidates the model sees for a request that intent extraction split into several
/// intents (a one-intent request, or a pipeline without intents, always gets the fused window).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RerankWindow {
    /// The first stage's top [`RerankSettings::depth`] of the (fused) list, as one list.
    #[default]
    Fused,
    /// Each intent's own top [`RerankSettings::per_intent`], de-duplicated and shown grouped
    /// by need; the model picks per need, and the picks are interleaved so every need gets
    /// its share of the first slots. The candidates are those a round-robin fused window of
    /// the same size holds; what changes is that each need is judged against its own list,
    /// so a long window stays a set of short per-need choices.
    PerIntent,
}

impl RerankWindow {
    /// The name `[retrieve.rerank] window` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fused => "fused",
            Self::PerIntent => "per_intent",
        }
    }
}

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
    /// The window of a request with several intents. By default [`RerankWindow::Fused`]
    /// (the measured behaviour); `per_intent` needs intent extraction on.
    pub window: RerankWindow,
    /// With [`RerankWindow::PerIntent`]: how deep each intent's own list is shown. By default
    /// 30, the knee of the ceiling on ToolBench G2 over ToolEnv2404 (117 queries, hybrid,
    /// stand-in intents; `bench retrieval --intents --coverage-k 5,10,15,20,30,40`): the union
    /// of the per-intent top m holds the whole gold path for 48.7 / 56.4 / 61.5 / 66.7 / 75.2 /
    /// 76.9% of queries at m = 5 / 10 / 15 / 20 / 30 / 40, for 11 / 22 / 33 / 44 / 66 / 87
    /// candidates on average. At 30 it passes the fused window of 40's ceiling (66.7) by 8.5
    /// points; 40 adds 1.7 points for 21 more candidates. 0 falls back to the fused window.
    pub per_intent: usize,
}

impl RerankSettings {
    /// The defaults: off, a fused window of 20 (30 per intent when `per_intent`), docs cut at
    /// 300 characters.
    pub const DEFAULT: Self = Self {
        enabled: false,
        depth: 20,
        doc_chars: 300,
        window: RerankWindow::Fused,
        per_intent: 30,
    };

    /// Whether a request with several intents gets the per-intent window.
    pub fn per_intent_window(&self) -> bool {
        self.window == RerankWindow::PerIntent && self.per_intent > 0
    }
}

impl Default for RerankSettings {
    fn default() -> Self {
        Self::DEFAULT
    }
}
