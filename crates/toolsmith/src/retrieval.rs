//! Retrieval as the commands set it up (`search`, `index`, `bench`, `solve`, `serve`): the
//! corpus of a catalog view, the configured embedder with its vectors cached in the catalog
//! database, and the one [`Pipeline`] (ranking of the chosen method, then dependency
//! expansion from the tool graph) every command offers tools through.

mod pipeline;
mod quality;
mod rankers;

pub(crate) use pipeline::{GraphSource, Pipeline, PipelineSpec, Vectors};
pub(crate) use quality::query_quality;
pub(crate) use rankers::{SourceField, corpus, corpus_of, embedder};
