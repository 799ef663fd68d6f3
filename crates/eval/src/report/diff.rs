//! Word-level diffs of two doc texts ([`word_diff`]), as the report shows doc versions.

use similar::{ChangeTag, TextDiff};

/// One run of words of a [`word_diff`]: kept, removed or added. Whitespace stays attached to
/// the words, so joining every kept and added text gives the new doc back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WordChange {
    /// In both versions.
    Same(String),
    /// Only in the old version.
    Removed(String),
    /// Only in the new version.
    Added(String),
}

/// The word-level diff of `old` and `new` (Myers' algorithm over words and the whitespace
/// between them), with neighbouring changes of one kind merged into one run.
pub fn word_diff(old: &str, new: &str) -> Vec<WordChange> {
    let diff = TextDiff::from_words(old, new);
    let mut out: Vec<WordChange> = Vec::new();
    for change in diff.iter_all_changes() {
        let text = change.value();
        match (out.last_mut(), change.tag()) {
            (Some(WordChange::Same(run)), ChangeTag::Equal)
            | (Some(WordChange::Removed(run)), ChangeTag::Delete)
            | (Some(WordChange::Added(run)), ChangeTag::Insert) => run.push_str(text),
            (_, ChangeTag::Equal) => out.push(WordChange::Same(text.to_owned())),
            (_, ChangeTag::Delete) => out.push(WordChange::Removed(text.to_owned())),
            (_, ChangeTag::Insert) => out.push(WordChange::Added(text.to_owned())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_word_is_one_removal_and_one_addition() {
        let diff = word_diff("Search movies by title.", "Search films by their title.");
        assert_eq!(
            diff,
            vec![
                WordChange::Same("Search ".into()),
                WordChange::Removed("movies".into()),
                WordChange::Added("films".into()),
                WordChange::Same(" by ".into()),
                WordChange::Added("their ".into()),
                WordChange::Same("title.".into()),
            ]
        );
        let new: String = diff
            .iter()
            .filter_map(|c| match c {
                WordChange::Same(t) | WordChange::Added(t) => Some(t.as_str()),
                WordChange::Removed(_) => None,
            })
            .collect();
        assert_eq!(new, "Search films by their title.");
    }

    #[test]
    fn identical_and_empty_texts() {
        assert_eq!(
            word_diff("a b", "a b"),
            vec![WordChange::Same("a b".into())]
        );
        assert_eq!(word_diff("", "new"), vec![WordChange::Added("new".into())]);
        assert!(word_diff("", "").is_empty());
    }
}
