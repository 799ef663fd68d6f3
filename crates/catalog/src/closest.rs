//! The ids nearest a mistyped one, by edit distance: what an error about an unknown id
//! suggests (`tmdb/get_search_movi` -> `tmdb/get_search_movie`).

use crate::export::function_name;
use crate::id::ApiId;

/// Ids longer than this are not compared (the cost grows with the square of the length).
const MAX_COMPARED_CHARS: usize = 200;

/// Up to `n` of `ids` closest to `raw` by Levenshtein distance, nearest first (ties in id
/// order). `raw` is compared, case-insensitively, with each id (`tool/api`), its callable name
/// (`api_for_tool`) and, when `raw` has no `/`, the API's name alone; the smallest distance
/// counts. Only ids within a third of `raw`'s length (at least 2 edits) are kept, so a wild
/// guess suggests nothing rather than noise: callers may fill up with search results.
pub fn closest_ids<'a>(
    raw: &str,
    ids: impl IntoIterator<Item = &'a ApiId>,
    n: usize,
) -> Vec<ApiId> {
    let raw = raw.trim().to_lowercase();
    let len = raw.chars().count();
    if n == 0 || len == 0 || len > MAX_COMPARED_CHARS {
        return Vec::new();
    }
    let within = (len / 3).max(2);
    let bare = !raw.contains('/');
    let mut ranked: Vec<(usize, &ApiId)> = ids
        .into_iter()
        .filter_map(|id| {
            let mut best = strsim::levenshtein(&raw, &id.to_string())
                .min(strsim::levenshtein(&raw, &function_name(id)));
            if bare {
                best = best.min(strsim::levenshtein(&raw, id.api().as_str()));
            }
            (best <= within).then_some((best, id))
        })
        .collect();
    ranked.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
    ranked
        .into_iter()
        .take(n)
        .map(|(_, id)| id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn ids(raw: &[&str]) -> Vec<ApiId> {
        raw.iter().map(|r| r.parse().unwrap()).collect()
    }

    #[test]
    fn a_one_letter_typo_puts_the_intended_id_first() {
        let all = ids(&[
            "tmdb/get_search_company",
            "tmdb/get_search_collection",
            "tmdb/get_search_person",
            "tmdb/get_search_movie",
            "tmdb/get_movie_movie_id",
        ]);
        let found = closest_ids("tmdb/get_search_movi", &all, 3);
        assert_eq!(found[0].to_string(), "tmdb/get_search_movie");
        // The API name alone, and the callable name, find it too.
        assert_eq!(closest_ids("get_search_movi", &all, 1)[0], found[0]);
        assert_eq!(
            closest_ids("get_search_movie_for_tmbd", &all, 1)[0],
            found[0]
        );
        assert_eq!(closest_ids("TMDB/GET_SEARCH_MOVIE", &all, 1)[0], found[0]);
    }

    #[test]
    fn a_wild_guess_suggests_nothing() {
        let all = ids(&["tmdb/get_search_movie", "spotify/get_track"]);
        assert!(closest_ids("weather forecast for paris", &all, 3).is_empty());
        assert!(closest_ids("", &all, 3).is_empty());
        assert!(closest_ids("tmdb/get_search_movie", &all, 0).is_empty());
    }
}
