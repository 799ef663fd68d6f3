//! How intent extraction and the fusion of per-intent rankings are configured.

use serde::{Deserialize, Serialize};

/// How the per-intent rankings become one list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntentFusion {
    /// Take every intent's first API, then every intent's second, and so on, skipping APIs
    /// already taken; within one round the higher score goes first (then the earlier intent).
    /// Each intent gets its share of the slots: the rule of the pilot (BM25 per
    /// intent, merged round-robin: recall@20 of gold APIs 38.6% -> 53.6%).
    #[default]
    RoundRobin,
    /// Reciprocal rank fusion: an API's score is the sum over intents of `1 / (k + rank)`
    /// (rank from 1, k = [`RRF_INTENT_K`]); an API several intents find rises, and an
    /// intent with a weak tail may get fewer slots than round-robin would give it.
    Rrf,
}

impl IntentFusion {
    /// The name `[retrieve.intents] fusion` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RoundRobin => "round_robin",
            Self::Rrf => "rrf",
        }
    }
}

/// The rank constant of [`IntentFusion::Rrf`] (Cormack et al., 2009).
pub const RRF_INTENT_K: f32 = 60.0;

/// Intent extraction at query time (`[retrieve.intents]`): off by default until measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IntentSettings {
    /// Whether requests are split into intents before ranking. By default off.
    pub enabled: bool,
    /// How the per-intent rankings are fused. By default [`IntentFusion::RoundRobin`].
    pub fusion: IntentFusion,
    /// At most this many intents are searched per request (the rest are dropped). By
    /// default 5: ToolBench's multi-tool requests name two to five needs.
    pub max_intents: usize,
}

impl IntentSettings {
    /// The defaults: off, round-robin, at most 5 intents.
    pub const DEFAULT: Self = Self {
        enabled: false,
        fusion: IntentFusion::RoundRobin,
        max_intents: 5,
    };
}

impl Default for IntentSettings {
    fn default() -> Self {
        Self::DEFAULT
    }
}
