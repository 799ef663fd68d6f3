//! Decontaminated gating of views: eval requests that nearly repeat a view of the label under
//! test are left out of its decision. Views and synthetic eval requests come from one writer,
//! so a view can sit on an eval request word for word; the candidate then wins that request
//! by having it in its index, not by serving users (on Spotify the `queries` docs passed the
//! gate and lost 3 to 6 NDCG@10 on the human set).

use std::collections::BTreeSet;

/// `true` for each of `queries` requests whose similarity to any of `views` views reaches
/// `threshold`; `similarity(q, v)` is a cosine (embeddings, or [`word_cosine`] without).
pub fn near_views(
    queries: usize,
    views: usize,
    threshold: f32,
    similarity: impl Fn(usize, usize) -> f32,
) -> Vec<bool> {
    (0..queries)
        .map(|q| (0..views).any(|v| similarity(q, v) >= threshold))
        .collect()
}

/// The cosine of two texts as sets of lowercase words (letters and digits): the gate's
/// measure when no embedder is configured.
pub fn word_cosine(a: &str, b: &str) -> f32 {
    let words = |t: &str| -> BTreeSet<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let (a, b) = (words(a), words(b));
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let shared = a.intersection(&b).count() as f32;
    shared / ((a.len() * b.len()) as f32).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copied_request_is_near_a_view_and_a_paraphrase_is_not() {
        assert!((word_cosine("The actor's Biography", "biography the actor s") - 1.0).abs() < 1e-6);
        let views = ["an actress biography", "films like Jaws"];
        let queries = ["An actress biography", "read an actress biography", "Jaws"];
        let near = near_views(queries.len(), views.len(), 0.9, |q, v| {
            word_cosine(queries[q], views[v])
        });
        // 3 of 4 words shared: 0.87, below 0.9.
        assert_eq!(near, vec![true, false, false]);
    }
}
