//! The rankers a [`super::Pipeline`] is built from: a catalog view's corpus, the configured
//! embedder with its vectors cached in the catalog database, BM25/dense/hybrid over it, and the
//! stored tool graph's needs.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use anyhow::Context as _;
use toolsmith_catalog::{ApiId, Catalog, DocLabel, DocSelector, Scope, Store};
use toolsmith_graph::{GraphStore, Need};
use toolsmith_llm::{CacheDb, CacheMode, CachedEmbedder, Embedder, LocalEmbedder, OpenAiEmbedder};
use toolsmith_retrieve::{
    Bm25Index, Corpus, DenseBackend, DenseIndex, DenseRetriever, Method, RetrieveSettings,
    Retriever, build_retriever,
};

use crate::context::Context;
use crate::printer;
use crate::settings::EmbedderKind;

/// Whether a corpus carries, where the chosen doc rewrote an API's description, the
/// description as imported ([`toolsmith_retrieve::Field::Source`]). Filling it reads the
/// catalog a second time (its `original` view), so a corpus reads it only when search weighs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SourceField {
    /// Fill the field from the `original` docs.
    Read,
    /// Leave it empty: search then ranks as with the source's weight at 0, whatever the
    /// configured one. `docs gate` and `bench agreement` judge doc versions so: the field
    /// copies the original's words into every refined version, which blurs the very difference
    /// between versions they measure.
    Skip,
}

impl SourceField {
    /// As `settings` weigh it: read when BM25's or the dense index's `source` weight is above
    /// 0 ([`RetrieveSettings::weighs_source`]).
    pub(crate) fn weighed_by(settings: &RetrieveSettings) -> Self {
        if settings.weighs_source() {
            Self::Read
        } else {
            Self::Skip
        }
    }

    /// As `[retrieve.bm25.weights]` and `[retrieve.dense.fields]` of the config weigh it.
    pub(crate) fn configured(ctx: &Context) -> anyhow::Result<Self> {
        Ok(Self::weighed_by(&ctx.config()?.retrieve.settings()))
    }
}

/// The retrieval corpus of a catalog view, with each API's description as imported beside
/// the chosen one when `source` says so (see [`corpus_of`]).
pub(crate) fn corpus(
    store: &Store,
    selector: &DocSelector,
    source: SourceField,
) -> anyhow::Result<Arc<Corpus>> {
    let catalog = store
        .catalog(selector, &Scope::default())
        .context("reading the catalog")?;
    corpus_of(store, &catalog, source)
}

/// The retrieval corpus of `catalog`, a view of `store`. With [`SourceField::Read`], where
/// its doc of an API is not the original, the `original` view's description fills the source
/// field ([`Corpus::from_catalog_with_source`]), so refinement adds words for search without
/// taking the source's away. A view whose docs are all originals is not read twice, nor is
/// any view with [`SourceField::Skip`].
pub(crate) fn corpus_of(
    store: &Store,
    catalog: &Catalog,
    source: SourceField,
) -> anyhow::Result<Arc<Corpus>> {
    let original = DocLabel::original();
    let refined = || {
        catalog
            .apis()
            .any(|(_, api)| api.doc.as_ref().is_some_and(|d| d.label != original))
    };
    if source == SourceField::Skip || !refined() {
        return Ok(Arc::new(Corpus::from_catalog(catalog)));
    }
    let originals = store
        .catalog(&DocSelector::Label(original), &Scope::default())
        .context("reading the catalog's original docs")?;
    Ok(Arc::new(Corpus::from_catalog_with_source(
        catalog, &originals,
    )))
}

/// The configured embedder (the local MiniLM, or the `[llm]` endpoint's embedding model),
/// its vectors cached in the catalog database.
pub(crate) fn embedder(ctx: &Context, mode: CacheMode) -> anyhow::Result<Arc<dyn Embedder>> {
    let (inner, cache) = uncached_embedder(ctx)?;
    Ok(Arc::new(CachedEmbedder::new(inner, cache, mode)))
}

/// The configured embedder without its cache, and the catalog database's cache.
fn uncached_embedder(ctx: &Context) -> anyhow::Result<(Arc<dyn Embedder>, CacheDb)> {
    let config = ctx.config()?;
    let db = ctx.db();
    let cache = CacheDb::open(db)
        .with_context(|| format!("opening the embedding cache in {}", db.display()))?;
    let inner: Arc<dyn Embedder> = match config.retrieve.embedder {
        EmbedderKind::Local => {
            Arc::new(LocalEmbedder::load_default().context("loading the local embedding model")?)
        }
        EmbedderKind::Http => {
            let settings = config.llm_settings(None);
            Arc::new(
                OpenAiEmbedder::new(&settings, config.retrieve.embedding_dimensions)
                    .with_context(|| format!("the embedding endpoint {}", settings.base_url))?,
            )
        }
    };
    Ok((inner, cache))
}

/// The note printed when a catalog's dense index is missing and search falls back to BM25.
pub(crate) fn missing_index_note(method: Method, apis: usize) -> String {
    format!(
        "note: the dense index of these {apis} APIs is not built, so this {method} search uses \
         BM25; run `toolsmith index` to embed them (once; later searches reuse the vectors)"
    )
}

/// A retriever of `method` over `corpus` that never embeds a large catalog behind the user's
/// back (what `search` and `solve --retrieve` use): up to `[retrieve] embed_on_search_max`
/// APIs it is [`retriever`] (missing vectors embedded on the fly); above it, dense and hybrid
/// read the vectors `toolsmith index` stored, and when some are missing the search uses BM25
/// and a note says how to build the dense index. Commands get it through a [`Pipeline`].
pub(super) async fn indexed_retriever(
    ctx: &Context,
    method: Method,
    corpus: Arc<Corpus>,
) -> anyhow::Result<Arc<dyn Retriever>> {
    let retrieve = &ctx.config()?.retrieve;
    if !method.embeds() || corpus.len() <= retrieve.embed_on_search_max {
        return retriever(ctx, method, corpus).await;
    }
    let settings = retrieve.settings();
    let (inner, cache) = uncached_embedder(ctx)?;
    // Replay: reads the stored vectors and fails at the first one missing, embedding nothing.
    let stored = CachedEmbedder::new(Arc::clone(&inner), cache.clone(), CacheMode::Replay);
    let spinner = ctx
        .progress()
        .spinner(format!("reading the dense index of {} APIs", corpus.len()));
    let built = DenseIndex::build(Arc::clone(&corpus), &stored, settings.dense).await;
    spinner.finish_and_clear();
    let index = match built {
        Ok(index) => index,
        Err(toolsmith_retrieve::Error::Embed {
            source: toolsmith_llm::Error::ReplayMiss { .. },
            ..
        }) => {
            printer::note(missing_index_note(method, corpus.len()));
            return Ok(Arc::new(Bm25Index::build(corpus, settings.bm25)));
        }
        Err(err) => return Err(err.into()),
    };
    build_graph(ctx, &index)?;
    let queries: Arc<dyn Embedder> =
        Arc::new(CachedEmbedder::new(inner, cache, CacheMode::ReadWrite));
    let dense = DenseRetriever::new(Arc::new(index), queries);
    Ok(build_retriever(method, corpus, Some(dense), &settings).await?)
}

/// Builds the index's HNSW graph now, under a progress bar, when its backend walks one (the
/// graph is not stored, and the first search would otherwise build it silently for minutes).
fn build_graph(ctx: &Context, index: &DenseIndex) -> anyhow::Result<()> {
    if index.backend() != DenseBackend::Hnsw {
        return Ok(());
    }
    let bar = ctx.progress().bar(
        index.corpus().len(),
        "building the HNSW graph of the dense index",
    );
    index
        .warm_with_progress(&mut |done, _| {
            bar.set_position(done as u64);
            ControlFlow::Continue(())
        })
        .context("building the HNSW graph")?;
    bar.finish_and_clear();
    Ok(())
}

/// A retriever of `method` over `corpus` with the configured settings; dense and hybrid
/// embed (through the cache) every API not embedded yet. Commands get it through a
/// [`Pipeline`].
pub(super) async fn retriever(
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

/// Per API, the parameters other APIs produce (`toolsmith_graph::Graph::needs`).
pub(super) type Needs = BTreeMap<ApiId, Vec<Need>>;

/// The stored tool graph's dependency needs, when `toolsmith graph build` stored dependency
/// edges.
pub(super) fn stored_needs(ctx: &Context) -> anyhow::Result<Option<Needs>> {
    let db = ctx.db();
    let store = GraphStore::open(db)
        .with_context(|| format!("opening the tool graph in {}", db.display()))?;
    if store.build_info()?.is_none() {
        return Ok(None);
    }
    let needs = store.load().context("reading the tool graph")?.needs();
    Ok((!needs.is_empty()).then_some(needs))
}

#[cfg(test)]
mod tests {
    use toolsmith_catalog::testing::tmdb_store;
    use toolsmith_catalog::{Activate, DocTarget, NewDoc};
    use toolsmith_retrieve::Field;

    use super::*;

    /// Search over a refined doc version keeps each rewritten API's description as imported
    /// beside it when the settings weigh it; over the original docs the field stays empty, and
    /// with the source unweighted (the default) no corpus carries it.
    #[test]
    fn a_refined_views_corpus_carries_the_imported_descriptions_only_when_weighed()
    -> anyhow::Result<()> {
        let mut store = tmdb_store();
        let api = store
            .resolve_api("GET /movie/{movie_id}")?
            .into_iter()
            .next()
            .context("the details API")?;
        let original = corpus(&store, &DocSelector::Active, SourceField::Read)?;
        let imported = original
            .docs()
            .iter()
            .find(|d| d.api == api)
            .map(|d| d.field(Field::ApiDescription).to_owned())
            .context("the details doc")?;
        let draft: DocLabel = "draft".parse()?;
        let doc = NewDoc {
            label: draft.clone(),
            source: "test".into(),
            doc: toolsmith_catalog::Doc {
                description: "Look up one film by its numeric id.".into(),
                ..Default::default()
            },
        };
        store.add_doc(&DocTarget::Api(api.clone()), doc, Activate::IfNoneActive)?;
        let sources = |c: &Corpus| -> Vec<(ApiId, String)> {
            c.docs()
                .iter()
                .filter(|d| !d.field(Field::Source).is_empty())
                .map(|d| (d.api.clone(), d.field(Field::Source).to_owned()))
                .collect()
        };
        let refined = DocSelector::Label(draft);
        let mut weighed = RetrieveSettings::default();
        weighed.dense.fields.source = 1.0;
        let read = SourceField::weighed_by(&weighed);
        assert_eq!(read, SourceField::Read);
        assert_eq!(
            sources(&*corpus(&store, &refined, read)?),
            [(api, imported.trim().to_owned())]
        );
        for chosen in [
            DocSelector::Active,
            DocSelector::Label(DocLabel::original()),
        ] {
            assert!(
                sources(&*corpus(&store, &chosen, read)?).is_empty(),
                "{chosen:?}"
            );
        }
        // Unweighted, the refined view's corpus is the one without the field.
        let unweighed = SourceField::weighed_by(&RetrieveSettings::default());
        assert_eq!(unweighed, SourceField::Skip);
        let skipped = corpus(&store, &refined, unweighed)?;
        assert!(sources(&skipped).is_empty());
        let catalog = store.catalog(&refined, &Scope::default())?;
        assert_eq!(skipped.docs(), Corpus::from_catalog(&catalog).docs());
        Ok(())
    }
}
