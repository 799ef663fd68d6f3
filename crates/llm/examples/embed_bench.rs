//! Measures the local embedder and the caches. Run in release:
//!
//! ```text
//! cargo run --release -p toolsmith-llm --example embed_bench
//! ```
//!
//! Prints model load time, local embedding throughput for 1,000 synthetic API descriptions at
//! batch sizes 1, 32 and 128, and the overhead of an embedding-cache hit and a chat-cache hit.
#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

use async_trait::async_trait;
use toolsmith_llm::{
    CacheDb, CacheMode, CachedChat, CachedEmbedder, ChatModel, ChatRequest, ChatResponse, Embedder,
    FinishReason, LocalEmbedder, Message, Usage,
};

const VERBS: [&str; 10] = [
    "Get",
    "List",
    "Search",
    "Create",
    "Delete",
    "Update",
    "Find",
    "Convert",
    "Track",
    "Translate",
];
const OBJECTS: [&str; 10] = [
    "movies",
    "weather forecasts",
    "hotel rooms",
    "stock quotes",
    "playlists",
    "flights",
    "recipes",
    "news articles",
    "currency rates",
    "football scores",
];
const QUALIFIERS: [&str; 10] = [
    "by title",
    "for a given city and date",
    "near a landmark with a price limit",
    "for a ticker symbol over a time range",
    "owned by a user",
    "between two airports",
    "matching a list of ingredients",
    "published in the last 24 hours",
    "from one currency into another",
    "for a team in the current season",
];

/// 1,000 distinct short API descriptions.
fn descriptions() -> Vec<String> {
    let mut out = Vec::with_capacity(1_000);
    for v in VERBS {
        for o in OBJECTS {
            for q in QUALIFIERS {
                out.push(format!("{v} {o} {q}. Returns JSON with pagination."));
            }
        }
    }
    out
}

/// A model that answers at once, to time the cache alone.
struct Instant0;

#[async_trait]
impl ChatModel for Instant0 {
    async fn chat(&self, _req: &ChatRequest) -> toolsmith_llm::Result<ChatResponse> {
        Ok(ChatResponse {
            content: Some("The answer is 42.".into()),
            tool_calls: Vec::new(),
            finish_reason: FinishReason::Stop,
            usage: Usage {
                prompt_tokens: 30,
                completion_tokens: 6,
                estimated: false,
            },
            cache_hit: false,
            model: "instant".into(),
            raw: r#"{"choices":[{"message":{"content":"The answer is 42."}}]}"#.into(),
        })
    }
    fn model_name(&self) -> &str {
        "instant"
    }
}

/// CPU seconds (user + system) this process has used, from `/proc/self/stat` (Linux; 0 elsewhere).
/// The machine may be shared: sentences per CPU-second is the figure that survives contention.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the `(comm)`; utime and stime are the 14th and 15th fields overall.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // USER_HZ is 100 on every Linux configuration that matters here.
    (ticks(11) + ticks(12)) / 100.0
}

fn micros(d: Duration, n: usize) -> f64 {
    d.as_secs_f64() * 1e6 / n as f64
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let texts = descriptions();
    println!(
        "threads: {}",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );

    let started = Instant::now();
    let model = LocalEmbedder::load_default()?;
    println!(
        "model load: {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );

    // Warm-up.
    model.embed_blocking(&texts[..32])?;

    for batch in [1usize, 32, 128] {
        let m = model.clone().with_batch_size(batch);
        let cpu = cpu_seconds();
        let started = Instant::now();
        let vectors = m.embed_blocking(&texts)?;
        let took = started.elapsed();
        let cpu = cpu_seconds() - cpu;
        assert_eq!(vectors.len(), texts.len());
        println!(
            "local embed, batch {batch:>3}: {:>7.1} sentences/s wall ({:.2} s for {}), {:.1} sentences per CPU-second ({:.1} CPU s)",
            texts.len() as f64 / took.as_secs_f64(),
            took.as_secs_f64(),
            texts.len(),
            texts.len() as f64 / cpu.max(1e-9),
            cpu
        );
    }

    // Embedding cache: fill, then time hits.
    let dir = tempfile::tempdir()?;
    let db = CacheDb::open(dir.path().join("bench.db"))?;
    let cached = CachedEmbedder::new(
        model.clone().with_batch_size(128),
        db.clone(),
        CacheMode::ReadWrite,
    );
    let started = Instant::now();
    cached.embed(&texts).await?;
    println!(
        "embedding cache, 1,000 misses (embed + store): {:.2} s",
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let hits = cached.embed(&texts).await?;
    let took = started.elapsed();
    assert_eq!(hits.len(), texts.len());
    println!(
        "embedding cache hit, one batch of 1,000: {:.1} µs per text",
        micros(took, texts.len())
    );
    let n = 1_000;
    let started = Instant::now();
    for t in texts.iter().take(n) {
        cached.embed(std::slice::from_ref(t)).await?;
    }
    println!(
        "embedding cache hit, one text per call: {:.1} µs per call",
        micros(started.elapsed(), n)
    );

    // Chat cache: one entry, hit repeatedly.
    let llm = CachedChat::new(Instant0, db, CacheMode::ReadWrite);
    let req = ChatRequest::new(
        "agent",
        vec![
            Message::system("You are a helpful assistant that uses tools.".repeat(20)),
            Message::user("What is six times seven?"),
        ],
    );
    llm.chat(&req).await?;
    let n = 2_000;
    let started = Instant::now();
    for _ in 0..n {
        let r = llm.chat(&req).await?;
        assert!(r.cache_hit);
    }
    println!(
        "chat cache hit: {:.1} µs per call (~1 KB prompt)",
        micros(started.elapsed(), n)
    );
    let started = Instant::now();
    for _ in 0..n {
        Instant0.chat(&req).await?;
    }
    println!(
        "(uncached instant model: {:.2} µs per call)",
        micros(started.elapsed(), n)
    );
    Ok(())
}
