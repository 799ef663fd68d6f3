//! The [`Embedder`] contract, below its implementations.

use std::sync::Arc;

use async_trait::async_trait;

use crate::error::{Error, Result};

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
