//! [`CachedEmbedder`]: vectors cached in SQLite (`embedding_cache`), keyed by (model id, sha256
//! of the text), stored as little-endian f32 blobs. A batch is looked up in one transaction and
//! only the misses are embedded, in one call to the inner embedder. Search queries
//! ([`Embedder::embed_query`]) are never written: they would grow the table without end.

use std::collections::HashMap;

use async_trait::async_trait;
use rusqlite::{OptionalExtension, params};
use toolsmith_plumbing::json::sha256_hex;
use toolsmith_plumbing::sqlite::write_transaction;
use toolsmith_plumbing::text::truncate_chars;

use crate::cache::{CacheDb, CacheMode};
use crate::embed::embedder::Embedder;
use crate::error::{Error, Result};

/// Any [`Embedder`] with a vector cache in front.
#[derive(Clone, Debug)]
pub struct CachedEmbedder<E> {
    inner: E,
    db: CacheDb,
    mode: CacheMode,
}

impl<E> CachedEmbedder<E> {
    /// Caches `inner`'s vectors in `db`. In [`CacheMode::Replay`] a miss is an error.
    pub fn new(inner: E, db: CacheDb, mode: CacheMode) -> Self {
        Self { inner, db, mode }
    }

    /// The wrapped embedder.
    pub fn inner(&self) -> &E {
        &self.inner
    }
}

fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn from_blob(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[async_trait]
impl<E: Embedder> Embedder for CachedEmbedder<E> {
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if self.mode == CacheMode::Off || texts.is_empty() {
            return self.inner.embed(texts).await;
        }
        let model = self.inner.model_id().to_owned();
        let dims = self.inner.dimensions();
        let keys: Vec<String> = texts.iter().map(|t| sha256_hex(t.as_bytes())).collect();
        let lookup_keys = keys.clone();
        let lookup_model = model.clone();
        let found: Vec<Option<Vec<f32>>> = self
            .db
            .with_conn(move |conn, path| {
                let err = |source| Error::Cache { path: path.to_path_buf(), source };
                let tx = conn.transaction().map_err(err)?;
                let mut found = Vec::with_capacity(lookup_keys.len());
                {
                    let mut stmt = tx
                        .prepare_cached(
                            "SELECT vector FROM embedding_cache WHERE model = ?1 AND text_sha256 = ?2",
                        )
                        .map_err(err)?;
                    for key in &lookup_keys {
                        let blob: Option<Vec<u8>> = stmt
                            .query_row(params![lookup_model, key], |r| r.get(0))
                            .optional()
                            .map_err(err)?;
                        let vector = match blob {
                            Some(b) if b.len() == dims.saturating_mul(4) => Some(from_blob(&b)),
                            Some(b) => {
                                return Err(Error::CacheCorrupt {
                                    path: path.to_path_buf(),
                                    key: key.clone(),
                                    reason: format!("{} bytes for {dims} dimensions", b.len()),
                                });
                            }
                            None => None,
                        };
                        found.push(vector);
                    }
                }
                tx.commit().map_err(err)?;
                Ok(found)
            })
            .await?;

        // Embed each distinct missing text once.
        let mut miss_index: HashMap<&str, usize> = HashMap::new();
        let mut misses: Vec<String> = Vec::new();
        for (text, hit) in texts.iter().zip(&found) {
            if hit.is_none() && !miss_index.contains_key(text.as_str()) {
                miss_index.insert(text.as_str(), misses.len());
                misses.push(text.clone());
            }
        }
        if misses.is_empty() {
            return Ok(found.into_iter().flatten().collect());
        }
        if self.mode == CacheMode::Replay {
            return Err(Error::ReplayMiss {
                model,
                last_message_start: truncate_chars(&misses[0], 80),
            });
        }
        let fresh = self.inner.embed(&misses).await?;
        if fresh.len() != misses.len() {
            return Err(Error::EmbeddingShape {
                model,
                expected: format!("{} vectors", misses.len()),
                got: format!("{} vectors", fresh.len()),
            });
        }
        if let Some(bad) = fresh.iter().find(|v| v.len() != dims) {
            return Err(Error::EmbeddingShape {
                model,
                expected: format!("{dims} dimensions"),
                got: format!("{} dimensions", bad.len()),
            });
        }
        let rows: Vec<(String, Vec<u8>)> = misses
            .iter()
            .zip(&fresh)
            .map(|(t, v)| (sha256_hex(t.as_bytes()), to_blob(v)))
            .collect();
        let dims_sql = i64::try_from(dims).unwrap_or(i64::MAX);
        self.db
            .with_conn(move |conn, path| {
                let err = |source| Error::Cache { path: path.to_path_buf(), source };
                let tx = write_transaction(conn).map_err(err)?;
                {
                    let mut stmt = tx
                        .prepare_cached(
                            "INSERT OR REPLACE INTO embedding_cache(model, text_sha256, dims, vector)
                             VALUES (?1, ?2, ?3, ?4)",
                        )
                        .map_err(err)?;
                    for (key, blob) in &rows {
                        stmt.execute(params![model, key, dims_sql, blob]).map_err(err)?;
                    }
                }
                tx.commit().map_err(err)
            })
            .await?;

        let mut out = Vec::with_capacity(texts.len());
        for (text, hit) in texts.iter().zip(found) {
            match hit {
                Some(v) => out.push(v),
                None => {
                    let i = miss_index.get(text.as_str()).copied().unwrap_or(0);
                    out.push(fresh.get(i).cloned().unwrap_or_default());
                }
            }
        }
        Ok(out)
    }

    /// Queries are not written to the table: in [`CacheMode::Replay`] one is read from it (a
    /// miss is an error, as ever), otherwise it is embedded (keeping recent query vectors is
    /// the retriever's in-memory cache's job).
    async fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        match self.mode {
            CacheMode::Replay => self.embed_one(text).await,
            CacheMode::Off | CacheMode::ReadWrite => self.inner.embed_query(text).await,
        }
    }

    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_round_trip() {
        let v = vec![0.5f32, -1.25, 3.0e-7];
        assert_eq!(from_blob(&to_blob(&v)), v);
        assert_eq!(to_blob(&[1.0]), 1.0f32.to_le_bytes().to_vec());
    }
}
