//! The retrieval methods by name, and one call that builds any of them from a corpus.

use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use toolsmith_llm::Embedder;

use crate::bm25::{Bm25Index, Bm25Settings};
use crate::corpus::Corpus;
use crate::dense::{DenseIndex, DenseRetriever, DenseSettings};
use crate::error::{Error, Result};
use crate::hybrid::{HybridRetriever, HybridSettings};
use crate::retriever::Retriever;

/// A retrieval method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// BM25 over the doc fields ([`Bm25Index`]).
    Bm25,
    /// Cosine similarity of embeddings ([`DenseRetriever`]).
    Dense,
    /// BM25 and dense fused ([`HybridRetriever`]).
    Hybrid,
}

impl Method {
    /// Every method.
    pub const ALL: [Self; 3] = [Self::Bm25, Self::Dense, Self::Hybrid];

    /// The method's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bm25 => "bm25",
            Self::Dense => "dense",
            Self::Hybrid => "hybrid",
        }
    }

    /// Whether it needs an embedder.
    pub fn embeds(self) -> bool {
        self != Self::Bm25
    }
}

impl Default for Method {
    /// Hybrid: the best or near the best on every benchmark measured (see the crate docs).
    fn default() -> Self {
        Self::Hybrid
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Method {
    type Err = Error;
    fn from_str(raw: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|m| m.as_str().eq_ignore_ascii_case(raw.trim()))
            .ok_or_else(|| Error::UnknownMethod(raw.to_owned()))
    }
}

/// The settings of every method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RetrieveSettings {
    /// BM25's.
    pub bm25: Bm25Settings,
    /// The dense index's.
    pub dense: DenseSettings,
    /// The fusion's.
    pub hybrid: HybridSettings,
}

impl RetrieveSettings {
    /// Whether search reads [`Field::Source`](crate::Field::Source): BM25 or the dense index
    /// gives it a weight above 0. When neither does, a corpus need not carry the source
    /// descriptions ([`Corpus::from_catalog_with_source`](crate::Corpus::from_catalog_with_source)),
    /// and leaving them out ranks exactly as with them.
    pub fn weighs_source(&self) -> bool {
        self.bm25.weights.source > 0.0 || self.dense.fields.source > 0.0
    }
}

/// Where dense and hybrid search get their document vectors.
pub enum DenseInput {
    /// Embed every document with this embedder (wrap it in a `CachedEmbedder` to keep the
    /// vectors); it embeds the queries too.
    Embed(Arc<dyn Embedder>),
    /// A dense retriever built already (its vectors read from a store, say).
    Built(DenseRetriever),
}

impl From<Arc<dyn Embedder>> for DenseInput {
    fn from(embedder: Arc<dyn Embedder>) -> Self {
        Self::Embed(embedder)
    }
}

impl From<DenseRetriever> for DenseInput {
    fn from(dense: DenseRetriever) -> Self {
        Self::Built(dense)
    }
}

/// Builds a retriever of `method` over `corpus`. Dense and hybrid need `dense`: an embedder
/// that embeds every document now, or a dense retriever built already over the same corpus;
/// BM25 needs none.
pub async fn build_retriever(
    method: Method,
    corpus: Arc<Corpus>,
    dense: Option<impl Into<DenseInput>>,
    settings: &RetrieveSettings,
) -> Result<Arc<dyn Retriever>> {
    if method == Method::Bm25 {
        return Ok(Arc::new(Bm25Index::build(corpus, settings.bm25)));
    }
    let dense = match dense.map(Into::into) {
        None => return Err(Error::NoEmbedder(method.as_str())),
        Some(DenseInput::Built(dense)) => dense,
        Some(DenseInput::Embed(embedder)) => {
            let index =
                DenseIndex::build(corpus.clone(), embedder.as_ref(), settings.dense).await?;
            DenseRetriever::new(Arc::new(index), embedder)
        }
    };
    Ok(match method {
        Method::Hybrid => Arc::new(HybridRetriever::new(
            Bm25Index::build(corpus, settings.bm25),
            dense,
            settings.hybrid,
        )),
        _ => Arc::new(dense),
    })
}
