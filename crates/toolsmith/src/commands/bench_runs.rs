//! `bench run`, `bench list`, `bench show` and `bench compare`: solver benchmarks through
//! eval's harness, stored in eval's tables of the catalog database.

mod matrix;
mod show;

pub(super) use matrix::matrix;

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::bail;
use serde::Serialize;
use toolsmith_eval::{
    BenchRun, BenchSpec, BenchStore, Benchmark, Comparison, LlmJudge, PassRates, QueryScores,
    RunId, RunSummary, WinRateReport, judge_win_rate,
};

use crate::bench_job::{Job, Judging, execute, open, resumed_spec};
use crate::cli::{BenchCompareArgs, BenchRunArgs, BenchShowArgs};
use crate::context::Context;
use crate::{printer, table};

/// What `bench run --json` prints.
#[derive(Debug, Serialize)]
struct RunReport<'a> {
    run: RunId,
    name: &'a str,
    spec: &'a BenchSpec,
    /// Queries of the dataset left out because a gold API did not resolve in the catalog.
    skipped: usize,
    summary: &'a RunSummary,
    /// The judged pass rates, when the run was judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    judged: Option<&'a PassRates>,
}

/// A stored run with its summary (`bench list --json`, `bench show RUN --json`).
#[derive(Debug, Serialize)]
struct RunWithSummary {
    #[serde(flatten)]
    run: BenchRun,
    summary: RunSummary,
    /// The judged pass rates, when the run was judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    judged: Option<PassRates>,
}

/// `bench show RUN --json`: the run, its summary and each query's scores.
#[derive(Debug, Serialize)]
struct RunDetail {
    #[serde(flatten)]
    run: RunWithSummary,
    queries: Vec<QueryRow>,
}

#[derive(Debug, Serialize)]
struct QueryRow {
    query_id: String,
    scores: QueryScores,
}

/// The spec of a new run from the flags, or the stored spec of `--resume` (a new `--limit`
/// and `--concurrency` apply).
fn spec(
    store: &BenchStore,
    args: &BenchRunArgs,
    ctx_protocol: toolsmith_solve::Protocol,
) -> anyhow::Result<(Option<RunId>, BenchSpec)> {
    if let Some(id) = args.resume {
        let id = RunId(id);
        return Ok((
            Some(id),
            resumed_spec(store, id, args.limit, args.concurrency)?,
        ));
    }
    let Some(dataset) = &args.dataset else {
        bail!("say which dataset to run: --dataset NAME|PATH (or --resume RUN)");
    };
    let benchmark = Benchmark::parse(dataset)?;
    let mut spec = BenchSpec::new(&benchmark, args.solver.into());
    spec.catalog.clone_from(&args.catalog);
    spec.doc_version.clone_from(&args.docs.doc_version);
    if let Some(tools) = args.tools {
        spec.tools = tools;
    }
    if let Some(mode) = args.mode {
        spec.mode = mode.into();
    }
    if let Some(expansion) = args.expansion {
        spec.expansion = expansion;
    }
    spec.limit = args.limit;
    spec.concurrency = args.concurrency;
    spec.seed = args.seed;
    spec.protocol = args
        .protocol
        .protocol
        .map_or(ctx_protocol, toolsmith_solve::Protocol::from);
    if let Some(name) = &args.name {
        spec.name.clone_from(name);
    }
    Ok((None, spec))
}

/// The model stages a run searches with: a new run's flags, else the configuration (recorded
/// in its spec), and a resumed run's recorded choice. A flag that contradicts a resumed run's
/// choice is refused, so no run mixes two pipelines.
fn model_stages(
    spec: &mut BenchSpec,
    resumed: Option<RunId>,
    args: &BenchRunArgs,
    config: &crate::settings::Config,
) -> anyhow::Result<()> {
    let stages = [
        (
            "intent extraction",
            &mut spec.intents,
            args.intents.choice(),
            config.retrieve.intents.enabled,
        ),
        (
            "reranking",
            &mut spec.rerank,
            args.rerank.choice(),
            config.retrieve.rerank.enabled,
        ),
    ];
    for (stage, recorded, flag, configured) in stages {
        match (resumed, *recorded, flag) {
            (Some(id), Some(was), Some(now)) if was != now => bail!(
                "run {} was started with {stage} {}; resume it without the flag, or start a new run",
                id.0,
                if was { "on" } else { "off" }
            ),
            (Some(_), Some(_), _) => {}
            _ => *recorded = Some(flag.unwrap_or(configured)),
        }
    }
    record_rerank_settings(spec, config.retrieve.rerank);
    Ok(())
}

/// A run that reranks keeps the stage's settings it began with (a run stored before they
/// were recorded takes today's); one that does not keeps none.
fn record_rerank_settings(spec: &mut BenchSpec, configured: toolsmith_retrieve::RerankSettings) {
    match (spec.rerank, spec.rerank_settings) {
        (Some(true), None) => {
            spec.rerank_settings = Some(toolsmith_retrieve::RerankSettings {
                enabled: true,
                ..configured
            });
        }
        (Some(true), Some(_)) => {}
        _ => spec.rerank_settings = None,
    }
}

/// Runs `bench run`: exit 0 when the run is complete.
pub(super) fn run(ctx: &Context, args: &BenchRunArgs) -> anyhow::Result<ExitCode> {
    let bench = open(ctx)?;
    let config = ctx.config()?;
    let (resumed, mut spec) = spec(&bench, args, config.solve.protocol)?;
    model_stages(&mut spec, resumed, args, config)?;
    if let Some(id) = resumed {
        bench.update_spec(id, &spec)?;
    }
    let judging = Judging::from(args.judge);
    let (intents, rerank, rerank_settings) = (spec.intents, spec.rerank, spec.rerank_settings);
    let outcome = execute(
        ctx,
        &bench,
        Job {
            resumed,
            spec,
            tools_chosen: args.tools.is_some(),
            data: args.data.path(),
            llm: &args.llm,
            allow_write: &args.writes.allow_write,
            judging,
            intents,
            rerank,
            rerank_settings,
        },
    )?;
    if args.json.json {
        printer::json(&RunReport {
            run: outcome.id,
            name: &outcome.spec.name,
            spec: &outcome.spec,
            skipped: outcome.skipped,
            summary: &outcome.summary,
            judged: outcome.judged.as_ref(),
        })?;
    } else {
        print_summaries(&[(
            outcome.id,
            outcome.spec.name.clone(),
            outcome.summary,
            outcome.judged,
        )])?;
    }
    Ok(ExitCode::SUCCESS)
}

fn pct(value: f64) -> String {
    format!("{value:.1}")
}

fn opt(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}"))
}

/// A summary row: the run, its name, its summary and its judged pass rates.
type SummaryRow = (RunId, String, RunSummary, Option<PassRates>);

/// Which optional columns a summary table has: those some run fills.
#[derive(Clone, Copy)]
struct Optional {
    accuracy: bool,
    judged: bool,
    cost: bool,
}

impl Optional {
    fn of(rows: &[SummaryRow]) -> Self {
        Self {
            accuracy: rows.iter().any(|(_, _, s, _)| s.accuracy.is_some()),
            judged: rows.iter().any(|(_, _, _, j)| j.is_some()),
            cost: rows.iter().any(|(_, _, s, _)| s.cost.is_some()),
        }
    }

    /// The table's header.
    fn header(self) -> Vec<&'static str> {
        let mut header: Vec<&str> = vec![
            "run",
            "name",
            "queries",
            "CP%",
            "path-set%",
            "F1",
            "LCS",
            "success%",
            "coverage%",
            "ΔSL",
            "tokens",
            "LLM calls",
            "calls run/rejected/unknown",
            "searches",
        ];
        if self.accuracy {
            header.push("accuracy%");
        }
        if self.judged {
            header.extend(["pass% ToolEval", "pass% AnyTool"]);
        }
        if self.cost {
            header.push("cost");
        }
        header
    }

    /// One run's cells, in the header's order.
    fn cells(self, (id, name, s, judgement): &SummaryRow) -> Vec<String> {
        let mut cells = vec![
            id.to_string(),
            name.clone(),
            s.queries.to_string(),
            pct(s.cp),
            pct(s.path_set),
            format!("{:.3}", s.path_f1),
            format!("{:.3}", s.lcs_rate),
            pct(s.success),
            pct(s.coverage),
            opt(s.delta_solution_length),
            s.tokens.to_string(),
            s.llm_calls.to_string(),
            format!(
                "{}/{}/{}",
                s.calls.executed, s.calls.rejected, s.calls.unknown_tool
            ),
            s.calls.searches.to_string(),
        ];
        if self.accuracy {
            cells.push(s.accuracy.map_or_else(|| "-".to_owned(), pct));
        }
        if self.judged {
            match judgement {
                Some(j) => {
                    cells.extend([format!("{:.1}", j.tooleval), format!("{:.1}", j.anytool)])
                }
                None => cells.extend(["-".to_owned(), "-".to_owned()]),
            }
        }
        if self.cost {
            cells.push(s.cost.map_or_else(|| "-".to_owned(), |c| format!("{c:.4}")));
        }
        cells
    }
}

/// One row per run: the summary table `bench run` prints. Columns for FuncQA accuracy, the
/// judged pass rates and the cost appear when some run has them.
fn print_summaries(rows: &[SummaryRow]) -> anyhow::Result<()> {
    let optional = Optional::of(rows);
    let header = optional.header();
    let columns = header.len();
    let mut t = table::new(header);
    for row in rows {
        t.add_row(optional.cells(row));
    }
    table::align_right(&mut t, (0..columns).filter(|c| *c != 1));
    table::print(&t)?;
    print_single_run_notes(rows)
}

/// Under a one-run table: the error kinds of its failed queries and how it was judged.
fn print_single_run_notes(rows: &[SummaryRow]) -> anyhow::Result<()> {
    if let [(_, _, s, _)] = rows
        && !s.errors.is_empty()
    {
        let kinds: Vec<String> = s
            .errors
            .iter()
            .map(|(kind, n)| format!("{} {n}", kind.as_str()))
            .collect();
        printer::line(format!(
            "error kinds of failed queries: {}",
            kinds.join(", ")
        ))?;
    }
    if let [(_, _, s, Some(j))] = rows {
        let cost = s
            .judging_cost
            .map(|c| format!(", cost {c:.4} (in the cost column)"))
            .unwrap_or_default();
        printer::line(format!(
            "judged {} queries {} time{}: pass rate {:.1}% (ToolEval), {:.1}% (AnyTool); judging took {} LLM calls ({} from the cache), {} tokens{cost}",
            j.queries,
            j.judge_runs,
            if j.judge_runs == 1 { "" } else { "s" },
            j.tooleval,
            j.anytool,
            j.usage.calls,
            j.usage.cache_hits,
            j.usage.tokens()
        ))?;
    }
    Ok(())
}

/// Runs `bench list`.
pub(super) fn list(ctx: &Context, json: bool) -> anyhow::Result<ExitCode> {
    let bench = open(ctx)?;
    let prices = ctx.config()?.prices;
    let runs = bench
        .runs()?
        .into_iter()
        .map(|run| {
            let judged = bench.pass_rates(run.id)?;
            let summary = RunSummary::priced(
                bench.scores(run.id)?.iter().map(|(_, s)| s),
                prices.as_ref(),
            )
            .with_judging(judged.as_ref(), prices.as_ref());
            Ok(RunWithSummary {
                run,
                summary,
                judged,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    if json {
        printer::json(&runs)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut t = table::new([
        "run", "name", "dataset", "solver", "tools", "queries", "CP%", "success%", "finished",
    ]);
    for r in &runs {
        let spec = &r.run.spec;
        t.add_row(vec![
            r.run.id.to_string(),
            r.run.name.clone(),
            table::first_line(&spec.dataset, 40),
            spec.solver.to_string(),
            spec.tools.to_string(),
            r.summary.queries.to_string(),
            pct(r.summary.cp),
            pct(r.summary.success),
            if r.run.finished_ms.is_some() {
                "yes"
            } else {
                "no"
            }
            .to_owned(),
        ]);
    }
    table::align_right(&mut t, [0, 5, 6, 7]);
    table::print(&t)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `bench show RUN [QUERY]`.
pub(super) fn show(ctx: &Context, args: &BenchShowArgs) -> anyhow::Result<ExitCode> {
    let bench = open(ctx)?;
    let id = RunId(args.run);
    let run = bench.run(id)?;
    if let Some(query) = &args.query {
        let Some(result) = bench.result(id, query)? else {
            bail!("run {id} has no result for query `{query}`");
        };
        if args.json.json {
            printer::json(&result)?;
            return Ok(ExitCode::SUCCESS);
        }
        printer::line(format!("query {query}: {}", result.run.query))?;
        show::print_gold(&result)?;
        for event in &result.run.trace {
            printer::line(toolsmith_solve::render(&event.event))?;
        }
        printer::json(&result.scores)?;
        return Ok(ExitCode::SUCCESS);
    }
    let scores = bench.scores(id)?;
    let prices = ctx.config()?.prices;
    let judged = bench.pass_rates(id)?;
    let summary = RunSummary::priced(scores.iter().map(|(_, s)| s), prices.as_ref())
        .with_judging(judged.as_ref(), prices.as_ref());
    if args.json.json {
        printer::json(&RunDetail {
            run: RunWithSummary {
                run,
                summary,
                judged,
            },
            queries: scores
                .into_iter()
                .map(|(query_id, scores)| QueryRow { query_id, scores })
                .collect(),
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    printer::line(format!(
        "run {id} {}: {} on {}, tools {}, mode {}, seed {}, protocol {}",
        run.name,
        run.spec.solver,
        run.spec.dataset,
        run.spec.tools,
        run.spec.mode.as_str(),
        run.spec.seed,
        run.spec.protocol.as_str()
    ))?;
    print_summaries(&[(id, run.name.clone(), summary, judged)])?;
    show::print_queries(&bench, id, &scores)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `bench compare RUN...`.
pub(super) fn compare(ctx: &Context, args: &BenchCompareArgs) -> anyhow::Result<ExitCode> {
    let bench = open(ctx)?;
    let runs = args
        .runs
        .iter()
        .map(|id| {
            let run = bench.run(RunId(*id))?;
            Ok((*id, run.name, bench.summary(RunId(*id))?))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let comparison = Comparison::of(&runs);
    let judged = judged_rows(ctx, &bench, args)?;
    if args.json.json {
        printer::json(&CompareReport {
            comparison: &comparison,
            judged: &judged,
        })?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut header = vec!["run".to_owned(), "name".to_owned(), "queries".to_owned()];
    header.extend(comparison.metrics.iter().map(|m| (*m).to_owned()));
    let mut t = table::new(header);
    for (i, row) in comparison.runs.iter().enumerate() {
        let mut cells = vec![
            row.id.to_string(),
            row.name.clone(),
            row.queries.to_string(),
        ];
        for metric in &comparison.metrics {
            let value = row.values.get(metric).copied().flatten();
            let delta = row.deltas.get(metric).copied().flatten();
            // Counts print whole, scores with two decimals.
            let places = if ["tokens", "llm_calls", "tool_calls"].contains(metric) {
                0
            } else {
                2
            };
            cells.push(match (value, delta) {
                (None, _) => "-".to_owned(),
                (Some(v), Some(d)) if i > 0 => format!("{v:.places$} ({d:+.places$})"),
                (Some(v), _) => format!("{v:.places$}"),
            });
        }
        t.add_row(cells);
    }
    table::align_right(
        &mut t,
        (0..3 + comparison.metrics.len()).filter(|c| *c != 1),
    );
    table::print(&t)?;
    print_judged(&judged)?;
    Ok(ExitCode::SUCCESS)
}

/// `bench compare --json`: the comparison, and each run's judged scores.
#[derive(Debug, Serialize)]
struct CompareReport<'a> {
    #[serde(flatten)]
    comparison: &'a Comparison,
    /// Per run: judged pass rates, FuncQA accuracy, cost and the win rate against
    /// `--win-rate-against`, where there are any.
    judged: &'a [JudgedRow],
}

/// One run's judge-based and answer-based scores in a comparison.
#[derive(Debug, Serialize)]
struct JudgedRow {
    id: RunId,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pass_rates: Option<PassRates>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accuracy: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    win_rate: Option<WinRateReport>,
}

/// The judged rows of the compared runs, judging the win rates `--win-rate-against` asks
/// for (the reference's own row has none).
fn judged_rows(
    ctx: &Context,
    bench: &BenchStore,
    args: &BenchCompareArgs,
) -> anyhow::Result<Vec<JudgedRow>> {
    let config = ctx.config()?;
    let judge = match args.win_rate_against {
        Some(reference) => {
            bench.run(RunId(reference))?;
            let llm: Arc<dyn toolsmith_llm::ChatModel> = Arc::new(crate::llm::cached_chat(
                ctx,
                args.model.as_deref(),
                toolsmith_llm::CacheMode::ReadWrite,
            )?);
            Some((
                RunId(reference),
                LlmJudge::new(llm, config.judge.llm()),
                ctx.runtime()?,
            ))
        }
        None => None,
    };
    let settings = config.judge.settings(None);
    args.runs
        .iter()
        .map(|id| {
            let id = RunId(*id);
            let pass_rates = bench.pass_rates(id)?;
            let summary = RunSummary::priced(
                bench.scores(id)?.iter().map(|(_, s)| s),
                config.prices.as_ref(),
            )
            .with_judging(pass_rates.as_ref(), config.prices.as_ref());
            let win_rate = match &judge {
                Some((reference, judge, rt)) if *reference != id => {
                    Some(rt.block_on(judge_win_rate(judge, bench, id, *reference, &settings))?)
                }
                _ => None,
            };
            Ok(JudgedRow {
                id,
                name: bench.run(id)?.name,
                pass_rates,
                accuracy: summary.accuracy,
                cost: summary.cost,
                win_rate,
            })
        })
        .collect()
}

/// The judged table of a comparison, when any run has judged or answer-based scores.
fn print_judged(rows: &[JudgedRow]) -> anyhow::Result<()> {
    let any = rows.iter().any(|r| {
        r.pass_rates.is_some() || r.accuracy.is_some() || r.cost.is_some() || r.win_rate.is_some()
    });
    if !any {
        return Ok(());
    }
    let reference = rows
        .iter()
        .find_map(|r| r.win_rate.map(|w| w.reference.to_string()))
        .unwrap_or_else(|| "-".to_owned());
    let win = format!("win% vs {reference}");
    let mut t = table::new([
        "run",
        "name",
        "pass% ToolEval",
        "pass% AnyTool",
        "accuracy%",
        "cost",
        win.as_str(),
        "tie%",
        "W/T/L",
    ]);
    let dash = || "-".to_owned();
    for r in rows {
        t.add_row(vec![
            r.id.to_string(),
            r.name.clone(),
            r.pass_rates
                .map_or_else(dash, |p| format!("{:.1}", p.tooleval)),
            r.pass_rates
                .map_or_else(dash, |p| format!("{:.1}", p.anytool)),
            r.accuracy.map_or_else(dash, pct),
            r.cost.map_or_else(dash, |c| format!("{c:.4}")),
            r.win_rate.map_or_else(dash, |w| pct(w.win_rate)),
            r.win_rate.map_or_else(dash, |w| pct(w.tie_rate)),
            r.win_rate.map_or_else(dash, |w| {
                format!(
                    "{}/{}/{}",
                    w.outcomes.wins, w.outcomes.ties, w.outcomes.losses
                )
            }),
        ]);
    }
    table::align_right(&mut t, [0, 2, 3, 4, 5, 6, 7, 8]);
    table::print(&t)
}

#[cfg(test)]
mod tests {
    use toolsmith_eval::{BenchSpec, Benchmark, SolverKind};
    use toolsmith_retrieve::{RerankSettings, RerankWindow};

    use super::record_rerank_settings;

    fn spec(rerank: Option<bool>, recorded: Option<RerankSettings>) -> BenchSpec {
        BenchSpec {
            rerank,
            rerank_settings: recorded,
            ..BenchSpec::new(&Benchmark::RestbenchTmdb, SolverKind::React)
        }
    }

    #[test]
    fn a_run_keeps_the_reranking_settings_it_began_with() {
        let configured = RerankSettings::DEFAULT;
        // A new run that reranks records today's settings, switched on.
        let mut new = spec(Some(true), None);
        record_rerank_settings(&mut new, configured);
        assert_eq!(
            new.rerank_settings,
            Some(RerankSettings {
                enabled: true,
                ..configured
            })
        );
        // A resumed run keeps its own, whatever the configuration says now.
        let began = RerankSettings {
            enabled: true,
            depth: 40,
            window: RerankWindow::PerIntent,
            ..configured
        };
        let mut resumed = spec(Some(true), Some(began));
        record_rerank_settings(&mut resumed, configured);
        assert_eq!(resumed.rerank_settings, Some(began));
        // A run that does not rerank keeps none.
        let mut off = spec(Some(false), Some(began));
        record_rerank_settings(&mut off, configured);
        assert_eq!(off.rerank_settings, None);
    }
}
