//! Building an index incrementally: only rows (a doc's text, or one of its views) whose text
//! is new are embedded.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use toolsmith_llm::Embedder;

use super::index::DenseIndex;
use super::settings::{DenseSettings, Pooling};
use super::views::RowMap;
use crate::corpus::Corpus;
use crate::error::{Error, Result};

use crate::kernel::normalize;

impl DenseIndex {
    /// An index of `corpus` that reuses this index's vector of every document and view whose
    /// text is unchanged and embeds only the others (a doc that gains views has only its new
    /// views embedded; views removed are dropped). With the same embedder only; a different
    /// model or dimension re-embeds everything.
    pub async fn refresh(&self, corpus: Arc<Corpus>, embedder: &dyn Embedder) -> Result<Self> {
        self.refresh_with_progress(corpus, embedder, &mut |_, _| {})
            .await
    }

    pub(super) async fn refresh_with_progress(
        &self,
        corpus: Arc<Corpus>,
        embedder: &dyn Embedder,
        progress: &mut (dyn FnMut(usize, usize) + Send),
    ) -> Result<Self> {
        let dims = embedder.dimensions();
        let model = embedder.model_id().to_owned();
        let same_model = model == self.model && dims == self.dims;
        let settings = self.settings;
        let (texts, rows) = row_texts(&corpus, &settings);
        let (mut vectors, missing) = self.reused_rows(&texts, same_model, dims);
        let (mut work, parts) = passage_work(&texts, &missing, &settings);
        // Batches of similar lengths: a transformer pads each batch to its longest text, so
        // mixing short and long passages wastes most of the work on padding. (Each batch's
        // vectors are committed by a caching embedder as it returns, so an interrupted build
        // resumes where it stopped.)
        work.sort_by_key(|&(i, p, _)| (p.len(), i));
        let total = work.len();
        let batch = settings.batch_size.max(1);
        for (n, chunk) in work.chunks(batch).enumerate() {
            let batch_texts: Vec<String> = chunk.iter().map(|&(_, p, _)| p.to_owned()).collect();
            let start = n * batch;
            let embedded = embedder
                .embed(&batch_texts)
                .await
                .map_err(|source| Error::Embed {
                    what: format!(
                        "passages {start}..{} of {total} to embed ({} docs and views)",
                        start + chunk.len(),
                        missing.len()
                    ),
                    source,
                })?;
            if embedded.len() != chunk.len() {
                return Err(Error::EmbeddingShape {
                    model,
                    expected: format!("{} vectors", chunk.len()),
                    got: format!("{} vectors", embedded.len()),
                });
            }
            for (&(i, _, weight), mut v) in chunk.iter().zip(embedded) {
                if v.len() != dims {
                    return Err(Error::EmbeddingShape {
                        model,
                        expected: format!("{dims} dimensions"),
                        got: format!("{} dimensions", v.len()),
                    });
                }
                normalize(&mut v);
                let Some(dst) = vectors.get_mut(i * dims..(i + 1) * dims) else {
                    continue;
                };
                if parts.get(i) == Some(&1) {
                    // One passage: the vector exactly as a whole-text embedding gives it.
                    dst.copy_from_slice(&v);
                } else {
                    for (d, x) in dst.iter_mut().zip(&v) {
                        *d += weight * x;
                    }
                }
            }
            progress(start + chunk.len(), total);
        }
        for (i, _) in parts.iter().enumerate().filter(|(_, n)| **n > 1) {
            if let Some(row) = vectors.get_mut(i * dims..(i + 1) * dims) {
                normalize(row);
            }
        }
        let index = Self {
            corpus,
            settings,
            model,
            dims,
            vectors: vectors.into(),
            texts,
            rows,
            int8: OnceLock::new(),
            hnsw: OnceLock::new(),
        };
        // At index time, not on the first search: the graph of a large catalog takes minutes.
        index.graph()?;
        Ok(index)
    }
}

impl DenseIndex {
    /// The rows of the new index's `texts` with this index's vectors copied in where a text
    /// is unchanged (with the same model), and the rows still to embed.
    fn reused_rows(
        &self,
        texts: &[String],
        same_model: bool,
        dims: usize,
    ) -> (Vec<f32>, Vec<usize>) {
        let known: HashMap<&str, usize> = if same_model {
            self.texts
                .iter()
                .enumerate()
                .filter(|(_, t)| !t.is_empty())
                .map(|(i, t)| (t.as_str(), i))
                .collect()
        } else {
            HashMap::new()
        };
        let mut vectors = vec![0.0f32; texts.len().saturating_mul(dims)];
        let mut missing: Vec<usize> = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let reused = known.get(text.as_str()).and_then(|&old| {
                let (src, dst) = (self.row(old)?, vectors.get_mut(i * dims..(i + 1) * dims)?);
                dst.copy_from_slice(src);
                Some(())
            });
            if reused.is_none() {
                missing.push(i);
            }
        }
        (vectors, missing)
    }
}

/// The passages to embed for the `missing` rows, each with its row and pooling weight, and
/// the number of passages of each row: a long text is embedded as passages whose vectors are
/// pooled into its row.
fn passage_work<'a>(
    texts: &'a [String],
    missing: &[usize],
    settings: &DenseSettings,
) -> (Vec<(usize, &'a str, f32)>, Vec<usize>) {
    let mut work: Vec<(usize, &str, f32)> = Vec::new();
    let mut parts = vec![0usize; texts.len()];
    for &i in missing {
        let Some(text) = texts.get(i) else { continue };
        let split = settings.passages(text);
        if let Some(n) = parts.get_mut(i) {
            *n = split.len();
        }
        for p in split {
            let weight = match settings.pooling {
                Pooling::Mean => 1.0,
                Pooling::Length => p.chars().count() as f32,
            };
            work.push((i, p, weight));
        }
    }
    (work, parts)
}

/// The text of every row of `corpus`'s index (each doc's, then each doc's views', in doc
/// order) and which doc each row belongs to.
fn row_texts(corpus: &Corpus, settings: &DenseSettings) -> (Vec<String>, RowMap) {
    let mut texts: Vec<String> = corpus
        .docs()
        .iter()
        .map(|d| settings.embedded_text(d))
        .collect();
    let mut counts = Vec::with_capacity(corpus.len());
    for doc in corpus.docs() {
        let views = settings.view_texts(doc);
        counts.push(views.len());
        texts.extend(views);
    }
    (texts, RowMap::with_views(&counts))
}
