//! Where a report's files go, relative to its root folder.

use crate::harness::BenchRun;

/// The folder of the plots, relative to the report's root.
pub(crate) const PLOTS: &str = "plots";
/// The folder of the query pages, relative to the report's root.
pub(crate) const QUERIES: &str = "queries";

/// The page of one query of one run, relative to the report's root.
pub(crate) fn query_file(run: &BenchRun, position: usize) -> String {
    format!("{QUERIES}/run{}-{}.html", run.id, position + 1)
}

/// A metric's column title.
pub(crate) fn metric_title(metric: &str) -> &'static str {
    match metric {
        "cp" => "CP %",
        "path_set" => "Path-set %",
        "path_f1" => "Path F1",
        "lcs_rate" => "LCS rate",
        "success" => "Success %",
        "coverage" => "Offered-path coverage %",
        "delta_solution_length" => "ΔSL (extra calls)",
        "tokens" => "Tokens",
        "llm_calls" => "LLM calls",
        "tool_calls" => "Tool calls",
        _ => "metric",
    }
}
