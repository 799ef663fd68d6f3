//! Everything that can go wrong while building an index or searching it.

/// A failure of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The embedder failed.
    #[error("embedding {what}")]
    Embed {
        /// What was being embedded (`query`, `APIs 0..256 of 1006`).
        what: String,
        /// The embedder's error.
        #[source]
        source: toolsmith_llm::Error,
    },
    /// The embedder returned vectors of the wrong count or length.
    #[error("embedder `{model}` returned {got}, expected {expected}")]
    EmbeddingShape {
        /// The embedder's model id.
        model: String,
        /// What was expected.
        expected: String,
        /// What came back.
        got: String,
    },
    /// Vectors handed to an index do not match its shape.
    #[error("{got} floats do not make rows of {dims} dimensions for {rows} APIs")]
    VectorShape {
        /// Dimensions per row.
        dims: usize,
        /// Rows expected (APIs in the corpus).
        rows: usize,
        /// Floats given.
        got: usize,
    },
    /// An unknown method name.
    #[error("unknown retrieval method `{0}`: use bm25, dense or hybrid")]
    UnknownMethod(String),
    /// A method that embeds was asked for without an embedder.
    #[error("retrieval method `{0}` needs an embedder")]
    NoEmbedder(&'static str),
    /// A setting holds a value the index cannot use.
    #[error("setting `{name}` = {value}: expected {expected}")]
    Setting {
        /// The setting's path in `toolsmith.toml`.
        name: &'static str,
        /// The value given.
        value: usize,
        /// What it may be.
        expected: &'static str,
    },
    /// Asking the model for a request's intents failed.
    #[error("extracting the intents of a request")]
    Intents {
        /// The model's error.
        #[source]
        source: toolsmith_llm::Error,
    },
    /// Asking the model to rerank a request's candidates failed.
    #[error("reranking the candidates of a request")]
    Rerank {
        /// The model's error.
        #[source]
        source: toolsmith_llm::Error,
    },
    /// Reading the catalog failed.
    #[error("reading the catalog")]
    Catalog(#[from] toolsmith_catalog::Error),
}

/// `Result` with this crate's [`Error`] as the default.
pub type Result<T, E = Error> = std::result::Result<T, E>;
