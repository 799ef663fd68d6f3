//! What a report shows: the data handed to [`write_report`](crate::report::write_report),
//! below the pages and plots that read it.

use toolsmith_catalog::{ApiId, DocDecision, DocLabel};

use crate::harness::{BenchRun, StoredResult, StoredRetrieval};

/// A run with its stored results, as the report reads it.
#[derive(Clone, Debug)]
pub struct ReportRun {
    /// The run's header and spec.
    pub run: BenchRun,
    /// Its stored query results, traces included.
    pub results: Vec<StoredResult>,
}

/// Two versions of one API's doc to show side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct DocDiff {
    /// The API.
    pub api: ApiId,
    /// The baseline's doc version (`None`: the active docs).
    pub from: Option<DocLabel>,
    /// The compared run's doc version (`None`: the active docs).
    pub to: Option<DocLabel>,
    /// The baseline's doc text.
    pub old: String,
    /// The compared doc text.
    pub new: String,
}

/// Everything a report shows.
#[derive(Clone, Debug, Default)]
pub struct ReportInput {
    /// The runs, the first one the baseline of every delta.
    pub runs: Vec<ReportRun>,
    /// Stored `bench retrieval` results (their NDCG@k curves).
    pub retrieval: Vec<StoredRetrieval>,
    /// Doc versions compared, for the APIs the queries called.
    pub doc_diffs: Vec<DocDiff>,
    /// The activation gate's stored decisions (`gate.html`).
    pub gate_decisions: Vec<DocDecision>,
}
