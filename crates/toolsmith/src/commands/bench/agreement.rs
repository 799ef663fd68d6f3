//! `toolsmith bench agreement`: whether an eval set (a synthetic one) ranks retrieval
//! configurations as a reference set (real users' queries) does. Every configuration of the
//! grid (method x doc version x expansion) is scored on both sets through the retrieval
//! pipeline, with `bench retrieval`'s measures (NDCG@10 and Recall@10 of the ranking, offered-path coverage
//! at K), and Kendall's tau-b compares the two orders per measure. Every configuration
//! searches without the source field (each API's description as imported), whatever `source`
//! weight `[retrieve]` gives it: the grid ranks doc versions, and the field would copy the
//! original's words into each.
//!
//! The per-query values are kept, so each set's own noise is measured without retrieving
//! again: bootstrap resamples of its queries give the spread of tau-b between the set's
//! ranking and its resamples' ([`noise`]), and a secondary tau-b counts only the pairs of
//! configurations the reference separates beyond its noise.

mod noise;

use noise::PerQuery;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use serde::Serialize;
use toolsmith_catalog::{ApiId, DocLabel, DocSelector, Scope, Store};
use toolsmith_eval::{Benchmark, Expansion, ResolvedQuery, kendall_tau_b, ndcg_at_k, recall_at_k};
use toolsmith_retrieve::{ExpandSettings, Method};

use crate::cli::AgreementArgs;
use crate::context::Context;
use crate::{printer, retrieval};

/// Runs `bench agreement`.
pub(crate) fn run(ctx: &Context, args: &AgreementArgs) -> anyhow::Result<ExitCode> {
    let newest = crate::benchmarks::newest_synth_eval_split(ctx)?;
    let Some(dataset) = args.dataset.clone().or(newest) else {
        bail!("no set under test: name one with --dataset (a benchmark or a query file)");
    };
    let store = ctx.store()?;
    let sets = [
        load(ctx, &store, &args.reference, args)?,
        load(ctx, &store, &dataset, args)?,
    ];
    let configs = ctx
        .runtime()?
        .block_on(score_grid(ctx, &store, args, &sets))?;
    let column = |set: usize, f: fn(&Scores) -> f64| -> Vec<f64> {
        configs.iter().map(|c| f(&c.scores[set])).collect()
    };
    let report = Agreement {
        reference: args.reference.clone(),
        k: args.k,
        tau_ndcg_10: kendall_tau_b(&column(0, |s| s.ndcg_10), &column(1, |s| s.ndcg_10)),
        tau_coverage: kendall_tau_b(&column(0, |s| s.coverage), &column(1, |s| s.coverage)),
        tau_recall_10: kendall_tau_b(&column(0, |s| s.recall_10), &column(1, |s| s.recall_10)),
        noise: noise::Noise::of(
            &configs.iter().map(|c| &c.per_query).collect::<Vec<_>>(),
            args.bootstrap,
            args.bootstrap_seed,
        ),
        sets: sets.iter().map(SetProfile::of).collect(),
        shared_apis: shared_apis(&sets),
        shared_writers: shared_writers(ctx, &dataset, &args.doc_versions)?,
        dataset,
        configs,
    };
    printer::report(&report, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

/// The grid's doc versions whose docs the set under test's writer also wrote.
fn shared_writers(
    ctx: &Context,
    dataset: &str,
    labels: &[DocLabel],
) -> anyhow::Result<Vec<(DocLabel, String)>> {
    let mut shared = Vec::new();
    for label in labels {
        if let Some(model) = crate::shared_writer::shared_writer(ctx, dataset, label)? {
            shared.push((label.clone(), model));
        }
    }
    Ok(shared)
}

/// A set's name and queries, resolved in the catalog.
struct EvalSet {
    name: String,
    queries: Vec<ResolvedQuery>,
}

fn load(ctx: &Context, store: &Store, name: &str, args: &AgreementArgs) -> anyhow::Result<EvalSet> {
    let benchmark = Benchmark::parse(name)?;
    let data = args.data.path();
    let dataset = crate::benchmarks::load_dataset(ctx, &benchmark, &data)
        .with_context(|| format!("loading {} from {}", benchmark.name(), data.display()))?;
    let queries = dataset.resolve(store)?.queries;
    if queries.is_empty() {
        bail!("{name}: no query resolves in the catalog (import its tools first)");
    }
    Ok(EvalSet {
        name: benchmark.name(),
        queries,
    })
}

/// One configuration of the grid with its scores on each set.
#[derive(Serialize)]
struct Config {
    method: Method,
    docs: DocLabel,
    expansion: &'static str,
    /// On the reference set, then on the set under test.
    scores: [Scores; 2],
    /// Per query, on each set, in the same order (for the bootstrap).
    #[serde(skip)]
    per_query: [PerQuery; 2],
}

/// A configuration's means over one set's per-query values (0 on an empty set).
fn means(p: &PerQuery) -> Scores {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    Scores {
        ndcg_10: mean(&p.ndcg_10),
        coverage: mean(&p.coverage),
        recall_10: mean(&p.recall_10),
    }
}

/// A configuration's measures on one set (%).
#[derive(Clone, Copy, Default, Serialize)]
struct Scores {
    ndcg_10: f64,
    coverage: f64,
    recall_10: f64,
}

/// Scores every configuration on both sets: one pipeline per method and doc version, whose
/// ranking gives NDCG@10 and top-K coverage (expansion off) and whose offer gives the
/// expanded coverage (expansion on).
async fn score_grid(
    ctx: &Context,
    store: &Store,
    args: &AgreementArgs,
    sets: &[EvalSet; 2],
) -> anyhow::Result<Vec<Config>> {
    let mut configs = Vec::new();
    for &method in &args.methods {
        for docs in &args.doc_versions {
            let method: Method = method.into();
            let pipeline = pipeline(ctx, store, method, docs).await?;
            let mut off: [PerQuery; 2] = Default::default();
            let mut on: [PerQuery; 2] = Default::default();
            for (i, set) in sets.iter().enumerate() {
                (off[i], on[i]) = score_set(&pipeline, set, args.k).await?;
            }
            for &expansion in &args.expansion {
                let per_query = match expansion {
                    Expansion::Off => off.clone(),
                    Expansion::On => on.clone(),
                };
                configs.push(Config {
                    method,
                    docs: docs.clone(),
                    expansion: expansion.as_str(),
                    scores: [means(&per_query[0]), means(&per_query[1])],
                    per_query,
                });
            }
        }
    }
    if configs.len() < 2 {
        bail!(
            "the grid has {} configuration(s): rank at least two",
            configs.len()
        );
    }
    Ok(configs)
}

/// The pipeline `bench retrieval` measures, over a doc version of the `--db` catalog, but
/// without the source field whatever `source` weight `[retrieve]` gives it
/// ([`retrieval::SourceField::Skip`]): it would copy the original's words into every refined
/// version and blur the difference between doc versions the grid ranks.
async fn pipeline(
    ctx: &Context,
    store: &Store,
    method: Method,
    docs: &DocLabel,
) -> anyhow::Result<retrieval::Pipeline> {
    let selector = DocSelector::Label(docs.clone());
    let corpus = retrieval::corpus(store, &selector, retrieval::SourceField::Skip)?;
    let catalog = store.catalog(&selector, &Scope::default())?;
    let spec = retrieval::PipelineSpec {
        method,
        vectors: retrieval::Vectors::EmbedMissing,
        expand: ExpandSettings {
            enabled: true,
            ..ctx.config()?.retrieve.expand
        },
        graph: retrieval::GraphSource::StoredOrDerived(&catalog),
        ..retrieval::PipelineSpec::new(ctx, Some(method))?
    };
    retrieval::Pipeline::build(ctx, corpus, spec).await
}

/// A set's per-query values without and with expansion (NDCG@10 is the ranking's in both).
async fn score_set(
    pipeline: &retrieval::Pipeline,
    set: &EvalSet,
    k: usize,
) -> anyhow::Result<(PerQuery, PerQuery)> {
    let (mut off, mut on) = (PerQuery::default(), PerQuery::default());
    let pct = |hit: bool| if hit { 100.0 } else { 0.0 };
    for q in &set.queries {
        let quality = retrieval::query_quality(pipeline, &q.text, &q.gold, k).await?;
        let ndcg = 100.0 * ndcg_at_k(&quality.top, &q.gold, 10);
        off.ndcg_10.push(ndcg);
        on.ndcg_10.push(ndcg);
        let recall = 100.0 * recall_at_k(&quality.top, &q.gold, 10);
        off.recall_10.push(recall);
        on.recall_10.push(recall);
        off.coverage.push(pct(quality.covered));
        on.coverage.push(pct(quality.covered_expanded));
    }
    Ok((off, on))
}

/// What a set asks for: how long its gold paths are and which APIs they use.
#[derive(Serialize)]
struct SetProfile {
    name: String,
    queries: usize,
    /// Queries per gold path length (distinct gold APIs).
    path_lengths: BTreeMap<usize, usize>,
    /// Distinct APIs in its gold paths.
    apis: usize,
}

impl SetProfile {
    fn of(set: &EvalSet) -> Self {
        let mut path_lengths = BTreeMap::new();
        for q in &set.queries {
            *path_lengths.entry(q.gold.len()).or_insert(0) += 1;
        }
        Self {
            name: set.name.clone(),
            queries: set.queries.len(),
            path_lengths,
            apis: gold_apis(set).len(),
        }
    }
}

fn gold_apis(set: &EvalSet) -> BTreeSet<&ApiId> {
    set.queries.iter().flat_map(|q| &q.gold).collect()
}

/// APIs in the gold paths of both sets.
fn shared_apis(sets: &[EvalSet; 2]) -> usize {
    gold_apis(&sets[0])
        .intersection(&gold_apis(&sets[1]))
        .count()
}

/// The report: the grid's scores on both sets, the two taus, the sets' profiles.
#[derive(Serialize)]
struct Agreement {
    reference: String,
    dataset: String,
    k: usize,
    /// Kendall's tau-b between the two sets' orders by NDCG@10 (`None`: undefined, one
    /// order ties every pair).
    tau_ndcg_10: Option<f64>,
    /// Kendall's tau-b between the two sets' orders by offered-path coverage at K.
    tau_coverage: Option<f64>,
    /// Kendall's tau-b between the two sets' orders by Recall@10 (a third, cheap measure:
    /// the share of gold APIs in the top ten).
    tau_recall_10: Option<f64>,
    /// How much of the taus is noise (secondary figures).
    noise: noise::Noise,
    sets: Vec<SetProfile>,
    shared_apis: usize,
    /// The doc versions written by the model that wrote the set under test, with that model.
    shared_writers: Vec<(DocLabel, String)>,
    configs: Vec<Config>,
}

impl fmt::Display for Agreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tau = |t: Option<f64>| {
            t.map_or_else(|| "undefined (all tied)".to_owned(), |t| format!("{t:.3}"))
        };
        writeln!(
            f,
            "{} configurations ranked on {} (reference) and {}",
            self.configs.len(),
            self.reference,
            self.dataset
        )?;
        writeln!(f, "Kendall's tau-b, NDCG@10: {}", tau(self.tau_ndcg_10))?;
        writeln!(
            f,
            "Kendall's tau-b, offered-path coverage@{}: {}",
            self.k,
            tau(self.tau_coverage)
        )?;
        writeln!(f, "Kendall's tau-b, Recall@10: {}", tau(self.tau_recall_10))?;
        let names = [self.reference.as_str(), self.dataset.as_str()];
        self.noise.write(f, &names, self.k)?;
        write_table(f, &self.configs)?;
        for s in &self.sets {
            let lengths: Vec<String> = s
                .path_lengths
                .iter()
                .map(|(len, n)| format!("{len}: {n}"))
                .collect();
            writeln!(
                f,
                "{}: {} queries, gold path lengths {{{}}}, {} APIs",
                s.name,
                s.queries,
                lengths.join(", "),
                s.apis
            )?;
        }
        write!(f, "APIs in both sets' gold paths: {}", self.shared_apis)?;
        for (label, model) in &self.shared_writers {
            let caution = crate::shared_writer::caution(model, label, &self.dataset);
            write!(f, "\n{caution}")?;
        }
        Ok(())
    }
}

/// The grid's scores, one configuration a line.
fn write_table(f: &mut fmt::Formatter<'_>, configs: &[Config]) -> fmt::Result {
    writeln!(
        f,
        "{:<8} {:<14} {:<9} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "method",
        "docs",
        "expansion",
        "ref NDCG@10",
        "NDCG@10",
        "ref cov",
        "cov",
        "ref R@10",
        "R@10"
    )?;
    for c in configs {
        let [r, t] = &c.scores;
        writeln!(
            f,
            "{:<8} {:<14} {:<9} {:>12.1} {:>12.1} {:>12.1} {:>12.1} {:>12.1} {:>12.1}",
            c.method.to_string(),
            c.docs.as_str(),
            c.expansion,
            r.ndcg_10,
            t.ndcg_10,
            r.coverage,
            t.coverage,
            r.recall_10,
            t.recall_10
        )?;
    }
    Ok(())
}
