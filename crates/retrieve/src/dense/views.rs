//! Several vectors per API (Re-Invoke's multi-view index): the rows `0..docs` of a dense index
//! are the docs' own vectors, the rows after them the views (a doc's synthetic user requests,
//! one vector each), grouped by doc in doc order. An API's score aggregates the cosines of its
//! rows as [`ViewScore`] says; an API without views scores its doc's cosine, as before.

use std::ops::Range;

use crate::view_score::ViewScore;

/// Which doc each row of a dense index belongs to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct RowMap {
    docs: usize,
    /// Where each doc's views start among the view rows (`docs + 1` offsets); empty when no
    /// doc has views.
    starts: Vec<usize>,
    /// The doc of each view row.
    owner: Vec<u32>,
}

impl RowMap {
    /// `docs` rows, one a doc, no views.
    pub(super) fn docs_only(docs: usize) -> Self {
        Self {
            docs,
            starts: Vec::new(),
            owner: Vec::new(),
        }
    }

    /// Rows for docs with `counts[d]` views each.
    pub(super) fn with_views(counts: &[usize]) -> Self {
        if counts.iter().all(|&c| c == 0) {
            return Self::docs_only(counts.len());
        }
        let mut starts = Vec::with_capacity(counts.len() + 1);
        let mut owner = Vec::new();
        starts.push(0);
        for (d, &c) in counts.iter().enumerate() {
            let d = u32::try_from(d).unwrap_or(u32::MAX);
            owner.extend(std::iter::repeat_n(d, c));
            starts.push(owner.len());
        }
        Self {
            docs: counts.len(),
            starts,
            owner,
        }
    }

    /// Every row: the docs' and the views'.
    pub(super) fn rows(&self) -> usize {
        self.docs + self.owner.len()
    }

    /// View rows.
    pub(super) fn view_rows(&self) -> usize {
        self.owner.len()
    }

    /// Whether any doc has views.
    pub(super) fn has_views(&self) -> bool {
        !self.owner.is_empty()
    }

    /// The doc row `row` belongs to.
    pub(super) fn doc(&self, row: usize) -> Option<usize> {
        if row < self.docs {
            return Some(row);
        }
        self.owner.get(row - self.docs).map(|&d| d as usize)
    }

    /// The rows of `doc`'s views (empty when it has none).
    pub(super) fn views(&self, doc: usize) -> Range<usize> {
        match (self.starts.get(doc), self.starts.get(doc + 1)) {
            (Some(&a), Some(&b)) => self.docs + a..self.docs + b,
            _ => 0..0,
        }
    }

    /// Turns row scores into API scores in place: `scores[d]` (d < docs) becomes doc `d`'s
    /// aggregate over its row and its views' rows (`scores` holds every row).
    pub(super) fn aggregate(&self, how: ViewScore, scores: &mut [f32]) {
        if how == ViewScore::DocOnly || !self.has_views() || scores.len() < self.rows() {
            return;
        }
        let (docs, views) = scores.split_at_mut(self.docs);
        for (d, score) in docs.iter_mut().enumerate() {
            let range = self.views(d);
            let range = range.start - self.docs..range.end - self.docs;
            if let Some(own) = views.get(range).filter(|v| !v.is_empty()) {
                *score = how.combine(*score, own.iter().copied());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_map_to_their_docs_and_scores_aggregate_per_doc() {
        // Doc 0: two views; doc 1: none; doc 2: one.
        let map = RowMap::with_views(&[2, 0, 1]);
        assert_eq!(map.rows(), 6);
        let owners: Vec<Option<usize>> = (0..7).map(|r| map.doc(r)).collect();
        assert_eq!(
            owners,
            [Some(0), Some(1), Some(2), Some(0), Some(0), Some(2), None]
        );
        assert_eq!(map.views(0), 3..5);
        assert!(map.views(1).is_empty());
        assert_eq!(map.views(2), 5..6);
        let rows = [0.1, 0.5, 0.3, 0.9, 0.4, 0.2];
        let aggregated = |how| {
            let mut s = rows;
            map.aggregate(how, &mut s);
            s[..3].to_vec()
        };
        assert_eq!(aggregated(ViewScore::Max), [0.9, 0.5, 0.3]);
        assert_eq!(aggregated(ViewScore::DocOnly), [0.1, 0.5, 0.3]);
        let mean = aggregated(ViewScore::MeanTop2);
        assert!((mean[0] - 0.65).abs() < 1e-6 && mean[1] == 0.5, "{mean:?}");
        assert!((mean[2] - 0.25).abs() < 1e-6, "{mean:?}");
        assert_eq!(RowMap::with_views(&[0, 0]), RowMap::docs_only(2));
    }
}
