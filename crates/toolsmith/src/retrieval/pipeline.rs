//! The one retrieval pipeline every command offers tools through: a catalog view's corpus,
//! the query rewriting stage, the ranking of the chosen method, the reranking stage, and
//! dependency expansion from a tool graph (on the reranked list). `search`, `solve --retrieve`/`--search-tool`, AnyTool's seeding, `bench
//! run --tools retrieve:K|search-tool`, `bench retrieval` and `serve` each build one
//! [`Pipeline`] from a [`PipelineSpec`], so what a benchmark measures is what a user gets.

use std::sync::Arc;

use anyhow::Context as _;
use toolsmith_catalog::{ApiId, Catalog};
use toolsmith_graph::build_graph;
use toolsmith_llm::{Budget, CacheMode, Metered, UsageTotals};
use toolsmith_retrieve::{
    Added, Corpus, ExpandSettings, ExpandingRetriever, Filter, Hit, IntentRetriever,
    IntentSettings, LlmIntents, LlmReranker, Method, RerankCounts, RerankSettings,
    RerankingRetriever, Retriever,
};

use crate::context::Context;

/// How a dense or hybrid ranking gets its API vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vectors {
    /// Embed (through the cache) every API not embedded yet: benchmarks and `serve`.
    EmbedMissing,
    /// Above `[retrieve] embed_on_search_max` APIs, read only what `toolsmith index` stored,
    /// falling back to BM25 with a note: `search` and `solve`.
    Indexed,
}

/// Where dependency expansion reads its tool graph from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum GraphSource<'a> {
    /// The graph `toolsmith graph build` stored in the catalog database; none stored, no
    /// expansion.
    Stored,
    /// The stored graph, or when none is stored, one derived now from this catalog's
    /// schemas (deterministic, no embedding): a benchmark over the context's own catalog.
    StoredOrDerived(&'a Catalog),
    /// One derived now from this catalog (a benchmark's own catalog, not in the database).
    Derived(&'a Catalog),
}

impl<'a> GraphSource<'a> {
    /// A benchmark's graph source: the stored graph when the benchmark runs over the
    /// context's own catalog (`own`), else one derived from `catalog`.
    pub(crate) fn for_benchmark(own: bool, catalog: &'a Catalog) -> Self {
        if own {
            Self::StoredOrDerived(catalog)
        } else {
            Self::Derived(catalog)
        }
    }
}

/// A ranking with its rewriting stage in front, the budget counting the stage's model calls
/// when it asks a model, and the intent stage itself when it is one (its per-intent lists feed
/// the reranking window and `bench retrieval`'s window coverage).
type Staged = (
    Arc<dyn Retriever>,
    Option<Arc<Budget>>,
    Option<Arc<IntentRetriever>>,
);

/// The query rewriting stage, before the ranking.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum Rewrite {
    /// Search the query as written.
    #[default]
    Verbatim,
    /// Split the request into its intents with the configured model (role `intents`), search
    /// each, and fuse the lists ([`IntentRetriever`]); one intent is the verbatim search.
    Intents(IntentSettings),
}

impl Rewrite {
    /// The stage `[retrieve.intents]` configures, or the flag's choice (`Some(on)`).
    pub(crate) fn from_settings(settings: IntentSettings, flag: Option<bool>) -> Self {
        if flag.unwrap_or(settings.enabled) {
            Self::Intents(settings)
        } else {
            Self::Verbatim
        }
    }

    /// The ranking with this stage in front of it (a rewriting stage wraps `ranker`), and the
    /// budget that counts the stage's model calls and tokens, when it asks a model.
    fn stage(
        self,
        ctx: &Context,
        cache: CacheMode,
        ranker: Arc<dyn Retriever>,
    ) -> anyhow::Result<Staged> {
        match self {
            Self::Verbatim => Ok((ranker, None, None)),
            Self::Intents(settings) => {
                let chat = crate::llm::cached_chat(ctx, None, cache)
                    .context("the model that extracts intents (--intents, [retrieve.intents])")?;
                let budget = Arc::new(Budget::unlimited());
                let model = Metered::new(chat, Arc::clone(&budget));
                let extractor = Arc::new(LlmIntents::new(model));
                let wrapped = Arc::new(IntentRetriever::new(ranker, extractor, settings));
                let ranker = Arc::clone(&wrapped) as Arc<dyn Retriever>;
                Ok((ranker, Some(budget), Some(wrapped)))
            }
        }
    }
}

/// The reranking stage over `ranker` when `settings` turn it on (`None`: off): the stage and
/// the budget counting its model calls and tokens.
/// A per-intent window (`[retrieve.rerank] window = "per_intent"`) reads `intents`' own lists;
/// without intent extraction every request gets the fused window.
fn rerank_stage(
    ctx: &Context,
    cache: CacheMode,
    ranker: Arc<dyn Retriever>,
    settings: Option<RerankSettings>,
    intents: Option<&Arc<IntentRetriever>>,
) -> anyhow::Result<Option<(Arc<RerankingRetriever>, Arc<Budget>)>> {
    let Some(settings) = settings.filter(|s| s.depth > 0) else {
        return Ok(None);
    };
    let chat = crate::llm::cached_chat(ctx, None, cache)
        .context("the model that reranks (--rerank, [retrieve.rerank])")?;
    let budget = Arc::new(Budget::unlimited());
    let model = Metered::new(chat, Arc::clone(&budget));
    let reranker = Arc::new(LlmReranker::new(model));
    let mut stage = RerankingRetriever::new(ranker, reranker, settings);
    if settings.per_intent_window() {
        match intents {
            Some(intents) => stage = stage.with_intents(Arc::clone(intents)),
            None => tracing::warn!(
                "[retrieve.rerank] window = \"per_intent\" needs intent extraction \
                 (--intents); reranking the fused window"
            ),
        }
    }
    Ok(Some((Arc::new(stage), budget)))
}

/// What a command's pipeline is made of; [`PipelineSpec::new`] reads the configured defaults,
/// and a command's flags override them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PipelineSpec<'a> {
    /// The ranking method.
    pub(crate) method: Method,
    /// How dense rankings get their vectors.
    pub(crate) vectors: Vectors,
    /// The query rewriting stage.
    pub(crate) rewrite: Rewrite,
    /// The reranking stage after the ranking, before expansion (`None`: off).
    pub(crate) rerank: Option<RerankSettings>,
    /// How the rewriting stage's model answers are cached (`replay` asks no model).
    pub(crate) cache: CacheMode,
    /// Dependency expansion's settings (`enabled: false` turns it off).
    pub(crate) expand: ExpandSettings,
    /// Where expansion's graph comes from.
    pub(crate) graph: GraphSource<'a>,
}

impl PipelineSpec<'_> {
    /// The configured pipeline (`[retrieve]`, `[retrieve.intents]` and `[retrieve.expand]` of `toolsmith.toml`) with
    /// `method` (a flag's, else the configured one), the stored graph and indexed vectors.
    pub(crate) fn new(ctx: &Context, method: Option<Method>) -> anyhow::Result<Self> {
        let retrieve = &ctx.config()?.retrieve;
        Ok(Self {
            method: retrieve.method(method),
            vectors: Vectors::Indexed,
            rewrite: Rewrite::from_settings(retrieve.intents, None),
            rerank: retrieve.rerank.enabled.then_some(retrieve.rerank),
            cache: CacheMode::ReadWrite,
            expand: retrieve.expand,
            graph: GraphSource::Stored,
        })
    }

    /// Reranking, where it is on, with `settings` rather than `[retrieve.rerank]`'s (a
    /// resumed run's recorded ones; `None` keeps them).
    pub(crate) fn with_rerank_settings(self, settings: Option<RerankSettings>) -> Self {
        match (self.rerank, settings) {
            (Some(_), Some(recorded)) => Self {
                rerank: Some(recorded),
                ..self
            },
            _ => self,
        }
    }

    /// With intent extraction on or off as a flag says (`None`: as configured).
    pub(crate) fn with_intents(self, ctx: &Context, flag: Option<bool>) -> anyhow::Result<Self> {
        let settings = ctx.config()?.retrieve.intents;
        Ok(Self {
            rewrite: Rewrite::from_settings(settings, flag),
            ..self
        })
    }

    /// With reranking on or off as a flag says (`None`: as configured).
    pub(crate) fn with_rerank(self, ctx: &Context, flag: Option<bool>) -> anyhow::Result<Self> {
        let settings = ctx.config()?.retrieve.rerank;
        Ok(Self {
            rerank: flag.unwrap_or(settings.enabled).then_some(settings),
            ..self
        })
    }

    /// Without dependency expansion.
    pub(crate) fn without_expansion(self) -> Self {
        Self {
            expand: ExpandSettings {
                enabled: false,
                ..self.expand
            },
            ..self
        }
    }
}

/// A built pipeline: the (rewritten) ranking, and the expanding retriever over it when
/// expansion is on and the graph has dependency edges.
pub(crate) struct Pipeline {
    ranker: Arc<dyn Retriever>,
    expanding: Option<Arc<ExpandingRetriever>>,
    /// The rewriting stage's model calls and tokens, when it asks a model.
    rewrite_budget: Option<Arc<Budget>>,
    /// The reranking stage and its model calls and tokens, when it is on.
    rerank: Option<(Arc<RerankingRetriever>, Arc<Budget>)>,
    /// The intent stage, when intents are extracted.
    intents: Option<Arc<IntentRetriever>>,
}

impl Pipeline {
    /// Builds the pipeline of `spec` over `corpus`.
    pub(crate) async fn build(
        ctx: &Context,
        corpus: Arc<Corpus>,
        spec: PipelineSpec<'_>,
    ) -> anyhow::Result<Self> {
        let ranking = match spec.vectors {
            Vectors::EmbedMissing => {
                super::rankers::retriever(ctx, spec.method, Arc::clone(&corpus)).await
            }
            Vectors::Indexed => {
                super::rankers::indexed_retriever(ctx, spec.method, Arc::clone(&corpus)).await
            }
        }?;
        let (ranker, rewrite_budget, intents) = spec.rewrite.stage(ctx, spec.cache, ranking)?;
        let rerank = rerank_stage(
            ctx,
            spec.cache,
            Arc::clone(&ranker),
            spec.rerank,
            intents.as_ref(),
        )?;
        let ranker = match &rerank {
            Some((stage, _)) => Arc::clone(stage) as Arc<dyn Retriever>,
            None => ranker,
        };
        let expanding = if spec.expand.enabled {
            needs(ctx, spec.graph)?.map(|needs| {
                Arc::new(ExpandingRetriever::new(
                    Arc::clone(&ranker),
                    &corpus,
                    needs,
                    spec.expand,
                ))
            })
        } else {
            None
        };
        Ok(Self {
            ranker,
            expanding,
            rewrite_budget,
            rerank,
            intents,
        })
    }

    /// With intent extraction on: the APIs of the union of the request's per-intent top `m`
    /// (a one-intent request: its own top `m`), each once; what a per-intent reranking window
    /// of `m` would show. `None` without intents.
    pub(crate) async fn intent_window(
        &self,
        query: &str,
        m: usize,
        filter: &Filter,
    ) -> anyhow::Result<Option<Vec<ApiId>>> {
        let Some(intents) = &self.intents else {
            return Ok(None);
        };
        let apis = match intents.lists(query, m, filter).await? {
            Some(lists) => lists.union().into_iter().map(|h| h.api.clone()).collect(),
            None => intents
                .search(query, m, filter)
                .await?
                .into_iter()
                .map(|h| h.api)
                .collect(),
        };
        Ok(Some(apis))
    }

    /// The model calls and tokens the rewriting stage (intent extraction) has used so far,
    /// cache hits counted apart; `None` when it asks no model.
    pub(crate) fn rewrite_usage(&self) -> Option<UsageTotals> {
        self.rewrite_budget.as_ref().map(|b| b.ledger().total)
    }

    /// Whether a stage asks a model at search time (intent extraction or reranking).
    pub(crate) fn asks_model(&self) -> bool {
        self.rewrite_budget.is_some() || self.rerank.is_some()
    }

    /// The model calls and tokens the reranking stage has used so far (cache hits counted
    /// apart), and the windows it reordered or could not; `None` when reranking is off.
    pub(crate) fn rerank_usage(&self) -> Option<(UsageTotals, RerankCounts)> {
        self.rerank
            .as_ref()
            .map(|(stage, budget)| (budget.ledger().total, stage.counts()))
    }

    /// What agents search: the expanding retriever when there is one, else the ranking.
    pub(crate) fn retriever(&self) -> Arc<dyn Retriever> {
        match &self.expanding {
            Some(expanding) => Arc::clone(expanding) as Arc<dyn Retriever>,
            None => Arc::clone(&self.ranker),
        }
    }

    /// What intent extraction and reranking cost in this process, as a note for commands
    /// whose own cost (an agent's trace) does not hold it; `None` when they asked no model.
    pub(crate) fn usage_note(&self) -> Option<String> {
        let intents = self.rewrite_usage().map(|u| {
            format!(
                "intent extraction: {} LLM call(s) ({} from the cache), {} prompt + {} \
                 completion tokens (not in the per-query cost)",
                u.calls, u.cache_hits, u.prompt_tokens, u.completion_tokens
            )
        });
        let rerank = self.rerank_usage().map(|(u, c)| {
            format!(
                "reranking: {} LLM call(s) ({} from the cache), {} prompt + {} completion \
                 tokens (not in the per-query cost), {} unusable repl(ies) kept the order",
                u.calls, u.cache_hits, u.prompt_tokens, u.completion_tokens, c.unusable
            )
        });
        let notes: Vec<String> = intents.into_iter().chain(rerank).collect();
        (!notes.is_empty()).then(|| notes.join("\n"))
    }

    /// The ranking alone, before expansion (what NDCG is measured on).
    pub(crate) fn ranker(&self) -> &Arc<dyn Retriever> {
        &self.ranker
    }

    /// The expanding retriever, when expansion is on (AnyTool reads why each API was added).
    pub(crate) fn expanding(&self) -> Option<Arc<ExpandingRetriever>> {
        self.expanding.clone()
    }

    /// Whether expansion is on and has a graph with dependencies to expand by.
    pub(crate) fn expands(&self) -> bool {
        self.expanding.is_some()
    }

    /// The tools offered for `query` at `k`: the top `k` hits, then the APIs expansion added,
    /// with why (what `bench run --tools retrieve:K` offers and `bench retrieval` counts).
    pub(crate) async fn offer(
        &self,
        query: &str,
        k: usize,
        filter: &Filter,
    ) -> anyhow::Result<(Vec<Hit>, Vec<Added>)> {
        Ok(match &self.expanding {
            Some(expanding) => expanding.search_expanded(query, k, filter).await?,
            None => (self.ranker.search(query, k, filter).await?, Vec::new()),
        })
    }
}

/// The dependency needs of `source`'s graph, when it has any.
fn needs(ctx: &Context, source: GraphSource<'_>) -> anyhow::Result<Option<super::rankers::Needs>> {
    let derive = |catalog: &Catalog| -> anyhow::Result<Option<super::rankers::Needs>> {
        let needs = build_graph(catalog, None, &ctx.config()?.graph).needs();
        Ok((!needs.is_empty()).then_some(needs))
    };
    match source {
        GraphSource::Stored => super::rankers::stored_needs(ctx),
        GraphSource::StoredOrDerived(catalog) => match super::rankers::stored_needs(ctx)? {
            Some(needs) => Ok(Some(needs)),
            None => derive(catalog).context("deriving the tool graph of the catalog"),
        },
        GraphSource::Derived(catalog) => derive(catalog),
    }
}
