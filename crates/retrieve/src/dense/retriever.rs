//! The dense [`Retriever`]: an index, the query embedder and a cache of query vectors.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use hashlink::LruCache;
use toolsmith_catalog::ApiId;
use toolsmith_llm::Embedder;

use super::index::DenseIndex;
use crate::bm25::hits;
use crate::error::{Error, Result};
use crate::explain::Explanation;
use crate::retriever::{Filter, Hit, Retriever};

fn lock(cache: &QueryCache) -> MutexGuard<'_, LruCache<String, Arc<Vec<f32>>>> {
    cache.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The query vectors a [`DenseRetriever`] keeps, least recently used dropped first.
type QueryCache = Arc<Mutex<LruCache<String, Arc<Vec<f32>>>>>;

/// A [`DenseIndex`] with the embedder for queries, and the latest query vectors in memory
/// ([`DenseSettings::query_cache_entries`]).
#[derive(Clone)]
pub struct DenseRetriever {
    index: Arc<DenseIndex>,
    embedder: Arc<dyn Embedder>,
    queries: Option<QueryCache>,
}

impl std::fmt::Debug for DenseRetriever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseRetriever")
            .field("model", &self.index.model)
            .field("apis", &self.index.corpus.len())
            .finish_non_exhaustive()
    }
}

impl DenseRetriever {
    /// Searches `index`, embedding queries with `embedder` (the one that built the index)
    /// through [`Embedder::embed_query`], so a caching embedder keeps them off disk.
    pub fn new(index: Arc<DenseIndex>, embedder: Arc<dyn Embedder>) -> Self {
        let entries = index.settings.query_cache_entries;
        let queries = (entries > 0).then(|| Arc::new(Mutex::new(LruCache::new(entries))));
        Self {
            index,
            embedder,
            queries,
        }
    }

    /// The index.
    pub fn index(&self) -> &Arc<DenseIndex> {
        &self.index
    }

    /// Query vectors held in memory now.
    pub fn cached_queries(&self) -> usize {
        self.queries.as_ref().map_or(0, |q| lock(q).len())
    }

    /// The query's vector: from memory when asked lately, else embedded (and kept).
    pub async fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        if let Some(hit) = self
            .queries
            .as_ref()
            .and_then(|q| lock(q).get(query).cloned())
        {
            return Ok(hit.as_ref().clone());
        }
        let vector = self
            .embedder
            .embed_query(query)
            .await
            .map_err(|source| Error::Embed {
                what: "the query".to_owned(),
                source,
            })?;
        if vector.len() != self.index.dims {
            return Err(Error::EmbeddingShape {
                model: self.index.model.clone(),
                expected: format!("{} dimensions", self.index.dims),
                got: format!("{} dimensions", vector.len()),
            });
        }
        if let Some(queries) = &self.queries {
            lock(queries).insert(query.to_owned(), Arc::new(vector.clone()));
        }
        Ok(vector)
    }

    /// `(document, cosine)` pairs for `query`, best first.
    pub async fn scores(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<(u32, f32)>> {
        let q = self.embed_query(query).await?;
        self.index.scores(&q, k, filter)
    }
}

#[async_trait]
impl Retriever for DenseRetriever {
    async fn search(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        let scored = self.scores(query, k, filter).await?;
        Ok(hits(&self.index.corpus, &scored))
    }

    async fn explain(
        &self,
        query: &str,
        apis: &[ApiId],
        _k: usize,
        _filter: &Filter,
    ) -> Result<Vec<Option<Explanation>>> {
        let vector = self.embed_query(query).await?;
        Ok(apis
            .iter()
            .map(|api| {
                let doc = self.index.corpus.position(api)?;
                self.index.explain_doc(&vector, doc).map(Explanation::Dense)
            })
            .collect())
    }
}
