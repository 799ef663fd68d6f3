//! The report's HTML pages, as maud templates (every interpolated text is escaped).

use std::collections::{BTreeSet, HashMap};

use maud::{DOCTYPE, Markup, PreEscaped, html};
use toolsmith_solve::{TraceEvent, cut};

use crate::harness::{BenchRun, Comparison, RunSummary, StoredResult, StoredRetrieval};
use crate::metrics::errors::ErrorKind;
use crate::report::diff::{WordChange, word_diff};
use crate::report::input::{DocDiff, ReportRun};
use crate::report::layout::{metric_title, query_file};
use crate::report::plots::{css_colour, retrieval_label};

/// The pages' shared style: readable tables, a plot grid, trace cards and diff colours.
const CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1180px;padding:1.2rem 1.6rem;color:#1d232a;background:#fbfbfc;line-height:1.45}
h1{font-size:1.6rem;margin:.2rem 0 .4rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #dde1e6;padding-bottom:.2rem}
h3{font-size:1rem;margin:1.2rem 0 .4rem}
.muted{color:#66707a;font-size:.9rem}
table{border-collapse:collapse;margin:.4rem 0 1rem;font-size:.88rem;background:#fff}
th,td{border:1px solid #dde1e6;padding:.3rem .55rem;text-align:left;vertical-align:top}
th{background:#f1f3f5;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.up{color:#1a7f37}.down{color:#c62828}.delta{font-size:.8rem;margin-left:.25rem}
.key{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.35rem;vertical-align:-1px}
.plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:.8rem}
figure{margin:0;background:#fff;border:1px solid #dde1e6;border-radius:4px;padding:.3rem}
figure img{width:100%;height:auto;display:block}figcaption{font-size:.8rem;color:#66707a;text-align:center}
.wide img{max-width:660px}
td.ok a{color:#1a7f37;font-weight:600}td.fail a{color:#c62828;font-weight:600}
ol.trace{padding-left:1.4rem}ol.trace li{margin:.45rem 0;background:#fff;border:1px solid #dde1e6;border-radius:4px;padding:.4rem .6rem}
.tag{display:inline-block;font-size:.75rem;font-weight:600;padding:0 .35rem;border-radius:3px;margin-right:.4rem;background:#e7ecf3}
.tag.tool{background:#e3f1e6}.tag.fail{background:#fbe3e3}.tag.end{background:#efe6f7}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f8fa;padding:.4rem .55rem;border-radius:3px;margin:.3rem 0;font-size:.8rem;max-height:22rem;overflow:auto}
.diff{white-space:pre-wrap;background:#fff;border:1px solid #dde1e6;padding:.5rem .7rem;font-size:.88rem}
del{background:#fbe3e3;color:#8e1b1b}ins{background:#dcf2e1;color:#14532d;text-decoration:none}
nav a{margin-right:1rem}.scroll{overflow-x:auto}
";

/// A page with the shared head; `root` is the relative way back to the report's root.
pub(crate) fn page(title: &str, root: &str, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                style { (PreEscaped(CSS)) }
            }
            body {
                nav { a href={ (root) "index.html" } { "toolsmith report" } }
                (body)
            }
        }
    }
    .into_string()
}

/// Whether a larger value of the metric is better (costs and extra calls are not).
fn higher_is_better(metric: &str) -> bool {
    !matches!(
        metric,
        "delta_solution_length" | "tokens" | "llm_calls" | "tool_calls"
    )
}

/// Counts print whole, scores with two decimals.
fn places(metric: &str) -> usize {
    if matches!(metric, "tokens" | "llm_calls" | "tool_calls") {
        0
    } else {
        2
    }
}

/// A plot on the index.
pub(crate) struct Figure {
    /// The SVG, relative to the root.
    pub(crate) src: String,
    /// What it shows.
    pub(crate) caption: String,
}

/// What the index shows.
pub(crate) struct Index<'a> {
    pub(crate) runs: &'a [ReportRun],
    pub(crate) comparison: &'a Comparison,
    pub(crate) summaries: &'a [(i64, String, RunSummary)],
    pub(crate) figures: &'a [Figure],
    pub(crate) tokens: Option<&'a str>,
    pub(crate) retrieval: &'a [StoredRetrieval],
    pub(crate) retrieval_plot: Option<&'a str>,
    pub(crate) docs: Option<&'a str>,
    pub(crate) doc_diffs: usize,
    /// The page of the gate's decisions, when there are any.
    pub(crate) gate: Option<&'a str>,
}

fn docs_name(label: Option<&toolsmith_catalog::DocLabel>) -> String {
    label.map_or_else(|| "active".to_owned(), ToString::to_string)
}

/// The report's entry page.
pub(crate) fn index_page(ix: &Index<'_>) -> String {
    let body = html! {
        h1 { "Benchmark report" }
        @if ix.runs.is_empty() {
            p.muted { "No agent run is stored, so this report shows the retrieval results alone; "
                code { "toolsmith bench run" } " adds runs." }
        } @else {
        p.muted {
            (ix.runs.len()) " run(s), "
            (ix.runs.iter().map(|r| r.results.len()).sum::<usize>()) " query result(s). "
            "The first run is the baseline of every delta."
        }
        h2 { "Runs" }
        table {
            tr { th { "run" } th { "name" } th { "dataset" } th { "solver" } th { "tools" }
                 th { "docs" } th { "mode" } th { "seed" } th { "queries" } th { "finished" } }
            @for (i, r) in ix.runs.iter().enumerate() {
                tr {
                    td { span.key style={ "background:" (css_colour(i)) } {} (r.run.id) }
                    td { (r.run.name) }
                    td { (r.run.spec.dataset) }
                    td { (r.run.spec.solver) }
                    td { (r.run.spec.tools) }
                    td { (docs_name(r.run.spec.doc_version.as_ref())) }
                    td { (r.run.spec.mode.as_str()) }
                    td.num { (r.run.spec.seed) }
                    td.num { (r.results.len()) }
                    td { @if r.run.finished_ms.is_some() { "yes" } @else { "no" } }
                }
            }
        }
        h2 { "Comparison" }
        div.scroll { (comparison_table(ix.comparison)) }
        @if ix.summaries.iter().any(|(_, _, s)| s.accuracy.is_some()) {
            h3 { "Answer accuracy" }
            p.muted { "FuncQA: answers whose stated number is within 0.1% of the gold one." }
            table {
                tr { th { "run" } th { "name" } th { "accuracy %" } }
                @for (id, name, s) in ix.summaries {
                    tr {
                        td { (id) } td { (name) }
                        td.num { @match s.accuracy { Some(a) => (format!("{a:.1}")), None => "-" } }
                    }
                }
            }
        }
        @if !ix.figures.is_empty() || ix.tokens.is_some() {
            h2 { "Plots" }
            div.plots {
                @for f in ix.figures {
                    figure { img src=(f.src) alt=(f.caption); figcaption { (f.caption) } }
                }
            }
            @if let Some(tokens) = ix.tokens {
                h3 { "Token distribution" }
                figure.wide { img src=(tokens) alt="Tokens per query of each run"; figcaption { "Tokens per query: quartiles per run, every query a dot" } }
            }
        }
        h2 { "Error taxonomy" }
        (taxonomy(ix.runs, ix.summaries))
        h2 { "Queries" }
        (query_matrix(ix.runs))
        }
        h2 { "Retrieval" }
        @if ix.retrieval.is_empty() {
            p.muted { "No stored " code { "bench retrieval" } " results; run one to see NDCG@k curves here." }
        } @else {
            @if let Some(plot) = ix.retrieval_plot {
                figure.wide { img src=(plot) alt="NDCG@k curves"; figcaption { "Mean NDCG@k of each stored retrieval result" } }
            }
            table {
                tr { th { "result" } th { "queries" } th { "NDCG@1" } th { "NDCG@5" } th { "NDCG@10" } th { "Recall@5" } th { "Recall@10" } }
                @for r in ix.retrieval {
                    tr {
                        td { (retrieval_label(r)) }
                        td.num { (r.result.queries) }
                        td.num { (at(&r.result.ndcg, 1)) }
                        td.num { (at(&r.result.ndcg, 5)) }
                        td.num { (at(&r.result.ndcg, 10)) }
                        td.num { (format!("{:.1}", r.result.recall_5)) }
                        td.num { (format!("{:.1}", r.result.recall_10)) }
                    }
                }
            }
        }
        @if let Some(docs) = ix.docs {
            h2 { "Doc versions" }
            p { a href=(docs) { "Word-level diffs of " (ix.doc_diffs) " API doc(s)" } " called by these queries, between the runs' doc versions." }
        }
        @if let Some(gate) = ix.gate {
            h2 { "Gated activation" }
            p { a href=(gate) { "The gate's decisions" } ": which candidate docs became active, on which figures." }
        }
    };
    page("toolsmith benchmark report", "", body)
}

/// NDCG@k of a curve (entry `k - 1`), or `-`.
fn at(curve: &[f64], k: usize) -> String {
    curve
        .get(k - 1)
        .map_or_else(|| "-".to_owned(), |v| format!("{v:.1}"))
}

fn comparison_table(c: &Comparison) -> Markup {
    html! {
        table {
            tr {
                th { "run" } th { "name" } th { "queries" }
                @for m in &c.metrics { th { (metric_title(m)) } }
            }
            @for (i, row) in c.runs.iter().enumerate() {
                tr {
                    td { span.key style={ "background:" (css_colour(i)) } {} (row.id) }
                    td { (row.name) }
                    td.num { (row.queries) }
                    @for m in &c.metrics {
                        @let value = row.values.get(m).copied().flatten();
                        @let delta = row.deltas.get(m).copied().flatten();
                        @let p = places(m);
                        td.num {
                            @match value {
                                None => { "-" }
                                Some(v) => {
                                    (format!("{v:.p$}"))
                                    @if let Some(d) = delta.filter(|_| i > 0) {
                                        @let better = if higher_is_better(m) { d > 0.0 } else { d < 0.0 };
                                        @let class = if d == 0.0 { "delta" } else if better { "delta up" } else { "delta down" };
                                        span class=(class) { "(" (format!("{d:+.p$}")) ")" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn taxonomy(runs: &[ReportRun], summaries: &[(i64, String, RunSummary)]) -> Markup {
    let failed: Vec<usize> = runs
        .iter()
        .map(|r| r.results.iter().filter(|x| !x.scores.success).count())
        .collect();
    let kinds: BTreeSet<ErrorKind> = summaries
        .iter()
        .flat_map(|(_, _, s)| s.errors.keys().copied())
        .collect();
    html! {
        @if kinds.is_empty() {
            p.muted { "No failed query shows an error kind." }
        } @else {
            p.muted { "Failed queries showing each kind (a query can show several)." }
            table {
                tr { th { "error kind" } @for (id, name, _) in summaries { th { "#" (id) " " (name) } } }
                @for kind in &kinds {
                    tr {
                        td { (kind.as_str()) }
                        @for (_, _, s) in summaries {
                            td.num { (s.errors.get(kind).copied().unwrap_or(0)) }
                        }
                    }
                }
                tr {
                    th { "failed queries" }
                    @for ((_, _, s), failed) in summaries.iter().zip(&failed) {
                        td.num { (failed) " of " (s.queries) }
                    }
                }
            }
        }
    }
}

/// Rows: every query id in order of first appearance; columns: runs; cells link each query
/// page, marked by success.
fn query_matrix(runs: &[ReportRun]) -> Markup {
    let mut order: Vec<(&str, &str)> = Vec::new();
    let mut cells: HashMap<(&str, i64), (usize, &StoredResult)> = HashMap::new();
    for r in runs {
        for (position, result) in r.results.iter().enumerate() {
            if !order.iter().any(|(id, _)| *id == result.query_id) {
                order.push((&result.query_id, &result.run.query));
            }
            cells.insert((&result.query_id, r.run.id.0), (position, result));
        }
    }
    html! {
        @if order.is_empty() {
            p.muted { "No query results." }
        } @else {
            p.muted { "✓ success (every gold API called and answered; where the dataset has a gold answer, as FuncQA does, the answer matches it), ✗ not; each links the query's trace." }
            table {
                tr { th { "query" } th { "text" } @for r in runs { th { "#" (r.run.id) } } }
                @for (id, text) in &order {
                    tr {
                        td { (id) }
                        td { (cut(text, 110)) }
                        @for r in runs {
                            @match cells.get(&(*id, r.run.id.0)) {
                                None => td { "-" },
                                Some((position, result)) => {
                                    @let passed = query_passed(&result.scores);
                                    td class=(if passed { "ok" } else { "fail" }) {
                                        a href=(query_file(&r.run, *position)) {
                                            @if passed { "✓" } @else { "✗" }
                                            " " (result.scores.finish.as_str())
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Whether a query is ticked: its answer matches the gold one where the dataset has one
/// (FuncQA, where only the answer counts), else it succeeded. A wrong answer is never ticked.
pub(crate) fn query_passed(scores: &crate::harness::QueryScores) -> bool {
    scores.answer_correct.unwrap_or(scores.success)
}

/// One query of one run: its scores and its trace.
pub(crate) fn query_page(run: &BenchRun, result: &StoredResult) -> String {
    let s = &result.scores;
    let yes = |b: bool| if b { "yes" } else { "no" };
    let body = html! {
        h1 { "Query " (result.query_id) }
        p.muted { "Run #" (run.id) " " (run.name) " — " (run.spec.solver) " on " (run.spec.dataset) ", tools " (run.spec.tools) ", docs " (docs_name(run.spec.doc_version.as_ref())) }
        p { strong { (result.run.query) } }
        h2 { "Answer" }
        @match &result.run.answer {
            Some(answer) => pre { (answer) },
            None => p.muted { "No answer (" (result.run.finish.as_str()) ")" @if let Some(d) = &result.run.detail { ": " (d) } },
        }
        h2 { "Scores" }
        table {
            tr { th { "finish" } th { "correct path" } th { "path set" } th { "Path F1" } th { "LCS rate" } th { "success" } th { "offered covers gold" } th { "API calls" } th { "gold length" } th { "tokens" } th { "LLM calls" } th { "tool calls" } th { "wall ms" } }
            tr {
                td { (s.finish.as_str()) }
                td { (yes(s.correct_path)) } td { (yes(s.path_set)) }
                td.num { (format!("{:.3}", s.path_f1)) } td.num { (format!("{:.3}", s.lcs_rate)) }
                td { (yes(s.success)) } td { (yes(s.offered_covers)) }
                td.num { (s.api_calls) } td.num { (s.gold_len) } td.num { (s.tokens) }
                td.num { (s.llm_calls) } td.num { (s.tool_calls) } td.num { (s.wall_ms) }
            }
        }
        @if let Some(gold) = s.gold_answer {
            p { "Gold answer: " code { (gold) } " — the run's answer "
                @if s.answer_correct == Some(true) { "matches it" } @else { "does not match it" } }
        }
        @if !s.errors.is_empty() {
            p { "Error kinds: " @for (i, k) in s.errors.iter().enumerate() { @if i > 0 { ", " } code { (k.as_str()) } } }
        }
        h2 { "Called APIs" }
        @let called = result.record.api_path();
        @if called.is_empty() { p.muted { "None." } } @else {
            ol { @for api in &called { li { code { (api) } } } }
        }
        details {
            summary { (result.offered.len()) " API(s) offered" }
            ul { @for api in &result.offered { li { code { (api) } } } }
        }
        h2 { "Trace" }
        ol.trace {
            @for e in &result.run.trace { li { (event(&e.event)) } }
        }
    };
    page(
        &format!("Query {} of run {}", result.query_id, run.id),
        "../",
        body,
    )
}

fn event(e: &TraceEvent) -> Markup {
    html! {
        @match e {
            TraceEvent::Started { solver, query, tools } => {
                span.tag { "start" } (solver) ": " (query)
                details { summary { (tools.len()) " tool(s) offered" } pre { (tools.join("\n")) } }
            }
            TraceEvent::LlmCall { role, messages, last_message, reply, tool_calls, prompt_tokens, completion_tokens, latency_ms, cache_hit } => {
                span.tag { "LLM " (role) }
                (messages) " message(s), " (prompt_tokens) " + " (completion_tokens) " tokens, " (latency_ms) " ms"
                @if *cache_hit { " (cached)" }
                details { summary { "last message sent" } pre { (last_message) } }
                @if !reply.is_empty() { pre { (reply) } }
                @if !tool_calls.is_empty() {
                    div { "calls: " @for (i, c) in tool_calls.iter().enumerate() { @if i > 0 { ", " } code { (c) } } }
                }
            }
            TraceEvent::ToolCall { function, api, arguments, outcome, provenance, observation, .. } => {
                @let failed = !matches!(outcome, toolsmith_solve::CallOutcome::Ok);
                span class=(if failed { "tag fail" } else { "tag tool" }) { "tool" }
                code { (function) }
                @if let Some(api) = api { " → " code { (api) } }
                " — " (outcome)
                @if let Some(p) = provenance { " [" (p.as_str()) "]" }
                pre { (serde_json::to_string_pretty(arguments).unwrap_or_else(|_| arguments.to_string())) }
                pre { (observation) }
            }
            TraceEvent::Retry { agent, attempt, error } => {
                span.tag.fail { "retry" } (agent) " attempt " (attempt) ": " (error)
            }
            TraceEvent::Backtrack { depth, reason } => {
                span.tag { "backtrack" } "from depth " (depth) " (" (reason) ")"
            }
            TraceEvent::Finished {
                finish,
                answer,
                detail,
                ..
            } => {
                span.tag.end { "finish" } (finish.as_str())
                @if let Some(a) = answer { ": " (a) }
                @if let Some(d) = detail { " — " (d) }
            }
            // AnyTool's agent tree, pool, reflections, verdicts and token shares: as the
            // terminal shows them.
            other => {
                span.tag { "anytool" } (toolsmith_solve::render(other))
            }
        }
    }
}

/// The word-level diffs of the doc versions compared.
pub(crate) fn docs_page(diffs: &[DocDiff]) -> String {
    let body = html! {
        h1 { "Doc versions compared" }
        p.muted { "Word-level diffs of the docs of the APIs the queries called: " del { "removed" } " " ins { "added" } "." }
        @for d in diffs {
            h3 { code { (d.api) } ": " (docs_name(d.from.as_ref())) " → " (docs_name(d.to.as_ref())) }
            @if d.old == d.new {
                p.muted { "Identical." }
            }
            div.diff {
                @for change in word_diff(&d.old, &d.new) {
                    @match change {
                        WordChange::Same(t) => { (t) }
                        WordChange::Removed(t) => del { (t) },
                        WordChange::Added(t) => ins { (t) },
                    }
                }
            }
        }
    };
    page("Doc versions compared", "", body)
}
