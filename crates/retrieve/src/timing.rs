//! Search timing, as `toolsmith bench search-speed` measures it: one pass over the queries
//! per method (as a server answering with one index runs; interleaving the methods per query
//! would time each against caches the others just filled), each search timed alone, and the
//! simplest exact dense search as the baseline the dense index is compared with.

use std::time::{Duration, Instant};

use crate::{Bm25Index, DenseIndex, Filter, HybridSettings, Result, fused_scores};

/// One method's pass over the queries: each search's time and the ids of its top `k`.
#[derive(Clone, Debug, Default)]
pub struct Timed {
    /// Each search's wall time, in query order.
    pub samples: Vec<Duration>,
    /// Each search's result ids (corpus rows), best first.
    pub top: Vec<Vec<u32>>,
}

impl Timed {
    fn push(&mut self, started: Instant, hits: &[(u32, f32)]) {
        self.samples.push(started.elapsed());
        self.top.push(hits.iter().map(|h| h.0).collect());
    }

    /// Results returned over all queries (zero means nothing was searched).
    pub fn results(&self) -> usize {
        self.top.iter().map(Vec::len).sum()
    }

    /// How many of `exact`'s ids, query by query, this pass found too.
    pub fn found(&self, exact: &[Vec<u32>]) -> usize {
        self.top
            .iter()
            .zip(exact)
            .map(|(got, want)| got.iter().filter(|id| want.contains(id)).count())
            .sum()
    }

    /// The queries whose top `k` differs from `exact`'s (ids and order).
    pub fn disagreements(&self, exact: &[Vec<u32>]) -> usize {
        self.top.iter().zip(exact).filter(|(a, b)| a != b).count()
    }
}

/// The simplest exact dense search: a plain loop dot product of `query` with every row of
/// the row-major `matrix`, a full sort, the best `k` (ties by row).
pub fn brute_force(matrix: &[f32], dims: usize, query: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut scored: Vec<(u32, f32)> = Vec::with_capacity(matrix.len() / dims.max(1));
    for (i, row) in matrix.chunks_exact(dims.max(1)).enumerate() {
        let mut s = 0.0f32;
        for (a, b) in row.iter().zip(query) {
            s += a * b;
        }
        scored.push((u32::try_from(i).unwrap_or(u32::MAX), s));
    }
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(k);
    scored
}

/// Times BM25 on each query text.
pub fn time_bm25(index: &Bm25Index, queries: &[&str], k: usize) -> Timed {
    let mut timed = Timed::default();
    for q in queries {
        let t = Instant::now();
        let hits = index.scores(q, k, &Filter::default());
        timed.push(t, &hits);
    }
    timed
}

/// Times a dense index (whatever its backend) on each query vector.
pub fn time_dense(index: &DenseIndex, vectors: &[Vec<f32>], k: usize) -> Result<Timed> {
    let mut timed = Timed::default();
    for v in vectors {
        let t = Instant::now();
        let hits = index.scores(v, k, &Filter::default())?;
        timed.push(t, &hits);
    }
    Ok(timed)
}

/// Times [`brute_force`] over `index`'s f32 matrix on each query vector.
pub fn time_brute_force(index: &DenseIndex, vectors: &[Vec<f32>], k: usize) -> Timed {
    let mut timed = Timed::default();
    let dims = vectors.first().map_or(1, Vec::len);
    for v in vectors {
        let t = Instant::now();
        let hits = brute_force(index.matrix(), dims, v, k);
        timed.push(t, &hits);
    }
    timed
}

/// Times hybrid search ([`fused_scores`]) on each query, its text and its vector.
pub fn time_hybrid(
    bm25: &Bm25Index,
    dense: &DenseIndex,
    settings: HybridSettings,
    queries: &[&str],
    vectors: &[Vec<f32>],
    k: usize,
) -> Result<Timed> {
    let mut timed = Timed::default();
    for (q, v) in queries.iter().zip(vectors) {
        let t = Instant::now();
        let hits = fused_scores(bm25, dense, settings, (q, v), k, &Filter::default())?;
        timed.push(t, &hits);
    }
    Ok(timed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brute_force_ranks_by_dot_product_then_row() {
        // Rows: (1, 0), (0, 1), (1, 0), (0.5, 0.5).
        let matrix = [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.5, 0.5];
        let top = brute_force(&matrix, 2, &[1.0, 0.0], 3);
        assert_eq!(top, [(0, 1.0), (2, 1.0), (3, 0.5)]);
    }

    #[test]
    fn found_and_disagreements_compare_query_by_query() {
        let timed = Timed {
            samples: Vec::new(),
            top: vec![vec![1, 2], vec![3, 4]],
        };
        let exact = [vec![2, 1], vec![3, 5]];
        assert_eq!(timed.found(&exact), 3);
        assert_eq!(timed.disagreements(&exact), 2);
        assert_eq!(timed.results(), 4);
    }
}
