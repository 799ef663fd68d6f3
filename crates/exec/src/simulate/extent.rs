//! How many results a paged list counts, by what it lists: one rule for the skeleton's
//! draw (the draft a filling model is shown) and for the settling of the final response
//! (`paging`), so that the two never disagree. Who decides the number differs: the draft's
//! draw, where the list is the whole catalog or the session knows the count; the filling
//! model, where only the world knows how many things meet the call ([`Extent::decided`]).
//!
//! - A search for one name ([`Extent::Named`]) is a short last page: the few things
//!   that carry the name, however large a page the API serves. A call searches when it
//!   gives the text of a query-like argument (`query`, `q`, `search`, `keyword`, ...), or
//!   of a lookup input (below) of an API under a `/search` path; the text names one thing
//!   when it reads as a name: a quoted phrase, several words, or a word with a capital
//!   ("The Dark Knight", "Christopher Nolan", "Titanic"), where one lowercase word
//!   ("comedy") is a broad query. Only the first page of a call that asks for no count is
//!   so: a later page, or a count asked (`limit=10`, already a most), presumes a longer
//!   list. Stand-ins were drafted ten films and thirty results for "The Dark Knight".
//!   The model decides how many match, up to a page; the page is the last.
//! - A lookup's list (a call giving the free text of an input the API requires, as a
//!   search by name does: [`toolsmith_catalog::Api::lookup_inputs`]) counts at most
//!   [`LOOKUP_PAGES`] pages' worth, or up to the end of its own page when it asks for a
//!   later one: a search for one exact name finds a few things, not thousands.
//! - A collection with one owner counts tens ([`OWNED_MOST`]): the current user's own
//!   things (a path under `/me`: saved albums, followed artists; see `me`) and the
//!   sub-collection of one entity (`/playlists/{playlist_id}/tracks`, `/movie/{id}/reviews`:
//!   a path ending in a noun after an id parameter). How many it holds is the model's to
//!   decide within that (a miniseries of 2024 has a few reviews, not 46). Stand-ins were
//!   drafted 3,184 saved albums and 9,919 followed artists.
//! - Where the session already showed how many things an entity holds (a playlist's
//!   `tracks.total`, an album's `total_tracks`), its sub-collection of that name counts
//!   exactly that ([`Counts`]): a playlist shown with 34 tracks was once listed with 8,485.
//!   A write to the sub-collection (tracks added or removed) forgets the count.
//! - A listing the call narrows ([`Extent::Narrowed`]: an argument that filters what it
//!   lists, as `with_crew`, `year` or `vote_average.gte` of a discover, given and not its
//!   default) counts what the world has that meets the filters: one director's films of a
//!   year are one or two, the films since 2021 rated over 7 hundreds. The filling model
//!   decides the number, from none to [`NARROWED_MOST`]; the draft's full page and its total
//!   are only a guess in that range. Stand-ins were drafted 8 to 13 films for such calls and
//!   told to keep them.
//! - Any other list (what is popular, top rated, trending, a discover with no narrowing
//!   argument) is the catalog's: the draft counts thousands of results in hundreds of pages
//!   ([`OPEN_LEAST`] and more), and the model keeps them (stand-ins were once drafted 44
//!   popular people in all).
//!
//! Whatever the model writes, the settled numbers agree with each other and with the page
//! (`paging`): a page holds at most its size; a short page is the last, its total what it
//! shows; a full one counts at least what it shows, within the extent's most; the pages
//! are the total over the page size, rounded up.

use std::collections::HashMap;

use serde_json::{Map, Value};
use toolsmith_catalog::{ParamLocation, id_entity};

use super::me::{self, Mine};
use super::rng::Rng;
use super::state::{canonical_id, each_entity};
use crate::executor::BookEntry;
use crate::paging_fields::TOTAL_FIELDS;

/// Most pages' worth of results a lookup's full page counts.
const LOOKUP_PAGES: u64 = 3;
/// Most results the draft of a search for one name shows (it draws one to this many).
const NAMED_FEW: u64 = 3;
/// Names of arguments (lowercase, without `_` or `-`) that carry a search's text.
const SEARCH_ARGS: &[&str] = &[
    "q",
    "query",
    "search",
    "searchquery",
    "searchterm",
    "searchtext",
    "term",
    "keyword",
    "keywords",
];
/// Most results a collection with one owner counts (unless its own page lies further).
const OWNED_MOST: u64 = 50;
/// Most results a listing its call narrows counts: TMDB's discover serves 500 pages of 20.
const NARROWED_MOST: u64 = 10_000;
/// Fewest results the draft of a catalog-wide list counts: thousands, hundreds of pages.
pub(crate) const OPEN_LEAST: u64 = 1_000;
/// Most results the draft of a catalog-wide list counts.
pub(crate) const OPEN_MOST: u64 = 10_000;
/// Most sub-collection counts a session remembers.
const MAX_COUNTS: usize = 10_000;
/// How deep in a response counts are looked for.
const MAX_DEPTH: usize = 6;

/// What a paged list answering a call is, for how many results it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extent {
    /// A catalog-wide list: any total.
    Open,
    /// A search for one name, on its first page: the few things that carry it.
    Named,
    /// A lookup's results: a few pages.
    Lookup,
    /// A collection with one owner: tens.
    Owned,
    /// A listing the call's arguments narrow: as many as meet them, the model's to decide.
    Narrowed,
    /// A collection whose size the session already showed: exactly that many.
    Known(u64),
}

impl Extent {
    /// The extent of the list a call of `entry` with `args` pages through, before the
    /// session's counts are known (see [`Extent::knowing`]); `first_page` says whether
    /// the call asks for the API's own first page (no later page, no count of items);
    /// `narrowed` whether an argument of the call filters what it lists.
    pub(crate) fn of(
        entry: &BookEntry,
        args: &Map<String, Value>,
        first_page: bool,
        narrowed: bool,
    ) -> Self {
        if first_page && search_text(entry, args).is_some_and(reads_as_name) {
            return Self::Named;
        }
        let lookup = entry.api.api.lookup_inputs().iter().any(|name| {
            args.get(*name)
                .and_then(Value::as_str)
                .is_some_and(|text| !text.trim().is_empty())
        });
        if lookup {
            Self::Lookup
        } else if me::mine(entry) == Some(Mine::Things) || owner_of(entry, args).is_some() {
            Self::Owned
        } else if narrowed {
            Self::Narrowed
        } else {
            Self::Open
        }
    }

    /// This extent, or the count the session showed for the collection (`known`).
    pub(crate) fn knowing(self, known: Option<u64>) -> Self {
        known.map_or(self, Self::Known)
    }

    /// Whether the skeleton draws the list's total small (tens), never thousands.
    pub(crate) fn small(self) -> bool {
        matches!(self, Self::Owned | Self::Known(_))
    }

    /// The exact count, when the session showed it.
    pub(crate) fn known(self) -> Option<u64> {
        match self {
            Self::Known(n) => Some(n),
            _ => None,
        }
    }

    /// The most results the list may count, for a page starting at `start` of `size`
    /// items: `None` for an open list.
    pub(crate) fn most(self, start: u64, size: u64) -> Option<u64> {
        let own_page_end = start.saturating_add(size);
        match self {
            Self::Open => None,
            Self::Named | Self::Lookup => Some(LOOKUP_PAGES.saturating_mul(size).max(own_page_end)),
            Self::Owned => Some(OWNED_MOST.max(own_page_end)),
            Self::Narrowed => Some(NARROWED_MOST.max(own_page_end)),
            Self::Known(n) => Some(n),
        }
    }

    /// Where the filling model decides how many results the list counts, beyond its one
    /// page (a listing the call narrows, a collection with one owner the session has not
    /// counted): the most it may count, for a page starting at `start` of `size` items.
    /// The prompt then states the page's size as a most and the range of the total, not
    /// the draft's total; the totals follow what the model writes.
    pub(crate) fn decided(self, start: u64, size: u64) -> Option<u64> {
        match self {
            Self::Narrowed | Self::Owned => self.most(start, size),
            _ => None,
        }
    }
    /// Whether the number of results is the filling model's to decide (a search for one
    /// name): the prompt then states no page size, only a most.
    pub(crate) fn counted_by_model(self) -> bool {
        self == Self::Named
    }

    /// The total a draft's list counts: for a search for one name, one to [`NAMED_FEW`]
    /// drawn by `rng`; else `None` (the list's own draw).
    pub(crate) fn drafted_few(self, rng: &mut Rng) -> Option<u64> {
        (self == Self::Named).then(|| rng.below(NAMED_FEW) + 1)
    }

    /// The total of a page showing `shown` items from `start` in pages of `size`, whose
    /// drawn or written total is `now`: exactly the known count where there is one (never
    /// below what is shown); `start + shown` when the page is short (the list ends on it);
    /// else `now` within at least `start + shown` and the extent's most.
    pub(crate) fn total(self, now: u64, start: u64, size: u64, shown: u64) -> u64 {
        let least = start.saturating_add(shown);
        match self {
            Self::Known(n) => n.max(least),
            _ if shown < size => least,
            _ => now.clamp(least, self.most(start, size).unwrap_or(u64::MAX).max(least)),
        }
    }
}

/// The text a call searches for: the argument of a query-like parameter, else, under a
/// `/search` path, of a lookup input; `None` when blank or not text.
fn search_text<'a>(entry: &BookEntry, args: &'a Map<String, Value>) -> Option<&'a str> {
    let api = &entry.api.api;
    let query_like = |name: &str| {
        let plain: String = name
            .chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .collect::<String>()
            .to_ascii_lowercase();
        SEARCH_ARGS.contains(&plain.as_str())
    };
    let under_search = api.endpoint.path().is_some_and(|path| {
        path.split('/')
            .any(|segment| segment.eq_ignore_ascii_case("search"))
    });
    let lookup = api.lookup_inputs();
    api.params
        .iter()
        .map(|p| p.name.as_str())
        .filter(|name| query_like(name) || (under_search && lookup.contains(name)))
        .find_map(|name| args.get(name)?.as_str())
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

/// Whether a search's text names one thing rather than a kind of things: a quoted phrase,
/// several words, or a word that starts with a capital ("Titanic"); one lowercase word
/// ("comedy", "jazz") is a broad query.
fn reads_as_name(text: &str) -> bool {
    let quoted = ['"', '\'', '\u{201c}']
        .iter()
        .any(|q| text.starts_with(*q) && text.len() > 2);
    let several = text.split_whitespace().nth(1).is_some();
    let capital = text.chars().next().is_some_and(char::is_uppercase);
    quoted || several || capital
}

/// The entity that owns the sub-collection a call lists, and the sub-collection's name:
/// (`p1`, `tracks`) for `/playlists/{playlist_id}/tracks` called with `playlist_id=p1`.
/// `None` unless the path ends in a noun right after an id parameter the call gives.
fn owner_of(entry: &BookEntry, args: &Map<String, Value>) -> Option<(String, String)> {
    let api = &entry.api.api;
    let path = api.endpoint.path()?.trim_end_matches('/');
    let (parent, key) = path.rsplit_once('/')?;
    let param = parent
        .rsplit('/')
        .next()?
        .strip_prefix('{')?
        .strip_suffix('}')?;
    let names_id = param.eq_ignore_ascii_case("id") || id_entity(param).is_some();
    let in_path = api
        .params
        .iter()
        .any(|p| p.name == param && p.location == ParamLocation::Path);
    let noun = !key.is_empty() && !key.starts_with('{');
    if !(names_id && in_path && noun) {
        return None;
    }
    let owner = args.get(param).filter(|v| !v.is_null())?;
    Some((canonical_id(owner), key.to_owned()))
}

/// How many things the entities a session showed hold, by entity id and sub-collection
/// name: a playlist's `tracks.total`, an album's `total_tracks`, the total of the page a
/// call of the sub-collection itself answered.
#[derive(Debug, Default)]
pub(crate) struct Counts(HashMap<(String, String), u64>);

impl Counts {
    /// The count the session showed for the sub-collection a call lists, if any.
    pub(crate) fn of(&self, entry: &BookEntry, args: &Map<String, Value>) -> Option<u64> {
        self.0.get(&owner_of(entry, args)?).copied()
    }

    /// Keeps the counts `body` shows: of the sub-collection the call lists (its own page's
    /// total), and of every entity in it with an id (`tracks: {"total": 34}`,
    /// `"total_tracks": 12`). The latest showing wins.
    pub(crate) fn observe(&mut self, entry: &BookEntry, args: &Map<String, Value>, body: &Value) {
        if let (Some(owner), Value::Object(page)) = (owner_of(entry, args), body)
            && let Some(total) = total_of(page)
        {
            self.keep(owner, total);
        }
        self.walk(body);
    }

    /// Forgets the count of the sub-collection a write changes (tracks added or removed).
    pub(crate) fn forget(&mut self, entry: &BookEntry, args: &Map<String, Value>) {
        if let Some(owner) = owner_of(entry, args) {
            self.0.remove(&owner);
        }
    }

    fn keep(&mut self, key: (String, String), total: u64) {
        if self.0.len() < MAX_COUNTS || self.0.contains_key(&key) {
            self.0.insert(key, total);
        }
    }

    /// Keeps the counts every entity of `value` shows (`tracks: {"total": 34}`,
    /// `"total_tracks": 12`).
    fn walk(&mut self, value: &Value) {
        each_entity(value, MAX_DEPTH, &mut |id, map| {
            for (key, field) in map {
                let count = match field {
                    Value::Object(inner) => total_of(inner).map(|n| (key.as_str(), n)),
                    Value::Number(n) => key
                        .strip_prefix("total_")
                        .filter(|k| !k.is_empty())
                        .zip(n.as_u64()),
                    _ => None,
                };
                if let Some((name, n)) = count {
                    self.keep((id.clone(), name.to_owned()), n);
                }
            }
        });
    }
}

/// The total an object of a count or a page states.
fn total_of(map: &Map<String, Value>) -> Option<u64> {
    TOTAL_FIELDS
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_count_is_exact_and_an_owned_list_counts_tens() {
        // A full page of 20 from the start.
        assert_eq!(Extent::Known(34).total(9000, 0, 20, 20), 34);
        assert_eq!(Extent::Known(34).total(9000, 20, 20, 14), 34);
        assert_eq!(Extent::Owned.total(9000, 0, 20, 20), 50);
        assert_eq!(Extent::Owned.total(30, 0, 20, 20), 30);
        assert_eq!(Extent::Owned.total(9000, 100, 20, 20), 120);
        assert_eq!(Extent::Lookup.total(9000, 0, 10, 10), 30);
        assert_eq!(Extent::Open.total(9000, 0, 10, 10), 9000);
        // A short page ends the list.
        assert_eq!(Extent::Open.total(9000, 0, 10, 4), 4);
        assert!(Extent::Owned.small() && !Extent::Lookup.small());
        // A search for one name: a short page is the last, a full one counts a few pages.
        assert_eq!(Extent::Named.total(30, 0, 10, 2), 2);
        assert_eq!(Extent::Named.total(9000, 0, 10, 10), 30);
    }

    #[test]
    fn a_narrowed_listing_counts_what_the_model_decides_within_its_most() {
        // The model's forty on a full page stay; its count below the page is raised.
        assert_eq!(Extent::Narrowed.total(40, 0, 10, 10), 40);
        assert_eq!(Extent::Narrowed.total(4, 0, 10, 10), 10);
        assert_eq!(Extent::Narrowed.total(13, 0, 10, 6), 6);
        assert_eq!(Extent::Narrowed.total(u64::MAX, 0, 10, 10), NARROWED_MOST);
        assert_eq!(Extent::Narrowed.decided(0, 10), Some(NARROWED_MOST));
        assert_eq!(Extent::Owned.decided(0, 10), Some(OWNED_MOST));
        for told in [
            Extent::Open,
            Extent::Named,
            Extent::Lookup,
            Extent::Known(34),
        ] {
            assert_eq!(told.decided(0, 10), None, "{told:?}");
        }
        assert!(!Extent::Narrowed.small() && !Extent::Narrowed.counted_by_model());
    }

    #[test]
    fn a_name_reads_as_one_and_a_kind_of_thing_does_not() {
        for name in [
            "The Dark Knight",
            "Titanic",
            "\"heat\"",
            "christopher nolan",
            "Wong Kar-wai",
        ] {
            assert!(reads_as_name(name), "{name}");
        }
        for broad in ["comedy", "jazz", "\"", "1917"] {
            assert!(!reads_as_name(broad), "{broad}");
        }
    }

    #[test]
    fn a_drafted_name_search_shows_one_to_a_few() {
        for seed in 0..50 {
            let few = Extent::Named.drafted_few(&mut Rng::new(seed));
            assert!(few.is_some_and(|n| (1..=NAMED_FEW).contains(&n)), "{few:?}");
            assert_eq!(Extent::Lookup.drafted_few(&mut Rng::new(seed)), None);
        }
    }
}
