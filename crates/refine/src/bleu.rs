//! Sentence BLEU-4 as NLTK computes it with Chen and Cherry's smoothing method 4, the text
//! similarity in DRAFT's termination test (§3.4 of the paper; its code calls
//! `sentence_bleu([ref.lower().split()], new.lower().split(), smoothing_function=method4)`).

use std::collections::HashMap;

/// NLTK's `SmoothingFunction.k`, the constant of method 4.
const SMOOTHING_K: f64 = 5.0;

/// The n-gram orders, weighted uniformly.
const MAX_N: usize = 4;

/// BLEU-4 of `candidate` against one `reference`, both lowercased and split on whitespace.
/// Matches NLTK 3.10's `sentence_bleu` with `SmoothingFunction().method4`.
pub fn sentence_bleu(reference: &str, candidate: &str) -> f64 {
    let reference = tokens(reference);
    let candidate = tokens(candidate);
    let hyp_len = candidate.len();
    let mut precisions = Vec::with_capacity(MAX_N);
    for n in 1..=MAX_N {
        let (matched, total) = clipped_matches(&reference, &candidate, n);
        precisions.push((matched, total.max(1)));
    }
    // No unigram in common: BLEU is 0 whatever the smoothing.
    if precisions.first().is_none_or(|&(m, _)| m == 0) {
        return 0.0;
    }
    let mut smoothed = Vec::with_capacity(MAX_N);
    let mut increment = 1i32;
    for &(matched, total) in &precisions {
        let p = if matched == 0 && hyp_len > 1 {
            let numerator = 1.0 / (2f64.powi(increment) * SMOOTHING_K / (hyp_len as f64).ln());
            increment += 1;
            numerator / total as f64
        } else {
            matched as f64 / total as f64
        };
        smoothed.push(p);
    }
    let weight = 1.0 / MAX_N as f64;
    let log_sum: f64 = smoothed
        .iter()
        .filter(|&&p| p > 0.0)
        .map(|p| weight * p.ln())
        .sum();
    brevity_penalty(reference.len(), hyp_len) * log_sum.exp()
}

fn tokens(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// Candidate n-grams found in the reference (each counted at most as often as there), and
/// the candidate's n-gram count.
fn clipped_matches(reference: &[String], candidate: &[String], n: usize) -> (usize, usize) {
    let cand = ngram_counts(candidate, n);
    let refs = ngram_counts(reference, n);
    let matched = cand
        .iter()
        .map(|(gram, &c)| c.min(refs.get(gram).copied().unwrap_or(0)))
        .sum();
    (matched, cand.values().sum())
}

fn ngram_counts(words: &[String], n: usize) -> HashMap<&[String], usize> {
    let mut map: HashMap<&[String], usize> = HashMap::new();
    for gram in words.windows(n) {
        *map.entry(gram).or_default() += 1;
    }
    map
}

fn brevity_penalty(ref_len: usize, hyp_len: usize) -> f64 {
    if hyp_len > ref_len {
        1.0
    } else if hyp_len == 0 {
        0.0
    } else {
        (1.0 - ref_len as f64 / hyp_len as f64).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values from NLTK 3.10.4:
    /// `sentence_bleu([a.lower().split()], b.lower().split(), smoothing_function=SmoothingFunction().method4)`.
    const NLTK: &[(&str, &str, f64)] = &[
        ("the cat sat on the mat", "the cat sat on the mat", 1.0),
        (
            "The cat sat on the mat today",
            "the cat is on the mat",
            0.24881966613088374,
        ),
        (
            "Search movies by title and return their ids",
            "Search for movies by their title; returns movie ids and titles",
            0.06831469347957728,
        ),
        ("get the details of a movie", "a b c d", 0.03701851938020757),
        ("movie details", "movie details by id", 0.16821895003341453),
        (
            "one two three four five six seven eight",
            "one two three four five nine ten eleven",
            0.5169731539571706,
        ),
    ];

    #[test]
    fn matches_nltk_method4() {
        for &(reference, candidate, expected) in NLTK {
            let got = sentence_bleu(reference, candidate);
            assert!(
                (got - expected).abs() < 1e-9,
                "{reference:?} -> {candidate:?}: {got} != {expected}"
            );
        }
    }

    #[test]
    fn hand_computed_short_candidate() {
        // "movie details" vs "movie details by id": p1 = 2/4, p2 = 1/3, p3 = 0/2, p4 = 0/1;
        // method 4 gives p3 = ln(4) / (2 * 5) / 2, p4 = ln(4) / (4 * 5) / 1; BP = 1 (4 > 2).
        let ln4 = 4f64.ln();
        let p = [0.5, 1.0 / 3.0, ln4 / 10.0 / 2.0, ln4 / 20.0];
        let expected = (p.iter().map(|x| x.ln()).sum::<f64>() / 4.0).exp();
        assert!((sentence_bleu("movie details", "movie details by id") - expected).abs() < 1e-12);
    }

    #[test]
    fn nothing_in_common_or_empty_is_zero() {
        assert_eq!(sentence_bleu("a b c", "x y z"), 0.0);
        assert_eq!(sentence_bleu("a b c", ""), 0.0);
        assert_eq!(sentence_bleu("", "a"), 0.0);
    }
}
