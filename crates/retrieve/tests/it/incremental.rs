//! Changing one API's doc re-embeds that API only.

use std::sync::Arc;

use toolsmith_catalog::testing::tmdb_store;
use toolsmith_catalog::{Doc, DocLabel, DocSelector, DocTarget, NewDoc, Scope, Store};
use toolsmith_llm::testing::ScriptedEmbedder;
use toolsmith_llm::{CacheDb, CacheMode, CachedEmbedder, Embedder};
use toolsmith_retrieve::{Corpus, DenseIndex, DenseRetriever, DenseSettings, Filter, Retriever};

fn corpus(store: &Store) -> Arc<Corpus> {
    Arc::new(Corpus::from_catalog(
        &store
            .catalog(&DocSelector::Active, &Scope::default())
            .unwrap(),
    ))
}

#[tokio::test]
async fn a_new_doc_version_re_embeds_only_its_api() {
    let mut store = tmdb_store();
    let embedder = ScriptedEmbedder::new(1024);
    let first = DenseIndex::build(corpus(&store), &embedder, DenseSettings::default())
        .await
        .unwrap();
    assert_eq!(embedder.texts_embedded(), 54);

    let api = store
        .resolve_api("GET /movie/{movie_id}")
        .unwrap()
        .remove(0);
    let doc = NewDoc {
        label: "manual".parse::<DocLabel>().unwrap(),
        source: "test".into(),
        doc: Doc::text("Zebra giraffe details of one film."),
    };
    store
        .add_doc(
            &DocTarget::Api(api.clone()),
            doc,
            toolsmith_catalog::Activate::Always,
        )
        .unwrap();
    let second = first.refresh(corpus(&store), &embedder).await.unwrap();
    assert_eq!(
        embedder.texts_embedded(),
        55,
        "only the changed API is embedded again"
    );

    let dense = DenseRetriever::new(Arc::new(second), Arc::new(embedder.clone()));
    let hits = dense
        .search("zebra giraffe film details", 1, &Filter::default())
        .await
        .unwrap();
    assert_eq!(hits[0].api, api);
}

#[tokio::test]
async fn the_embedding_cache_makes_rebuilds_free() {
    let store = tmdb_store();
    let inner = ScriptedEmbedder::new(64);
    let cached = CachedEmbedder::new(
        inner.clone(),
        CacheDb::in_memory().unwrap(),
        CacheMode::ReadWrite,
    );
    DenseIndex::build(corpus(&store), &cached, DenseSettings::default())
        .await
        .unwrap();
    DenseIndex::build(corpus(&store), &cached, DenseSettings::default())
        .await
        .unwrap();
    assert_eq!(
        inner.texts_embedded(),
        54,
        "the second build is served by the cache"
    );
}

/// Bytes of a SQLite database on disk, its write-ahead log included.
fn db_bytes(path: &std::path::Path) -> u64 {
    let wal = path.with_extension("db-wal");
    [path, wal.as_path()]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

#[tokio::test]
async fn query_vectors_stay_in_a_bounded_memory_cache_and_never_reach_the_db() {
    let store = tmdb_store();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.db");
    let inner = ScriptedEmbedder::new(64);
    let cached = CachedEmbedder::new(
        inner.clone(),
        CacheDb::open(&path).unwrap(),
        CacheMode::ReadWrite,
    );
    let settings = DenseSettings {
        query_cache_entries: 100,
        ..DenseSettings::default()
    };
    let index = DenseIndex::build(corpus(&store), &cached, settings)
        .await
        .unwrap();
    let dense = DenseRetriever::new(Arc::new(index), Arc::new(cached));
    let before = db_bytes(&path);
    for i in 0..300 {
        dense
            .search(&format!("movie number {i}"), 3, &Filter::default())
            .await
            .unwrap();
    }
    assert_eq!(inner.texts_embedded(), 54 + 300);
    assert_eq!(db_bytes(&path), before, "300 unique queries wrote nothing");
    assert_eq!(
        dense.cached_queries(),
        100,
        "the memory cache holds its bound"
    );
    // The latest query is served from memory; the first was dropped and is embedded again.
    dense
        .search("movie number 299", 3, &Filter::default())
        .await
        .unwrap();
    assert_eq!(inner.texts_embedded(), 354);
    dense
        .search("movie number 0", 3, &Filter::default())
        .await
        .unwrap();
    assert_eq!(inner.texts_embedded(), 355);
    // Replay reads the docs' vectors from the db but finds no query there.
    let replay = CachedEmbedder::new(
        inner.clone(),
        CacheDb::open(&path).unwrap(),
        CacheMode::Replay,
    );
    DenseIndex::build(corpus(&store), &replay, DenseSettings::default())
        .await
        .unwrap();
    assert!(replay.embed_query("movie number 0").await.is_err());
}
