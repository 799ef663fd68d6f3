//! What `bench retrieval` reports: NDCG and recall, offered-path coverage with and without
//! dependency expansion, and on request the misses and each query's offer; as JSON
//! (`--json`) or as tables.

use std::fmt;

use serde::Serialize;
use toolsmith_catalog::ApiId;
use toolsmith_retrieve::{ExpandMode, Explanation, IntentFusion, Method, RerankWindow};

use crate::table;

/// The cut-offs coverage is always reported at.
pub(super) const COVERAGE_KS: [usize; 3] = [5, 10, 20];

/// The result of `bench retrieval`. Scores in percent.
#[derive(Debug, Serialize)]
pub(super) struct RetrievalReport {
    pub(super) dataset: String,
    pub(super) method: Method,
    pub(super) doc_version: String,
    pub(super) queries: usize,
    pub(super) skipped: usize,
    #[serde(rename = "ndcg@1")]
    pub(super) ndcg_1: f64,
    #[serde(rename = "ndcg@3")]
    pub(super) ndcg_3: f64,
    #[serde(rename = "ndcg@5")]
    pub(super) ndcg_5: f64,
    #[serde(rename = "ndcg@10")]
    pub(super) ndcg_10: f64,
    #[serde(rename = "recall@5")]
    pub(super) recall_5: f64,
    #[serde(rename = "recall@10")]
    pub(super) recall_10: f64,
    /// Offered-path coverage of the plain top-K, %.
    #[serde(rename = "coverage@5")]
    pub(super) coverage_5: f64,
    #[serde(rename = "coverage@10")]
    pub(super) coverage_10: f64,
    #[serde(rename = "coverage@20")]
    pub(super) coverage_20: f64,
    /// The same with dependency expansion; `None` when the catalog has no dependency edges.
    pub(super) expanded: Option<ExpandedCoverage>,
    /// Coverage at the cut-offs of `--coverage-k`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(super) coverage_curve: Vec<CoveragePoint>,
    /// The queries the expanded offer misses at `--misses K`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) misses: Option<Vec<Miss>>,
    /// With `--offers`: each query's offer at each `--coverage-k` cut-off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) offers: Option<Vec<QueryOffer>>,
    /// Mean wall time of a query's first top-10 search, intent extraction included, ms.
    pub(super) search_ms: f64,
    /// With intent extraction: its fusion and its model cost per query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) intents: Option<IntentCost>,
    /// With reranking: its window and its model cost per query.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) rerank: Option<RerankCost>,
}

/// What intent extraction cost, per query (calls answered from the cache are counted
/// apart, and their tokens are not in the token columns).
#[derive(Debug, Serialize)]
pub(super) struct IntentCost {
    pub(super) fusion: IntentFusion,
    pub(super) llm_calls: f64,
    pub(super) cache_hits: f64,
    pub(super) prompt_tokens: f64,
    pub(super) completion_tokens: f64,
}

impl fmt::Display for IntentCost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "intents ({} fusion) per query: {:.2} LLM calls ({:.2} from the cache), \
             {:.0} prompt + {:.0} completion tokens",
            self.fusion.as_str(),
            self.llm_calls,
            self.cache_hits,
            self.prompt_tokens,
            self.completion_tokens
        )
    }
}

/// What reranking cost, per query (calls answered from the cache are counted apart, and their
/// tokens are not in the token columns), and how many replies it could not use in all.
#[derive(Debug, Serialize)]
pub(super) struct RerankCost {
    pub(super) depth: usize,
    /// Which window a request with several intents gets.
    pub(super) window: RerankWindow,
    /// With a per-intent window: how deep each intent's list is shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) per_intent: Option<usize>,
    /// Mean candidates shown per window asked about.
    pub(super) candidates: f64,
    pub(super) llm_calls: f64,
    pub(super) cache_hits: f64,
    pub(super) prompt_tokens: f64,
    pub(super) completion_tokens: f64,
    pub(super) unusable: usize,
}

impl fmt::Display for RerankCost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let window = match self.per_intent {
            Some(m) => format!("top {} fused, or top {m} per intent", self.depth),
            None => format!("top {}", self.depth),
        };
        write!(
            f,
            "rerank ({window}; {:.1} candidates a window) per query: {:.2} LLM calls ({:.2} \
             from the cache), {:.0} prompt + {:.0} completion tokens; {} unusable repl(ies) \
             kept the order",
            self.candidates,
            self.llm_calls,
            self.cache_hits,
            self.prompt_tokens,
            self.completion_tokens,
            self.unusable
        )
    }
}

/// The APIs offered to one query at one cut-off, dependency expansion included.
#[derive(Debug, Serialize)]
pub(super) struct QueryOffer {
    pub(super) query: String,
    pub(super) k: usize,
    pub(super) apis: Vec<ApiId>,
}

/// Offered-path coverage at one cut-off K.
#[derive(Debug, Serialize)]
pub(super) struct CoveragePoint {
    pub(super) k: usize,
    /// Coverage of the plain top-K, %.
    pub(super) plain: f64,
    /// Coverage with dependency expansion, % (`None` without dependency edges).
    pub(super) expanded: Option<f64>,
    /// Mean tools offered with expansion.
    pub(super) offered: f64,
    /// With intents: the union of the per-intent top K, as a per-intent reranking window of K
    /// would show it (the ceiling of reranking that window).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) intent_window: Option<WindowCoverage>,
}

/// The union of a request's per-intent top K (a one-intent request: its own top K).
#[derive(Debug, Serialize)]
pub(super) struct WindowCoverage {
    /// Share of queries whose whole gold path is in the union, %.
    pub(super) coverage: f64,
    /// Mean APIs in the union.
    pub(super) candidates: f64,
}

/// A query whose gold path the expanded offer does not cover.
#[derive(Debug, Serialize)]
pub(super) struct Miss {
    pub(super) query: String,
    /// The gold APIs not offered, each with its rank (1-based) in the query's ranking.
    pub(super) missing: Vec<MissingGold>,
    /// The gold APIs offered.
    pub(super) offered_gold: Vec<ApiId>,
    /// What expansion added: `api <- feeds.param` (producer) or `api -> feeds.param`.
    pub(super) added: Vec<String>,
    /// The ranking's top API and its score's parts, to set the missing ones against.
    pub(super) top: Option<ExplainedApi>,
}

/// An API of the ranking with the parts of its score.
#[derive(Debug, Serialize)]
pub(super) struct ExplainedApi {
    pub(super) api: ApiId,
    pub(super) explanation: Option<Explanation>,
}

/// A gold API left out of the offer.
#[derive(Debug, Serialize)]
pub(super) struct MissingGold {
    pub(super) api: ApiId,
    /// Its rank in the query's ranking (1-based), `None` below the ranking's depth.
    pub(super) rank: Option<usize>,
    /// The parts of its score in the ranking (`Retriever::explain`).
    pub(super) explanation: Option<Explanation>,
}

/// Offered-path coverage (%) and mean tools offered with dependency expansion at each K.
#[derive(Debug, Default, Serialize)]
pub(super) struct ExpandedCoverage {
    pub(super) mode: ExpandMode,
    pub(super) budget: usize,
    pub(super) swap: usize,
    #[serde(rename = "coverage@5")]
    pub(super) coverage_5: f64,
    #[serde(rename = "coverage@10")]
    pub(super) coverage_10: f64,
    #[serde(rename = "coverage@20")]
    pub(super) coverage_20: f64,
    #[serde(rename = "offered@5")]
    pub(super) offered_5: f64,
    #[serde(rename = "offered@10")]
    pub(super) offered_10: f64,
    #[serde(rename = "offered@20")]
    pub(super) offered_20: f64,
}

/// Coverage sums over queries: plain hits, expanded hits, tools offered expanded, per K.
pub(super) struct CoverageSums {
    pub(super) plain: Vec<f64>,
    pub(super) expanded: Vec<f64>,
    pub(super) offered: Vec<f64>,
    /// With intents: queries whose gold path the per-intent window of K holds, per K.
    pub(super) window: Vec<f64>,
    /// With intents: the per-intent window's APIs, per K.
    pub(super) window_size: Vec<f64>,
}

impl CoverageSums {
    /// Zero sums at `ks` cut-offs.
    pub(super) fn new(ks: usize) -> Self {
        Self {
            plain: vec![0.0; ks],
            expanded: vec![0.0; ks],
            offered: vec![0.0; ks],
            window: vec![0.0; ks],
            window_size: vec![0.0; ks],
        }
    }
}

impl RetrievalReport {
    fn header(&self) -> String {
        format!(
            "{} / {} / {} docs, {} queries{}",
            self.dataset,
            self.method,
            self.doc_version,
            self.queries,
            if self.skipped > 0 {
                format!(" ({} skipped)", self.skipped)
            } else {
                String::new()
            }
        )
    }

    fn scores_table(&self) -> String {
        let mut out = table::new([
            "NDCG@1",
            "NDCG@3",
            "NDCG@5",
            "NDCG@10",
            "Recall@5",
            "Recall@10",
        ]);
        out.add_row(
            [
                self.ndcg_1,
                self.ndcg_3,
                self.ndcg_5,
                self.ndcg_10,
                self.recall_5,
                self.recall_10,
            ]
            .map(|score| format!("{score:.1}")),
        );
        table::align_right(&mut out, 0..6);
        out.trim_fmt()
    }

    fn coverage_table(&self) -> String {
        let mut cov = table::new([
            "offered-path coverage",
            "@5",
            "@10",
            "@20",
            "tools offered @5/@10/@20",
        ]);
        cov.add_row(vec![
            "top-K".to_owned(),
            format!("{:.1}", self.coverage_5),
            format!("{:.1}", self.coverage_10),
            format!("{:.1}", self.coverage_20),
            "5 / 10 / 20".to_owned(),
        ]);
        if let Some(e) = &self.expanded {
            cov.add_row(vec![
                format!(
                    "top-K + dependency {} (budget {}, swap {})",
                    match e.mode {
                        ExpandMode::Producers => "producers",
                        ExpandMode::Neighbours => "neighbours",
                    },
                    e.budget,
                    e.swap
                ),
                format!("{:.1}", e.coverage_5),
                format!("{:.1}", e.coverage_10),
                format!("{:.1}", e.coverage_20),
                format!(
                    "{:.1} / {:.1} / {:.1}",
                    e.offered_5, e.offered_10, e.offered_20
                ),
            ]);
        }
        table::align_right(&mut cov, 1..4);
        cov.trim_fmt()
    }

    fn curve_table(&self) -> String {
        let windows = self
            .coverage_curve
            .iter()
            .any(|p| p.intent_window.is_some());
        let mut header = vec!["K", "top-K coverage", "expanded coverage", "tools offered"];
        if windows {
            header.extend(["per-intent top-K window coverage", "window APIs"]);
        }
        let mut out = table::new(header.clone());
        for p in &self.coverage_curve {
            let mut row = vec![
                p.k.to_string(),
                format!("{:.1}", p.plain),
                p.expanded
                    .map_or_else(|| "-".to_owned(), |e| format!("{e:.1}")),
                format!("{:.1}", p.offered),
            ];
            if windows {
                let (cov, size) = p.intent_window.as_ref().map_or_else(
                    || ("-".to_owned(), "-".to_owned()),
                    |w| (format!("{:.1}", w.coverage), format!("{:.1}", w.candidates)),
                );
                row.extend([cov, size]);
            }
            out.add_row(row);
        }
        table::align_right(&mut out, 0..header.len());
        out.trim_fmt()
    }
}

/// `explanation`'s lines, indented under a line naming its API.
fn explained_lines(label: &str, explanation: Option<&Explanation>) -> String {
    let mut out = format!("\n  {label}");
    match explanation {
        Some(why) => {
            for line in why.to_string().lines() {
                out.push_str("\n    ");
                out.push_str(line);
            }
        }
        None => out.push_str(": no explanation"),
    }
    out
}

/// A miss: the query, the gold APIs not offered, what expansion added, then the parts of the
/// top API's score and of each missing one's.
fn miss_lines(miss: &Miss) -> String {
    let mut out = miss_summary(miss);
    if let Some(top) = &miss.top {
        out.push_str(&explained_lines(
            &format!("top: {}", top.api),
            top.explanation.as_ref(),
        ));
    }
    for m in &miss.missing {
        let rank = m
            .rank
            .map_or("not ranked".to_owned(), |r| format!("rank {r}"));
        out.push_str(&explained_lines(
            &format!("missing: {} ({rank})", m.api),
            m.explanation.as_ref(),
        ));
    }
    out
}

/// A miss in three lines: the query, the gold APIs not offered, what expansion added.
fn miss_summary(miss: &Miss) -> String {
    let missing: Vec<String> = miss
        .missing
        .iter()
        .map(|m| match m.rank {
            Some(r) => format!("{} (rank {r})", m.api),
            None => format!("{} (not ranked)", m.api),
        })
        .collect();
    format!(
        "missed: {}\n  missing: {}\n  added: {}",
        miss.query,
        missing.join(", "),
        miss.added.join("; ")
    )
}

impl fmt::Display for RetrievalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = vec![self.header(), self.scores_table(), self.coverage_table()];
        lines.push(format!("search: {:.2} ms per query", self.search_ms));
        if let Some(intents) = &self.intents {
            lines.push(intents.to_string());
        }
        if let Some(rerank) = &self.rerank {
            lines.push(rerank.to_string());
        }
        if !self.coverage_curve.is_empty() {
            lines.push(self.curve_table());
        }
        lines.extend(self.misses.iter().flatten().map(miss_lines));
        f.write_str(&lines.join("\n"))
    }
}
