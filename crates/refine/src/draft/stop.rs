//! DRAFT's tool-adaptive termination (§3.4): the change between two consecutive descriptions,
//! Delta = (cosine(emb(new), emb(previous)) + BLEU(new against previous)) / 2; the loop stops
//! once Delta exceeds tau.

use crate::bleu::sentence_bleu;

/// Delta of two descriptions given their embeddings.
pub(crate) fn delta(previous: &str, new: &str, prev_emb: &[f32], new_emb: &[f32]) -> f64 {
    let cosine = f64::from(toolsmith_llm::cosine(prev_emb, new_emb));
    (cosine + sentence_bleu(previous, new)) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_docs_have_delta_one_and_unrelated_ones_near_zero() {
        let v = [0.6f32, 0.8];
        assert!((delta("a b c d", "a b c d", &v, &v) - 1.0).abs() < 1e-6);
        assert!(delta("a b c d", "w x y z", &[1.0, 0.0], &[0.0, 1.0]).abs() < 1e-9);
    }
}
