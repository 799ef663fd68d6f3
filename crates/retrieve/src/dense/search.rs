//! The dense index's search: the `k` APIs most similar to a query vector, each API scored by
//! its doc's and its views' rows ([`ViewScore`]).

use std::collections::HashSet;

use super::index::DenseIndex;
use crate::corpus::{Allowed, Field};
use crate::error::{Error, Result};
use crate::explain::{DenseExplanation, DenseView, MatchedView};
use crate::hnsw::HnswGraph;
use crate::kernel::{dot_f32, normalize, score_rows_into, top_scores, with_scores};
use crate::retriever::{Filter, top_k};
use crate::view_score::ViewScore;

impl DenseIndex {
    /// The `k` documents most similar to a query vector as `(document, score)`, best first:
    /// the cosine with the doc's vector, aggregated with its views' as
    /// [`DenseSettings::views`](crate::DenseSettings::views) says.
    pub fn scores(&self, query: &[f32], k: usize, filter: &Filter) -> Result<Vec<(u32, f32)>> {
        if query.len() != self.dims {
            return Err(Error::VectorShape {
                dims: self.dims,
                rows: 1,
                got: query.len(),
            });
        }
        let allowed = self.corpus.allowed(filter);
        if allowed == Allowed::Nothing {
            return Ok(Vec::new());
        }
        let mut q = query.to_vec();
        normalize(&mut q);
        if let Some(graph) = self.graph()? {
            return Ok(if self.rows.has_views() {
                self.approximate_views(graph, &q, k, allowed)
            } else {
                self.approximate(graph, &q, k, allowed)
            });
        }
        let docs = self.corpus.len();
        let keep = |i: usize| allowed == Allowed::All || self.corpus.passes(i, allowed);
        // With `doc_only` the views' rows are not scanned at all.
        let scanned = match self.settings.views {
            ViewScore::DocOnly => docs,
            _ => self.rows.rows(),
        };
        let how = self.settings.views;
        Ok(with_scores(scanned, |scores| match self.int8_codes() {
            Some(int8) => {
                int8.score_into(&q, scores);
                self.rows.aggregate(how, scores);
                let depth = k.saturating_mul(self.settings.rescore.max(1));
                let docs = scores.get(..docs).unwrap_or_default();
                let candidates = top_scores(docs, depth, keep);
                self.rescored(candidates.into_iter().map(|(i, _)| i).collect(), &q, k)
            }
            None => {
                score_rows_into(&self.vectors, self.dims, &q, scores);
                self.rows.aggregate(how, scores);
                top_scores(scores.get(..docs).unwrap_or_default(), k, keep)
            }
        }))
    }

    /// Document `doc`'s exact score for the unit vector `q`: its row's f32 cosine aggregated
    /// with its views' rows.
    fn exact_score(&self, doc: usize, q: &[f32]) -> Option<f32> {
        let own = dot_f32(self.row(doc)?, q);
        let views = self
            .rows
            .views(doc)
            .filter_map(|r| self.row(r).map(|v| dot_f32(v, q)));
        Some(self.settings.views.combine(own, views))
    }

    /// The HNSW search of an index without views: a graph walk with `ef_search` candidates;
    /// with a filter, the kept documents scanned exactly when they are few, else a walk with
    /// `ef` widened by the share the filter drops and the results post-filtered, falling back
    /// to the exact scan of the kept documents when fewer than `k` pass.
    fn approximate(
        &self,
        graph: &HnswGraph,
        q: &[f32],
        k: usize,
        allowed: Allowed,
    ) -> Vec<(u32, f32)> {
        let hnsw = &self.settings.hnsw;
        let ef = hnsw.ef_search.max(k);
        if allowed == Allowed::All {
            return graph.search(q, k, ef, &|_| true);
        }
        let kept = self.kept(allowed);
        if kept.len() > hnsw.exact_filtered_max {
            let rows = self.corpus.len();
            let widened = ef.saturating_mul(rows.div_ceil(kept.len().max(1)));
            let ef = widened.min(hnsw.filtered_ef_max.max(ef));
            let found = graph.search(q, k, ef, &|i| self.corpus.passes(i, allowed));
            if found.len() >= k.min(kept.len()) {
                return found;
            }
        }
        self.rescored(kept, q, k)
    }

    /// The HNSW search of an index with views: the walk returns rows, so it keeps `ef` rows
    /// and doubles `ef` until they name `k` distinct documents (or the cap: every row, or
    /// with a filter `filtered_ef_max`), and the documents found are rescored exactly over
    /// all their rows. A filter keeping few documents scans them exactly, as without views.
    fn approximate_views(
        &self,
        graph: &HnswGraph,
        q: &[f32],
        k: usize,
        allowed: Allowed,
    ) -> Vec<(u32, f32)> {
        let hnsw = &self.settings.hnsw;
        let mut ef = hnsw.ef_search.max(k);
        let kept = (allowed != Allowed::All).then(|| self.kept(allowed));
        let (want, cap) = match &kept {
            Some(kept) if kept.len() <= hnsw.exact_filtered_max => {
                return self.rescored(kept.clone(), q, k);
            }
            Some(kept) => {
                ef = ef.saturating_mul(self.corpus.len().div_ceil(kept.len().max(1)));
                ef = ef.min(hnsw.filtered_ef_max.max(hnsw.ef_search.max(k)));
                (k.min(kept.len()), hnsw.filtered_ef_max.max(ef))
            }
            None => (k.min(self.corpus.len()), self.rows.rows().max(ef)),
        };
        let doc_only = self.settings.views == ViewScore::DocOnly;
        let keep_row = |r: usize| {
            self.rows.doc(r).is_some_and(|d| {
                (!doc_only || r == d) && (allowed == Allowed::All || self.corpus.passes(d, allowed))
            })
        };
        loop {
            let found = self.found_docs(graph.search(q, ef, ef, &keep_row));
            if found.len() >= want || ef >= cap {
                if found.len() < want
                    && let Some(kept) = &kept
                {
                    return self.rescored(kept.clone(), q, k);
                }
                return self.rescored(found, q, k);
            }
            ef = ef.saturating_mul(2).min(cap);
        }
    }

    /// The distinct documents of rows a walk found, in the order found.
    fn found_docs(&self, rows: Vec<(u32, f32)>) -> Vec<u32> {
        let mut seen = HashSet::new();
        rows.into_iter()
            .filter_map(|(r, _)| u32::try_from(self.rows.doc(r as usize)?).ok())
            .filter(|d| seen.insert(*d))
            .collect()
    }

    /// The documents a resolved filter keeps.
    fn kept(&self, allowed: Allowed) -> Vec<u32> {
        (0..self.corpus.len())
            .filter(|&i| self.corpus.passes(i, allowed))
            .filter_map(|i| u32::try_from(i).ok())
            .collect()
    }

    /// The best `k` of `candidates` by their exact f32 score with the unit vector `q` (the
    /// int8 scan's rescoring, and HNSW's over views).
    fn rescored(&self, candidates: Vec<u32>, q: &[f32], k: usize) -> Vec<(u32, f32)> {
        let scored = candidates
            .into_iter()
            .filter_map(|i| Some((i, self.exact_score(i as usize, q)?)))
            .collect();
        top_k(scored, k)
    }

    /// Why document `doc` scores what it does for the query vector `query`: the cosine of
    /// the two (the exact f32 one, as an int8 scan rescores its candidates), which of the
    /// document's text its vector was embedded from, and with views the best view and the
    /// aggregate.
    pub fn explain_doc(&self, query: &[f32], doc: u32) -> Option<DenseExplanation> {
        if query.len() != self.dims {
            return None;
        }
        let mut q = query.to_vec();
        normalize(&mut q);
        let i = doc as usize;
        let d = self.corpus.doc(i)?;
        let fields = Field::ALL
            .into_iter()
            .filter(|&f| {
                f.in_doc_text()
                    && self.settings.fields.get(f) > 0.0
                    && !d.field(f).trim().is_empty()
            })
            .collect();
        let passages = self
            .texts
            .get(i)
            .map_or(1, |t| self.settings.passages(t).len().max(1));
        let doc_similarity = dot_f32(self.row(i)?, &q);
        let views = match self.settings.views {
            ViewScore::DocOnly => Vec::new(),
            _ => self.rows.views(i).collect(),
        };
        let best_view = views
            .iter()
            .filter_map(|&r| Some((r, dot_f32(self.row(r)?, &q))))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(r, similarity)| MatchedView {
                text: self.texts.get(r).cloned().unwrap_or_default(),
                similarity,
            });
        Some(DenseExplanation {
            similarity: self.exact_score(i, &q)?,
            model: self.model.clone(),
            view: DenseView { fields, passages },
            doc_similarity,
            views: views.len(),
            aggregation: self.settings.views,
            best_view,
        })
    }
}
