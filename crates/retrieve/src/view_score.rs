//! How an API's dense score is made from its doc's vector and its views' (Re-Invoke's
//! synthetic user requests): a leaf type the dense index, its settings and the explanations
//! share.

use serde::{Deserialize, Serialize};

/// Where Re-Invoke's multi-view ranking comes from.
pub const VIEWS_PAPER: &str = "Chen et al., Re-Invoke: Tool Invocation Rewriting for \
    Zero-Shot Tool Retrieval (EMNLP 2024): each synthetic query \
    generated for a tool is indexed as a view of the tool's document, and a tool is ranked by \
    its best-matching view";

/// How an API's dense score is made from the cosines of its doc vector and its view vectors
/// (`[retrieve.dense] views`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewScore {
    /// The best of the doc and its views: Re-Invoke's ([`VIEWS_PAPER`]).
    #[default]
    Max,
    /// The mean of the two best of the doc and its views (one stray view alone does not carry
    /// an API); an API with no views scores its doc's cosine.
    MeanTop2,
    /// The doc's vector only: views are neither embedded nor searched (the behaviour before
    /// views).
    DocOnly,
}

impl ViewScore {
    /// The setting's value, as in `toolsmith.toml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Max => "max",
            Self::MeanTop2 => "mean_top2",
            Self::DocOnly => "doc_only",
        }
    }

    /// The API's score from its doc's cosine and its views' cosines.
    pub(crate) fn combine(self, doc: f32, views: impl Iterator<Item = f32>) -> f32 {
        match self {
            Self::DocOnly => doc,
            Self::Max => views.fold(doc, f32::max),
            Self::MeanTop2 => {
                let (mut best, mut second) = (doc, f32::NEG_INFINITY);
                for v in views {
                    if v > best {
                        second = best;
                        best = v;
                    } else if v > second {
                        second = v;
                    }
                }
                if second.is_finite() {
                    (best + second) / 2.0
                } else {
                    best
                }
            }
        }
    }
}
