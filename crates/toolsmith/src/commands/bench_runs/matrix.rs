//! `bench matrix`: docs x dependency expansion x solver on one dataset. Each cell is one
//! stored `bench run` (run by the same job code, so resumed and cached alike), found again
//! by its name on the next invocation; the report puts the cells side by side and says what
//! each factor adds, holding the others fixed.

use std::process::ExitCode;

use anyhow::bail;
use serde::Serialize;
use toolsmith_catalog::DocLabel;
use toolsmith_eval::{BenchSpec, BenchStore, Benchmark, Expansion, PassRates, RunId, RunSummary};
use toolsmith_eval::{SolverKind, ToolsOffered};

use crate::bench_job::{Job, Judging, execute, load, open, resumed_spec};
use crate::cli::BenchMatrixArgs;
use crate::context::Context;
use crate::{printer, table};

fn pct(value: f64) -> String {
    format!("{value:.1}")
}

/// The refined doc labels a default matrix crosses with `original`, when the catalog has them.
const REFINED: &[&str] = &["easytool", "draft", "expnet"];

/// The factors of the matrix, in the order of a cell's key.
const FACTORS: [&str; 3] = ["docs", "expansion", "solver"];

/// One cell: its levels, its run and what the run scored.
#[derive(Debug, Serialize)]
struct CellReport {
    docs: DocLabel,
    expansion: Expansion,
    solver: SolverKind,
    run: RunId,
    name: String,
    /// Whether a stored run of this cell existed before this invocation.
    resumed: bool,
    summary: RunSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    judged: Option<PassRates>,
}

impl CellReport {
    /// The cell's level of each factor, as text, in [`FACTORS`] order.
    fn key(&self) -> [String; 3] {
        [
            self.docs.to_string(),
            self.expansion.to_string(),
            self.solver.to_string(),
        ]
    }
}

/// What one level of a factor adds over the factor's first level: the mean difference
/// over the pairs of cells that agree on every other factor.
#[derive(Debug, PartialEq, Serialize)]
struct Share {
    factor: &'static str,
    level: String,
    baseline: String,
    /// Pairs of cells compared.
    pairs: usize,
    /// Mean gain in CP (percentage points).
    cp: f64,
    /// Mean gain in offered-path coverage (percentage points).
    coverage: f64,
    /// Mean gain in judged pass (ToolEval's rules), over pairs both judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pass: Option<f64>,
    /// Mean difference in tokens.
    tokens: f64,
}

/// `bench matrix --json`.
#[derive(Debug, Serialize)]
struct MatrixReport {
    name: String,
    dataset: String,
    tools: ToolsOffered,
    cells: Vec<CellReport>,
    shares: Vec<Share>,
}

/// Runs `bench matrix`: every cell to the end (resuming stored ones), then the report.
pub(crate) fn matrix(ctx: &Context, args: &BenchMatrixArgs) -> anyhow::Result<ExitCode> {
    let bench = open(ctx)?;
    let base = base_spec(ctx, args)?;
    let name = matrix_name(args, &base)?;
    let docs = doc_levels(ctx, args, &base)?;
    let expansion = if args.expansion.is_empty() {
        vec![Expansion::Off, Expansion::On]
    } else {
        args.expansion.clone()
    };
    let solvers: Vec<SolverKind> = if args.solvers.is_empty() {
        vec![SolverKind::React, SolverKind::Conagents]
    } else {
        args.solvers.iter().map(|s| (*s).into()).collect()
    };
    let mut cells = Vec::new();
    for d in &docs {
        for e in &expansion {
            for s in &solvers {
                let cell = CellLevels {
                    docs: d.clone(),
                    expansion: *e,
                    solver: *s,
                };
                cells.push(run_cell(ctx, &bench, args, &base, &name, cell)?);
            }
        }
    }
    let shares = shares(&cells);
    let report = MatrixReport {
        name,
        dataset: base.dataset,
        tools: base.tools,
        cells,
        shares,
    };
    if args.json.json {
        printer::json(&report)?;
    } else {
        print(&report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What every cell shares: the dataset, tools, mode, seed, protocol and limits.
fn base_spec(ctx: &Context, args: &BenchMatrixArgs) -> anyhow::Result<BenchSpec> {
    let benchmark = Benchmark::parse(&args.dataset)?;
    let mut spec = BenchSpec::new(&benchmark, SolverKind::React);
    spec.catalog.clone_from(&args.catalog);
    spec.tools = args.tools;
    if let Some(mode) = args.mode {
        spec.mode = mode.into();
    }
    spec.limit = args.limit;
    spec.concurrency = args.concurrency;
    spec.seed = args.seed;
    spec.protocol = args.protocol.protocol.map_or(
        ctx.config()?.solve.protocol,
        toolsmith_solve::Protocol::from,
    );
    Ok(spec)
}

/// `--name`, else the dataset's short name (a query file's stem).
fn matrix_name(args: &BenchMatrixArgs, base: &BenchSpec) -> anyhow::Result<String> {
    let name = match &args.name {
        Some(name) => name.clone(),
        None => base
            .name
            .strip_suffix(&format!("-{}", base.solver))
            .unwrap_or(&base.name)
            .to_owned(),
    };
    if name.is_empty() {
        bail!("the matrix needs a name: --name NAME");
    }
    Ok(name)
}

/// `--docs`, else `original` and the refined labels the dataset's catalog has.
fn doc_levels(
    ctx: &Context,
    args: &BenchMatrixArgs,
    base: &BenchSpec,
) -> anyhow::Result<Vec<DocLabel>> {
    if !args.docs.is_empty() {
        return Ok(args.docs.clone());
    }
    let mut job = Job {
        resumed: None,
        spec: base.clone(),
        tools_chosen: true,
        data: args.data.path(),
        llm: &args.llm,
        allow_write: &args.writes.allow_write,
        judging: Judging::No,
        intents: None,
        rerank: None,
        rerank_settings: None,
    };
    let present = load(ctx, &mut job)?.store.doc_labels()?;
    let mut levels = vec![DocLabel::original()];
    levels.extend(
        REFINED
            .iter()
            .filter(|label| present.iter().any(|(l, _)| l.as_str() == **label))
            .filter_map(|label| label.parse().ok()),
    );
    Ok(levels)
}

/// The levels of one cell.
struct CellLevels {
    docs: DocLabel,
    expansion: Expansion,
    solver: SolverKind,
}

/// Runs one cell through `bench run`'s job: its stored run resumed when there is one (a
/// finished one is only read, unless a larger `--limit` or `--judge` asks for more).
fn run_cell(
    ctx: &Context,
    bench: &BenchStore,
    args: &BenchMatrixArgs,
    base: &BenchSpec,
    matrix: &str,
    cell: CellLevels,
) -> anyhow::Result<CellReport> {
    let name = format!(
        "matrix-{matrix}-{}-exp-{}-{}",
        cell.docs, cell.expansion, cell.solver
    );
    let stored = bench
        .runs()?
        .into_iter()
        .filter(|r| r.name == name)
        .max_by_key(|r| r.id.0);
    let judging = Judging::from(args.judge);
    let resumed = stored.is_some();
    let (id, spec) = match stored {
        Some(run) => {
            check_stored(&run.spec, base, &cell, &name)?;
            let unchanged = args.limit.is_none_or(|l| run.spec.limit == Some(l));
            if run.finished_ms.is_some() && unchanged && matches!(judging, Judging::No) {
                printer::note(format!("bench run {} ({name}): finished", run.id));
                return report(bench, ctx, run.id, name, cell, resumed);
            }
            let spec = resumed_spec(bench, run.id, args.limit, args.concurrency)?;
            (Some(run.id), spec)
        }
        None => {
            let mut spec = base.clone();
            spec.name.clone_from(&name);
            spec.solver = cell.solver;
            spec.doc_version = Some(cell.docs.clone());
            spec.expansion = cell.expansion;
            (None, spec)
        }
    };
    let outcome = execute(
        ctx,
        bench,
        Job {
            resumed: id,
            spec,
            tools_chosen: true,
            data: args.data.path(),
            llm: &args.llm,
            allow_write: &args.writes.allow_write,
            judging,
            intents: None,
            rerank: None,
            rerank_settings: None,
        },
    )?;
    report(bench, ctx, outcome.id, name, cell, resumed)
}

/// A stored run of a cell's name must be that cell on this dataset with these tools.
fn check_stored(
    stored: &BenchSpec,
    base: &BenchSpec,
    cell: &CellLevels,
    name: &str,
) -> anyhow::Result<()> {
    let same = stored.dataset == base.dataset
        && stored.tools == base.tools
        && stored.solver == cell.solver
        && stored.expansion == cell.expansion
        && stored.doc_version.as_ref() == Some(&cell.docs);
    if !same {
        bail!(
            "the stored run `{name}` is not this cell (it ran {} on {} with tools {}, docs {}, expansion {}): give the matrix another --name",
            stored.solver,
            stored.dataset,
            stored.tools,
            stored
                .doc_version
                .as_ref()
                .map_or("active", DocLabel::as_str),
            stored.expansion
        );
    }
    Ok(())
}

/// The cell's row, read from the store.
fn report(
    bench: &BenchStore,
    ctx: &Context,
    id: RunId,
    name: String,
    cell: CellLevels,
    resumed: bool,
) -> anyhow::Result<CellReport> {
    let summary = RunSummary::priced(
        bench.scores(id)?.iter().map(|(_, s)| s),
        ctx.config()?.prices.as_ref(),
    );
    Ok(CellReport {
        docs: cell.docs,
        expansion: cell.expansion,
        solver: cell.solver,
        run: id,
        name,
        resumed,
        summary,
        judged: bench.pass_rates(id)?,
    })
}

/// Each factor's share: for every level but the factor's first, the mean gain over the first
/// level among cells that agree on the other factors.
fn shares(cells: &[CellReport]) -> Vec<Share> {
    let keys: Vec<[String; 3]> = cells.iter().map(CellReport::key).collect();
    let mut out = Vec::new();
    for (f, factor) in FACTORS.iter().enumerate() {
        let mut levels: Vec<&String> = Vec::new();
        for key in &keys {
            if !levels.contains(&&key[f]) {
                levels.push(&key[f]);
            }
        }
        let Some((baseline, others)) = levels.split_first() else {
            continue;
        };
        for level in others {
            let pairs: Vec<(&CellReport, &CellReport)> = cells
                .iter()
                .zip(&keys)
                .filter(|(_, k)| &k[f] == *level)
                .filter_map(|(cell, k)| {
                    let mut base = k.clone();
                    base[f].clone_from(baseline);
                    let i = keys.iter().position(|other| *other == base)?;
                    cells.get(i).map(|b| (cell, b))
                })
                .collect();
            out.push(share(factor, level, baseline, &pairs));
        }
    }
    out
}

fn share(
    factor: &'static str,
    level: &str,
    baseline: &str,
    pairs: &[(&CellReport, &CellReport)],
) -> Share {
    let mean = |values: Vec<f64>| -> Option<f64> {
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let diff = |f: fn(&CellReport) -> f64| {
        mean(pairs.iter().map(|(a, b)| f(a) - f(b)).collect()).unwrap_or(0.0)
    };
    let pass = mean(
        pairs
            .iter()
            .filter_map(|(a, b)| Some(a.judged?.tooleval.mean - b.judged?.tooleval.mean))
            .collect(),
    );
    Share {
        factor,
        level: level.to_owned(),
        baseline: baseline.to_owned(),
        pairs: pairs.len(),
        cp: diff(|c| c.summary.cp),
        coverage: diff(|c| c.summary.coverage),
        pass,
        tokens: diff(|c| c.summary.tokens as f64),
    }
}

/// The cells' table, then the shares'.
fn print(report: &MatrixReport) -> anyhow::Result<()> {
    let judged = report.cells.iter().any(|c| c.judged.is_some());
    let cost = report.cells.iter().any(|c| c.summary.cost.is_some());
    let mut header = vec!["docs", "expansion", "solver", "run", "queries", "CP%"];
    if judged {
        header.push("pass% ToolEval");
    }
    header.extend(["coverage%", "tokens"]);
    if cost {
        header.push("cost");
    }
    let columns = header.len();
    let mut t = table::new(header);
    for c in &report.cells {
        let mut row = vec![
            c.docs.to_string(),
            c.expansion.to_string(),
            c.solver.to_string(),
            c.run.to_string(),
            c.summary.queries.to_string(),
            pct(c.summary.cp),
        ];
        if judged {
            row.push(
                c.judged
                    .map_or_else(|| "-".to_owned(), |j| pct(j.tooleval.mean)),
            );
        }
        row.extend([pct(c.summary.coverage), c.summary.tokens.to_string()]);
        if cost {
            row.push(
                c.summary
                    .cost
                    .map_or_else(|| "-".to_owned(), |v| format!("{v:.4}")),
            );
        }
        t.add_row(row);
    }
    table::align_right(&mut t, 3..columns);
    printer::line(format!(
        "matrix {} on {} (tools {})",
        report.name, report.dataset, report.tools
    ))?;
    table::print(&t)?;
    if report.shares.is_empty() {
        return Ok(());
    }
    let mut t = table::new([
        "factor",
        "level vs baseline",
        "pairs",
        "ΔCP",
        "Δcoverage",
        "Δpass",
        "Δtokens",
    ]);
    for s in &report.shares {
        t.add_row(vec![
            s.factor.to_owned(),
            format!("{} vs {}", s.level, s.baseline),
            s.pairs.to_string(),
            format!("{:+.1}", s.cp),
            format!("{:+.1}", s.coverage),
            s.pass
                .map_or_else(|| "-".to_owned(), |p| format!("{p:+.1}")),
            format!("{:+.0}", s.tokens),
        ]);
    }
    table::align_right(&mut t, 2..7);
    printer::line("each factor's share (mean gain over its first level, the others fixed):")?;
    table::print(&t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(docs: &str, expansion: Expansion, solver: SolverKind, cp: f64) -> CellReport {
        let mut summary = RunSummary::of(std::iter::empty());
        summary.cp = cp;
        summary.coverage = cp / 2.0;
        CellReport {
            docs: docs.parse().unwrap(),
            expansion,
            solver,
            run: RunId(1),
            name: String::new(),
            resumed: false,
            summary,
            judged: None,
        }
    }

    #[test]
    fn a_share_is_the_mean_gain_over_the_first_level_holding_the_others_fixed() {
        use Expansion::{Off, On};
        use SolverKind::{Conagents, React};
        let cells = vec![
            cell("original", Off, React, 40.0),
            cell("original", Off, Conagents, 30.0),
            cell("original", On, React, 60.0),
            cell("original", On, Conagents, 40.0),
            cell("easytool", Off, React, 50.0),
            cell("easytool", On, React, 80.0),
        ];
        let shares = shares(&cells);
        let find = |factor: &str| shares.iter().find(|s| s.factor == factor).unwrap();
        // Expansion: (60-40), (40-30), (80-50): three pairs.
        let exp = find("expansion");
        assert_eq!((exp.level.as_str(), exp.baseline.as_str()), ("on", "off"));
        assert_eq!(exp.pairs, 3);
        assert!((exp.cp - 20.0).abs() < 1e-9, "{exp:?}");
        assert!((exp.coverage - 10.0).abs() < 1e-9, "{exp:?}");
        // Docs: easytool has no conagents cells, so two pairs: (50-40), (80-60).
        let docs = find("docs");
        assert_eq!(docs.pairs, 2);
        assert!((docs.cp - 15.0).abs() < 1e-9, "{docs:?}");
        // Solver: (30-40), (40-60).
        let solver = find("solver");
        assert_eq!(solver.pairs, 2);
        assert!((solver.cp + 15.0).abs() < 1e-9, "{solver:?}");
        assert_eq!(solver.pass, None, "no cell was judged");
        assert_eq!(shares.len(), 3);
    }
}
