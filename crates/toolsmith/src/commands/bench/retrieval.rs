//! `toolsmith bench retrieval`: retrieval quality on the standard benchmarks (NDCG, recall)
//! and offered-path coverage, plain and with dependency expansion, over the pipeline
//! `bench run --tools retrieve:K` offers from. Build the job, run it, report once (and keep
//! the NDCG curve for `toolsmith report`).

mod judged;
mod report;

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use toolsmith_catalog::{ApiId, Scope, Store};
use toolsmith_eval::{
    BenchStore, Benchmark, OfferJudge, Resolution, ResolvedQuery, RetrievalResult, RetrievalScores,
    ndcg_curve, offered_covers,
};
use toolsmith_llm::UsageTotals;
use toolsmith_retrieve::{
    Corpus, ExpandSettings, Filter, IntentFusion, IntentSettings, Method, RerankCounts,
    RerankSettings,
};

use self::report::{
    COVERAGE_KS, CoveragePoint, CoverageSums, ExpandedCoverage, ExplainedApi, IntentCost, Miss,
    MissingGold, QueryOffer, RerankCost, RetrievalReport, WindowCoverage,
};
use crate::cli::RetrievalArgs;
use crate::context::Context;
use crate::{benchmarks, printer, retrieval};

/// The NDCG@k curve stored for the report goes from k = 1 to this.
const CURVE_K: usize = 10;

/// Runs `bench retrieval`.
pub(crate) fn run(ctx: &Context, args: &RetrievalArgs) -> anyhow::Result<ExitCode> {
    let job = Job::build(ctx, args)?;
    let mut measured = ctx.runtime()?.block_on(job.measure(ctx, args))?;
    let judged_offer = measured.judged.take();
    let (report, curve) = job.report(args, measured);
    // Kept for the report's NDCG@k curves.
    BenchStore::open(ctx.db())
        .and_then(|bench| {
            bench.save_retrieval(&RetrievalResult {
                dataset: report.dataset.clone(),
                method: job.method,
                doc_version: args.docs.doc_version.clone(),
                queries: report.queries,
                ndcg: curve,
                recall_5: report.recall_5,
                recall_10: report.recall_10,
            })
        })
        .with_context(|| format!("storing the retrieval result in {}", ctx.db().display()))?;
    let printed = Printed {
        report: &report,
        judged_offer: judged_offer.as_ref(),
    };
    printer::report(&printed, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

/// What `bench retrieval` prints: the report, then `--judge-offer`'s part.
#[derive(serde::Serialize)]
struct Printed<'a> {
    #[serde(flatten)]
    report: &'a RetrievalReport,
    /// With `--judge-offer`: strict against judged coverage at each `--coverage-k` cut-off.
    #[serde(skip_serializing_if = "Option::is_none")]
    judged_offer: Option<&'a judged::JudgedOffers>,
}

impl std::fmt::Display for Printed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.report)?;
        match self.judged_offer {
            Some(judged) => write!(f, "\n{judged}"),
            None => Ok(()),
        }
    }
}

/// The benchmark's queries resolved against its catalog, and the pipeline to measure.
struct Job {
    benchmark: Benchmark,
    /// The catalog the gold APIs were resolved in.
    store: Store,
    resolved: Resolution,
    method: Method,
    expand: ExpandSettings,
    /// Intent extraction, when on (`--intents`, `[retrieve.intents]`).
    intents: Option<IntentSettings>,
    /// Reranking, when on (`--rerank`, `[retrieve.rerank]`).
    rerank: Option<RerankSettings>,
    /// The standard cut-offs, then `--coverage-k`'s.
    ks: Vec<usize>,
}

/// What the pass over the queries found.
struct Measured {
    /// Each query's top 10 and its gold APIs.
    runs: Vec<(Vec<ApiId>, Vec<ApiId>)>,
    sums: CoverageSums,
    misses: Vec<Miss>,
    offers: Vec<QueryOffer>,
    /// Whether the pipeline expands (the catalog has dependency edges).
    expands: bool,
    /// Wall time of the queries' first top-10 searches, s.
    search_secs: f64,
    /// With intent extraction: its fusion and its model usage over all queries.
    intents: Option<(IntentFusion, UsageTotals)>,
    /// With reranking: its settings, its model usage and what it did over all queries.
    rerank: Option<(RerankSettings, UsageTotals, RerankCounts)>,
    /// With `--judge-offer`: each query's offer at each `--coverage-k` cut-off.
    judge_cases: Vec<judged::Case>,
    /// With `--judge-offer`: what the judge made of them.
    judged: Option<judged::JudgedOffers>,
}

impl Job {
    fn build(ctx: &Context, args: &RetrievalArgs) -> anyhow::Result<Self> {
        let (benchmark, store, resolved) = resolve(ctx, args)?;
        let config = ctx.config()?;
        let method = config.retrieve.method(args.method.method.map(Into::into));
        // Dependency expansion, always measured, over the graph `bench run` would expand by:
        // the stored one over the context's own catalog, else one derived from the benchmark's.
        let mut expand = ExpandSettings {
            enabled: true,
            ..config.retrieve.expand
        };
        if let Some(budget) = args.expand_budget {
            expand.budget = budget;
        }
        let intents = config.retrieve.intents;
        let intents = args
            .intents
            .choice()
            .unwrap_or(intents.enabled)
            .then_some(intents);
        let rerank = config.retrieve.rerank;
        let rerank = args
            .rerank
            .choice()
            .unwrap_or(rerank.enabled)
            .then_some(rerank);
        Ok(Self {
            benchmark,
            store,
            resolved,
            method,
            expand,
            intents,
            rerank,
            ks: COVERAGE_KS
                .into_iter()
                .chain(args.coverage_k.iter().copied())
                .collect(),
        })
    }

    /// The pipeline over the benchmark's catalog, as `bench run --tools retrieve:K` builds it.
    async fn pipeline(
        &self,
        ctx: &Context,
        args: &RetrievalArgs,
    ) -> anyhow::Result<(retrieval::Pipeline, Arc<Corpus>)> {
        // Reading a large catalog and deriving its dependency edges takes seconds: say so.
        let spinner = ctx.progress().spinner(format!(
            "reading the {} catalog and deriving its dependency edges",
            self.benchmark.name()
        ));
        let corpus = retrieval::corpus(
            &self.store,
            &args.docs.selector(),
            retrieval::SourceField::configured(ctx)?,
        )?;
        let catalog = self
            .store
            .catalog(&args.docs.selector(), &Scope::default())?;
        let own = self.benchmark.uses_own_catalog();
        let spec = retrieval::PipelineSpec {
            method: self.method,
            vectors: retrieval::Vectors::EmbedMissing,
            expand: self.expand,
            graph: retrieval::GraphSource::for_benchmark(own, &catalog),
            ..retrieval::PipelineSpec::new(ctx, Some(self.method))?
        }
        .with_intents(ctx, Some(self.intents.is_some()))?
        .with_rerank(ctx, Some(self.rerank.is_some()))?;
        spinner.finish_and_clear();
        let pipeline = retrieval::Pipeline::build(ctx, Arc::clone(&corpus), spec).await?;
        Ok((pipeline, corpus))
    }

    /// Ranks every query, and counts what the pipeline offers it at each cut-off.
    async fn measure(&self, ctx: &Context, args: &RetrievalArgs) -> anyhow::Result<Measured> {
        let (pipeline, corpus) = self.pipeline(ctx, args).await?;
        // Built first, so that a judge that cannot be configured fails before the long pass.
        let judge = if args.judge_offer {
            Some(judged::judge(ctx, corpus)?)
        } else {
            None
        };
        let queries = &self.resolved.queries;
        let mut measured = Measured {
            runs: Vec::with_capacity(queries.len()),
            sums: CoverageSums::new(self.ks.len()),
            misses: Vec::new(),
            offers: Vec::new(),
            expands: pipeline.expands(),
            search_secs: 0.0,
            intents: None,
            rerank: None,
            judge_cases: Vec::new(),
            judged: None,
        };
        if pipeline.asks_model() {
            let in_flight = ctx.config()?.llm.max_in_flight.max(1);
            warm_model_stages(&pipeline, queries, self.depth(args), in_flight).await;
        }
        let bar = ctx.progress().bar(queries.len(), "queries");
        for q in queries {
            self.measure_query(&pipeline, args, q, &mut measured)
                .await?;
            bar.inc(1);
        }
        bar.finish_and_clear();
        measured.intents = self
            .intents
            .zip(pipeline.rewrite_usage())
            .map(|(settings, usage)| (settings.fusion, usage));
        measured.rerank = self
            .rerank
            .zip(pipeline.rerank_usage())
            .map(|(settings, (usage, counts))| (settings, usage, counts));
        if let Some((judge, model)) = judge {
            measured.judged = Some(
                self.judge_offers(ctx, args, &judge, model, &measured)
                    .await?,
            );
        }
        Ok(measured)
    }

    /// `--judge-offer`: the judge's verdict on every offer the pass collected, tallied.
    async fn judge_offers(
        &self,
        ctx: &Context,
        args: &RetrievalArgs,
        judge: &OfferJudge,
        model: String,
        measured: &Measured,
    ) -> anyhow::Result<judged::JudgedOffers> {
        let cases = &measured.judge_cases;
        let bar = ctx.progress().bar(cases.len(), "offers judged");
        let in_flight = ctx.config()?.llm.max_in_flight;
        let verdicts = judged::judge_all(judge, cases, in_flight, &bar).await?;
        bar.finish_and_clear();
        let mut ks: Vec<usize> = Vec::new();
        for &k in &self.ks[COVERAGE_KS.len()..] {
            if !ks.contains(&k) {
                ks.push(k);
            }
        }
        let report = judged::tally(
            cases,
            &verdicts,
            &ks,
            model,
            judge.usage(),
            args.judged_misses,
        );
        Ok(if args.offers {
            report.with_verdicts(cases, verdicts)
        } else {
            report
        })
    }

    /// How deep each query's ranking is read: the largest cut-off, and expansion's pool.
    fn depth(&self, args: &RetrievalArgs) -> usize {
        let max_k = self
            .ks
            .iter()
            .copied()
            .chain(args.misses)
            .max()
            .unwrap_or(20);
        max_k.max(self.expand.pool).max(self.expand.depth)
    }

    /// One query: its top 10, its coverage at each cut-off, its miss at `--misses K`.
    async fn measure_query(
        &self,
        pipeline: &retrieval::Pipeline,
        args: &RetrievalArgs,
        q: &ResolvedQuery,
        measured: &mut Measured,
    ) -> anyhow::Result<()> {
        let ranker = pipeline.ranker();
        let depth = self.depth(args);
        let started = std::time::Instant::now();
        let hits = ranker.search(&q.text, 10, &Filter::default()).await;
        measured.search_secs += started.elapsed().as_secs_f64();
        let pool: Vec<ApiId> = ranker
            .search(&q.text, depth, &Filter::default())
            .await?
            .into_iter()
            .map(|h| h.api)
            .collect();
        for (i, &k) in self.ks.iter().enumerate() {
            let top: Vec<ApiId> = pool.iter().take(k).cloned().collect();
            measured.sums.plain[i] += offered_covers(&top, &q.gold) as u8 as f64;
            // What the pipeline offers an agent at K (`bench run --tools retrieve:K`).
            let (hits, _) = pipeline.offer(&q.text, k, &Filter::default()).await?;
            let offered: Vec<ApiId> = hits.into_iter().map(|h| h.api).collect();
            measured.sums.expanded[i] += offered_covers(&offered, &q.gold) as u8 as f64;
            measured.sums.offered[i] += offered.len() as f64;
            if i >= COVERAGE_KS.len()
                && let Some(window) = pipeline
                    .intent_window(&q.text, k, &Filter::default())
                    .await?
            {
                measured.sums.window[i] += offered_covers(&window, &q.gold) as u8 as f64;
                measured.sums.window_size[i] += window.len() as f64;
            }
            // Each distinct cut-off once (`--coverage-k 10,10` asks the judge once).
            if args.judge_offer
                && i >= COVERAGE_KS.len()
                && !self.ks[COVERAGE_KS.len()..i].contains(&k)
            {
                measured.judge_cases.push(judged::Case {
                    query: q.text.clone(),
                    k,
                    offered: offered.clone(),
                    gold: q.gold.clone(),
                });
            }
            if args.offers && i >= COVERAGE_KS.len() {
                measured.offers.push(QueryOffer {
                    query: q.text.clone(),
                    k,
                    apis: offered,
                });
            }
        }
        if let Some(k) = args.misses {
            let (hits, added) = pipeline.offer(&q.text, k, &Filter::default()).await?;
            let offered: Vec<ApiId> = hits.into_iter().map(|h| h.api).collect();
            if !offered_covers(&offered, &q.gold) {
                let mut miss = miss(q, &offered, &pool, &added);
                explain_miss(pipeline, &q.text, &pool, depth, &mut miss).await?;
                measured.misses.push(miss);
            }
        }
        measured
            .runs
            .push((hits?.into_iter().map(|h| h.api).collect(), q.gold.clone()));
        Ok(())
    }

    /// The report, and the NDCG@k curve (k = 1 to [`CURVE_K`], %) to store.
    fn report(&self, args: &RetrievalArgs, m: Measured) -> (RetrievalReport, Vec<f64>) {
        let pairs = || m.runs.iter().map(|(r, g)| (r.as_slice(), g.as_slice()));
        let curve: Vec<f64> = ndcg_curve(pairs(), CURVE_K)
            .into_iter()
            .map(|v| v * 100.0)
            .collect();
        let scores = RetrievalScores::mean(pairs()).percent();
        let n = self.resolved.queries.len().max(1) as f64;
        let pct = |x: f64| 100.0 * x / n;
        let sums = &m.sums;
        let expand = &self.expand;
        let report = RetrievalReport {
            dataset: self.benchmark.name(),
            method: self.method,
            doc_version: args
                .docs
                .doc_version
                .as_ref()
                .map_or_else(|| "original".to_owned(), ToString::to_string),
            queries: scores.queries,
            skipped: self.resolved.skipped,
            ndcg_1: scores.ndcg_1,
            ndcg_3: scores.ndcg_3,
            ndcg_5: scores.ndcg_5,
            ndcg_10: scores.ndcg_10,
            recall_5: scores.recall_5,
            recall_10: scores.recall_10,
            coverage_5: pct(sums.plain[0]),
            coverage_10: pct(sums.plain[1]),
            coverage_20: pct(sums.plain[2]),
            expanded: m.expands.then(|| ExpandedCoverage {
                mode: expand.mode,
                budget: expand.budget,
                swap: expand.swap,
                coverage_5: pct(sums.expanded[0]),
                coverage_10: pct(sums.expanded[1]),
                coverage_20: pct(sums.expanded[2]),
                offered_5: sums.offered[0] / n,
                offered_10: sums.offered[1] / n,
                offered_20: sums.offered[2] / n,
            }),
            coverage_curve: self.curve(&m, n),
            misses: args.misses.map(|_| m.misses),
            offers: args.offers.then_some(m.offers),
            search_ms: 1000.0 * m.search_secs / n,
            intents: m.intents.map(|(fusion, usage)| IntentCost {
                fusion,
                llm_calls: usage.calls as f64 / n,
                cache_hits: usage.cache_hits as f64 / n,
                prompt_tokens: usage.prompt_tokens as f64 / n,
                completion_tokens: usage.completion_tokens as f64 / n,
            }),
            rerank: m.rerank.map(|(settings, usage, counts)| RerankCost {
                depth: settings.depth,
                window: settings.window,
                per_intent: settings.per_intent_window().then_some(settings.per_intent),
                candidates: counts.shown as f64 / (counts.reranked + counts.unusable).max(1) as f64,
                llm_calls: usage.calls as f64 / n,
                cache_hits: usage.cache_hits as f64 / n,
                prompt_tokens: usage.prompt_tokens as f64 / n,
                completion_tokens: usage.completion_tokens as f64 / n,
                unusable: counts.unusable,
            }),
        };
        (report, curve)
    }

    /// Coverage at the cut-offs of `--coverage-k`.
    fn curve(&self, m: &Measured, n: f64) -> Vec<CoveragePoint> {
        let pct = |x: f64| 100.0 * x / n;
        self.ks
            .iter()
            .enumerate()
            .skip(COVERAGE_KS.len())
            .map(|(i, &k)| CoveragePoint {
                k,
                plain: pct(m.sums.plain[i]),
                expanded: m.expands.then(|| pct(m.sums.expanded[i])),
                offered: m.sums.offered[i] / n,
                intent_window: self.intents.is_some().then(|| WindowCoverage {
                    coverage: pct(m.sums.window[i]),
                    candidates: m.sums.window_size[i] / n,
                }),
            })
            .collect()
    }
}

/// The benchmark, the catalog its gold APIs are resolved in (the context's for a query file,
/// else its own in memory) and its resolved queries; notes the skipped and repaired ones.
fn resolve(ctx: &Context, args: &RetrievalArgs) -> anyhow::Result<(Benchmark, Store, Resolution)> {
    let data = args.data.path();
    let benchmark = Benchmark::parse(&args.dataset)?;
    let store = match &benchmark {
        own if own.uses_own_catalog() => ctx.store()?,
        named => {
            let mut store = Store::in_memory()?;
            benchmarks::import_all(&mut store, &named.corpus_sources(&data), *ctx.progress())?;
            if let Some(label) = &args.docs.doc_version {
                benchmarks::with_docs_from_db(ctx, &mut store, label)?;
            }
            store
        }
    };
    let dataset = benchmarks::load_dataset(ctx, &benchmark, &data)
        .with_context(|| format!("loading {} from {}", benchmark.name(), data.display()))?;
    let resolved = dataset.resolve(&store)?;
    if resolved.skipped > 0 {
        printer::note(skip_note(&resolved, dataset.len()));
    }
    for (query, name, api) in &resolved.repaired {
        printer::note(format!(
            "query {query}: gold `{name}` matched {api} by path shape"
        ));
    }
    Ok((benchmark, store, resolved))
}

/// Why queries were skipped: how many name a gold API the catalog lacks, how many only an
/// ambiguous one (matching several APIs), with a few names of each.
fn skip_note(resolved: &Resolution, total: usize) -> String {
    let causes = resolved.skip_causes();
    let names = |missing: bool| {
        let of_kind: Vec<String> = resolved
            .unresolved
            .iter()
            .filter(|u| u.is_missing() == missing)
            .map(|u| u.gold.to_string())
            .collect();
        let some = of_kind
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("; ");
        format!("{} names, e.g. {some}", of_kind.len())
    };
    let mut parts = Vec::new();
    if causes.missing > 0 {
        parts.push(format!(
            "{} name a gold API the catalog lacks ({})",
            causes.missing,
            names(true)
        ));
    }
    if causes.ambiguous > 0 {
        parts.push(format!(
            "{} only an ambiguous one ({})",
            causes.ambiguous,
            names(false)
        ));
    }
    if causes.no_gold > 0 {
        parts.push(format!("{} have no gold API", causes.no_gold));
    }
    format!(
        "{} of {total} queries skipped: {}",
        resolved.skipped,
        parts.join(", ")
    )
}

/// The miss of a query whose expanded offer does not cover its gold path.
fn miss(
    q: &ResolvedQuery,
    offered: &[ApiId],
    pool: &[ApiId],
    added: &[toolsmith_retrieve::Added],
) -> Miss {
    let (hit, missing): (Vec<&ApiId>, Vec<&ApiId>) =
        q.gold.iter().partition(|g| offered.contains(g));
    Miss {
        query: q.text.clone(),
        missing: missing
            .into_iter()
            .map(|g| MissingGold {
                api: g.clone(),
                rank: pool.iter().position(|a| a == g).map(|r| r + 1),
                explanation: None,
            })
            .collect(),
        offered_gold: hit.into_iter().cloned().collect(),
        added: added.iter().map(added_line).collect(),
        top: None,
    }
}

/// Adds the parts of the ranking's scores to a miss: the top API's, and each missing gold
/// API's, as the ranking read `depth` deep scored them.
/// Asks the pipeline's model stages (intents, rerank) about every query first, `in_flight`
/// at a time, so the measuring pass that follows reads their answers from the cache instead
/// of waiting on the model one query after another. A failure here is left for that pass to
/// report.
async fn warm_model_stages(
    pipeline: &retrieval::Pipeline,
    queries: &[ResolvedQuery],
    depth: usize,
    in_flight: usize,
) {
    use futures::StreamExt;
    let ranker = pipeline.ranker();
    futures::stream::iter(queries)
        .for_each_concurrent(in_flight, |q| async move {
            if let Err(e) = ranker.search(&q.text, depth, &Filter::default()).await {
                tracing::debug!(query = %q.text, error = %e, "warming the model stages");
            }
        })
        .await;
}

async fn explain_miss(
    pipeline: &retrieval::Pipeline,
    query: &str,
    pool: &[ApiId],
    depth: usize,
    miss: &mut Miss,
) -> anyhow::Result<()> {
    let mut apis: Vec<ApiId> = miss.missing.iter().map(|m| m.api.clone()).collect();
    apis.extend(pool.first().cloned());
    let mut why = pipeline
        .ranker()
        .explain(query, &apis, depth, &Filter::default())
        .await?
        .into_iter();
    for m in &mut miss.missing {
        m.explanation = why.next().flatten();
    }
    miss.top = pool.first().map(|api| ExplainedApi {
        api: api.clone(),
        explanation: why.next().flatten(),
    });
    Ok(())
}

/// Why expansion added an API, in a line: `api <- consumer.param` for a producer,
/// `api -> producer.param` for a consumer.
fn added_line(a: &toolsmith_retrieve::Added) -> String {
    match a.link {
        toolsmith_retrieve::Link::Producer => format!("{} <- {}.{}", a.api, a.feeds, a.param),
        toolsmith_retrieve::Link::Consumer => format!("{} -> {}.{}", a.api, a.feeds, a.param),
        toolsmith_retrieve::Link::Rank => format!("{} (rank)", a.api),
    }
}

#[cfg(test)]
mod tests {
    use toolsmith_eval::{GoldApi, Unresolved};

    use super::*;

    fn unresolved(query: &str, name: &str, matches: &[&str]) -> Unresolved {
        Unresolved {
            query: query.to_owned(),
            gold: GoldApi::Named(name.to_owned()),
            matches: matches.iter().map(|m| m.parse().unwrap()).collect(),
        }
    }

    #[test]
    fn the_skip_note_counts_missing_apart_from_ambiguous() {
        let resolved = Resolution {
            skipped: 3,
            unresolved: vec![
                unresolved("1", "GET /gone", &[]),
                unresolved("1", "GET /twice", &["a/x", "b/x"]),
                unresolved("2", "GET /twice", &["a/x", "b/x"]),
            ],
            ..Resolution::default()
        };
        assert_eq!(
            skip_note(&resolved, 10),
            "3 of 10 queries skipped: 1 name a gold API the catalog lacks (1 names, e.g. GET /gone), \
             1 only an ambiguous one (2 names, e.g. GET /twice; GET /twice), 1 have no gold API"
        );
    }
}
