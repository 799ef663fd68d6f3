//! Retrieval metrics as pure functions of a ranking and a gold set, with binary relevance.
//!
//! - **NDCG@k** (ToolBench's `sklearn.metrics.ndcg_score` with 0/1 relevance over the whole
//!   corpus): `DCG@k = Σ_{rank=1..k} rel(rank) / log2(rank + 1)`, divided by the DCG of the
//!   ideal ranking, which puts `min(|gold|, k)` relevant items first.
//! - **Recall@k**: the share of the gold set found in the top k.
//!
//! A gold item counts once, at its first position in the ranking; a query with no gold items
//! scores 0 (datasets drop such queries before scoring).

use serde::Serialize;

/// The discount of a 1-based rank: `1 / log2(rank + 1)`.
fn discount(rank: usize) -> f64 {
    // Ranks are small; f64 holds every usize below 2^53 exactly.
    let r = rank as f64;
    1.0 / (r + 1.0).log2()
}

/// Positions (0-based) in `ranked[..k]` of items in `gold`, each gold item counted once.
fn hits<T: PartialEq>(ranked: &[T], gold: &[T], k: usize) -> Vec<usize> {
    let mut seen: Vec<&T> = Vec::new();
    let mut out = Vec::new();
    for (i, item) in ranked.iter().take(k).enumerate() {
        if gold.contains(item) && !seen.contains(&item) {
            seen.push(item);
            out.push(i);
        }
    }
    out
}

fn distinct<T: PartialEq>(gold: &[T]) -> usize {
    gold.iter()
        .enumerate()
        .filter(|(i, g)| !gold[..*i].contains(g))
        .count()
}

/// DCG@k with binary relevance.
pub fn dcg_at_k<T: PartialEq>(ranked: &[T], gold: &[T], k: usize) -> f64 {
    hits(ranked, gold, k)
        .into_iter()
        .map(|i| discount(i + 1))
        .sum()
}

/// NDCG@k with binary relevance: DCG@k over the DCG of `min(|gold|, k)` hits at the top.
pub fn ndcg_at_k<T: PartialEq>(ranked: &[T], gold: &[T], k: usize) -> f64 {
    let ideal: f64 = (1..=distinct(gold).min(k)).map(discount).sum();
    if ideal == 0.0 {
        0.0
    } else {
        dcg_at_k(ranked, gold, k) / ideal
    }
}

/// Recall@k: the share of the distinct gold items that appear in `ranked[..k]`.
pub fn recall_at_k<T: PartialEq>(ranked: &[T], gold: &[T], k: usize) -> f64 {
    let total = distinct(gold);
    if total == 0 {
        return 0.0;
    }
    let found = hits(ranked, gold, k).len() as f64;
    let total = total as f64;
    found / total
}

/// Mean NDCG@k for every k from 1 to `max_k` over `(ranking, gold)` pairs, one per query: the
/// NDCG@k curve the report plots (entry `k - 1` is NDCG@k; all zero when there are no queries).
pub fn ndcg_curve<'a, T: PartialEq + 'a>(
    runs: impl IntoIterator<Item = (&'a [T], &'a [T])>,
    max_k: usize,
) -> Vec<f64> {
    let mut sums = vec![0.0; max_k];
    let mut n = 0usize;
    for (ranked, gold) in runs {
        n += 1;
        for (i, sum) in sums.iter_mut().enumerate() {
            *sum += ndcg_at_k(ranked, gold, i + 1);
        }
    }
    if n > 0 {
        let n = n as f64;
        sums.iter_mut().for_each(|s| *s /= n);
    }
    sums
}

/// The retrieval scores toolsmith reports, each a mean over queries in [0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RetrievalScores {
    /// Queries averaged over.
    pub queries: usize,
    /// Mean NDCG@1.
    #[serde(rename = "ndcg@1")]
    pub ndcg_1: f64,
    /// Mean NDCG@3.
    #[serde(rename = "ndcg@3")]
    pub ndcg_3: f64,
    /// Mean NDCG@5.
    #[serde(rename = "ndcg@5")]
    pub ndcg_5: f64,
    /// Mean NDCG@10.
    #[serde(rename = "ndcg@10")]
    pub ndcg_10: f64,
    /// Mean Recall@5.
    #[serde(rename = "recall@5")]
    pub recall_5: f64,
    /// Mean Recall@10.
    #[serde(rename = "recall@10")]
    pub recall_10: f64,
}

impl RetrievalScores {
    /// The mean scores of `(ranking, gold)` pairs, one per query (all zero when there are none).
    pub fn mean<'a, T: PartialEq + 'a>(runs: impl IntoIterator<Item = (&'a [T], &'a [T])>) -> Self {
        let mut sum = Self::default();
        for (ranked, gold) in runs {
            sum.queries += 1;
            sum.ndcg_1 += ndcg_at_k(ranked, gold, 1);
            sum.ndcg_3 += ndcg_at_k(ranked, gold, 3);
            sum.ndcg_5 += ndcg_at_k(ranked, gold, 5);
            sum.ndcg_10 += ndcg_at_k(ranked, gold, 10);
            sum.recall_5 += recall_at_k(ranked, gold, 5);
            sum.recall_10 += recall_at_k(ranked, gold, 10);
        }
        if sum.queries == 0 {
            return sum;
        }
        let n = sum.queries as f64;
        Self {
            queries: sum.queries,
            ndcg_1: sum.ndcg_1 / n,
            ndcg_3: sum.ndcg_3 / n,
            ndcg_5: sum.ndcg_5 / n,
            ndcg_10: sum.ndcg_10 / n,
            recall_5: sum.recall_5 / n,
            recall_10: sum.recall_10 / n,
        }
    }

    /// The same scores in percent (×100), as papers print them.
    pub fn percent(&self) -> Self {
        Self {
            queries: self.queries,
            ndcg_1: self.ndcg_1 * 100.0,
            ndcg_3: self.ndcg_3 * 100.0,
            ndcg_5: self.ndcg_5 * 100.0,
            ndcg_10: self.ndcg_10 * 100.0,
            recall_5: self.recall_5 * 100.0,
            recall_10: self.recall_10 * 100.0,
        }
    }
}
