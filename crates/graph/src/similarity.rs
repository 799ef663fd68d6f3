//! Similarity edges: pairs of APIs whose doc embeddings have cosine at least Φ (paper §2.2).

use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;
use toolsmith_llm::Embedder;

use crate::error::{Error, Result};
use crate::model::{Edge, EdgeKind, Evidence};

/// How a graph is built. `Default` is [`GraphSettings::PAPER`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GraphSettings {
    /// Φ: a similarity edge joins two APIs whose doc embeddings have at least this cosine.
    pub phi: f32,
    /// The sampling weight every new edge starts with.
    pub initial_weight: f32,
    /// Dependency edges whose evidence is weaker than this are left out (0 keeps all).
    pub min_dependency_strength: f32,
}

impl GraphSettings {
    /// ToolExpNet (ACL Findings 2025): Φ = 0.8 (§4.3, implementation details) and initial
    /// sampling weights w⁰ = 1 (§3.1); every dependency the rules find is kept.
    pub const PAPER: Self = Self {
        phi: 0.8,
        initial_weight: 1.0,
        min_dependency_strength: 0.0,
    };

    /// Checks every field's range.
    pub fn validate(&self) -> Result<()> {
        if !(-1.0..=1.0).contains(&self.phi) {
            return Err(Error::Invalid {
                what: "phi".into(),
                why: format!("{} is not a cosine in [-1, 1]", self.phi),
            });
        }
        if !(self.initial_weight.is_finite() && self.initial_weight > 0.0) {
            return Err(Error::Invalid {
                what: "initial_weight".into(),
                why: format!("{} is not a positive number", self.initial_weight),
            });
        }
        Ok(())
    }
}

impl Default for GraphSettings {
    fn default() -> Self {
        Self::PAPER
    }
}

/// Texts per embedder call in [`embed_docs`].
const BATCH: usize = 128;

/// The embedding of each `(api, doc text)`, in order. Wrap the embedder in
/// `toolsmith_llm::CachedEmbedder` and pass the texts retrieval embeds, and no text is
/// embedded twice.
pub async fn embed_docs(
    embedder: &dyn Embedder,
    docs: &[(ApiId, String)],
) -> Result<Vec<(ApiId, Vec<f32>)>> {
    let mut out = Vec::with_capacity(docs.len());
    for (n, chunk) in docs.chunks(BATCH).enumerate() {
        let texts: Vec<String> = chunk.iter().map(|(_, t)| t.clone()).collect();
        let what = format!("APIs {}..{}", n * BATCH, n * BATCH + chunk.len());
        let vectors = embedder
            .embed(&texts)
            .await
            .map_err(|source| Error::Embed {
                what: what.clone(),
                source,
            })?;
        if vectors.len() != chunk.len() {
            return Err(Error::Invalid {
                what: format!("embeddings of {what}"),
                why: format!("{} vectors for {} texts", vectors.len(), chunk.len()),
            });
        }
        out.extend(chunk.iter().map(|(api, _)| api.clone()).zip(vectors));
    }
    Ok(out)
}

/// A similarity edge for every pair with cosine at least `settings.phi`, `from < to`, in
/// (from, to) order. Quadratic in the number of APIs (a thousand APIs take milliseconds).
pub fn similarity_edges(vectors: &[(ApiId, Vec<f32>)], settings: &GraphSettings) -> Vec<Edge> {
    let unit: Vec<(&ApiId, Vec<f32>)> = vectors
        .iter()
        .map(|(api, v)| {
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            let v = if norm > 0.0 {
                v.iter().map(|x| x / norm).collect()
            } else {
                v.clone()
            };
            (api, v)
        })
        .collect();
    let mut edges = Vec::new();
    for (i, (a, va)) in unit.iter().enumerate() {
        for (b, vb) in unit.iter().skip(i + 1) {
            if a == b || va.len() != vb.len() {
                continue;
            }
            let cos: f32 = va.iter().zip(vb).map(|(x, y)| x * y).sum();
            if cos >= settings.phi {
                let (from, to) = if a < b { (a, b) } else { (b, a) };
                edges.push(Edge {
                    kind: EdgeKind::Similarity,
                    from: (*from).clone(),
                    to: (*to).clone(),
                    weight: settings.initial_weight,
                    strength: cos.clamp(0.0, 1.0),
                    evidence: Evidence::Similarity { cosine: cos },
                });
            }
        }
    }
    edges.sort_by(|x, y| (&x.from, &x.to).cmp(&(&y.from, &y.to)));
    edges
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn id(s: &str) -> ApiId {
        s.parse().unwrap()
    }

    #[test]
    fn pairs_at_or_above_phi_become_edges() {
        let vectors = vec![
            (id("t/b"), vec![1.0, 0.0]),
            (id("t/a"), vec![0.9, 0.1]),
            (id("t/c"), vec![0.0, 1.0]),
        ];
        let edges = similarity_edges(&vectors, &GraphSettings::PAPER);
        assert_eq!(edges.len(), 1);
        assert_eq!(
            (edges[0].from.to_string(), edges[0].to.to_string()),
            ("t/a".into(), "t/b".into())
        );
        assert!(edges[0].strength > 0.99);
        assert_eq!(edges[0].weight, 1.0);
        let loose = GraphSettings {
            phi: -1.0,
            ..GraphSettings::PAPER
        };
        assert_eq!(similarity_edges(&vectors, &loose).len(), 3);
    }

    #[test]
    fn phi_out_of_range_is_rejected() {
        let bad = GraphSettings {
            phi: 1.5,
            ..GraphSettings::PAPER
        };
        assert!(bad.validate().unwrap_err().to_string().contains("phi"));
        assert!(GraphSettings::PAPER.validate().is_ok());
    }
}
