//! Embedders: the HTTP client, the cache wrapper, and the local MiniLM model.

use serde_json::json;
use toolsmith_llm::testing::ScriptedEmbedder;
use toolsmith_llm::{CacheDb, CacheMode, CachedEmbedder, Embedder, Error, OpenAiEmbedder};

use crate::support::{Canned, MockServer};

fn texts(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn http_embeddings_come_back_in_input_order() -> anyhow::Result<()> {
    let server = MockServer::start([
        Canned::json(json!({"data": [
            {"index": 1, "embedding": [0.0, 1.0, 0.0]},
            {"index": 0, "embedding": [1.0, 0.0, 0.0]},
        ], "model": "emb"})),
        Canned::json(json!({"data": [{"index": 0, "embedding": [0.0, 0.0, 1.0]}]})),
        Canned::json(json!({"data": [{"index": 0, "embedding": [1.0, 2.0]}]})),
    ])
    .await;
    let embedder = OpenAiEmbedder::new(&server.settings(), 3)?.with_batch_size(2);
    let v = embedder.embed(&texts(&["a", "b", "c"])).await?;
    assert_eq!(
        v,
        vec![
            vec![1.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0],
            vec![0.0, 0.0, 1.0]
        ]
    );
    assert_eq!(server.requests()[0]["input"], json!(["a", "b"]));
    assert_eq!(server.requests()[1]["input"], json!(["c"]));
    let err = embedder.embed(&texts(&["d"])).await.unwrap_err();
    assert!(matches!(err, Error::EmbeddingShape { .. }), "{err:?}");
    Ok(())
}

#[tokio::test]
async fn the_cache_embeds_only_the_misses_of_a_batch() -> anyhow::Result<()> {
    let inner = ScriptedEmbedder::new(16);
    let dir = tempfile::tempdir()?;
    let db = CacheDb::open(dir.path().join("t.db"))?;
    let cached = CachedEmbedder::new(inner.clone(), db.clone(), CacheMode::ReadWrite);
    let first = cached
        .embed(&texts(&["search movies", "get weather"]))
        .await?;
    assert_eq!(inner.texts_embedded(), 2);
    let second = cached
        .embed(&texts(&[
            "get weather",
            "convert currency",
            "convert currency",
            "search movies",
        ]))
        .await?;
    assert_eq!(
        inner.texts_embedded(),
        3,
        "only `convert currency` was new, and embedded once"
    );
    assert_eq!(second[0], first[1]);
    assert_eq!(second[3], first[0]);
    assert_eq!(second[1], inner.vector("convert currency"));
    assert_eq!(second[1], second[2]);

    let replay = CachedEmbedder::new(inner.clone(), db, CacheMode::Replay);
    assert_eq!(
        replay.embed(&texts(&["get weather"])).await?,
        vec![first[1].clone()]
    );
    let miss = replay.embed(&texts(&["never seen"])).await.unwrap_err();
    assert!(
        matches!(miss, Error::ReplayMiss { ref model, .. } if model == "scripted-bow"),
        "{miss:?}"
    );
    Ok(())
}

#[cfg(feature = "local-embed")]
mod local {
    use std::sync::OnceLock;

    use toolsmith_llm::{Embedder, LocalEmbedder, cosine, env};

    use super::texts;

    /// The installed model, loaded once for all tests; `None` only when skipping is asked for.
    fn model() -> Option<&'static LocalEmbedder> {
        if std::env::var(env::TOOLSMITH_SKIP_MODEL_TESTS).is_ok_and(|v| v == "1") {
            eprintln!(
                "skipped: {}=1 skips the tests of the local embedding model",
                env::TOOLSMITH_SKIP_MODEL_TESTS
            );
            return None;
        }
        static MODEL: OnceLock<Result<LocalEmbedder, String>> = OnceLock::new();
        match MODEL.get_or_init(|| LocalEmbedder::load_default().map_err(|e| e.to_string())) {
            Ok(m) => Some(m),
            Err(e) => panic!(
                "the local embedding model is needed by these tests: {e}\n\
                 run `bash scripts/install-model.sh`, or set {}=1 to skip them",
                env::TOOLSMITH_SKIP_MODEL_TESTS
            ),
        }
    }

    #[tokio::test]
    async fn same_text_same_unit_vector() -> anyhow::Result<()> {
        let Some(m) = model() else { return Ok(()) };
        assert_eq!(m.dimensions(), 384);
        assert_eq!(m.model_id(), "all-MiniLM-L6-v2");
        let v = m
            .embed(&texts(&[
                "Search for movies by title.",
                "Search for movies by title.",
            ]))
            .await?;
        assert_eq!(v[0].len(), 384);
        assert_eq!(v[0], v[1]);
        let norm: f32 = v[0].iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
        Ok(())
    }

    #[tokio::test]
    async fn a_paraphrase_is_closer_than_an_unrelated_sentence() -> anyhow::Result<()> {
        let Some(m) = model() else { return Ok(()) };
        let v = m
            .embed(&texts(&[
                "Get the current weather forecast for a city.",
                "Retrieve today's weather conditions in a given town.",
                "Convert an amount of money from euros to US dollars.",
            ]))
            .await?;
        let para = cosine(&v[0], &v[1]);
        let unrelated = cosine(&v[0], &v[2]);
        assert!(
            para > unrelated + 0.2,
            "paraphrase {para} vs unrelated {unrelated}"
        );
        Ok(())
    }

    #[tokio::test]
    async fn a_batch_equals_one_at_a_time() -> anyhow::Result<()> {
        let Some(m) = model() else { return Ok(()) };
        let items = texts(&[
            "List playlists",
            "Return the lyrics of a song given its artist and title, with optional translation into another language.",
            "Geocode an address",
            "",
            "Search hotels near a landmark with a maximum price per night and a minimum review score.",
        ]);
        let batch = m.clone().with_batch_size(8).embed(&items).await?;
        for (text, b) in items.iter().zip(&batch) {
            let single = m.embed(std::slice::from_ref(text)).await?;
            let diff = single[0]
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max);
            assert!(diff < 1e-4, "{text:?}: max difference {diff}");
        }
        Ok(())
    }

    #[tokio::test]
    async fn long_texts_are_truncated_not_rejected() -> anyhow::Result<()> {
        let Some(m) = model() else { return Ok(()) };
        let long = "parameter ".repeat(2_000);
        let v = m.embed(&[long]).await?;
        assert_eq!(v[0].len(), 384);
        assert!(v[0].iter().all(|x| x.is_finite()));
        Ok(())
    }

    #[tokio::test]
    async fn the_packed_encoder_matches_candles_bert() -> anyhow::Result<()> {
        let Some(m) = model() else { return Ok(()) };
        let long = "Return the lyrics of a song given its artist and title. ".repeat(40);
        let items = texts(&[
            "",
            "List playlists",
            "Get the current weather forecast for a city, with hourly temperatures and the chance of rain.",
            "Search hotels near a landmark with a maximum price per night and a minimum review score.",
            long.as_str(),
            "Convert an amount of money from euros to US dollars at today's rate.",
        ]);
        let reference = m.embed_reference_blocking(&items)?;
        // One text at a time (the query path: products split over the cores), and in
        // batches of two run side by side (the catalog path).
        let mut one_by_one = Vec::new();
        for t in &items {
            one_by_one.extend(m.embed_blocking(std::slice::from_ref(t))?);
        }
        let batched = m.clone().with_batch_size(2).embed_blocking(&items)?;
        let single_thread = m.clone().with_threads(1)?.embed_blocking(&items)?;
        for (path, vectors) in [
            ("one by one", &one_by_one),
            ("batched", &batched),
            ("one thread", &single_thread),
        ] {
            assert_eq!(vectors.len(), items.len());
            for ((text, fast), slow) in items.iter().zip(vectors).zip(&reference) {
                let c = cosine(fast, slow);
                assert!(c >= 0.9999, "{path}: cosine {c} for {:.40}", text);
                let norm: f32 = fast.iter().map(|x| x * x).sum::<f32>().sqrt();
                assert!((norm - 1.0).abs() < 1e-4, "{path}: norm {norm}");
            }
        }
        Ok(())
    }
}
