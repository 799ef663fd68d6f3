//! The static HTML report of benchmark runs: data in ([`ReportInput`]), files out
//! ([`write_report`]), no server needed to read it.
//!
//! The folder it writes:
//!
//! | file | what |
//! |---|---|
//! | `index.html` | the runs, the comparison table (methods x metrics, deltas against the first run), the plots, the error taxonomy, a query x run matrix linking every query page, the retrieval results |
//! | `plots/metric-<name>.svg` | one bar chart per metric of [`Comparison::METRICS`] |
//! | `plots/tokens.svg` | the distribution of tokens per query, one box per run |
//! | `plots/retrieval-ndcg.svg` | NDCG@k curves of the stored `bench retrieval` results |
//! | `queries/run<ID>-<N>.html` | one query of one run: its trace (LLM calls, tool calls with arguments and observations, the answer) and its scores |
//! | `docs.html` | word-level diffs of the docs of the APIs the queries called, when the runs used different doc versions |
//! | `gate.html` | the activation gate's decisions per round, with their figures, when there are any |
//!
//! Every text is escaped (maud templates; plotters escapes SVG text), so a query, an answer
//! or an observation cannot inject markup.

mod diff;
mod gate_page;
mod input;
mod layout;
mod pages;
mod plots;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::harness::Comparison;

pub use diff::{WordChange, word_diff};
pub use input::{DocDiff, ReportInput, ReportRun};
use layout::{PLOTS, QUERIES, query_file};

/// What [`write_report`] wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WrittenReport {
    /// The report's entry page.
    pub index: PathBuf,
    /// Every file written, the index included.
    pub files: Vec<PathBuf>,
}

/// Writes the report of `input` into the folder `out` (created if needed; files of an earlier
/// report there are overwritten).
pub fn write_report(input: &ReportInput, out: &Path) -> Result<WrittenReport> {
    let mut written = Writer {
        root: out.to_owned(),
        files: Vec::new(),
    };
    written.dir(out)?;
    written.dir(&out.join(PLOTS))?;
    written.dir(&out.join(QUERIES))?;

    let summaries: Vec<_> = input
        .runs
        .iter()
        .map(|r| {
            (
                r.run.id.0,
                r.run.name.clone(),
                crate::harness::RunSummary::of(r.results.iter().map(|x| &x.scores)),
            )
        })
        .collect();
    let comparison = Comparison::of(&summaries);

    let mut figures = Vec::new();
    for (metric, svg) in plots::metric_charts(&comparison)? {
        let file = format!("{PLOTS}/metric-{metric}.svg");
        written.file(&file, &svg)?;
        figures.push(pages::Figure {
            src: file,
            caption: layout::metric_title(metric).to_owned(),
        });
    }
    let tokens = plots::token_distribution(&input.runs)?;
    let tokens = match tokens {
        Some(svg) => {
            let file = format!("{PLOTS}/tokens.svg");
            written.file(&file, &svg)?;
            Some(file)
        }
        None => None,
    };
    let retrieval = match plots::ndcg_curves(&input.retrieval)? {
        Some(svg) => {
            let file = format!("{PLOTS}/retrieval-ndcg.svg");
            written.file(&file, &svg)?;
            Some(file)
        }
        None => None,
    };

    for r in &input.runs {
        for (position, result) in r.results.iter().enumerate() {
            let page = pages::query_page(&r.run, result);
            written.file(&query_file(&r.run, position), &page)?;
        }
    }
    let docs = if input.doc_diffs.is_empty() {
        None
    } else {
        let file = "docs.html".to_owned();
        written.file(&file, &pages::docs_page(&input.doc_diffs))?;
        Some(file)
    };
    let gate = if input.gate_decisions.is_empty() {
        None
    } else {
        let file = "gate.html".to_owned();
        written.file(&file, &gate_page::gate_page(&input.gate_decisions))?;
        Some(file)
    };
    let index = pages::index_page(&pages::Index {
        runs: &input.runs,
        comparison: &comparison,
        summaries: &summaries,
        figures: &figures,
        tokens: tokens.as_deref(),
        retrieval: &input.retrieval,
        retrieval_plot: retrieval.as_deref(),
        docs: docs.as_deref(),
        doc_diffs: input.doc_diffs.len(),
        gate: gate.as_deref(),
    });
    written.file("index.html", &index)?;
    Ok(WrittenReport {
        index: out.join("index.html"),
        files: written.files,
    })
}

/// Writes files under the report's root and remembers them.
struct Writer {
    root: PathBuf,
    files: Vec<PathBuf>,
}

impl Writer {
    fn dir(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Write {
            path: dir.to_owned(),
            source,
        })
    }

    fn file(&mut self, relative: &str, text: &str) -> Result<()> {
        let path = self.root.join(relative);
        std::fs::write(&path, text).map_err(|source| Error::Write {
            path: path.clone(),
            source,
        })?;
        self.files.push(path);
        Ok(())
    }
}
