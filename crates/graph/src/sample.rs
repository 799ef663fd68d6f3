//! What the trial-and-error loop (crates/refine) needs from the graph as pure functions:
//! drawing edges with probability proportional to their weight, and the weight update.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::model::{Edge, EdgeKind};

/// Up to `max_try` distinct edges of `kind`, drawn without replacement with probability
/// proportional to their weight (paper §3.1), reproducibly from `seed`. Edges of weight 0
/// (always answered right) are drawn only after every positive one, never before.
///
/// Weighted sampling without replacement by exponential keys (Efraimidis and Spirakis,
/// 2006): each edge gets `u^(1/w)` for a uniform `u`, and the largest keys win.
pub fn sample_edges(edges: &[Edge], kind: EdgeKind, max_try: usize, seed: u64) -> Vec<&Edge> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut keyed: Vec<(f64, usize, &Edge)> = edges
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == kind)
        .map(|(i, e)| {
            let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
            let w = f64::from(e.weight);
            let key = if w > 0.0 && w.is_finite() {
                u.ln() / w
            } else {
                f64::NEG_INFINITY
            };
            (key, i, e)
        })
        .collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    keyed.into_iter().take(max_try).map(|(_, _, e)| e).collect()
}

/// The weight an edge gets after a round of trials: its error rate (paper §3.1), so edges the
/// actor still gets wrong are tried more. No trials leave the weight as it was.
pub fn updated_weight(current: f32, correct: usize, total: usize) -> f32 {
    if total == 0 {
        return current;
    }
    let wrong = total.saturating_sub(correct.min(total));
    wrong as f32 / total as f32
}
