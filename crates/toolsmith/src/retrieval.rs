//! Retrieval as the commands set it up (`search`, `index`, `bench`, `solve`): the corpus of a
//! catalog view, the configured embedder with its vectors cached in the catalog database,
//! a retriever of the chosen method, and its dependency expansion from the stored tool graph.

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Context as _;
use toolsmith_catalog::{ApiId, DocSelector, Scope, Store};
use toolsmith_graph::{GraphStore, Need};
use toolsmith_llm::{CacheDb, CacheMode, CachedEmbedder, Embedder, LocalEmbedder, OpenAiEmbedder};
use toolsmith_retrieve::{Corpus, ExpandingRetriever, Method, Retriever, build_retriever};

use crate::context::Context;
use crate::settings::EmbedderKind;

/// The retrieval corpus of a catalog view.
pub(crate) fn corpus(store: &Store, selector: &DocSelector) -> anyhow::Result<Arc<Corpus>> {
    let catalog = store
        .catalog(selector, &Scope::default())
        .context("reading the catalog")?;
    Ok(Arc::new(Corpus::from_catalog(&catalog)))
}

/// The configured embedder (the local MiniLM, or the `[llm]` endpoint's embedding model),
/// its vectors cached in the catalog database.
pub(crate) fn embedder(ctx: &Context, mode: CacheMode) -> anyhow::Result<Arc<dyn Embedder>> {
    let config = ctx.config()?;
    let db = ctx.db();
    let cache = CacheDb::open(db)
        .with_context(|| format!("opening the embedding cache in {}", db.display()))?;
    Ok(match config.retrieve.embedder {
        EmbedderKind::Local => {
            let local =
                LocalEmbedder::load_default().context("loading the local embedding model")?;
            Arc::new(CachedEmbedder::new(local, cache, mode))
        }
        EmbedderKind::Http => {
            let settings = config.llm_settings(None);
            let remote = OpenAiEmbedder::new(&settings, config.retrieve.embedding_dimensions)
                .with_context(|| format!("the embedding endpoint {}", settings.base_url))?;
            Arc::new(CachedEmbedder::new(remote, cache, mode))
        }
    })
}

/// A retriever of `method` over `corpus` with the configured settings; dense and hybrid
/// embed (through the cache) every API not embedded yet.
pub(crate) async fn retriever(
    ctx: &Context,
    method: Method,
    corpus: Arc<Corpus>,
) -> anyhow::Result<Arc<dyn Retriever>> {
    let embedder = if method.embeds() {
        Some(embedder(ctx, CacheMode::ReadWrite)?)
    } else {
        None
    };
    let settings = ctx.config()?.retrieve.settings();
    let spinner = ctx.progress().spinner(format!(
        "building the {method} index of {} APIs",
        corpus.len()
    ));
    let built = build_retriever(method, corpus, embedder, &settings).await;
    spinner.finish_and_clear();
    Ok(built?)
}

/// The stored tool graph's dependency needs (per API, the parameters other APIs produce),
/// when `[retrieve.expand]` is on and `toolsmith graph build` stored dependency edges.
pub(crate) fn stored_needs(ctx: &Context) -> anyhow::Result<Option<BTreeMap<ApiId, Vec<Need>>>> {
    if !ctx.config()?.retrieve.expand.enabled {
        return Ok(None);
    }
    let db = ctx.db();
    let store = GraphStore::open(db)
        .with_context(|| format!("opening the tool graph in {}", db.display()))?;
    if store.build_info()?.is_none() {
        return Ok(None);
    }
    let needs = store.load().context("reading the tool graph")?.needs();
    Ok((!needs.is_empty()).then_some(needs))
}

/// [`retriever`], whose results carry the producers of the ids they need when a tool graph
/// is stored (what `search`, `solve --retrieve` and the `search_tools` meta-tool use).
pub(crate) async fn expanding_retriever(
    ctx: &Context,
    method: Method,
    corpus: Arc<Corpus>,
) -> anyhow::Result<Arc<dyn Retriever>> {
    let inner = retriever(ctx, method, Arc::clone(&corpus)).await?;
    Ok(match stored_needs(ctx)? {
        Some(needs) => Arc::new(ExpandingRetriever::new(
            inner,
            &corpus,
            needs,
            ctx.config()?.retrieve.expand,
        )),
        None => inner,
    })
}
