//! Gated activation of refined docs (`docs gate LABEL`, `refine --gate`): the candidate docs
//! `LABEL` become active only where they rank the gold APIs no worse than the active docs on
//! the eval queries (eval's `gate::judge`, under the `[refine.gate]` rule): as a whole label
//! by default, or API by API on the queries whose gold path touches each (`scope = "api"`).
//! A label with views is judged without the eval requests that repeat one of its views.
//! Both rankings leave out the source field (each API's description as imported), whatever
//! `source` weight `[retrieve]` gives it: it would copy the original's words into every
//! candidate and hide a rewrite that lost them.
//! Every decision lands in the catalog with its figures, in one round that `docs rollback`
//! undoes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::PathBuf;

use anyhow::{Context as _, bail};
use serde::Serialize;
use toolsmith_catalog::{
    ApiId, DecisionOutcome, DocDecision, DocLabel, DocSelector, Evidence, NewDecision, Scope, Store,
};
use toolsmith_eval::gate::{
    GateFigures, GateRule, GateScope, PairedRank, Verdict, judge, near_views, word_cosine,
};
use toolsmith_eval::{Benchmark, ResolvedQuery};
use toolsmith_llm::{CacheMode, cosine};
use toolsmith_retrieve::{Filter, Method};

use crate::context::Context;
use crate::retrieval;

/// What becomes of a candidate no eval query touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Untested {
    /// The candidate becomes active (nothing measured against it).
    Activate,
    /// The active doc stays (the default: no evidence, no change).
    Keep,
}

/// A gate to run: which candidates, measured on which queries, by which ranking.
pub(crate) struct GateRequest {
    /// The candidates' label.
    pub(crate) label: DocLabel,
    /// The eval set: a named benchmark, a query file (or, once `synth` lands, `synth:NAME`).
    pub(crate) dataset: String,
    /// Where named benchmarks' data is.
    pub(crate) data_dir: PathBuf,
    /// Candidates with no eval query.
    pub(crate) untested: Untested,
    /// The ranking (the configured one when `None`).
    pub(crate) method: Option<Method>,
    /// What one decision covers (`[refine.gate] scope` when `None`).
    pub(crate) scope: Option<GateScope>,
}

/// The eval set the gate reads when none is named: the newest synthesized set's eval split.
pub(crate) fn default_eval_split(ctx: &Context) -> anyhow::Result<Option<String>> {
    crate::benchmarks::newest_synth_eval_split(ctx)
}

/// One API's decision in a round's report.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ApiDecision {
    api: ApiId,
    candidate: u32,
    outcome: DecisionOutcome,
    evidence: Evidence,
    figures: Option<GateFigures>,
}

/// What a gate round decided.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct GateReport {
    round: u32,
    label: DocLabel,
    dataset: String,
    rule: String,
    /// Eval queries that resolved in the catalog, less those left out.
    queries: usize,
    /// Eval queries left out as near-duplicates of the label's views.
    near_views: usize,
    /// The model that wrote both the eval set and the candidate docs, when recorded.
    shared_writer: Option<String>,
    decisions: Vec<ApiDecision>,
}

/// Runs the gate: ranks, decides, stores the round with its activations.
pub(crate) fn run(ctx: &Context, request: &GateRequest) -> anyhow::Result<GateReport> {
    let mut store = ctx.store()?;
    let Candidates {
        apis: candidates,
        views,
    } = candidates(&store, &request.label)?;
    let with_views = !views.is_empty();
    if candidates.is_empty() {
        bail!(
            "no API has a `{}` doc that is not already active (see `toolsmith stats`)",
            request.label
        );
    }
    let queries = eval_queries(ctx, &store, &request.dataset, &request.data_dir)?;
    let settings = ctx.config()?.refine.gate;
    let (queries, near_views) =
        ctx.runtime()?
            .block_on(decontaminated(ctx, queries, &views, settings.view_cosine))?;
    let rule = settings.rule();
    let scope = request.scope.unwrap_or(settings.scope);
    let measured = match scope {
        GateScope::Label => Measured::EveryGoldApi,
        GateScope::Api => Measured::Candidates(&candidates),
    };
    let pairs = ctx.runtime()?.block_on(paired_ranks(
        ctx,
        &store,
        request,
        &queries,
        measured,
        settings.depth,
    ))?;
    let mut decisions: Vec<ApiDecision> = if with_views || scope == GateScope::Label {
        decide_pooled(rule, request.untested, &candidates, &pairs)
    } else {
        candidates
            .iter()
            .map(|(api, version)| decide(rule, request.untested, api, *version, pairs.get(api)))
            .collect()
    };
    for figures in decisions.iter_mut().filter_map(|d| d.figures.as_mut()) {
        figures.near_views = near_views;
    }
    let stored: Vec<NewDecision> = decisions
        .iter()
        .map(|d| new_decision(d, &request.label, rule, scope))
        .collect::<anyhow::Result<_>>()?;
    let round = store
        .record_gate_round(&stored)
        .with_context(|| format!("storing the gate round in {}", ctx.db().display()))?;
    Ok(GateReport {
        round,
        label: request.label.clone(),
        dataset: request.dataset.clone(),
        rule: rule_text(rule, scope),
        queries: queries.len(),
        near_views,
        shared_writer: crate::shared_writer::shared_writer(ctx, &request.dataset, &request.label)?,
        decisions,
    })
}

/// The eval queries that repeat no view of the label (cosine below `threshold`, with the
/// configured embedder, else over word sets), and how many were left out. Views and
/// synthetic eval requests share one writer: a view that sits on an eval request would win
/// the gate by that request (shared-writer bias, docs/gate.md).
async fn decontaminated(
    ctx: &Context,
    queries: Vec<ResolvedQuery>,
    views: &[String],
    threshold: f32,
) -> anyhow::Result<(Vec<ResolvedQuery>, usize)> {
    if views.is_empty() || queries.is_empty() {
        return Ok((queries, 0));
    }
    let texts: Vec<String> = queries.iter().map(|q| q.text.clone()).collect();
    let near = match retrieval::embedder(ctx, CacheMode::ReadWrite) {
        Ok(embedder) => {
            let q = embedder.embed(&texts).await?;
            let v = embedder.embed(views).await?;
            near_views(q.len(), v.len(), threshold, |i, j| cosine(&q[i], &v[j]))
        }
        Err(_) => near_views(texts.len(), views.len(), threshold, |i, j| {
            word_cosine(&texts[i], &views[j])
        }),
    };
    let left_out = near.iter().filter(|n| **n).count();
    let kept = queries
        .into_iter()
        .zip(near)
        .filter_map(|(q, near)| (!near).then_some(q))
        .collect();
    Ok((kept, left_out))
}

/// The candidates of a label: every API whose latest `label` doc is not the active one, with
/// that version, and the synthetic requests (views) the label's docs carry. A view raises
/// its own API's scores (BM25's `queries` field; the best of several dense rows), so views pay
/// off only against other APIs' views: activated API by API, the APIs with views crowd out
/// those without (on TMDB a per-API margin gate of the `queries` docs fell below both the
/// original and the all-`queries` docs). Such a label is decided as a whole.
struct Candidates {
    apis: Vec<(ApiId, u32)>,
    /// Every view of the label's docs (empty: the label carries none).
    views: Vec<String>,
}

fn candidates(store: &Store, label: &DocLabel) -> anyhow::Result<Candidates> {
    let view = store.catalog(&DocSelector::Label(label.clone()), &Scope::default())?;
    let labelled = || {
        view.apis().filter_map(|(_, entry)| {
            entry
                .doc
                .as_ref()
                .filter(|d| d.label == *label)
                .map(|d| (entry, d))
        })
    };
    Ok(Candidates {
        apis: labelled()
            .filter(|(_, doc)| !doc.active)
            .map(|(entry, doc)| (entry.api.id.clone(), doc.version))
            .collect(),
        views: labelled()
            .flat_map(|(_, doc)| doc.doc.queries.iter().cloned())
            .collect(),
    })
}

/// One decision for every candidate, from all their pairs pooled (a label with views).
fn decide_pooled(
    rule: GateRule,
    untested: Untested,
    candidates: &[(ApiId, u32)],
    pairs: &BTreeMap<ApiId, Vec<PairedRank>>,
) -> Vec<ApiDecision> {
    let pooled: Vec<PairedRank> = pairs.values().flatten().copied().collect();
    candidates
        .iter()
        .map(|(api, version)| {
            let measured = pairs.get(api).is_some_and(|p| !p.is_empty());
            let mut decision = decide(rule, untested, api, *version, Some(&pooled));
            if !measured {
                decision.evidence = Evidence::Untested;
            }
            decision
        })
        .collect()
}

/// The eval queries resolved in the catalog (queries naming an unknown API are left out).
fn eval_queries(
    ctx: &Context,
    store: &Store,
    dataset: &str,
    data_dir: &std::path::Path,
) -> anyhow::Result<Vec<ResolvedQuery>> {
    let benchmark = Benchmark::parse(dataset)?;
    let loaded = crate::benchmarks::load_dataset(ctx, &benchmark, data_dir)
        .with_context(|| format!("loading the eval set {}", benchmark.name()))?;
    Ok(loaded.resolve(store)?.queries)
}

/// Which gold APIs the gate pairs ranks for.
#[derive(Clone, Copy)]
enum Measured<'a> {
    /// Every gold API of every eval query (a label's decision: it can push others down).
    EveryGoldApi,
    /// The candidates, in the eval queries whose gold path touches them.
    Candidates(&'a [(ApiId, u32)]),
}

impl Measured<'_> {
    fn includes(&self, api: &ApiId) -> bool {
        match self {
            Self::EveryGoldApi => true,
            Self::Candidates(candidates) => candidates.iter().any(|(c, _)| c == api),
        }
    }
}

/// Per measured gold API, its rank in each eval query holding it: once over the active docs,
/// once over the candidates.
async fn paired_ranks(
    ctx: &Context,
    store: &Store,
    request: &GateRequest,
    queries: &[ResolvedQuery],
    measured: Measured<'_>,
    depth: usize,
) -> anyhow::Result<BTreeMap<ApiId, Vec<PairedRank>>> {
    let touching: Vec<&ResolvedQuery> = queries
        .iter()
        .filter(|q| q.gold.iter().any(|api| measured.includes(api)))
        .collect();
    let mut pairs: BTreeMap<ApiId, Vec<PairedRank>> = BTreeMap::new();
    if touching.is_empty() {
        return Ok(pairs);
    }
    let active = ranker(ctx, store, DocSelector::Active, request.method).await?;
    let candidate = ranker(
        ctx,
        store,
        DocSelector::Label(request.label.clone()),
        request.method,
    )
    .await?;
    let bar = ctx.progress().bar(touching.len(), "eval queries");
    for q in touching {
        let before = ranking(&active, &q.text, depth).await?;
        let after = ranking(&candidate, &q.text, depth).await?;
        let gold: BTreeSet<&ApiId> = q.gold.iter().filter(|a| measured.includes(a)).collect();
        for api in gold {
            pairs.entry(api.clone()).or_default().push(PairedRank {
                active: rank_of(&before, api, depth),
                candidate: rank_of(&after, api, depth),
            });
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(pairs)
}

/// The ranking (no expansion: the gold API's own rank is the measure) over a doc view,
/// without the source field whatever `source` weight `[retrieve]` gives it
/// ([`retrieval::SourceField::Skip`]): counted, the original's words would stand in every
/// candidate, and a rewrite that lost them would rank as well as the doc it replaces.
async fn ranker(
    ctx: &Context,
    store: &Store,
    docs: DocSelector,
    method: Option<Method>,
) -> anyhow::Result<retrieval::Pipeline> {
    let corpus = retrieval::corpus(store, &docs, retrieval::SourceField::Skip)?;
    let spec = retrieval::PipelineSpec {
        vectors: retrieval::Vectors::EmbedMissing,
        ..retrieval::PipelineSpec::new(ctx, method)?
    }
    .without_expansion();
    retrieval::Pipeline::build(ctx, corpus, spec).await
}

async fn ranking(
    pipeline: &retrieval::Pipeline,
    query: &str,
    depth: usize,
) -> anyhow::Result<Vec<ApiId>> {
    let hits = pipeline
        .ranker()
        .search(query, depth, &Filter::default())
        .await?;
    Ok(hits.into_iter().map(|h| h.api).collect())
}

/// 1-based rank of `api`, or `depth + 1` when the ranking does not reach it.
fn rank_of(ranking: &[ApiId], api: &ApiId, depth: usize) -> usize {
    ranking
        .iter()
        .position(|a| a == api)
        .map_or(depth + 1, |i| i + 1)
}

/// One candidate's decision: the rule on its pairs, or the untested policy without any.
fn decide(
    rule: GateRule,
    untested: Untested,
    api: &ApiId,
    candidate: u32,
    pairs: Option<&Vec<PairedRank>>,
) -> ApiDecision {
    let (outcome, evidence, figures) = match pairs.filter(|p| !p.is_empty()) {
        Some(pairs) => {
            let figures = judge(rule, pairs);
            let outcome = match figures.verdict {
                Verdict::NoWorse => DecisionOutcome::Activated,
                Verdict::Worse => DecisionOutcome::Kept,
            };
            (outcome, Evidence::Measured, Some(figures))
        }
        None => {
            let outcome = match untested {
                Untested::Activate => DecisionOutcome::Activated,
                Untested::Keep => DecisionOutcome::Kept,
            };
            (outcome, Evidence::Untested, None)
        }
    };
    ApiDecision {
        api: api.clone(),
        candidate,
        outcome,
        evidence,
        figures,
    }
}

fn new_decision(
    d: &ApiDecision,
    label: &DocLabel,
    rule: GateRule,
    scope: GateScope,
) -> anyhow::Result<NewDecision> {
    Ok(NewDecision {
        api: d.api.clone(),
        label: label.clone(),
        candidate: d.candidate,
        outcome: d.outcome,
        evidence: d.evidence,
        rule: rule_text(rule, scope),
        figures: serde_json::to_value(&d.figures)?,
    })
}

/// The rule as stored and shown: `sign_test alpha=0.05` for one decision per API, with
/// `, per label` when one decision covers the label.
fn rule_text(rule: GateRule, scope: GateScope) -> String {
    match scope {
        GateScope::Api => rule.to_string(),
        GateScope::Label => format!("{rule}, per label"),
    }
}

/// A decision in a line: `activated v3 (easytool): 5 queries, 3 better, 1 worse, 1 tied;
/// mean rank 4.20 -> 2.10; p(worse) 0.94; sign_test alpha=0.05`.
pub(crate) fn decision_line(
    outcome: DecisionOutcome,
    candidate: u32,
    label: &DocLabel,
    figures: Option<&GateFigures>,
    rule: &str,
) -> String {
    let head = format!("{} v{candidate} ({label})", outcome.as_str());
    match figures {
        Some(f) => format!(
            "{head}: {} queries, {} better, {} worse, {} tied; mean rank {:.2} -> {:.2}; p(worse) {:.3}; {rule}{}",
            f.queries,
            f.better,
            f.worse,
            f.ties,
            f.mean_active_rank,
            f.mean_candidate_rank,
            f.p_worse,
            if f.near_views > 0 {
                format!(
                    "; {} eval queries left out as near-duplicates of views",
                    f.near_views
                )
            } else {
                String::new()
            }
        ),
        None => format!("{head}: no eval query touches it (untested)"),
    }
}

/// A stored decision in a line (`docs history --rounds`), headed by its round.
pub(crate) fn stored_line(d: &DocDecision) -> String {
    let figures: Option<GateFigures> = serde_json::from_value(d.figures.clone()).ok();
    let previous = d
        .previous
        .map_or_else(|| "none".to_owned(), |v| format!("v{v}"));
    format!(
        "gate round {} (active was {previous}): {}",
        d.round,
        decision_line(d.outcome, d.candidate, &d.label, figures.as_ref(), &d.rule)
    )
}

impl fmt::Display for GateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = |o: DecisionOutcome| self.decisions.iter().filter(|d| d.outcome == o).count();
        write!(
            f,
            "gate round {}: `{}` on {} ({} eval queries{}), rule {}: {} activated, {} kept",
            self.round,
            self.label,
            self.dataset,
            self.queries,
            if self.near_views > 0 {
                format!(", {} left out as near-duplicates of views", self.near_views)
            } else {
                String::new()
            },
            self.rule,
            count(DecisionOutcome::Activated),
            count(DecisionOutcome::Kept)
        )?;
        if let Some(model) = &self.shared_writer {
            let caution = crate::shared_writer::caution(model, &self.label, &self.dataset);
            write!(f, "\n{caution}")?;
        }
        for d in &self.decisions {
            let line = decision_line(
                d.outcome,
                d.candidate,
                &self.label,
                d.figures.as_ref(),
                &self.rule,
            );
            write!(f, "\n  {}: {line}", d.api)?;
        }
        write!(f, "\nundo with `toolsmith docs rollback {}`", self.round)
    }
}
