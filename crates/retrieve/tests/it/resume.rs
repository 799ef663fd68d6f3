//! An index build killed half way resumes where it stopped: the embedding cache keeps every
//! finished batch (of passages: a long doc is several), so the next build embeds only the
//! passages that were not done.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use toolsmith_catalog::testing::tmdb_store;
use toolsmith_catalog::{DocSelector, Scope};
use toolsmith_llm::testing::ScriptedEmbedder;
use toolsmith_llm::{CacheDb, CacheMode, CachedEmbedder, Embedder};
use toolsmith_retrieve::{Corpus, DenseIndex, DenseSettings};

/// Counts the texts it embeds, per text, and dies (like a killed process) after `calls` calls.
struct Dying {
    inner: ScriptedEmbedder,
    calls_left: AtomicUsize,
    seen: Arc<Mutex<HashMap<String, usize>>>,
}

#[async_trait]
impl Embedder for Dying {
    async fn embed(&self, texts: &[String]) -> toolsmith_llm::Result<Vec<Vec<f32>>> {
        if self
            .calls_left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_err()
        {
            return Err(toolsmith_llm::Error::Task("killed".into()));
        }
        {
            let mut seen = self.seen.lock().unwrap();
            for t in texts {
                *seen.entry(t.clone()).or_default() += 1;
            }
        }
        self.inner.embed(texts).await
    }
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn dimensions(&self) -> usize {
        self.inner.dimensions()
    }
}

#[tokio::test]
async fn an_interrupted_build_resumes_without_re_embedding_finished_docs() {
    let store = tmdb_store();
    let corpus = Arc::new(Corpus::from_catalog(
        &store
            .catalog(&DocSelector::Active, &Scope::default())
            .unwrap(),
    ));
    let total = corpus.len();
    assert_eq!(total, 54);
    let dir = tempfile::tempdir().unwrap();
    let cache_path = dir.path().join("catalog.db");
    // Passages on, so a long doc's passages may straddle the kill.
    let settings = DenseSettings {
        batch_size: 10,
        chunk_chars: 1_000,
        ..DenseSettings::default()
    };
    // What the build embeds are passages: a doc longer than one is several.
    let passages: usize = corpus
        .docs()
        .iter()
        .map(|d| settings.passages(&settings.embedded_text(d)).len())
        .sum();
    assert!(passages > total, "some TMDB doc is longer than a passage");
    let seen = Arc::new(Mutex::new(HashMap::new()));

    // First run: dies after 3 batches of 10.
    let first = Dying {
        inner: ScriptedEmbedder::new(32),
        calls_left: AtomicUsize::new(3),
        seen: seen.clone(),
    };
    let cached = CachedEmbedder::new(
        first,
        CacheDb::open(&cache_path).unwrap(),
        CacheMode::ReadWrite,
    );
    let err = DenseIndex::build(corpus.clone(), &cached, settings).await;
    assert!(err.is_err(), "the first build was killed");
    drop(cached);
    let done: usize = seen.lock().unwrap().values().sum();
    assert_eq!(done, 30);

    // Second run, a new process: the cache file is opened again.
    let counter = ScriptedEmbedder::new(32);
    let second = Dying {
        inner: counter.clone(),
        calls_left: AtomicUsize::new(usize::MAX),
        seen: seen.clone(),
    };
    let cached = CachedEmbedder::new(
        second,
        CacheDb::open(&cache_path).unwrap(),
        CacheMode::ReadWrite,
    );
    let index = DenseIndex::build(corpus.clone(), &cached, settings)
        .await
        .unwrap();
    assert_eq!(index.corpus().len(), total);
    assert_eq!(
        counter.texts_embedded(),
        passages - 30,
        "only the unfinished passages are embedded"
    );
    // The resumed index is the one an uninterrupted build makes, the long doc's pooled
    // vector included.
    let fresh = DenseIndex::build(corpus.clone(), &ScriptedEmbedder::new(32), settings)
        .await
        .unwrap();
    assert_eq!(index.matrix(), fresh.matrix());
    let seen = seen.lock().unwrap();
    assert!(
        seen.values().all(|&n| n == 1),
        "no doc text was embedded twice: {:?}",
        seen.iter().filter(|(_, n)| **n > 1).collect::<Vec<_>>()
    );
    assert_eq!(seen.len(), passages);
}
