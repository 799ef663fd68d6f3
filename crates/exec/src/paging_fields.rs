//! The names of the fields that page a list (a page's offset, size, totals, number, links and
//! cursors): one vocabulary for the simulator, which sets them by their exact names and
//! category (`simulate::paging`), and for compaction, which keeps them whole whatever their
//! spelling ([`is_paging_name`]).

/// Fields of a page that hold the index of its first item.
pub(crate) const OFFSET_FIELDS: &[&str] = &["offset", "start", "skip"];
/// Fields of a page that hold its size.
pub(crate) const SIZE_FIELDS: &[&str] = &["limit", "per_page", "page_size", "pageSize", "perPage"];
/// Fields of a page that count every result.
pub(crate) const TOTAL_FIELDS: &[&str] = &["total", "total_results", "total_count", "totalCount"];
/// Fields of a page that number it.
pub(crate) const PAGE_FIELDS: &[&str] = &["page", "page_number", "pageNumber"];
/// Fields of a page that link pages.
pub(crate) const LINK_FIELDS: &[&str] = &["href", "next", "previous"];
/// Fields of a page that hold a cursor (an object of them, or one).
pub(crate) const CURSOR_FIELDS: &[&str] = &["cursors", "after", "before", "cursor", "next_cursor"];

/// Field names of the categories above that say nothing of paging outside a page, normalised
/// (see [`normalised`]): an event's `start`, a `skip` flag, any object's own `href`.
const NOT_PAGING_ALONE: &[&str] = &["start", "skip", "href"];

/// Further names, normalised, that page a list but that the simulator never sets: other
/// spellings of links (`prev`, `next_page_url`), page tokens, counts of pages or items, and
/// whether there is more (`has_more`).
const OTHER_PAGING_NAMES: &[&str] = &[
    "prev",
    "nextpage",
    "nextpageurl",
    "nextlink",
    "nextpagetoken",
    "pagetoken",
    "continuationtoken",
    "pages",
    "totalpages",
    "totalitems",
    "count",
    "prevcursor",
    "previouscursor",
    "hasmore",
];

/// Every category of paging field, as the simulator names them.
const CATEGORIES: &[&[&str]] = &[
    OFFSET_FIELDS,
    SIZE_FIELDS,
    TOTAL_FIELDS,
    PAGE_FIELDS,
    LINK_FIELDS,
    CURSOR_FIELDS,
];

/// A field name lowercased without `_` and `-` (`next_page_token` and `nextPageToken` as
/// `nextpagetoken`).
fn normalised(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether a field named `name`, in any spelling (see [`normalised`]), pages a list on its
/// own: a name of a category but those that need a page around them (see
/// [`NOT_PAGING_ALONE`]), or one of [`OTHER_PAGING_NAMES`].
pub(crate) fn is_paging_name(name: &str) -> bool {
    let key = normalised(name);
    if NOT_PAGING_ALONE.contains(&key.as_str()) {
        return false;
    }
    OTHER_PAGING_NAMES.contains(&key.as_str())
        || CATEGORIES
            .iter()
            .flat_map(|names| names.iter())
            .any(|known| normalised(known) == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name compaction knew as paging before the vocabulary was shared (lowercased,
    /// without `_` and `-`), as it listed them.
    const COMPACTION_BEFORE: &str = "next previous prev nextpage nextpageurl nextlink \
        nextpagetoken pagetoken continuationtoken page pagenumber pages total totalresults \
        totalpages totalcount totalitems count offset limit perpage pagesize cursor cursors \
        nextcursor prevcursor previouscursor after before hasmore";

    fn compaction_before() -> Vec<&'static str> {
        COMPACTION_BEFORE.split_whitespace().collect()
    }

    #[test]
    fn compaction_knows_the_names_it_knew_and_no_others() {
        let before = compaction_before();
        assert_eq!(before.len(), 30);
        for name in &before {
            assert!(is_paging_name(name), "{name}");
        }
        for name in [
            "next_page_token",
            "nextPageToken",
            "Total-Results",
            "has_more",
        ] {
            assert!(is_paging_name(name), "{name}");
        }
        // Every name of the simulator's categories normalises to one compaction knew, but
        // those that page only inside a page.
        for name in CATEGORIES.iter().flat_map(|names| names.iter()) {
            let known = before.contains(&normalised(name).as_str());
            assert_eq!(is_paging_name(name), known, "{name}");
        }
        for name in OTHER_PAGING_NAMES {
            assert!(before.contains(name), "{name}");
        }
        for name in ["start", "skip", "href", "items", "name", "id"] {
            assert!(!is_paging_name(name), "{name}");
        }
    }

    #[test]
    fn the_simulators_categories_hold_the_names_they_held() {
        assert_eq!(OFFSET_FIELDS, ["offset", "start", "skip"]);
        assert_eq!(
            SIZE_FIELDS,
            ["limit", "per_page", "page_size", "pageSize", "perPage"]
        );
        assert_eq!(
            TOTAL_FIELDS,
            ["total", "total_results", "total_count", "totalCount"]
        );
        assert_eq!(PAGE_FIELDS, ["page", "page_number", "pageNumber"]);
        assert_eq!(LINK_FIELDS, ["href", "next", "previous"]);
        assert_eq!(
            CURSOR_FIELDS,
            ["cursors", "after", "before", "cursor", "next_cursor"]
        );
    }
}
