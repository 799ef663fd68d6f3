//! The `[synth]` table: how `toolsmith synth` makes an evaluation set.
//!
//! ```toml
//! [synth]
//! single = 6           # single-API paths
//! chains = 40          # dependency chains of 2-3 APIs (tool graph)
//! combos = 4           # each of ToolBench's I1 / I2 / I3 combinations, where the catalog has them
//! two_step_share = 0.7 # chains of two APIs (the rest: three), where the graph has both
//! chain_start = "entity_first"  # chains starting at an API that finds an entity by name first; or "any"
//! per_path = 3         # requests written per path
//! eval_share = 0.5     # kept requests that go to the held-out `eval` split (the rest: `index`)
//! dedup_threshold = 0.9  # cosine of a near-duplicate (DRAFT's phi)
//! answer_check = true  # the model confirms the responses answer each request
//! doc_echo_max = 0.6   # drop a request whose content words repeat its gold APIs' docs more
//! doc_echo_min = 0.0   # drop a request that shares less of its docs' words (0.09: users' p10)
//! concurrency = 4
//! seed = 0
//! ```

use serde::Deserialize;
use toolsmith_eval::synth::{ChainStart, DEFAULT_TWO_STEP_SHARE};

/// `[synth]` of `toolsmith.toml`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct SynthConfig {
    /// Single-API paths (6; with 40 chains and 4 combinations, RestBench TMDB's human mix of
    /// path lengths, 1: 6, 2: 65, 3: 27 in 100, is roughly what a one-tool catalog gets).
    pub single: usize,
    /// Dependency chains (40).
    pub chains: usize,
    /// Paths per ToolBench combination, I1, I2 and I3 each (4).
    pub combos: usize,
    /// The share of two-API chains (0.7: RestBench TMDB's human queries, 65 of 92).
    pub two_step_share: f64,
    /// Which chains come first (`entity_first`: those starting with an API that finds an
    /// entity by name, as users name the entity they ask about).
    pub chain_start: ChainStart,
    /// Requests per path (3: a few phrasings of each path, so no path dominates the set).
    pub per_path: usize,
    /// The share of kept requests held out as `eval` (0.5).
    pub eval_share: f64,
    /// Cosine at which a request duplicates a kept one (DRAFT's diversity threshold, 0.9).
    pub dedup_threshold: f32,
    /// Whether the model checks each request is answered by its responses (on: StableToolBench
    /// keeps only solvable queries).
    pub answer_check: bool,
    /// A request whose share of content words found in its gold APIs' docs exceeds this is
    /// dropped as `doc_echo` (0.6: 93 of RestBench TMDB's 100 human queries pass).
    pub doc_echo_max: f64,
    /// A request whose share of content words found in its gold APIs' docs is below this is
    /// dropped as `doc_echo_low` (0, off: a floor at RestBench TMDB's human queries' tenth
    /// percentile, 0.09, did not bring synthetic rankings closer to the users').
    pub doc_echo_min: f64,
    /// Paths worked on at once (4, as `bench run`).
    pub concurrency: usize,
    /// The seed of sampling and splitting (0).
    pub seed: u64,
}

impl Default for SynthConfig {
    fn default() -> Self {
        Self {
            single: 6,
            chains: 40,
            combos: 4,
            two_step_share: DEFAULT_TWO_STEP_SHARE,
            chain_start: ChainStart::EntityFirst,
            per_path: 3,
            eval_share: 0.5,
            dedup_threshold: 0.9,
            answer_check: true,
            doc_echo_max: toolsmith_eval::synth::DEFAULT_DOC_ECHO_MAX,
            doc_echo_min: toolsmith_eval::synth::DEFAULT_DOC_ECHO_MIN,
            concurrency: 4,
            seed: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_overrides_what_it_names_and_refuses_unknown_keys() -> anyhow::Result<()> {
        let c: SynthConfig =
            toml::from_str("per_path = 5\neval_share = 0.8\ndoc_echo_min = 0.2\n")?;
        assert_eq!((c.per_path, c.eval_share, c.doc_echo_min), (5, 0.8, 0.2));
        assert_eq!(
            c.chains,
            SynthConfig::default().chains,
            "the rest stays the default"
        );
        assert!(toml::from_str::<SynthConfig>("per_paths = 5\n").is_err());
        Ok(())
    }
}
