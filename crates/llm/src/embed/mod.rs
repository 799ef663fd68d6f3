//! Embeddings: the [`Embedder`] contract and its implementations: an OpenAI-compatible HTTP
//! client, the local all-MiniLM-L6-v2 (feature `local-embed`), and a SQLite cache wrapper.

use std::sync::Arc;

use async_trait::async_trait;

use crate::error::{Error, Result};

#[cfg(feature = "local-embed")]
pub(crate) mod bert;
pub(crate) mod cache;
pub(crate) mod http;
#[cfg(feature = "local-embed")]
pub(crate) mod local;

/// Turns texts into vectors. Object-safe; share it as `Arc<dyn Embedder>`.
#[async_trait]
pub trait Embedder: Send + Sync {
    /// One vector per text, in order, each of [`Embedder::dimensions`] floats.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>>;

    /// The model's identity, used as the cache key's namespace (`all-MiniLM-L6-v2`).
    fn model_id(&self) -> &str;

    /// Length of every vector.
    fn dimensions(&self) -> usize;

    /// The vector of one text.
    async fn embed_one(&self, text: &str) -> Result<Vec<f32>> {
        let model = self.model_id().to_owned();
        self.embed(&[text.to_owned()])
            .await?
            .pop()
            .ok_or_else(|| Error::EmbeddingShape {
                model,
                expected: "1 vector".into(),
                got: "0 vectors".into(),
            })
    }

    /// The vector of a search query. As [`embed_one`](Self::embed_one), except that a caching
    /// embedder does not store it: queries are unbounded (one per distinct request), while
    /// document vectors are as many as the catalog's docs.
    async fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        self.embed_one(text).await
    }
}

#[async_trait]
impl<T: Embedder + ?Sized> Embedder for Arc<T> {
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        (**self).embed(texts).await
    }
    fn model_id(&self) -> &str {
        (**self).model_id()
    }
    fn dimensions(&self) -> usize {
        (**self).dimensions()
    }
    async fn embed_one(&self, text: &str) -> Result<Vec<f32>> {
        (**self).embed_one(text).await
    }
    async fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        (**self).embed_query(text).await
    }
}

/// Cosine similarity of two vectors (0 when either is zero or the lengths differ).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_basics() {
        assert!((cosine(&[1.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-6);
        assert!(cosine(&[1.0, 0.0], &[0.0, 1.0]).abs() < 1e-6);
        assert_eq!(cosine(&[1.0], &[1.0, 2.0]), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 2.0]), 0.0);
    }
}
