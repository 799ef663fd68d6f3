//! The request's words: what the user asked for and what the model said when it made the call
//! ("the most popular show", "I will compare their vote average"). A field whose name shares a
//! word stem with them (`popularity` with "popular") is what the request filters or ranks on,
//! so it ranks right after the items' roles (see [`super::columns`]).
//!
//! Words are split on anything but letters and digits, field names on `_`, `-`, `.` and
//! camelCase; words under three letters, numbers and common English words are ignored, and the
//! rest are compared by their English (Snowball) stem. There is no list of synonyms: "rated"
//! does not reach `vote_average`.

use std::collections::BTreeSet;

use rust_stemmers::{Algorithm, Stemmer};

/// Shortest word that counts.
const MIN_WORD: usize = 3;

/// Common English words that say nothing of a field, and the words of an agent's plans.
const STOP_WORDS: &[&str] = &[
    "about", "after", "all", "also", "and", "any", "are", "can", "could", "did", "does", "each",
    "for", "from", "get", "give", "had", "has", "have", "her", "his", "how", "into", "its", "let",
    "list", "me", "more", "most", "need", "now", "one", "only", "our", "out", "own", "please",
    "same", "she", "should", "some", "tell", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "use", "using", "want", "was", "were", "what",
    "when", "where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would",
    "you", "your",
];

/// The stems of a request's words.
#[derive(Clone, Debug, Default)]
pub(crate) struct Asked {
    stems: BTreeSet<String>,
}

impl Asked {
    /// The stems of the words of `texts` (the user's task, the model's thought).
    pub(crate) fn of<'t>(texts: impl IntoIterator<Item = Option<&'t str>>) -> Self {
        let stemmer = Stemmer::create(Algorithm::English);
        let mut stems = BTreeSet::new();
        for text in texts.into_iter().flatten() {
            let words = text.split(|c: char| !c.is_alphanumeric());
            stems.extend(words.filter_map(|w| stem(&stemmer, w)));
        }
        Self { stems }
    }

    /// Whether field `name` shares a word stem with the request.
    pub(crate) fn names(&self, name: &str) -> bool {
        if self.stems.is_empty() {
            return false;
        }
        let stemmer = Stemmer::create(Algorithm::English);
        name_words(name)
            .iter()
            .filter_map(|w| stem(&stemmer, w))
            .any(|s| self.stems.contains(&s))
    }
}

/// The stem of `word`, lowercased, unless it says nothing (short, a number, a common word).
fn stem(stemmer: &Stemmer, word: &str) -> Option<String> {
    let lower = word.to_lowercase();
    let counts = lower.chars().count() >= MIN_WORD
        && !lower.chars().all(|c| c.is_ascii_digit())
        && !STOP_WORDS.contains(&lower.as_str());
    counts.then(|| stemmer.stem(&lower).into_owned())
}

/// The words of a field name: split on `_`, `-`, `.`, and where a capital follows a small
/// letter (`voteAverage`).
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_small = false;
    for c in name.chars() {
        let splits = !c.is_alphanumeric() || (c.is_uppercase() && previous_small);
        if splits && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_alphanumeric() {
            word.push(c);
        }
        previous_small = c.is_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_asked_for_when_a_word_of_its_name_shares_a_stem_with_the_request() {
        let asked = Asked::of([Some("When did the most popular TV show start?"), None]);
        assert!(asked.names("popularity"));
        assert!(!asked.names("vote_average"));
        assert!(!asked.names("first_air_date"));
        // "rated" is not "vote": no synonyms; the model's thought can name the field.
        let rated = Asked::of([Some("the highest rated film"), None]);
        assert!(!rated.names("vote_average"));
        let thought = Some("I will compare their vote averages");
        let rated = Asked::of([Some("the highest rated film"), thought]);
        assert!(rated.names("vote_average"));
        assert!(rated.names("voteAverage"));
        assert!(rated.names("VOTE-COUNT"));
        // Common and short words, and numbers, reach nothing.
        let plain = Asked::of([Some("Tell me what the id of 2013 is, and its total"), None]);
        assert!(!plain.names("id"));
        assert!(!plain.names("what_2013"));
        assert!(plain.names("total_results"));
        assert!(!Asked::default().names("popularity"));
    }

    #[test]
    fn field_names_split_on_separators_and_camel_case() {
        assert_eq!(name_words("vote_average"), ["vote", "average"]);
        assert_eq!(name_words("voteAverage"), ["vote", "Average"]);
        assert_eq!(name_words("track.album-type"), ["track", "album", "type"]);
        assert_eq!(name_words("HTMLBody"), ["HTMLBody"]);
    }
}
