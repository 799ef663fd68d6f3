//! `toolsmith report [RUN...] --out DIR`: the static HTML report of stored benchmark runs,
//! written by eval's report writer from eval's tables and the catalog's doc versions.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context as _;
use serde::Serialize;
use toolsmith_catalog::{ApiId, DocLabel, DocTarget, DocVersion, Store};
use toolsmith_eval::report::{DocDiff, ReportInput, ReportRun, write_report};
use toolsmith_eval::{BenchStore, RunId};

use crate::cli::ReportArgs;
use crate::context::Context;
use crate::{benchmarks, printer};

/// APIs whose docs are diffed at most, per pair of doc versions.
const MAX_DOC_DIFFS: usize = 60;

/// What `report` wrote, and where.
#[derive(Debug, Serialize)]
struct Written<'a> {
    index: &'a Path,
    runs: Vec<RunId>,
    retrieval_results: usize,
    files: usize,
    doc_diffs: usize,
}

impl fmt::Display for Written<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "report of {} run(s) and {} retrieval result(s), {} files: {}",
            self.runs.len(),
            self.retrieval_results,
            self.files,
            self.index.display()
        )
    }
}

/// Runs `report`.
pub(super) fn run(ctx: &Context, args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let bench = BenchStore::open(ctx.db())
        .with_context(|| format!("opening the benchmark tables in {}", ctx.db().display()))?;
    let ids: Vec<RunId> = if args.runs.is_empty() {
        let all = bench.runs()?;
        let skip = all.len().saturating_sub(args.last.max(1));
        all.into_iter().skip(skip).map(|r| r.id).collect()
    } else {
        args.runs.iter().map(|id| RunId(*id)).collect()
    };
    // With no agent run, the report still shows the stored retrieval results.
    let retrieval = bench.retrieval_results()?;
    let gate_decisions = ctx.store()?.all_doc_decisions()?;
    anyhow::ensure!(
        !ids.is_empty() || !retrieval.is_empty() || !gate_decisions.is_empty(),
        "no benchmark runs nor retrieval results in {}: run `toolsmith bench run` or \
         `toolsmith bench retrieval` first",
        ctx.db().display()
    );
    let runs = ids
        .iter()
        .map(|id| {
            Ok(ReportRun {
                run: bench.run(*id)?,
                results: bench.results(*id)?,
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let doc_diffs = match runs.first() {
        // The docs the baseline ran on: its benchmark's catalog, as `bench run` built it.
        Some(base) if differing_doc_versions(&runs) => {
            let spec = &base.run.spec;
            let store =
                benchmarks::spec_catalog(ctx, spec, &spec.benchmark()?, &args.data.path(), false)?;
            doc_diffs(&store, &runs)?
        }
        _ => Vec::new(),
    };
    let input = ReportInput {
        runs,
        retrieval,
        doc_diffs,
        gate_decisions,
    };
    let written = write_report(&input, &args.out)
        .with_context(|| format!("writing the report into {}", args.out.display()))?;
    let report = Written {
        index: &written.index,
        runs: ids,
        retrieval_results: input.retrieval.len(),
        files: written.files.len(),
        doc_diffs: input.doc_diffs.len(),
    };
    printer::report(&report, args.json.json)?;
    Ok(ExitCode::SUCCESS)
}

fn differing_doc_versions(runs: &[ReportRun]) -> bool {
    let versions: BTreeSet<Option<&DocLabel>> = runs
        .iter()
        .map(|r| r.run.spec.doc_version.as_ref())
        .collect();
    versions.len() > 1
}

/// For each run whose doc version differs from the baseline's, the docs of the APIs the two
/// runs' queries called, in both versions. APIs the catalog does not hold (a run on a catalog
/// imported in memory) are left out.
fn doc_diffs(store: &Store, runs: &[ReportRun]) -> anyhow::Result<Vec<DocDiff>> {
    let Some((base, others)) = runs.split_first() else {
        return Ok(Vec::new());
    };
    let from = base.run.spec.doc_version.as_ref();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for other in others {
        let to = other.run.spec.doc_version.as_ref();
        if to == from || !seen.insert(to) {
            continue;
        }
        let apis: BTreeSet<ApiId> = [base, other]
            .iter()
            .flat_map(|r| r.results.iter().flat_map(|x| x.record.api_path()))
            .collect();
        for api in apis.into_iter().take(MAX_DOC_DIFFS) {
            let history = match store.doc_history(&DocTarget::Api(api.clone())) {
                Ok(history) if !history.is_empty() => history,
                Ok(_) | Err(toolsmith_catalog::Error::UnknownApi(_)) => continue,
                Err(e) => return Err(e).with_context(|| format!("reading the docs of {api}")),
            };
            let (Some(old), Some(new)) = (pick(&history, from), pick(&history, to)) else {
                continue;
            };
            out.push(DocDiff {
                api,
                from: from.cloned(),
                to: to.cloned(),
                old: doc_text(old),
                new: doc_text(new),
            });
        }
    }
    Ok(out)
}

/// The version a run read: the latest of its label, else the active one (as the catalog's
/// `DocSelector::Label` picks).
fn pick<'a>(history: &'a [DocVersion], label: Option<&DocLabel>) -> Option<&'a DocVersion> {
    let active = || history.iter().find(|d| d.active);
    match label {
        None => active(),
        Some(label) => history
            .iter()
            .rev()
            .find(|d| &d.label == label)
            .or_else(active),
    }
}

/// A doc as text: its description, then its examples one per line.
fn doc_text(version: &DocVersion) -> String {
    let mut text = version.doc.description.clone();
    for example in &version.doc.examples {
        text.push_str("\nExample: ");
        text.push_str(&example.query);
        text.push_str(" -> ");
        match &example.call {
            Some(call) => text.push_str(call),
            None => text.push_str(&example.arguments.to_string()),
        }
    }
    text
}
