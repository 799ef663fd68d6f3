//! De-duplication across a set: a request too close to one already kept is dropped. By cosine
//! of embeddings when there is an embedder, else by the same words (case and spacing aside).

use std::sync::{Arc, Mutex};

use toolsmith_llm::{Embedder, cosine};
use toolsmith_plumbing::sqlite::lock;

/// The kept requests so far.
pub(crate) struct Dedup {
    embedder: Option<Arc<dyn Embedder>>,
    threshold: f32,
    kept: Mutex<(Vec<String>, Vec<Vec<f32>>)>,
}

fn normalized(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

impl Dedup {
    pub(crate) fn new(embedder: Option<Arc<dyn Embedder>>, threshold: f32) -> Self {
        Self {
            embedder,
            threshold,
            kept: Mutex::new((Vec::new(), Vec::new())),
        }
    }

    /// Adds `text` unless it duplicates a kept one; whether it was added. An embedding
    /// failure falls back to comparing words.
    pub(crate) async fn admit(&self, text: &str) -> bool {
        let vector = match &self.embedder {
            Some(e) => e.embed_one(text).await.ok(),
            None => None,
        };
        let words = normalized(text);
        let mut kept = lock(&self.kept);
        let (texts, vectors) = &mut *kept;
        if texts.contains(&words) {
            return false;
        }
        if let Some(v) = &vector {
            if vectors.iter().any(|k| cosine(k, v) >= self.threshold) {
                return false;
            }
            vectors.push(v.clone());
        }
        texts.push(words);
        true
    }
}
