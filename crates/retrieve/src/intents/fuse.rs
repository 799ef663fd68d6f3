//! Fusing the rankings of several intents into one list of `k` hits.

use std::collections::HashMap;

use toolsmith_catalog::ApiId;

use super::settings::{IntentFusion, RRF_INTENT_K};
use crate::retriever::Hit;

/// A fused hit and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sourced {
    /// The hit, its score replaced by the fused one.
    pub(crate) hit: Hit,
    /// The intent whose list brought it (for RRF: the one ranking it best).
    pub(crate) intent: usize,
    /// Its rank (from 1) in that intent's list.
    pub(crate) rank: usize,
}

/// Fuses `lists` (one ranking per intent, best first) into at most `k` hits.
pub(crate) fn fuse(lists: &[Vec<Hit>], k: usize, fusion: IntentFusion) -> Vec<Sourced> {
    match fusion {
        IntentFusion::RoundRobin => round_robin(lists, k),
        IntentFusion::Rrf => rrf(lists, k),
    }
}

/// Round `r` takes each list's `r`-th hit, higher score first (then the earlier intent),
/// skipping APIs taken already; the fused score is `1 / r`, so every hit of a round ties and
/// the order within the list is the order taken.
fn round_robin(lists: &[Vec<Hit>], k: usize) -> Vec<Sourced> {
    let mut out: Vec<Sourced> = Vec::new();
    let depth = lists.iter().map(Vec::len).max().unwrap_or(0);
    for rank in 0..depth {
        let mut round: Vec<(usize, &Hit)> = lists
            .iter()
            .enumerate()
            .filter_map(|(i, list)| list.get(rank).map(|h| (i, h)))
            .collect();
        round.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.0.cmp(&b.0)));
        for (intent, hit) in round {
            if out.len() >= k {
                return out;
            }
            if out.iter().any(|s| s.hit.api == hit.api) {
                continue;
            }
            let round_number = (rank + 1) as f32;
            out.push(Sourced {
                hit: Hit {
                    score: 1.0 / round_number,
                    ..hit.clone()
                },
                intent,
                rank: rank + 1,
            });
        }
    }
    out
}

/// The sum over lists of `1 / (RRF_INTENT_K + rank)`, best first; ties go to the better best
/// rank, then the earlier intent, then the API id.
fn rrf(lists: &[Vec<Hit>], k: usize) -> Vec<Sourced> {
    let mut fused: HashMap<&ApiId, (f32, Sourced)> = HashMap::new();
    for (intent, list) in lists.iter().enumerate() {
        for (i, hit) in list.iter().enumerate() {
            let rank = i + 1;
            let part = 1.0 / (RRF_INTENT_K + rank as f32);
            let entry = fused.entry(&hit.api).or_insert_with(|| {
                (
                    0.0,
                    Sourced {
                        hit: hit.clone(),
                        intent,
                        rank,
                    },
                )
            });
            entry.0 += part;
            if rank < entry.1.rank {
                entry.1.intent = intent;
                entry.1.rank = rank;
            }
        }
    }
    let mut out: Vec<Sourced> = fused
        .into_values()
        .map(|(score, mut s)| {
            s.hit.score = score;
            s
        })
        .collect();
    out.sort_by(|a, b| {
        b.hit
            .score
            .total_cmp(&a.hit.score)
            .then(a.rank.cmp(&b.rank))
            .then(a.intent.cmp(&b.intent))
            .then(a.hit.api.cmp(&b.hit.api))
    });
    out.truncate(k);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(api: &str, score: f32) -> Hit {
        let api: ApiId = api.parse().unwrap();
        Hit {
            tool: api.tool().clone(),
            api,
            score,
            text: String::new(),
        }
    }

    fn apis(fused: &[Sourced]) -> Vec<String> {
        fused.iter().map(|s| s.hit.api.to_string()).collect()
    }

    #[test]
    fn round_robin_shares_the_slots_and_skips_duplicates() {
        let a = vec![hit("t/a1", 9.0), hit("t/shared", 8.0), hit("t/a3", 7.0)];
        let b = vec![hit("t/b1", 12.0), hit("t/shared", 2.0), hit("t/b3", 1.0)];
        let fused = fuse(&[a, b], 5, IntentFusion::RoundRobin);
        // Round 1: b1 (12) before a1 (9); round 2: shared once; round 3: a3 (7), b3 (1).
        assert_eq!(apis(&fused), ["t/b1", "t/a1", "t/shared", "t/a3", "t/b3"]);
        assert_eq!(fused[0].intent, 1);
        assert_eq!(fused[2].intent, 0, "the higher-scored copy is taken");
        assert_eq!((fused[2].rank, fused[2].hit.score), (2, 0.5));
        assert_eq!(fuse(&[vec![], vec![]], 3, IntentFusion::RoundRobin), vec![]);
    }

    #[test]
    fn round_robin_stops_at_k() {
        let a = vec![hit("t/a1", 1.0), hit("t/a2", 0.5)];
        let b = vec![hit("t/b1", 2.0), hit("t/b2", 0.1)];
        assert_eq!(
            apis(&fuse(&[a, b], 3, IntentFusion::RoundRobin)),
            ["t/b1", "t/a1", "t/a2"]
        );
    }

    #[test]
    fn rrf_raises_what_several_intents_find() {
        let a = vec![hit("t/a1", 9.0), hit("t/shared", 8.0)];
        let b = vec![hit("t/b1", 3.0), hit("t/shared", 2.0)];
        let fused = fuse(&[a, b], 3, IntentFusion::Rrf);
        assert_eq!(apis(&fused), ["t/shared", "t/a1", "t/b1"]);
        assert!((fused[0].hit.score - 2.0 / 62.0).abs() < 1e-6);
    }
}
