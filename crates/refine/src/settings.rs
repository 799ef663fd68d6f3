//! Every knob of the refinement methods and runs. `Default` is each paper's run (`PAPER`).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::invented::InventedValues;

/// DRAFT's knobs. Every field is a setting; `Default` is the paper's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DraftSettings {
    /// Rounds of explore/analyze/rewrite per API at most (I).
    pub max_rounds: u32,
    /// A new exploration query needs cosine below this to every earlier query of the API (phi).
    pub diversity_threshold: f32,
    /// Explorer replies per round at most when queries are too similar (the last is kept).
    pub diversity_tries: u32,
    /// Stop when (cosine + BLEU) / 2 of two consecutive docs exceeds this (tau).
    pub stop_similarity: f32,
    /// Check the diversity of queries (off: the `--no-diversity` ablation).
    pub diversity: bool,
    /// Stop an API early when its doc settles (off: the `--no-adaptive-stop` ablation).
    pub adaptive_stop: bool,
    /// Characters of a tool's response shown to the analyzer and rewriter.
    pub max_observation_chars: usize,
    /// Sampling temperature of every DRAFT call.
    pub temperature: f32,
    /// A rewritten doc longer than this many times the original is rejected.
    pub max_growth: f32,
    /// A rewritten doc longer than this many characters is rejected, whatever `max_growth`
    /// allows: a retrieval index reads an API by its description, and a long one dilutes BM25
    /// and overflows a small embedder's window. Not the paper's (it sets no length); DRAFT's
    /// published ToolBench docs average about 200 characters.
    pub max_chars: usize,
    /// What may be learnt from a simulated or model-written response; a new run takes it
    /// from `[refine] invented_values` (default `shape_only`).
    pub invented_values: InventedValues,
}

impl DraftSettings {
    /// DRAFT (ICLR 2025), §3 and its reference code: I = 5 rounds, phi = 0.9 with 3 tries,
    /// tau = 0.75, temperature 0.2, observations cut at 2,048 characters.
    pub const PAPER: Self = Self {
        max_rounds: 5,
        diversity_threshold: 0.9,
        diversity_tries: 3,
        stop_similarity: 0.75,
        diversity: true,
        adaptive_stop: true,
        max_observation_chars: 2048,
        temperature: 0.2,
        max_growth: 10.0,
        max_chars: 300,
        invented_values: InventedValues::ShapeOnly,
    };

    /// Refuses values no run can use.
    pub fn validate(&self) -> Result<()> {
        if self.max_rounds == 0 {
            return Err(setting("max_rounds", "must be at least 1"));
        }
        if self.diversity_tries == 0 {
            return Err(setting("diversity_tries", "must be at least 1"));
        }
        if !(0.0..=1.0).contains(&self.diversity_threshold) {
            return Err(setting("diversity_threshold", "must be within 0..=1"));
        }
        if !(0.0..=1.0).contains(&self.stop_similarity) {
            return Err(setting("stop_similarity", "must be within 0..=1"));
        }
        if self.max_growth <= 1.0 {
            return Err(setting("max_growth", "must be above 1"));
        }
        if self.max_chars < MIN_MAX_CHARS {
            return Err(setting(
                "max_chars",
                &format!("must be at least {MIN_MAX_CHARS}"),
            ));
        }
        Ok(())
    }

    /// The longest rewritten description accepted for an API whose original doc has
    /// `original_chars`: the growth limit, capped at `max_chars`.
    pub fn description_limit(&self, original_chars: usize) -> usize {
        crate::guard::max_description_chars(original_chars, self.max_growth).min(self.max_chars)
    }
}

/// The shortest `max_chars` accepted: room for a sentence on purpose and one on parameters.
const MIN_MAX_CHARS: usize = 80;

impl Default for DraftSettings {
    fn default() -> Self {
        Self::PAPER
    }
}

/// EasyTool's knobs. `Default` is the paper's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EasyToolSettings {
    /// Usage scenarios asked for per API.
    pub examples_per_api: usize,
    /// Times a failed example is regenerated with its error before it is dropped.
    pub regenerations: u32,
    /// Sampling temperature (EasyTool ran LangChain's default, 0.7).
    pub temperature: f32,
    /// A rewritten doc longer than this many times the original is rejected.
    pub max_growth: f32,
    /// What may be learnt from a simulated or model-written response; a new run takes it
    /// from `[refine] invented_values` (default `shape_only`).
    pub invented_values: InventedValues,
}

impl EasyToolSettings {
    /// EasyTool (Yuan et al., 2024), §3: one scenario with concrete parameters per function,
    /// LangChain's default temperature 0.7; a failed example is regenerated once (issue 12).
    pub const PAPER: Self = Self {
        examples_per_api: 1,
        regenerations: 1,
        temperature: 0.7,
        max_growth: 10.0,
        invented_values: InventedValues::ShapeOnly,
    };

    /// Refuses values no run can use.
    pub fn validate(&self) -> Result<()> {
        if self.examples_per_api == 0 {
            return Err(setting("examples_per_api", "must be at least 1"));
        }
        if self.max_growth <= 1.0 {
            return Err(setting("max_growth", "must be above 1"));
        }
        Ok(())
    }
}

impl Default for EasyToolSettings {
    fn default() -> Self {
        Self::PAPER
    }
}

fn setting(field: &'static str, reason: &str) -> Error {
    Error::Setting {
        field,
        reason: reason.to_owned(),
    }
}
