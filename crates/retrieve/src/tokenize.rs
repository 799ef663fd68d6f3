//! The tokenizer BM25 uses on both docs and queries: lowercase words split on anything that is
//! not a letter or digit and on camelCase and snake_case boundaries, minus a small stopword
//! list, with an optional light plural stemmer.

/// English stop words dropped from docs and queries: function words that occur in almost
/// every text, so their IDF is near zero and they only cost time, or, worse, a query's filler
/// word matches a doc that happens to use it (`recommend movies like Titanic` ranked TMDB's
/// images API first, whose doc says "like"). The common function words of NLTK's English list,
/// request fillers (`could`, `would`, `give`, `let`, `please`, `also`), and `like`, which the
/// SMART list drops and NLTK keeps.
/// No stop-word crate's list fits as it is: stopwords-iso's English (1,298 words) drops
/// `similar`, `top`, `latest`, `page` and `now` (of now-playing), which name what APIs do, and
/// NLTK's whole list (198) keeps `like`; adding the rest of NLTK's function words here (`each`,
/// `both`, `through`, `during`, ...) moved BM25's NDCG@10 on RestBench TMDB from 46.20 to 46.14,
/// and `like` alone left every figure as it was (`bench retrieval --dataset restbench-tmdb
/// --method bm25`: NDCG@1/5/10 38.0/41.0/46.2, recall@10 57.6).
const STOPWORDS: &[&str] = &[
    "a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but",
    "by", "can", "could", "do", "does", "for", "from", "give", "had", "has", "have", "he", "her",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "let", "like", "me", "my", "of",
    "on", "or", "our", "please", "she", "should", "so", "some", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "to", "us", "was", "we", "were",
    "what", "when", "where", "which", "who", "will", "with", "would", "you", "your",
];

/// Splits `text` into index terms. With `stem`, plural forms are reduced (see [`stem`]).
pub(crate) fn tokenize(text: &str, stem_plurals: bool) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        for piece in split_case(word) {
            let lower = piece.to_lowercase();
            if STOPWORDS.binary_search(&lower.as_str()).is_ok() {
                continue;
            }
            out.push(if stem_plurals { stem(&lower) } else { lower });
        }
    }
    out
}

/// Splits a word of letters and digits at camelCase boundaries: `movieCredits` -> `movie`,
/// `Credits`; `HTTPServer` -> `HTTP`, `Server`.
fn split_case(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, window) in chars.windows(2).enumerate() {
        let [(_, prev), (at, cur)] = window else {
            continue;
        };
        let next_lower = chars.get(i + 2).is_some_and(|(_, c)| c.is_lowercase());
        let boundary = (prev.is_lowercase() && cur.is_uppercase())
            || (prev.is_uppercase() && cur.is_uppercase() && next_lower);
        if boundary {
            if let Some(piece) = word.get(start..*at) {
                pieces.push(piece);
            }
            start = *at;
        }
    }
    if let Some(piece) = word.get(start..) {
        pieces.push(piece);
    }
    pieces
}

/// A light plural stemmer (Harman's S-stemmer): `companies` -> `company`, `matches` -> `match`,
/// `songs` -> `song`; words ending in `ss`, `us` or `is` and short words are left alone. Since
/// `-ies` becomes `-y`, a singular ending in `-ie` does too (`movie` and `movies` -> `movy`),
/// so both forms meet.
pub fn stem(word: &str) -> String {
    let n = word.len();
    if n > 3 && word.ends_with("ie") {
        return format!("{}y", &word[..n - 2]);
    }
    if n > 4 && word.ends_with("ies") && !word.ends_with("eies") && !word.ends_with("aies") {
        return format!("{}y", &word[..n - 3]);
    }
    if n > 4
        && (word.ends_with("sses")
            || word.ends_with("xes")
            || word.ends_with("ches")
            || word.ends_with("shes"))
    {
        return word[..n - 2].to_owned();
    }
    if n > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        return word[..n - 1].to_owned();
    }
    word.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_keeps_its_content_words_only() {
        assert_eq!(
            tokenize("recommend movies like Titanic, please", false),
            ["recommend", "movies", "titanic"]
        );
        // Words that name what an API does or filters on stay.
        assert_eq!(
            tokenize("movies now playing, not before 2020", false),
            ["movies", "now", "playing", "not", "before", "2020"]
        );
    }

    #[test]
    fn stopwords_are_sorted_for_binary_search() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn splits_case_snake_and_punctuation() {
        assert_eq!(
            tokenize("GET /movie/{movie_id}/similarMovies HTTPServer", false),
            [
                "get", "movie", "movie", "id", "similar", "movies", "http", "server"
            ]
        );
        assert_eq!(
            tokenize("Give me the top-rated TV shows", true),
            ["top", "rated", "tv", "show"]
        );
    }

    #[test]
    fn stems_plurals_lightly() {
        for (word, stemmed) in [
            ("movies", "movy"),
            ("movie", "movy"),
            ("companies", "company"),
            ("matches", "match"),
            ("address", "address"),
            ("status", "status"),
            ("analysis", "analysis"),
            ("tv", "tv"),
        ] {
            assert_eq!(stem(word), stemmed);
        }
    }
}
