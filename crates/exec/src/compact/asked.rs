//! The request's words: what the user asked for and what the model said when it made the call
//! ("the most popular show", "I will compare their vote average"). A field whose name shares a
//! word stem with them (`popularity` with "popular") is what the request filters or ranks on,
//! so it ranks right after the items' roles (see [`super::columns`]).
//!
//! Words are split on anything but letters and digits, field names on `_`, `-`, `.` and
//! camelCase; words under three letters, numbers and common English words are ignored, and the
//! rest are compared by their English (Snowball) stem.
//!
//! A few question words name a field by another word than its own: a rating is voted or
//! scored ("the highest rated film": `vote_average`), the newest is found by a date or a time
//! ("the latest album": `release_date`, `added_at`), who directed or wrote is a crew member's
//! job ("who directed": `job`), a famous one is a popular one, a question asking when is
//! answered by a date, and a cover, photo or picture is an image however the API names its
//! path (`poster_path`, `profile_path`, `logo_path`). [`ALIASES`]
//! maps those words to the words of field names they reach besides their own; it is matched
//! against the words of field names, whatever the API, not against one API's fields.

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
    "where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would", "you",
    "your",
];

/// Question words that reach fields by other words, and those words of field names (matched
/// whole, lowercase, or by stem). A question word counts when a word of the request shares its
/// stem ("rating" as "rated"). Each entry is a concept a question ranks or filters on, named in
/// general words.
const ALIASES: &[(&str, &[&str])] = &[
    // A rating: "highest rated", "best rating".
    ("rated", &["vote", "rating", "score"]),
    // The newest or oldest: a date or a time (`release_date`, `played_at`).
    ("latest", DATE_WORDS),
    ("newest", DATE_WORDS),
    ("recent", DATE_WORDS),
    ("oldest", DATE_WORDS),
    ("earliest", DATE_WORDS),
    // A question asking when ("When did the show start?"): its answer is a date.
    ("when", DATE_WORDS),
    // A crew member's part: who directed, wrote, produced or composed.
    ("directed", CREW_WORDS),
    ("director", CREW_WORDS),
    ("wrote", CREW_WORDS),
    ("written", CREW_WORDS),
    ("writer", CREW_WORDS),
    ("produced", CREW_WORDS),
    ("composed", CREW_WORDS),
    // How well known: "famous" as "popular" (whose own stem reaches `popularity`).
    ("famous", &["popularity"]),
    // A picture of the thing: its image, however the API names it (`poster_path`).
    ("cover", PICTURE_WORDS),
    ("photo", PICTURE_WORDS),
    ("picture", PICTURE_WORDS),
    ("image", PICTURE_WORDS),
    ("artwork", PICTURE_WORDS),
    // Putting entities somewhere ("add them to my playlist", "queue the song"): the calls
    // that do take the entities by their locator (Spotify's `uris`), not by their key.
    ("add", LOCATOR_WORDS),
    ("append", LOCATOR_WORDS),
    ("insert", LOCATOR_WORDS),
    ("queue", LOCATOR_WORDS),
];

/// The words of field names question word `word` reaches besides its own (see [`ALIASES`]),
/// none if it is no question word there.
pub(crate) fn reached_by(word: &str) -> &'static [&'static str] {
    ALIASES
        .iter()
        .find(|(question, _)| *question == word)
        .map_or(&[], |(_, reached)| *reached)
}

/// Words of the field names that locate an entity for another call (`uri`, `urn`). Not
/// "play": its stem is that of "played" and "playing", which describe rather than act.
const LOCATOR_WORDS: &[&str] = &["uri", "urn"];

/// Words of the field names that hold a picture (`poster_path`, `profile_path`, `images`).
const PICTURE_WORDS: &[&str] = &[
    "image",
    "images",
    "poster",
    "backdrop",
    "logo",
    "still",
    "profile",
    "photo",
    "picture",
    "thumbnail",
    "avatar",
    "artwork",
    "cover",
    "icon",
];

/// Words of the field names that say when (`release_date`, `first_air_date`, `added_at`).
const DATE_WORDS: &[&str] = &["date", "at", "time", "year"];

/// Words of the field names that say a crew member's part (`job`; not `department`, which
/// a cast member's `known_for_department` shares).
const CREW_WORDS: &[&str] = &["job"];

/// The stems of a request's words, and the field-name words its question words reach (see
/// [`ALIASES`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Asked {
    stems: BTreeSet<String>,
    aliases: BTreeSet<String>,
    /// The request's words, lowercased, in order, each text's ended by an empty word: how
    /// they stand together says what the request ranks by (see [`super::ranked`]).
    words: Vec<String>,
    /// How many of `words` are the user's task's (the first text's).
    task_len: usize,
}

impl Asked {
    /// The stems of the words of `texts` (the user's task, the model's thought).
    pub(crate) fn of<'t>(texts: impl IntoIterator<Item = Option<&'t str>>) -> Self {
        let stemmer = Stemmer::create(Algorithm::English);
        let mut stems = BTreeSet::new();
        let mut ordered = Vec::new();
        let mut task_len = None;
        for text in texts {
            let Some(text) = text else {
                task_len.get_or_insert(0);
                continue;
            };
            let words = text.split(|c: char| !c.is_alphanumeric());
            let words: Vec<&str> = words.filter(|w| !w.is_empty()).collect();
            stems.extend(words.iter().filter_map(|w| stem(&stemmer, w)));
            ordered.extend(words.iter().map(|w| w.to_lowercase()));
            ordered.push(String::new());
            task_len.get_or_insert(ordered.len());
        }
        let mut aliases = BTreeSet::new();
        for (word, reached) in ALIASES {
            if stem(&stemmer, word).is_some_and(|s| stems.contains(&s)) {
                for target in *reached {
                    aliases.insert((*target).to_owned());
                    aliases.extend(stem(&stemmer, target));
                }
            }
        }
        Self {
            stems,
            aliases,
            words: ordered,
            task_len: task_len.unwrap_or(0),
        }
    }

    /// The request's words, lowercased, in order; an empty word ends each text.
    pub(crate) fn words(&self) -> &[String] {
        &self.words
    }

    /// The words of the user's task alone (the first text), as [`Self::words`] gives them.
    pub(crate) fn task_words(&self) -> &[String] {
        self.words.get(..self.task_len).unwrap_or(&[])
    }

    /// Whether field `name` shares a word stem with the request itself, not through a
    /// question word's aliases (`release_date` for "first released").
    pub(crate) fn shares_stem(&self, name: &str) -> bool {
        let stemmer = Stemmer::create(Algorithm::English);
        name_words(name)
            .iter()
            .any(|word| stem(&stemmer, word).is_some_and(|s| self.stems.contains(&s)))
    }

    /// The same request without the words of `kinds`, the names of the lists of entities the
    /// response holds: "recommend me some tracks" asks for the `tracks`, not for their
    /// `track_number` or their album's `total_tracks`.
    pub(crate) fn without_kinds<'k>(mut self, kinds: impl IntoIterator<Item = &'k str>) -> Self {
        let stemmer = Stemmer::create(Algorithm::English);
        for kind in kinds {
            for word in name_words(kind) {
                if let Some(stemmed) = stem(&stemmer, &word) {
                    self.stems.remove(&stemmed);
                }
            }
        }
        self
    }

    /// Whether field `name` shares a word stem with the request, or has a word one of the
    /// request's question words reaches (see [`ALIASES`]).
    pub(crate) fn names(&self, name: &str) -> bool {
        if self.stems.is_empty() {
            return false;
        }
        let stemmer = Stemmer::create(Algorithm::English);
        name_words(name).iter().any(|word| {
            let lower = word.to_lowercase();
            let stemmed = stem(&stemmer, word);
            self.aliases.contains(&lower)
                || stemmed.is_some_and(|s| self.stems.contains(&s) || self.aliases.contains(&s))
        })
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
pub(crate) fn name_words(name: &str) -> Vec<String> {
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
        let asked = Asked::of([Some("Which TV show is the most popular?"), None]);
        assert!(asked.names("popularity"));
        assert!(!asked.names("vote_average"));
        assert!(!asked.names("first_air_date"));
        // The model's thought can name the field.
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
    fn question_words_reach_the_fields_they_name_by_other_words() {
        let reaches = |question: &str, field: &str| Asked::of([Some(question), None]).names(field);
        // A rating is a vote or a score.
        for field in ["vote_average", "vote_count", "rating", "score"] {
            assert!(
                reaches("Which is the highest rated film?", field),
                "{field}"
            );
        }
        assert!(reaches("the best rating of the shows", "vote_average"));
        // The newest or the oldest is found by a date or a time.
        for question in [
            "the latest album",
            "their newest film",
            "my most recent tracks",
        ] {
            for field in ["release_date", "first_air_date", "added_at", "played_at"] {
                assert!(reaches(question, field), "{question}: {field}");
            }
        }
        assert!(reaches("the oldest show", "air_date"));
        // Who directed or wrote is a crew member's job.
        for question in ["Who directed Dune?", "the director of Dune", "who wrote it"] {
            assert!(reaches(question, "job"), "{question}");
            assert!(!reaches(question, "known_for_department"), "{question}");
        }
        // Popular reaches popularity by its own stem, famous by the map.
        assert!(reaches("the most popular show", "popularity"));
        assert!(reaches("the most famous actor", "popularity"));
        // The map reaches only the fields of its concept.
        let rated = Asked::of([Some("Which is the highest rated film?"), None]);
        for field in ["release_date", "job", "popularity", "id", "overview"] {
            assert!(!rated.names(field), "{field}");
        }
        // A question asking when is answered by a date.
        for field in ["first_air_date", "release_date", "added_at"] {
            assert!(
                reaches("When did the most popular TV show start?", field),
                "{field}"
            );
        }
        assert!(!reaches("Where was the show filmed?", "first_air_date"));
        // A cover, photo or picture is an image, however the API names its path.
        for (question, field) in [
            ("Give me one cover image of the movie", "poster_path"),
            ("cover images of the films", "backdrop_path"),
            ("a photo of the lead actor", "profile_path"),
            ("What does the logo look like?", "logo_path"),
            ("show me a picture of the episode", "still_path"),
        ] {
            assert!(reaches(question, field), "{question}: {field}");
        }
        for field in ["poster_path", "profile_path"] {
            assert!(
                !reaches("Which is the highest rated film?", field),
                "{field}"
            );
        }
        let directed = Asked::of([Some("Who directed Dune?"), None]);
        for field in ["vote_average", "release_date", "character", "name"] {
            assert!(!directed.names(field), "{field}");
        }
    }

    #[test]
    fn putting_items_somewhere_asks_for_their_locators() {
        let reaches = |question: &str, field: &str| Asked::of([Some(question), None]).names(field);
        for question in [
            "Add Summertime Sadness to my first playlist",
            "Append the first track to My Rock",
            "queue the first song of the album",
        ] {
            assert!(reaches(question, "uri"), "{question}");
            assert!(!reaches(question, "release_date"), "{question}");
        }
        // Songs played are no songs to put anywhere.
        assert!(!reaches(
            "Follow the artist of the song recently played",
            "uri"
        ));
    }

    #[test]
    fn a_word_naming_the_lists_of_the_response_asks_for_no_field() {
        let asked = Asked::of([Some("Recommend me some tracks of the latest albums"), None]);
        assert!(asked.names("track_number"));
        let asked = asked.without_kinds(["tracks", "artists"]);
        assert!(!asked.names("track_number"));
        assert!(!asked.names("total_tracks"));
        // The other words still count, the question words too.
        assert!(asked.names("album_type"));
        assert!(asked.names("release_date"));
    }

    #[test]
    fn field_names_split_on_separators_and_camel_case() {
        assert_eq!(name_words("vote_average"), ["vote", "average"]);
        assert_eq!(name_words("voteAverage"), ["vote", "Average"]);
        assert_eq!(name_words("track.album-type"), ["track", "album", "type"]);
        assert_eq!(name_words("HTMLBody"), ["HTMLBody"]);
    }
}
