//! Dense retrieval: every API's doc text embedded once, queries embedded at search time,
//! cosine similarity by one matrix-vector product.
//!
//! The vectors are one contiguous row-major matrix of f32, L2-normalized, so cosine is a dot
//! product and a search is a single pass over memory: one matrix-vector product by the `gemm`
//! crate's kernel, split over two cores for large catalogs, then a `k`-sized heap picks the
//! best (see `kernel.rs` for the measurements behind the choice). With
//! [`DenseSettings::vectors`] = int8, int8 codes are scanned instead and the best candidates
//! rescored exactly in f32.
//!
//! With [`DenseSettings::backend`] = hnsw (or auto past [`DenseSettings::hnsw_from`]
//! documents) the search walks an HNSW graph instead (see `hnsw.rs`): approximate, built
//! from the vectors when the index is built or loaded (or on the first search of an index
//! made by [`DenseIndex::from_vectors`]), with a log line per 5% of the build.
//!
//! A doc's synthetic user requests (`Doc.queries`, Re-Invoke's views) are embedded as rows of
//! their own after the docs' rows; an API's score aggregates its rows' cosines
//! ([`DenseSettings::views`]: the best by default), and every backend returns APIs, not rows
//! (the exact scans aggregate every row, the int8 scan and HNSW rescore their candidate APIs
//! over all their rows in f32). An API without views scores exactly as before. With
//! [`FieldWeights::source`](crate::FieldWeights::source) above 0, an API whose chosen doc
//! rewrote its description has one more view after its requests: its text with the
//! description as imported (so the refined doc's vector is not diluted by the source's).
//!
//! Building is incremental: [`DenseIndex::refresh`] embeds only documents whose text is new
//! (a changed doc version changes the text); the rest keep their vectors. Across processes,
//! wrap the embedder in `toolsmith_llm::CachedEmbedder` so vectors persist in SQLite.

mod index;
mod refresh;
mod retriever;
mod search;
mod settings;
#[cfg(test)]
mod tests;
mod views;

pub use self::index::DenseIndex;
pub use self::retriever::DenseRetriever;
pub use self::settings::{DenseSettings, Pooling, VectorFormat, passages};
