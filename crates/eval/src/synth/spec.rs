//! How a set is made: stored with it, so a resumed run makes the rest the same way.

use serde::{Deserialize, Serialize};
use toolsmith_exec::Mode;

use super::echo::DEFAULT_DOC_ECHO_MAX;
use super::sample::SampleSizes;
use super::writer::Phrasing;

/// A synthesized set's recipe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SetSpec {
    /// How many paths of each kind, and the seed.
    pub sizes: SampleSizes,
    /// Requests written per path.
    pub per_path: usize,
    /// The phrasings requests are spread over.
    pub phrasings: Vec<Phrasing>,
    /// The share of kept requests that go to the `eval` split (the rest: `index`).
    pub eval_share: f64,
    /// Cosine at or above which a request is a duplicate of one already kept (with an
    /// embedder; without one, only the same words are).
    pub dedup_threshold: f32,
    /// Where the planned calls run.
    pub mode: Mode,
    /// Whether the model checks that the responses answer each request (and writes a short
    /// reference answer).
    pub answer_check: bool,
    /// A request whose doc echo exceeds this is dropped as `doc_echo` ([`doc_echo`](super::doc_echo); sets
    /// stored before the filter read the default).
    #[serde(default = "default_doc_echo_max")]
    pub doc_echo_max: f64,
    /// A request whose doc echo is below this is dropped as `doc_echo_low`: users say the
    /// service's plain words for its things. Sets stored before the floor existed had none (0).
    #[serde(default)]
    pub doc_echo_min: f64,
    /// The model that wrote the requests (role `synth`'s), so a gate or an agreement check can
    /// tell when the docs it judges were written by the same model. `None` for sets stored before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer: Option<String>,
}

fn default_doc_echo_max() -> f64 {
    DEFAULT_DOC_ECHO_MAX
}

impl SetSpec {
    /// Checks the numbers make sense.
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.eval_share) {
            return Err(format!(
                "eval_share must be within 0 and 1, not {}",
                self.eval_share
            ));
        }
        if !(0.0..=1.0).contains(&self.dedup_threshold) {
            return Err(format!(
                "dedup_threshold must be within 0 and 1, not {}",
                self.dedup_threshold
            ));
        }
        if !(0.0..=1.0).contains(&self.doc_echo_max) {
            return Err(format!(
                "doc_echo_max must be within 0 and 1, not {}",
                self.doc_echo_max
            ));
        }
        if !(0.0..=1.0).contains(&self.doc_echo_min) || self.doc_echo_min > self.doc_echo_max {
            return Err(format!(
                "doc_echo_min must be within 0 and doc_echo_max ({}), not {}",
                self.doc_echo_max, self.doc_echo_min
            ));
        }
        if !(0.0..=1.0).contains(&self.sizes.two_step_share) {
            return Err(format!(
                "two_step_share must be within 0 and 1, not {}",
                self.sizes.two_step_share
            ));
        }
        if self.per_path == 0 {
            return Err("per_path must be at least 1".into());
        }
        if self.phrasings.is_empty() {
            return Err("at least one phrasing is needed".into());
        }
        Ok(())
    }
}
