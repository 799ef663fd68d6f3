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
//! Building is incremental: [`DenseIndex::refresh`] embeds only documents whose text is new
//! (a changed doc version changes the text); the rest keep their vectors. Across processes,
//! wrap the embedder in `toolsmith_llm::CachedEmbedder` so vectors persist in SQLite.

mod index;
mod refresh;
mod retriever;
mod settings;
#[cfg(test)]
mod tests;

pub use self::index::DenseIndex;
pub use self::retriever::DenseRetriever;
pub use self::settings::{DenseSettings, Pooling, VectorFormat, passages};
