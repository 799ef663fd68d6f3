//! Call-path metrics: how the APIs a run called compare with the gold path of its query.
//!
//! `called` is every API the run called, in order, repeats and failed calls included (DRAFT's
//! ToolBench script also counts calls of abandoned attempts); `gold` is the dataset's path, in
//! order. Both are lists of ids compared with `==`, so the caller picks the identity
//! (catalog [`ApiId`](toolsmith_catalog::ApiId)s once resolved).

use serde::Serialize;

use crate::metrics::rate::to_f64;

/// CP, the correct-path test of RestGPT (Song et al. 2023), reused by DRAFT and ToolExpNet:
/// the gold path is an ordered, not necessarily contiguous, subsequence of the calls. Extra
/// calls anywhere are allowed; a gold API called twice in the gold path must be called twice.
///
/// Scanning the calls once from the left and taking the first match of each gold API in turn
/// (as the snippet DRAFT's author posted does) decides subsequence membership exactly. An empty
/// gold path is contained in every run.
pub fn correct_path<T: PartialEq>(called: &[T], gold: &[T]) -> bool {
    let mut rest = called.iter();
    gold.iter().all(|g| rest.any(|c| c == g))
}

/// [`correct_path`] over calls grouped by the step that made them: the calls a model makes
/// together in one turn (parallel function calls) have no order between them, so any order
/// of one step's calls serves the gold path. RestGPT's agent made one call per step, where
/// this is exactly [`correct_path`]; with parallel calls, the order a model happened to list
/// two independent calls in is not a path it chose.
///
/// Each gold API in turn is matched in the earliest step, from the current one on, whose
/// unused calls hold it: matching as early as possible decides membership exactly, as for a
/// plain subsequence.
pub fn correct_path_in_steps<T: PartialEq>(steps: &[Vec<T>], gold: &[T]) -> bool {
    let mut step = 0;
    let mut used: Vec<bool> = steps
        .first()
        .map_or_else(Vec::new, |s| vec![false; s.len()]);
    for g in gold {
        loop {
            let Some(calls) = steps.get(step) else {
                return false;
            };
            if let Some(i) = (0..calls.len()).find(|&i| !used[i] && &calls[i] == g) {
                used[i] = true;
                break;
            }
            step += 1;
            used = steps
                .get(step)
                .map_or_else(Vec::new, |s| vec![false; s.len()]);
        }
    }
    true
}

/// The path-set test of DRAFT's ToolBench script (`Cal_path_rate.py`): every gold API was
/// called at least once, in any order.
pub fn path_set<T: PartialEq>(called: &[T], gold: &[T]) -> bool {
    gold.iter().all(|g| called.contains(g))
}

/// Offered-path coverage: every gold API was among the tools offered to the solver (by a
/// retriever, or a candidate list). A run cannot follow the gold path when this is false, so it
/// separates retrieval misses from solver mistakes.
pub fn offered_covers<T: PartialEq>(offered: &[T], gold: &[T]) -> bool {
    path_set(offered, gold)
}

/// ConAgents' Path% (Shi et al. 2024): precision, recall and F1 of the calls against the gold
/// path, each list closed by an end token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PathF1 {
    /// Matched elements over `|called| + 1`.
    pub precision: f64,
    /// Matched elements over `|gold| + 1`.
    pub recall: f64,
    /// Harmonic mean of the two (0 when both are 0).
    pub f1: f64,
}

/// How many elements of `gold` find a distinct equal element in `called` (the size of the
/// multiset intersection).
fn matched<T: PartialEq>(called: &[T], gold: &[T]) -> usize {
    let mut used = vec![false; called.len()];
    gold.iter()
        .filter(|g| {
            let free = called
                .iter()
                .zip(used.iter_mut())
                .find(|(c, u)| !**u && *c == *g);
            free.map(|(_, u)| *u = true).is_some()
        })
        .count()
}

/// ConAgents' Path F1, as its evaluation script computes it: both lists get a final token, the
/// gold one `finish` and the called one `finish` when the run answered (else `unfinish`, which
/// matches nothing). `overlap` = gold elements found among the calls plus 1 for a matching
/// end token; `P = overlap / (|called| + 1)`, `R = overlap / (|gold| + 1)`, `F1 = 2PR / (P + R)`.
///
/// Two deliberate differences from the script: it adds 0.001 / 0.0001 to the denominators only
/// to avoid dividing by zero, which the end tokens already rule out, so they are left out (the
/// values differ in the fourth decimal); and it counts a gold API repeated in the gold path
/// once per repeat even if it was called once, which can push precision above 1, so each call
/// matches at most one gold element here (identical results whenever the gold path has no
/// repeats).
pub fn path_f1<T: PartialEq>(called: &[T], gold: &[T], answered: bool) -> PathF1 {
    let overlap = to_f64(matched(called, gold) + usize::from(answered));
    let precision = overlap / to_f64(called.len() + 1);
    let recall = overlap / to_f64(gold.len() + 1);
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    PathF1 {
        precision,
        recall,
        f1,
    }
}

/// Length of the longest common (not necessarily contiguous) subsequence of `a` and `b`.
pub fn lcs_len<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    // One row of the classic table, `row[j]` = LCS of the prefix of `a` seen so far and b[..j].
    let mut row = vec![0usize; b.len() + 1];
    for x in a {
        let mut diagonal = 0;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if x == y {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// ConAgents' LCS path rate (the `correct_path` of its evaluation script):
/// `LCS(called, gold) / |gold|` on the lists closed by end tokens as in [`path_f1`], i.e.
/// `(LCS(called, gold) + answered) / (|gold| + 1)`. In [0, 1]; 1 only for a run that made the
/// gold calls in order and answered.
pub fn lcs_path_rate<T: PartialEq>(called: &[T], gold: &[T], answered: bool) -> f64 {
    to_f64(lcs_len(called, gold) + usize::from(answered)) / to_f64(gold.len() + 1)
}

/// ConAgents' automatic success: every gold API was called (in any order, see [`path_set`])
/// and the run answered; its script's `overlap == |gold|` with the last token `finish`. A
/// path-based proxy, not a judgement of the answer.
pub fn path_success<T: PartialEq>(called: &[T], gold: &[T], answered: bool) -> bool {
    answered && path_set(called, gold)
}

/// One run's lengths for ΔSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SolutionLength {
    /// API calls the run made.
    pub called: usize,
    /// API calls in the gold path.
    pub gold: usize,
    /// Whether the run succeeded (by whichever success measure the table uses).
    pub success: bool,
}

impl SolutionLength {
    /// `called - gold`, negative when the run needed fewer calls than the gold path.
    fn extra(&self) -> f64 {
        to_f64(self.called) - to_f64(self.gold)
    }
}

/// ΔSL of RestGPT and ToolExpNet (§5.3, after RestGPT): the mean of `called - gold` over the
/// runs that succeeded, `ΔSL = (1/N_s) Σ_i (L_real_i - L_gold_i) · 1[i succeeded]`. Signed: a
/// run shorter than its gold path lowers it. `None` when no run succeeded.
pub fn delta_solution_length(runs: &[SolutionLength]) -> Option<f64> {
    let successful: Vec<f64> = runs
        .iter()
        .filter(|r| r.success)
        .map(SolutionLength::extra)
        .collect();
    (!successful.is_empty()).then(|| successful.iter().sum::<f64>() / to_f64(successful.len()))
}

/// ConAgents' variant of ΔSL (its evaluation script's `delta_len`): the mean over all runs of
/// `max(called - gold, 0)` for successful runs and 0 for the others. 0 when there are no runs.
pub fn delta_solution_length_conagents(runs: &[SolutionLength]) -> f64 {
    if runs.is_empty() {
        return 0.0;
    }
    let sum: f64 = runs
        .iter()
        .filter(|r| r.success)
        .map(|r| r.extra().max(0.0))
        .sum();
    sum / to_f64(runs.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    const NONE: [&str; 0] = [];

    #[test]
    fn correct_path_is_an_ordered_subsequence() {
        let gold = ["search", "credits"];
        assert!(correct_path(&["search", "credits"], &gold));
        // Extra calls before, between and after are allowed.
        assert!(correct_path(&["x", "search", "y", "credits", "z"], &gold));
        // Wrong order, or a gold API missing, fails.
        assert!(!correct_path(&["credits", "search"], &gold));
        assert!(!correct_path(&["search"], &gold));
        // Repeated calls: the later repeat can serve the order.
        assert!(correct_path(&["credits", "search", "credits"], &gold));
        // A gold API repeated in the gold path needs as many calls.
        assert!(!correct_path(&["a", "b"], &["a", "a"]));
        assert!(correct_path(&["a", "b", "a"], &["a", "a"]));
        // Gold path of length 1; an empty prediction; an empty gold path.
        assert!(correct_path(&["x", "a"], &["a"]));
        assert!(!correct_path(&NONE, &["a"]));
        assert!(correct_path(&["a"], &NONE));
    }

    #[test]
    fn calls_of_one_step_serve_the_gold_path_in_any_order() {
        let gold = ["search_movie", "movie_credits", "season_credits"];
        // Two independent calls made together, listed in the other order: correct.
        let together = [
            vec!["search_movie"],
            vec!["season_credits", "movie_credits"],
        ];
        assert!(correct_path_in_steps(&together, &gold));
        let flat: Vec<&str> = together.iter().flatten().copied().collect();
        assert!(!correct_path(&flat, &gold));
        // The same calls in separate steps, in that order, are a different path: wrong.
        let apart = [
            vec!["search_movie"],
            vec!["season_credits"],
            vec!["movie_credits"],
        ];
        assert!(!correct_path_in_steps(&apart, &gold));
        // A step's call is used once; a repeat needs another call.
        assert!(!correct_path_in_steps(&[vec!["a", "b"]], &["a", "a"]));
        assert!(correct_path_in_steps(&[vec!["a", "a"]], &["a", "a"]));
        assert!(correct_path_in_steps(
            &[vec!["b", "a"], vec!["a"]],
            &["a", "b", "a"]
        ));
        assert!(correct_path_in_steps(
            &[vec!["b", "a"], vec!["b"]],
            &["a", "b"]
        ));
        // One call per step is exactly correct_path.
        let single = [
            vec!["x"],
            vec!["search_movie"],
            vec!["movie_credits"],
            vec!["season_credits"],
        ];
        assert!(correct_path_in_steps(&single, &gold));
        assert!(correct_path_in_steps::<&str>(&[], &[]));
        assert!(!correct_path_in_steps(&[], &["a"]));
    }

    #[test]
    fn path_set_ignores_order_and_repeats() {
        assert!(path_set(&["credits", "search"], &["search", "credits"]));
        assert!(path_set(&["a", "a", "b"], &["a", "b", "a"]));
        assert!(!path_set(&["a"], &["a", "b"]));
        assert!(!path_set(&NONE, &["a"]));
        assert!(offered_covers(&["c", "b", "a"], &["a", "b"]));
        assert!(!offered_covers(&["c", "a"], &["a", "b"]));
    }

    #[test]
    fn path_f1_by_hand() {
        // called [a, x], gold [a, b], answered: overlap = 1 + finish = 2;
        // P = 2/3, R = 2/3, F1 = 2/3.
        let s = path_f1(&["a", "x"], &["a", "b"], true);
        close(s.precision, 2.0 / 3.0);
        close(s.recall, 2.0 / 3.0);
        close(s.f1, 2.0 / 3.0);
        // Repeated calls dilute precision only: [a, a, b] vs [a, b] answered:
        // overlap 3, P = 3/4, R = 3/3, F1 = 2·0.75/1.75 = 6/7.
        let s = path_f1(&["a", "a", "b"], &["a", "b"], true);
        close(s.precision, 0.75);
        close(s.recall, 1.0);
        close(s.f1, 6.0 / 7.0);
        // A run that never answered loses the end token: [a, b] vs [a, b]: overlap 2,
        // P = R = 2/3.
        close(path_f1(&["a", "b"], &["a", "b"], false).f1, 2.0 / 3.0);
        // Gold of length 1, perfect run: P = R = F1 = 1.
        close(path_f1(&["a"], &["a"], true).f1, 1.0);
        // Empty prediction that answered: overlap 1 (the end token), P = 1/1, R = 1/3 -> F1 = 0.5.
        let s = path_f1(&NONE, &["a", "b"], true);
        close(s.precision, 1.0);
        close(s.recall, 1.0 / 3.0);
        close(s.f1, 0.5);
        // Empty prediction, never answered: everything 0, not NaN.
        assert_eq!(path_f1(&NONE, &["a"], false), PathF1::default());
        // A gold API repeated in the gold path matches one call only: [a] vs [a, a], answered:
        // overlap 2, P = 2/2, R = 2/3.
        let s = path_f1(&["a"], &["a", "a"], true);
        close(s.precision, 1.0);
        close(s.recall, 2.0 / 3.0);
    }

    #[test]
    fn lcs_by_hand() {
        assert_eq!(lcs_len(&["a", "b", "c", "d"], &["b", "d"]), 2);
        assert_eq!(lcs_len(&["d", "b"], &["b", "d"]), 1);
        assert_eq!(lcs_len(&["a", "x", "b", "y", "c"], &["a", "b", "c"]), 3);
        assert_eq!(lcs_len(&NONE, &["a"]), 0);
        // called [b, a], gold [a, b], answered: LCS 1, (1 + 1) / 3.
        close(lcs_path_rate(&["b", "a"], &["a", "b"], true), 2.0 / 3.0);
        close(lcs_path_rate(&["a", "b"], &["a", "b"], true), 1.0);
        // Gold of length 1 called but never answered: 1 / 2.
        close(lcs_path_rate(&["a"], &["a"], false), 0.5);
        close(lcs_path_rate(&NONE, &["a"], false), 0.0);
    }

    #[test]
    fn success_needs_every_gold_api_and_an_answer() {
        assert!(path_success(&["b", "a"], &["a", "b"], true));
        assert!(!path_success(&["a", "b"], &["a", "b"], false));
        assert!(!path_success(&["a"], &["a", "b"], true));
        assert!(!path_success(&NONE, &["a"], true));
        // Membership, as the script tests it: one call serves a repeated gold API.
        assert!(path_success(&["a"], &["a", "a"], true));
    }

    #[test]
    fn delta_solution_length_by_hand() {
        let run = |called, gold, success| SolutionLength {
            called,
            gold,
            success,
        };
        // Successful runs: +2, 0, -1 -> mean 1/3; the failed run (+5) is left out.
        let runs = [
            run(4, 2, true),
            run(2, 2, true),
            run(1, 2, true),
            run(7, 2, false),
        ];
        close(delta_solution_length(&runs).unwrap_or(f64::NAN), 1.0 / 3.0);
        // ConAgents: max(extra, 0) on successes, 0 on failures, mean over all four: 2/4.
        close(delta_solution_length_conagents(&runs), 0.5);
        // No successful run: undefined for RestGPT's, 0 for ConAgents'.
        assert_eq!(delta_solution_length(&[run(3, 1, false)]), None);
        close(delta_solution_length_conagents(&[run(3, 1, false)]), 0.0);
        assert_eq!(delta_solution_length(&[]), None);
        close(delta_solution_length_conagents(&[]), 0.0);
    }
}
