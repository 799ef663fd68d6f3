//! Tool retrieval: find the APIs of a large catalog that fit a query.
//!
//! # Overview
//! - A [`Corpus`] holds one [`CorpusDoc`] per API of a catalog view (one doc version per API,
//!   e.g. the original docs or DRAFT's), cut into fields: tool name, API name and path, tool
//!   description, API description, parameters, usage examples, response field names, the
//!   doc version's synthetic user requests and, where the chosen doc rewrote it, the API's
//!   description as imported ([`FieldWeights`], [`Corpus::from_catalog_with_source`]).
//! - [`Bm25Index`]: an in-memory inverted index with field weights ([`Bm25Settings`]).
//! - [`DenseIndex`] + [`DenseRetriever`]: every API's text embedded once by any
//!   `toolsmith_llm::Embedder` (incrementally: [`DenseIndex::refresh`] re-embeds only changed
//!   texts), scored by one vectorized matrix-vector product ([`DenseSettings`]), or past
//!   [`DenseSettings::HNSW_FROM`] APIs by an approximate HNSW graph walk ([`DenseBackend`],
//!   [`HnswSettings`]). A doc's synthetic user requests (Re-Invoke's views) are embedded one
//!   vector each beside the doc's, and an API scores the best of them ([`ViewScore`]).
//! - [`HybridRetriever`]: the two lists fused ([`Fusion`], [`HybridSettings`]).
//! - All three implement the object-safe [`Retriever`] trait: `search(query, k, filter)` gives
//!   [`Hit`]s; `search_tools` aggregates them per tool. [`build_retriever`] builds any
//!   [`Method`] from a corpus.
//! - [`ExpandingRetriever`] wraps any retriever with dependency-aware expansion: the
//!   producers (from `toolsmith-graph`'s dependency edges) of the ids the retrieved APIs
//!   need are added after the ranking, within a budget ([`ExpandSettings`], [`expand`]).
//! - [`IntentRetriever`] wraps any retriever with intent extraction at query time: a model
//!   ([`LlmIntents`], role `intents`) splits a request into its tool-related intents, each is
//!   searched on its own, and the lists are fused so each intent gets its share of the slots
//!   ([`IntentSettings`], [`IntentFusion`]); one intent is the plain ranking.
//! - [`RerankingRetriever`] wraps any retriever with listwise LLM reranking: a model
//!   ([`LlmReranker`], role `rerank`) sees the top [`RerankSettings::depth`] candidates and
//!   names the relevant ones, most useful first; those go first, the rest keep their order.
//!   Over [`IntentRetriever`] with [`RerankWindow::PerIntent`], a request with several intents
//!   is shown each intent's own top list grouped by need ([`IntentLists`]), and every need's
//!   picks share the first slots.
//! - [`Retriever::explain`] says, on request, why an API scored what it did
//!   ([`Explanation`]): BM25's matched terms and fields, the dense cosine and the text
//!   embedded, each fused list's raw and normalized score with its weight, and for an API
//!   expansion added, the offered API it serves and the parameter carried.
//!
//! ```
//! use std::sync::Arc;
//! use toolsmith_catalog::{DocSelector, ImportOptions, Scope, Store, read_bytes};
//! use toolsmith_retrieve::{Bm25Index, Bm25Settings, Corpus, Filter, Retriever};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let functions = br#"[
//!   {"type": "function", "function": {"name": "search_movie", "description": "Find movies by their title",
//!     "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}},
//!   {"type": "function", "function": {"name": "person_credits", "description": "The films a person directed or acted in",
//!     "parameters": {"type": "object", "properties": {"person_id": {"type": "integer"}}}}}
//! ]"#;
//! let batch = read_bytes("films.json".as_ref(), functions, &ImportOptions::default())?;
//! let mut store = Store::in_memory()?;
//! store.import(&batch, toolsmith_catalog::Activate::IfNoneActive)?;
//! let catalog = store.catalog(&DocSelector::Active, &Scope::default())?;
//! let bm25 = Bm25Index::build(Arc::new(Corpus::from_catalog(&catalog)), Bm25Settings::default());
//! let hits = bm25.search("films Sofia Coppola directed", 1, &Filter::default()).await?;
//! assert_eq!(hits[0].api.to_string(), "films/person_credits");
//! # Ok(()) }
//! ```
//!
//! # Measured choices
//! Reproduce with `toolsmith bench retrieval --dataset restbench-tmdb|toolbench-draft282|
//! toolbench-g1|toolbench-g2 --method bm25|dense|hybrid [--doc-version draft-ref|easytool-ref]`
//! and with toolsmith-eval's `tune` example (the grids behind the defaults; `-- fusion` for the
//! hybrid's). NDCG@10 in percent (g1/g2: the 349 and 117 queries whose gold APIs are all in
//! ToolEnv2404's 46,803 APIs):
//!
//! | | TMDB original | TMDB DRAFT | TMDB EasyTool | draft282 original | draft282 DRAFT | draft282 EasyTool | g1 | g2 |
//! |---|---|---|---|---|---|---|---|---|
//! | BM25, every field weight 1 | 44.4 | 47.5 | 46.7 | 60.2 | 49.7 | 57.5 | | |
//! | BM25, default weights | 46.2 | 47.8 | 47.6 | 63.2 | 60.2 | 66.6 | 59.3 | 52.1 |
//! | dense (MiniLM) | 52.2 | 47.8 | 47.4 | 42.8 | 40.5 | 45.7 | 51.3 | 32.8 |
//! | hybrid, plain RRF (k = 60) | 55.9 | 52.7 | 52.8 | 53.2 | 50.9 | 57.0 | 61.2 | 42.1 |
//! | hybrid, RRF (k = 20, dense ×0.35), the default until z-scores | 52.9 | 50.8 | 51.8 | 61.0 | 59.0 | 64.5 | 62.8 | 49.6 |
//! | hybrid, z-scores, BM25 0.6 / dense 0.4 | 55.1 | 53.6 | 52.3 | 63.2 | 60.9 | 66.8 | 64.2 | 52.5 |
//! | **hybrid, default (z-scores, weighted alike)** | 57.1 | 53.6 | 52.3 | 61.9 | 59.4 | 65.6 | 63.3 | 49.7 |
//!
//! Dense helps where it is about as good as BM25 (TMDB, g1) and hurts where it is far weaker
//! (draft282, g2: MiniLM reads RapidAPI's terse, name-heavy docs poorly, and multi-tool queries
//! worse). Rank fusion had to weigh the dense list down to keep from losing on the second kind;
//! z-scores keep each list's margins, so a weak list's flat scores move the sum little and no
//! down-weighting is needed. The default beats the former one on every column above, and the
//! mean of the four original-doc columns rises from 56.6 to 58.0 (BM25 alone: 55.2). Dense at
//! 0.4 has the best such mean (58.75) but is 2 points lower on TMDB, and on the docs toolsmith
//! refines itself (RestBench TMDB, `refine`'s EasyTool and DRAFT docs: 58.7 and 57.4 against
//! 57.1 and 57.4); equal weights also need no tuned constant. Held out, Spotify: 75.0 -> 73.5
//! on its original docs, 73.5 -> 75.0 on EasyTool docs. On a catalog like ToolBench's,
//! `[retrieve] method = "bm25"` in `toolsmith.toml` stays a good choice.
//!
//! Speed (`toolsmith bench search-speed`, release build, 2 cores, 46,802 APIs, dense kernel on
//! random unit vectors of 384 dimensions): BM25 0.43 ms, dense 3.9 ms, hybrid 4.3 ms p50 per
//! query, plus the query's embedding (MiniLM on the CPU: 40 ms p50, the dominant cost).
//!
//! Without views nothing changed: the same machine, G1/G2 query texts, int8, load average
//! about 10, this code's and the code before views run in turn, two runs of two passes each:
//! hybrid p50 1.32 to 1.46 ms against 1.27 to 1.63 ms before, dense 0.82 to 0.96 against
//! 0.83 to 0.89, BM25 0.18 to 0.19 against 0.18 to 0.20. With 10 views per API
//! (`examples/view_speed.rs`, release build, random view vectors, so 514,833 dense rows;
//! load average 13 on the 2 cores): dense int8 0.93 -> 29 ms p50, f32 2.9 -> 76 ms, hybrid
//! (int8) 3.2 -> 38 ms in the same run. The exact scan reads every row, so views multiply its
//! cost by their number: with many views on a large catalog, prefer `backend = "hnsw"` (its
//! walk over-fetches rows and rescores the APIs found) or fewer views.
//!
//! - **BM25 fields** ([`Bm25Settings::DEFAULT_WEIGHTS`]): tool and API names ×2, API
//!   description ×1, parameters ×0.5, usage examples ×1, tool description left out. Every API
//!   of a tool shares the tool's description, so it cannot rank them, and ToolBench's long
//!   ones drown the API's own words: dropping it gains 3 to 10 NDCG@10 on draft282.
//! - **The source's description** ([`SOURCE_WEIGHT`], [`FieldWeights::source`]) is off by
//!   default; at 1 it counts in BM25 and is one more dense view wherever a refined doc rewrote
//!   it. Refinement helps search on some catalogs and hurts on others, because a rewrite drops
//!   words requests share with the spec's text; the field gives them back. Hybrid NDCG@10,
//!   off -> on: Spotify, EasyTool docs 71.2 -> 74.3 (original 73.8); TMDB, DRAFT's published
//!   docs 53.5 -> 55.7, EasyTool's 52.3 -> 53.9; draft282, DRAFT's 59.4 -> 59.0 (there the
//!   loss is what the rewrite adds). It was left off while it blinded `docs gate`, which
//!   ranks a candidate doc against the active one by search; the gate and `bench agreement`
//!   now rank without it whatever its weight, and a corpus reads the imported descriptions
//!   only when a weight counts them ([`RetrieveSettings::weighs_source`]).
//! - **Stemming** (plural-only, [`stem`]) is on: +2 to +4 NDCG@10 on TMDB, ±1.5 on draft282.
//! - **Dense text** ([`DenseSettings::DEFAULT_FIELDS`]): names, API description, examples.
//! - **Long docs embedded whole** ([`DenseSettings::CHUNK_CHARS`] = 0): passages of 500 to
//!   1,000 characters pooled into one vector (mean, length-weighted, or max over passages)
//!   move NDCG@10 by -4.5 to +2 per doc version on TMDB, -1 to +0.8 on Spotify (held out) and
//!   -0.1 to +0.5 on draft282; `chunk_chars` turns them on.
//! - **Fusion** ([`HybridSettings::DEFAULT_FUSION`]): z-scores over the top 100 of each
//!   list, weighted alike (grid: BM25 weight in {0.4, 0.5, 0.6, 0.7}; RRF: k in {20, 60} x dense
//!   weight in {1, 0.75, 0.5, 0.35, 0.25}). A weighted sum of min-max normalized scores comes
//!   close (at its best 0.3 below z-scores on the mean of all twelve benchmark and doc-version
//!   cells) but one outlier squashes the rest of its list.
//! - **Dependency expansion** ([`ExpandSettings::DEFAULT`]: budget 4, one producer per
//!   unmet need, producers ranked by the query's top 100). Offered-path coverage (every gold
//!   API among the tools offered, `bench retrieval`) on restbench-tmdb, original docs, with
//!   the dependency edges `toolsmith-graph` derives from the TMDB spec:
//!
//!   | | @5 | @10 | @20 | tools offered @5 / @10 / @20 |
//!   |---|---|---|---|---|
//!   | hybrid top-K | 21 | 43 | 70 | 5 / 10 / 20 |
//!   | hybrid + expansion, budget 2 | 42 | 61 | 87 | 6.2 / 11.2 / 21.5 |
//!   | hybrid + expansion, budget 4 | 47 | 64 | 90 | 6.4 / 11.6 / 21.9 |
//!   | hybrid + expansion, budget 8 | 47 | 64 | 90 | 6.4 / 11.7 / 21.9 |
//!   | BM25 top-K | 20 | 36 | 51 | 5 / 10 / 20 |
//!   | BM25 + expansion, budget 4 | 45 | 58 | 77 | 6.1 / 10.4 / 17.6 |
//!
//!   A need counts as met only by an offered lookup (a producer taking free text, such as a
//!   search: most queries name the movie or person); without that rule (any producer meets
//!   it) coverage@10 rose only from 43 to 43. The queries still not covered miss a
//!   *consumer* (`/tv/{tv_id}`, `/tv/{tv_id}/credits`), which producer expansion cannot add.
//! - **Graph-aware neighbours** ([`ExpandMode::Neighbours`], [`ExpandSettings::NEIGHBOURS`]):
//!   after the producers, the remaining budget goes to the APIs of the ranking's top `depth`
//!   (40) linked to an offered API by a dependency edge in either direction, best chain score
//!   (`1/(10 + own rank) + anchor_weight/(10 + linked API's rank)`) first; `swap` hands slots
//!   of the plain top-k to it. Coverage (%) at tools offered, hybrid, original docs; tuned on
//!   TMDB, Spotify (RestBench's 40 endpoints, 56 of 57 queries) held out, same settings:
//!
//!   | | TMDB @5 / @10 / @20 | tools | Spotify @5 / @10 / @20 | tools |
//!   |---|---|---|---|---|
//!   | top-K | 21 / 43 / 70 | 5 / 10 / 20 | 36 / 63 / 71 | 5 / 10 / 20 |
//!   | producers, budget 4 (default) | 47 / 64 / 90 | 6.4 / 11.6 / 21.9 | 43 / 63 / 71 | 6.0 / 10.8 / 20.7 |
//!   | neighbours, budget 2, rank only | 46 / 63 / 87 | 7 / 12 / 22 | | |
//!   | neighbours, budget 2 | 47 / 65 / 87 | 7 / 12 / 22 | 48 / 63 / 73 | 6.9 / 12 / 22 |
//!   | neighbours, budget 2, swap 2 | 55 / 65 / 90 | 7 / 12 / 22 | | |
//!   | neighbours, budget 3, swap 1, anchor 2 | 56 / 67 / 93 | 8 / 13 / 23 | | |
//!   | neighbours, budget 7 | 63 / 73 / 96 | 12 / 17 / 27 | 55 / 64 / 80 | 11.8 / 17 / 27 |
//!
//!   The goal of 90% at 12 tools is not reached: at 12 tools the best is 65% (TMDB); 90%
//!   takes about 22. Every TMDB API is linked to some offered one (the searches feed
//!   nearly all), so the links barely narrow the choice; the chain score gains 2 points
//!   over rank alone. Neighbours stay opt-in (`[retrieve.expand] mode = "neighbours"`).
//!   On toolbench-draft282, with the name fallback's dependency edges (369, from 0):
//!   coverage@10 47.7 -> 48.2 (producers, 10.3 tools) and 48.7 (neighbours, 10.6 tools).
//! - **With ToolExpNet's insights** (`refine --method expnet`, one iteration, as the `expnet`
//!   doc version; written by a stand-in model through a loopback endpoint): the insights
//!   name each API's inputs, what feeds it and its typical requests, so the consumers the
//!   plain ranking missed move into the window the neighbours pass reads. Coverage (%) at
//!   tools offered, hybrid, default fusion:
//!
//!   | | TMDB original | TMDB `expnet` | Spotify original (held out) | Spotify `expnet` |
//!   |---|---|---|---|---|
//!   | producers, budget 4 (default), k = 10 | 71 (11.3) | 86 (12.5) | 54 (10.7) | 54 (10.8) |
//!   | neighbours, budget 4, k = 8 | 70 (12.0) | 89 (12.0) | 57 (12.0) | 59 (12.0) |
//!   | neighbours, budget 5, k = 7 | 69 (12.0) | **90 (12.0)** | 59 (11.8) | 55 (12.0) |
//!
//!   The 90% at 12 tools holds on TMDB only with the insights and the neighbours pass
//!   together (k and budget picked on TMDB from k 6..10 x budget 3..5). Held out on Spotify
//!   the insights move coverage at 12 tools by -4 to +2 points against its original docs at
//!   the same settings and cost 3.6 NDCG@10 (73.5 -> 69.9): TMDB's gain does not carry over,
//!   so neighbours stay opt-in (`[retrieve.expand] mode = "neighbours"`, `budget = 5`, with
//!   `--doc-version expnet` and `-k 7` for TMDB's figure).
//! - **Intent extraction** ([`IntentSettings`]) is off by default: it needs a model, and its
//!   gain has not been measured here yet (the issue's pilot, BM25 per intent merged
//!   round-robin over ToolEnv2404: recall of gold APIs at 20 tools 38.6% -> 53.6%). Its cost
//!   is one model call per distinct request (cached) plus one search per intent;
//!   `bench retrieval --intents` reports the calls and tokens per query.
//! - **Reranking** ([`RerankSettings`]) is off by default: it needs a model and costs one
//!   call per distinct request and window (cached); `bench retrieval --rerank` reports the
//!   calls, tokens and unusable replies per query. On RestBench TMDB (hybrid, original docs,
//!   a stand-in chat model, window 20) it lifted NDCG@5 50.1 -> 86.4 and NDCG@10 57.5 ->
//!   86.7, path coverage at 5 tools 29 -> 67% (54 -> 89% with expansion), for one call of
//!   about 900 prompt and 9 completion tokens per query (no reply was unusable); the
//!   window's set is the first stage's, so coverage at 20 stays 70%. The per-intent window
//!   ([`RerankWindow::PerIntent`]) stays opt-in until measured with a model; its ceiling on
//!   ToolBench G2 (the share of queries whose whole gold path the window holds) is 75.2% at
//!   30 per intent (66 candidates), against 66.7% for the fused window of 40
//!   (`bench retrieval --intents --coverage-k 20,30,40` reports both).
//! - **Judged coverage**: offered-path coverage wants the gold APIs themselves, but a
//!   benchmark's gold path names one of many interchangeable APIs (ToolEnv2404 holds dozens
//!   of QR generators), so an offer with another one counts as a miss. `bench retrieval
//!   --judge-offer` also asks the judge model (eval's `OfferJudge`) whether each offer serves
//!   every need of its request, and reports both figures; the strict one stays the metric.
//! - **BM25 rather than tantivy**: see [`Bm25Index`]; the speed is measured by
//!   `toolsmith bench search-speed`, with [`timing`]'s passes and brute-force baseline.
#![warn(missing_docs)]

pub use crate::bm25::{B, Bm25Index, Bm25Settings, QUERIES_WEIGHT, RETURNS_WEIGHT, SOURCE_WEIGHT};
pub use crate::corpus::{Corpus, CorpusDoc, Field, FieldWeights};
pub use crate::dense::{
    DenseIndex, DenseRetriever, DenseSettings, Pooling, VectorFormat, passages,
};
pub use crate::error::{Error, Result};
pub use crate::expand::{ExpandMode, ExpandSettings, Expander, ExpandingRetriever, Offer, expand};
pub use crate::explain::{
    Added, Bm25Explanation, DenseExplanation, DenseView, ExpandedExplanation, Explanation,
    FieldShare, HybridExplanation, IntentExplanation, Link, ListPart, MatchedView, Normalization,
    TermScore,
};
pub use crate::explain::{RerankExplanation, ServedNeed};
pub use crate::hnsw::{DenseBackend, HnswSettings, PAPER as HNSW_PAPER};
pub use crate::hybrid::{Fusion, HybridRetriever, HybridSettings, RRF_K, fuse, fused_scores};
pub use crate::intents::{
    INTENTS_PROMPT, IntentExtractor, IntentFusion, IntentLists, IntentRetriever, IntentSettings,
    LlmIntents, RRF_INTENT_K,
};
pub use crate::kernel::dot;
pub use crate::method::{DenseInput, Method, RetrieveSettings, build_retriever};
pub use crate::rerank::{
    Candidate, LlmReranker, Need, RERANK_NEEDS_PROMPT, RERANK_PROMPT, RerankCounts, RerankSettings,
    RerankWindow, Reranker, RerankingRetriever,
};
pub use crate::retriever::{Filter, Hit, Retriever, ToolHit};
pub use crate::tokenize::stem;
pub use crate::view_score::{VIEWS_PAPER, ViewScore};

mod bm25;
mod corpus;
mod dense;
mod error;
mod expand;
mod explain;
mod field;
mod hnsw;
mod hybrid;
mod intents;
mod kernel;
mod method;
mod rerank;
mod retriever;
pub mod timing;
mod tokenize;
mod view_score;
