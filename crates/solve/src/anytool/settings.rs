//! AnyTool's settings: the paper's and toolsmith's defaults.

use serde::{Deserialize, Serialize};

use super::hierarchy::CategoryBy;
use crate::settings::DfsdtSettings;

/// AnyTool's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnyToolSettings {
    /// Most APIs in the candidate pool: 64 (§5.3, Table 6).
    pub pool_cap: usize,
    /// Most LLM rounds per agent: 20.
    pub max_agent_rounds: usize,
    /// Most tools one tool agent manages: 5 (§5.3, Table 7; prompt of Appendix B.1).
    pub tools_per_agent: usize,
    /// Most self-reflection rounds: 5 (§4.3; Figure 3 counts up to 5-6).
    pub reflection_rounds: usize,
    /// Tokens per query, every part included: 200,000 (Appendix A.1).
    pub token_budget: u64,
    /// Votes of the answer check, passing only on a majority of `Solved`: 3.
    pub judge_votes: usize,
    /// Stop the answer check's votes once a majority is reached (the verdict is the one every
    /// vote would give; toolsmith's: the paper asks all 3): on in search-assisted mode (the
    /// judge's part, G1 / G2: 451 / 429 tokens per query without, 300 / 286 with).
    pub judge_early_stop: bool,
    /// Agents asking the model at once (the paper runs them multi-threaded, §4.1, without a
    /// stated bound): 8.
    pub concurrency: usize,
    /// Order and cut the meta and category agents' listings by search relevance
    /// (toolsmith's; the paper has none).
    pub search_assisted: bool,
    /// Entries shown per listing in search-assisted mode: 20 (30 cost 240 / 335 more tokens
    /// per query on G1 / G2 and recovered no lost answer).
    pub listing_cut: usize,
    /// Search hits that score the tools and categories: 300 in the paper's protocol (where
    /// nothing is scored); 1,000 in search-assisted mode (measured on ToolEnv2404 G2 with
    /// BM25: 300 left a gold tool unscored and cut from its category's listing; 1,000 and
    /// 3,000 both keep it and cost no tokens).
    pub search_depth: usize,
    /// Tools named on each category's line of the meta agent's listing in search-assisted
    /// mode (its most relevant ones; 0: none): 3 (measured, tokens per query on G1 / G2: 5
    /// names 3,970 / 4,984, 3 3,770 / 4,721, 0 3,492 / 4,320; the scripted policy picks
    /// categories without reading the names, so what they buy a real model is unmeasured and
    /// 3 keeps some).
    pub listing_tools: usize,
    /// Search hits that seed the pool before any agent runs, in search-assisted mode (0: no
    /// seeding): 8. The paper has no such stage. Measured on ToolEnv2404 (BM25, the scripted
    /// policy of `tests/it/anytool_measure.rs`, 14 G1 / 10 G2 queries), tokens per query vs
    /// paper mode: seed 0 0.69x / 1.13x, 8 0.73x / 1.31x, 12 0.82x / 1.56x, 16 0.95x / 1.83x;
    /// LLM calls on G1 14.6 (seed 0) vs 9.9 (seed 8). Seeding saves calls but not tokens: the
    /// solver's prompt carries every seeded API. With the other search-assisted defaults
    /// (`trim_pool`, `stop_unchanged`, ...), seed 8 / 12 / 16 / 24: G1 0.37x / 0.32x / 0.34x /
    /// 0.34x, G2 0.60x / 0.63x / 0.67x / 0.69x: 8 stays (the better on the harder set).
    pub seed_k: usize,
    /// Give the solver's first attempt only the pooled APIs the solvability check that ended
    /// the search named as needed (with the pooled producers of the ids they need when a tool
    /// graph is stored); the whole pool when it named none or an API not in the pool, and on
    /// every reflection round (toolsmith's; the paper's solver gets the whole pool): on in
    /// search-assisted mode (seed 8, G1 / G2: 4,623 / 5,370 tokens per query untrimmed, 3,770 /
    /// 4,721 trimmed; the solver's part 1,799 -> 888 on G1).
    pub trim_pool: bool,
    /// Characters of each pooled API's description in the solvability check's prompt (0: ids
    /// only): 150 in the paper's protocol, 60 in search-assisted mode (the search stage's
    /// check, G1 / G2: 374 / 341 tokens at 150, 320 / 296 at 60, 236 / 223 at 0; ids alone
    /// leave a model nothing to judge by).
    pub check_doc_chars: usize,
    /// End self-reflection when a round's search leaves the solver exactly the APIs of the
    /// attempt that failed (nothing added, nothing pruned) instead of re-running it on them
    /// (toolsmith's; the paper re-runs up to `reflection_rounds`): on in search-assisted mode
    /// (G1 / G2: 6,067 / 7,085 tokens per query without, 3,770 / 4,721 with; the unanswered
    /// queries re-ran the solver five times on the same pool).
    pub stop_unchanged: bool,
    /// How a reflection round re-runs the solver: the paper's cleaned history, or fresh.
    pub reflection_history: ReflectionHistory,
    /// On each reflection round in search-assisted mode, every category agent whose listing
    /// was cut has its cut multiplied by this and is re-activated (even one that finished: it
    /// finished on a cut listing) with the tools the wider listing adds; a round that widened
    /// a listing but left the solver the same APIs is followed by another round of search
    /// (up to `reflection_rounds`) instead of `stop_unchanged`'s stop (1: never widened, the
    /// paper's protocol, which cuts nothing): 3 in search-assisted mode (toolsmith's). Measured
    /// (scripted policy, 15 G1 / 10 G2 queries): 1 answers 14 / 9 at 0.39x / 0.60x of paper
    /// mode's tokens (a gold tool ranked past its category's 20-tool cut is lost); 2 answers
    /// 15 / 10 at 0.47x / 0.66x; 3 answers 15 / 10 at 0.44x / 0.65x (fewer rounds).
    pub reflection_widen: usize,
    /// What a tool's category is.
    pub category_by: CategoryBy,
    /// The solver's DFSDT: ToolBench's width and depth, at most 10 LLM calls (Appendix A.1
    /// caps the solver at 10 API calls; a DFSDT step usually makes one).
    pub dfsdt: DfsdtSettings,
}

impl AnyToolSettings {
    /// The paper's protocol: no search assistance.
    pub const PAPER: Self = Self {
        pool_cap: 64,
        max_agent_rounds: 20,
        tools_per_agent: 5,
        reflection_rounds: 5,
        token_budget: 200_000,
        judge_votes: 3,
        judge_early_stop: false,
        concurrency: 8,
        search_assisted: false,
        listing_cut: 20,
        search_depth: 300,
        listing_tools: 5,
        seed_k: 8,
        trim_pool: false,
        stop_unchanged: false,
        check_doc_chars: 150,
        reflection_history: ReflectionHistory::Cleaned,
        reflection_widen: 1,
        category_by: CategoryBy::Category,
        dfsdt: DfsdtSettings {
            max_llm_calls: 10,
            ..DfsdtSettings::PAPER
        },
    };
}

impl AnyToolSettings {
    /// These settings under the paper's protocol: toolsmith's additions (search assistance,
    /// pool trimming, the check's compact listing) off, the rest kept.
    pub fn paper(self) -> Self {
        Self {
            search_assisted: false,
            trim_pool: false,
            stop_unchanged: false,
            judge_early_stop: false,
            check_doc_chars: Self::PAPER.check_doc_chars,
            reflection_widen: Self::PAPER.reflection_widen,
            ..self
        }
    }
}

impl Default for AnyToolSettings {
    /// The paper's, with search assistance on.
    fn default() -> Self {
        Self {
            search_assisted: true,
            trim_pool: true,
            stop_unchanged: true,
            judge_early_stop: true,
            search_depth: 1000,
            listing_tools: 3,
            check_doc_chars: 60,
            reflection_widen: 3,
            ..Self::PAPER
        }
    }
}

/// How a reflection round re-runs the solver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReflectionHistory {
    /// The paper's (§4.3; the reference code's warm start): the earlier attempt's path minus
    /// its final step and the steps that called APIs no longer in the pool, plus the reason.
    #[default]
    Cleaned,
    /// A fresh history each attempt.
    Fresh,
}
