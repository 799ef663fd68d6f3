//! Near-duplicate requests: cosine of their embeddings at or above the threshold (DRAFT's
//! diversity check), or, without an embedder, the same words up to case and spacing.

use toolsmith_llm::cosine;

/// What a candidate repeats: the earlier text and their cosine.
pub(crate) type Repeat = (String, f32);

/// The texts seen so far (kept or avoided), with their vectors when there is an embedder.
#[derive(Default)]
pub(crate) struct Seen {
    texts: Vec<(String, Option<Vec<f32>>)>,
}

impl Seen {
    /// Adds a text (and its vector) as seen.
    pub(crate) fn add(&mut self, text: &str, vector: Option<Vec<f32>>) {
        self.texts.push((text.to_owned(), vector));
    }

    /// The closest seen text this one repeats, if any.
    pub(crate) fn repeats(
        &self,
        text: &str,
        vector: Option<&[f32]>,
        threshold: f32,
    ) -> Option<Repeat> {
        let key = normalized(text);
        let mut best: Option<Repeat> = None;
        for (seen, seen_vector) in &self.texts {
            let score = match (vector, seen_vector) {
                (Some(a), Some(b)) => cosine(a, b),
                _ if normalized(seen) == key => 1.0,
                _ => continue,
            };
            let exact = normalized(seen) == key;
            if (score >= threshold || exact) && best.as_ref().is_none_or(|(_, b)| score > *b) {
                best = Some((seen.clone(), if exact { score.max(1.0) } else { score }));
            }
        }
        best
    }
}

/// Lowercase words joined by one space.
fn normalized(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_vectors_only_the_same_words_repeat() {
        let mut seen = Seen::default();
        seen.add("Find the movie Dune", None);
        assert!(seen.repeats("find  the movie DUNE", None, 0.9).is_some());
        assert!(seen.repeats("Find the movie Alien", None, 0.9).is_none());
    }

    #[test]
    fn with_vectors_the_threshold_decides() {
        let mut seen = Seen::default();
        seen.add("a", Some(vec![1.0, 0.0]));
        let close = [0.95f32, 0.312_25];
        assert!(seen.repeats("b", Some(&close), 0.9).is_some());
        assert!(seen.repeats("b", Some(&[0.0, 1.0]), 0.9).is_none());
    }
}
