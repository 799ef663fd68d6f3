//! `toolsmith search` with the embedder and method from `toolsmith.toml`: a loopback
//! OpenAI-compatible `/embeddings` endpoint stands in for a remote embedding model.

use serde_json::Value;

use crate::docs_gate_command::{SOURCE_WEIGHED, workspace};
use crate::support::model::{Prompts, embedding_model};
use crate::support::{Workspace, shared};

const DIMS: usize = 64;

/// A bag of hashed lowercase words: texts sharing words get similar vectors.
fn hashed_words(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; DIMS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let word = word.to_lowercase();
        let h = word.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        v[(h % DIMS as u64) as usize] += 1.0;
    }
    v
}

/// A workspace with TMDB imported whose embedder is [`hashed_words`] on a loopback port, with
/// `method` if given and `extra` lines under `[retrieve]`; returns also every text it embeds.
async fn tmdb_with_embedder(method: Option<&str>, extra: &str) -> (Workspace, Prompts) {
    let (addr, seen) = embedding_model(hashed_words).await;
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    ws.use_embedder(addr, method, DIMS, extra);
    (ws, seen)
}

#[tokio::test(flavor = "multi_thread")]
async fn search_uses_the_configured_http_embedder_and_caches_its_vectors() {
    let (ws, seen) = tmdb_with_embedder(Some("dense"), "").await;
    let search = move || {
        let out = ws.ok(&[
            "search",
            "search for a movie by its title",
            "-k",
            "3",
            "--json",
        ]);
        (out, ws)
    };
    let (out, ws) = tokio::task::spawn_blocking(search).await.unwrap();
    let hits: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(hits.len(), 3);
    let ids: Vec<&str> = hits.iter().map(|h| h["api"].as_str().unwrap()).collect();
    assert!(ids.contains(&"tmdb/get_search_movie"), "{ids:?}");
    let first_round = seen.lock().unwrap().len();
    assert_eq!(first_round, 54 + 1, "every API once, then the query");

    // The vectors are cached in the catalog database: a new query embeds only itself.
    let (_, ws) = tokio::task::spawn_blocking(move || {
        let out = ws.ok(&["search", "popular people", "-k", "3", "--json"]);
        (out, ws)
    })
    .await
    .unwrap();
    let asked = seen.lock().unwrap().clone();
    assert_eq!(asked.len(), first_round + 1);
    assert_eq!(asked.last().map(String::as_str), Some("popular people"));

    // `--method bm25` needs no embedder at all.
    let out = tokio::task::spawn_blocking(move || {
        ws.ok(&["search", "popular people", "--method", "bm25", "-k", "1"])
    })
    .await
    .unwrap();
    assert!(out.contains("tmdb/"), "{out}");
    assert_eq!(seen.lock().unwrap().len(), first_round + 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_catalog_above_the_threshold_without_vectors_is_searched_with_bm25_and_a_note() {
    // 54 APIs, above a threshold of 10: search must not embed them.
    let (ws, seen) = tmdb_with_embedder(None, "embed_on_search_max = 10\n").await;
    let (out, ws) = tokio::task::spawn_blocking(move || {
        let out = ws.run(&[
            "search",
            "search for a movie by its title",
            "--method",
            "hybrid",
            "-k",
            "3",
            "--json",
        ]);
        (out, ws)
    })
    .await
    .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("uses BM25") && stderr.contains("toolsmith index"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("toolsmith index").count(), 1, "{stderr}");
    let hits: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits.len(), 3);
    assert!(
        hits.iter().any(|h| h["api"] == "tmdb/get_search_movie"),
        "{hits:?}"
    );
    assert!(seen.lock().unwrap().is_empty(), "nothing embedded");

    // `toolsmith index` embeds the catalog; then hybrid search reads the vectors, embeds
    // only the query, and prints no note.
    let (out, ws) = tokio::task::spawn_blocking(move || {
        ws.ok(&["index"]);
        let out = ws.run(&["search", "popular people", "--method", "hybrid", "-k", "3"]);
        (out, ws)
    })
    .await
    .unwrap();
    assert!(out.status.success());
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("toolsmith index"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let asked = seen.lock().unwrap().clone();
    assert_eq!(
        asked.len(),
        54 + 1,
        "every API once by index, then the query"
    );
    assert_eq!(asked.last().map(String::as_str), Some("popular people"));

    // The same stored vectors searched through an HNSW graph (built before the search, as
    // `[retrieve.dense] backend = "hnsw"` asks) give the exact scan's top 5 on 54 APIs.
    let settings = std::fs::read_to_string(ws.dir.path().join("toolsmith.toml")).unwrap();
    let dense_top = move |ws: &Workspace, backend: &str| {
        std::fs::write(
            ws.dir.path().join("toolsmith.toml"),
            format!("{settings}\n[retrieve.dense]\nbackend = \"{backend}\"\n"),
        )
        .unwrap();
        let out = ws.ok(&[
            "search",
            "popular people",
            "--method",
            "dense",
            "-k",
            "5",
            "--json",
        ]);
        let hits: Vec<Value> = serde_json::from_str(&out).unwrap();
        hits.iter()
            .map(|h| h["api"].to_string())
            .collect::<Vec<_>>()
    };
    let (exact, hnsw) =
        tokio::task::spawn_blocking(move || (dense_top(&ws, "exact"), dense_top(&ws, "hnsw")))
            .await
            .unwrap();
    assert_eq!(exact.len(), 5);
    assert_eq!(hnsw, exact);
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn search_explain_gives_bm25_terms_and_the_expansion_that_added_an_api() {
    let ws = Workspace::new();
    ws.ok(&["import", &shared("restbench-tmdb/restgpt/tmdb_oas.json")]);
    ws.ok(&["graph", "build", "--no-similarity"]);
    let query = "Get the cast and crew for a movie";
    let args = ["search", query, "-k", "2", "--method", "bm25", "--json"];
    let plain: Value = serde_json::from_str(&ws.ok(&args)).unwrap();
    assert!(
        plain
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h.get("explanation").is_none()),
        "explaining is on request only: {plain}"
    );
    let hits: Value = serde_json::from_str(&ws.ok(&[&args[..], &["--explain"]].concat())).unwrap();
    let hits = hits.as_array().unwrap();
    assert!(hits.len() > 2, "expansion added APIs: {hits:?}");
    for hit in &hits[..2] {
        let why = &hit["explanation"];
        assert_eq!(why["method"], "bm25", "{hit}");
        let score = hit["score"].as_f64().unwrap();
        let terms: f64 = why["terms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["score"].as_f64().unwrap())
            .sum();
        assert!(close(terms, score), "{terms} vs {score}: {why}");
    }
    assert_eq!(hits[0]["api"], "tmdb/get_movie_movie_id_credits");
    let search = hits
        .iter()
        .find(|h| h["api"] == "tmdb/get_search_movie")
        .expect("the movie search is added");
    let why = &search["explanation"];
    assert_eq!(why["method"], "expanded", "{why}");
    assert_eq!(why["added"]["feeds"], "tmdb/get_movie_movie_id_credits");
    assert_eq!(why["added"]["param"], "movie_id");
    assert_eq!(why["added"]["link"], "producer");
    assert_eq!(why["ranking"]["method"], "bm25");

    // As text, each hit's explanation is indented under it.
    let text = ws.ok(&["search", query, "-k", "2", "--method", "bm25", "--explain"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("tmdb/get_movie_movie_id_credits"),
        "{text}"
    );
    assert!(lines[1].trim_start().starts_with("bm25 "), "{text}");
    assert!(
        text.contains(
            "added by expansion: produces `movie_id` that tmdb/get_movie_movie_id_credits needs"
        ),
        "{text}"
    );
    // Tools are not explained.
    let out = ws.run(&["search", query, "--tools", "--explain"]);
    assert!(!out.status.success());
}

#[tokio::test(flavor = "multi_thread")]
async fn search_explain_gives_the_fusions_parts_which_add_up_to_the_score() {
    let (ws, _) = tmdb_with_embedder(Some("hybrid"), "").await;
    let out = tokio::task::spawn_blocking(move || {
        ws.ok(&["search", "popular people", "-k", "5", "--explain", "--json"])
    })
    .await
    .unwrap();
    let hits: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(hits.len(), 5);
    for hit in &hits {
        let why = &hit["explanation"];
        assert_eq!(why["method"], "hybrid", "{hit}");
        assert_eq!(why["normalization"]["kind"], "z_score");
        let score = hit["score"].as_f64().unwrap();
        let part = |list: &str| {
            let p = &why[list];
            let (w, z, c) = (
                p["weight"].as_f64().unwrap(),
                p["normalized"].as_f64().unwrap(),
                p["contribution"].as_f64().unwrap(),
            );
            assert!(close(w * z, c), "{p}");
            assert_eq!(w, 0.5, "the lists weigh alike by default");
            c
        };
        assert!(close(part("bm25") + part("dense"), score), "{why}");
        let dense = &why["dense"];
        assert_eq!(dense["detail"]["method"], "dense");
        assert_eq!(dense["detail"]["model"], "loopback-embed");
        if let Some(raw) = dense["raw"].as_f64() {
            assert!(close(raw, dense["detail"]["similarity"].as_f64().unwrap()));
        }
    }
}

/// The top API `search` gives a movie query over the cinema catalog's `easytool` docs, whose
/// movie-search doc lost the words the query shares with the imported one (`None`: no API
/// holds a word of it).
fn easytool_top(ws: &Workspace) -> Option<String> {
    let out = ws.ok(&[
        "search",
        "films titled Alien",
        "--method",
        "bm25",
        "--doc-version",
        "easytool",
        "-k",
        "1",
        "--json",
    ]);
    let hits: Vec<Value> = serde_json::from_str(&out).unwrap();
    hits.first().map(|h| h["api"].as_str().unwrap().to_owned())
}

/// Search reads the imported descriptions beside a refined label only when `[retrieve]`
/// weighs the source field: weighed, the movie search is found by them again.
#[test]
fn search_reads_the_source_descriptions_only_when_the_config_weighs_them() {
    let ws = workspace();
    assert_eq!(easytool_top(&ws), None, "off by default");
    std::fs::write(ws.dir.path().join("toolsmith.toml"), SOURCE_WEIGHED).unwrap();
    assert_eq!(easytool_top(&ws).as_deref(), Some("cinema/searchmovie"));
}
