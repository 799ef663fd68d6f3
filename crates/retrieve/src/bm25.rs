//! BM25 over the corpus, with per-field weights (BM25F-style: a field's weight multiplies its
//! term frequencies and its share of the document length).
//!
//! Why not tantivy: the corpus is at most ~50k short documents that live in memory anyway.
//! A plain inverted index (term -> postings of `(doc, weighted tf)`) with a dense score
//! accumulator is ~200 lines. Measured with `toolsmith bench search-speed` (release build,
//! 2 cores): it indexes 10,000 APIs in 0.20 s and the whole 46,802-API ToolEnv2404 corpus
//! (51k terms, 15 MiB) in 0.93 s, and answers a query in 0.43 ms (p50; 1.0 ms p99). It avoids a dependency that costs minutes of build time and brings its own tokenizer,
//! schema and on-disk segments we would not use.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;

use crate::corpus::{Allowed, Corpus, Field, FieldWeights};
use crate::error::Result;
use crate::explain::{Bm25Explanation, Explanation, FieldShare, TermScore};
use crate::retriever::{Filter, Hit, Retriever, top_k};
use crate::tokenize::tokenize;

/// BM25's term-frequency saturation: Robertson's and Lucene's default.
pub(crate) const K1: f32 = 1.2;
/// BM25's length normalization: Robertson's and Lucene's default.
pub const B: f32 = 0.75;

/// How the BM25 index is built.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bm25Settings {
    /// Term-frequency saturation. By default [`K1`] (1.2).
    pub k1: f32,
    /// Length normalization. By default [`B`] (0.75).
    pub b: f32,
    /// Reduce plurals (`movies` -> `movie`) in docs and queries. By default on: measured on
    /// restbench-tmdb and toolbench-draft282 (see the crate docs).
    pub stem: bool,
    /// Field weights. By default [`Bm25Settings::DEFAULT_WEIGHTS`]; a table naming some
    /// fields changes only those.
    #[serde(deserialize_with = "default_weights_with")]
    pub weights: FieldWeights,
}

/// A `weights` table over [`Bm25Settings::DEFAULT_WEIGHTS`].
fn default_weights_with<'de, D: serde::Deserializer<'de>>(d: D) -> Result<FieldWeights, D::Error> {
    crate::corpus::weights_over(d, Bm25Settings::DEFAULT_WEIGHTS)
}

/// The weight of the response's field names ([`FieldWeights::returns`]): off by default.
/// At 0.5, offered-path coverage with producer expansion on restbench-tmdb gains 3 to 6 points
/// at 10 to 12 tools with the original docs, about 2 with EasyTool's refined docs and none
/// with DRAFT's, and 1.5 at 10 tools on toolbench-draft282, but loses 5 on held-out RestBench
/// Spotify (62.5 -> 57.1 at 10 tools), whose long shared response schemas (`href`,
/// `external_urls`) drown the telling names.
pub const RETURNS_WEIGHT: f32 = 0.0;

/// The weight of a doc's synthetic user requests ([`FieldWeights::queries`], Re-Invoke's
/// views): 1, as the usage examples, which are user requests too (their weight was measured,
/// see the crate docs). A doc without requests scores exactly as before: the field is empty.
pub const QUERIES_WEIGHT: f32 = 1.0;

/// The weight of the API's description as imported ([`FieldWeights::source`], present only
/// where the chosen doc rewrote it): off by default. A rewrite drops words that requests share
/// with the spec's own text; this field gives them back without taking the rewrite's away.
/// Measured (NDCG@10, hybrid, weight 0 -> 1 in BM25 and dense): Spotify with EasyTool docs
/// 71.2 -> 74.3 (original 73.8), TMDB with DRAFT's published docs 53.5 -> 55.7 and
/// EasyTool's 52.3 -> 53.9, draft282 with DRAFT's 59.4 -> 59.0. It was left off because it
/// also hid a poor rewrite from `docs gate`, which compares a candidate doc with the active
/// one by the ranks search gives them: with the source counted, a rewrite that lost the API's
/// words ranks as well as the original. The gate (and `bench agreement`) now rank without the
/// field whatever its weight.
pub const SOURCE_WEIGHT: f32 = 0.0;

impl Bm25Settings {
    /// The field weights chosen by measurement on restbench-tmdb and toolbench-draft282 (see
    /// the crate docs): names count double, parameters half, and the tool's description not
    /// at all: every API of the tool shares it, so it cannot tell them apart, and on ToolBench
    /// it is long enough to drown the API's own text (+3 to +10 NDCG@10 without it).
    pub const DEFAULT_WEIGHTS: FieldWeights = FieldWeights {
        tool_name: 2.0,
        api_name: 2.0,
        tool_description: 0.0,
        api_description: 1.0,
        params: 0.5,
        examples: 1.0,
        returns: RETURNS_WEIGHT,
        queries: QUERIES_WEIGHT,
        source: SOURCE_WEIGHT,
    };
}

impl Default for Bm25Settings {
    fn default() -> Self {
        Self {
            k1: K1,
            b: B,
            stem: true,
            weights: Self::DEFAULT_WEIGHTS,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Posting {
    doc: u32,
    tf: f32,
}

/// An in-memory BM25 index of a [`Corpus`].
#[derive(Clone, Debug)]
pub struct Bm25Index {
    corpus: Arc<Corpus>,
    settings: Bm25Settings,
    terms: HashMap<String, u32>,
    postings: Vec<Vec<Posting>>,
    idf: Vec<f32>,
    /// `k1 * (1 - b + b * len / avg_len)` of each document.
    norm: Vec<f32>,
}

impl Bm25Index {
    /// Indexes every document of `corpus`.
    pub fn build(corpus: Arc<Corpus>, settings: Bm25Settings) -> Self {
        let mut terms: HashMap<String, u32> = HashMap::new();
        let mut postings: Vec<Vec<Posting>> = Vec::new();
        let mut lengths: Vec<f32> = Vec::with_capacity(corpus.len());
        let mut tf: HashMap<u32, f32> = HashMap::new();
        for (doc, d) in corpus.docs().iter().enumerate() {
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            tf.clear();
            let mut length = 0.0f32;
            for field in Field::ALL {
                let weight = settings.weights.get(field);
                if weight <= 0.0 {
                    continue;
                }
                for token in tokenize(d.field(field), settings.stem) {
                    let next = u32::try_from(terms.len()).unwrap_or(u32::MAX);
                    let term = *terms.entry(token).or_insert(next);
                    *tf.entry(term).or_insert(0.0) += weight;
                    length += weight;
                }
            }
            for (&term, &count) in &tf {
                let slot = term as usize;
                if postings.len() <= slot {
                    postings.resize_with(slot + 1, Vec::new);
                }
                if let Some(list) = postings.get_mut(slot) {
                    list.push(Posting { doc, tf: count });
                }
            }
            lengths.push(length);
        }
        let n = corpus.len() as f32;
        let avg = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().sum::<f32>() / n).max(f32::MIN_POSITIVE)
        };
        let norm = lengths
            .iter()
            .map(|l| settings.k1 * (1.0 - settings.b + settings.b * l / avg))
            .collect();
        let idf = postings
            .iter()
            .map(|list| {
                let df = list.len() as f32;
                // Lucene's IDF: never negative, even for terms in most documents.
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        Self {
            corpus,
            settings,
            terms,
            postings,
            idf,
            norm,
        }
    }

    /// The corpus it indexes.
    pub fn corpus(&self) -> &Arc<Corpus> {
        &self.corpus
    }

    /// The settings it was built with.
    pub fn settings(&self) -> &Bm25Settings {
        &self.settings
    }

    /// Distinct terms in the index.
    pub fn vocabulary(&self) -> usize {
        self.terms.len()
    }

    /// Approximate heap memory the index holds (terms, postings, per-document norms), not
    /// counting the shared corpus: what `bench search-speed` reports.
    pub fn heap_bytes(&self) -> usize {
        let terms: usize = self
            .terms
            .keys()
            .map(|t| t.capacity() + size_of::<String>() + size_of::<u32>())
            .sum();
        let postings: usize = self
            .postings
            .iter()
            .map(|p| p.capacity() * size_of::<Posting>() + size_of::<Vec<Posting>>())
            .sum();
        terms + postings + (self.idf.capacity() + self.norm.capacity()) * size_of::<f32>()
    }

    /// The `k` best documents for `query` as `(document index, score)`, best first; documents
    /// that share no term with the query are not returned.
    pub fn scores(&self, query: &str, k: usize, filter: &Filter) -> Vec<(u32, f32)> {
        let allowed = self.corpus.allowed(filter);
        if allowed == Allowed::Nothing {
            return Vec::new();
        }
        let mut query_terms: Vec<u32> = tokenize(query, self.settings.stem)
            .iter()
            .filter_map(|t| self.terms.get(t).copied())
            .collect();
        query_terms.sort_unstable();
        query_terms.dedup();
        let mut acc = vec![0.0f32; self.corpus.len()];
        let mut touched: Vec<u32> = Vec::new();
        let k1 = self.settings.k1;
        for term in query_terms {
            let slot = term as usize;
            let (Some(list), Some(&idf)) = (self.postings.get(slot), self.idf.get(slot)) else {
                continue;
            };
            for p in list {
                let d = p.doc as usize;
                let (Some(a), Some(&norm)) = (acc.get_mut(d), self.norm.get(d)) else {
                    continue;
                };
                if *a == 0.0 {
                    touched.push(p.doc);
                }
                *a += idf * p.tf * (k1 + 1.0) / (p.tf + norm);
            }
        }
        let scored = touched
            .into_iter()
            .filter(|&d| self.corpus.passes(d as usize, allowed))
            .filter_map(|d| acc.get(d as usize).map(|&s| (d, s)))
            .collect();
        top_k(scored, k)
    }
}

impl Bm25Index {
    /// The query's distinct terms (tokenized and stemmed as the index is), each with its id
    /// in the index when it has one, in the order [`Bm25Index::scores`] sums them.
    fn query_terms(&self, query: &str) -> Vec<(String, Option<u32>)> {
        let mut terms: Vec<(String, Option<u32>)> = tokenize(query, self.settings.stem)
            .into_iter()
            .map(|t| {
                let id = self.terms.get(&t).copied();
                (t, id)
            })
            .collect();
        terms.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        terms.dedup();
        terms
    }

    /// Why document `doc` scores what it does for `query`: each matched term's part, summed
    /// in the order [`Bm25Index::scores`] sums them, so the parts add up to its score.
    pub fn explain_doc(&self, query: &str, doc: u32) -> Option<Bm25Explanation> {
        let d = self.corpus.doc(doc as usize)?;
        let length_norm = *self.norm.get(doc as usize)?;
        let k1 = self.settings.k1;
        let mut score = 0.0f32;
        let mut terms = Vec::new();
        let mut unmatched = Vec::new();
        for (term, id) in self.query_terms(query) {
            let posting = id.and_then(|id| {
                let list = self.postings.get(id as usize)?;
                let i = list.binary_search_by_key(&doc, |p| p.doc).ok()?;
                Some((list.get(i)?.tf, *self.idf.get(id as usize)?))
            });
            let Some((tf, idf)) = posting else {
                unmatched.push(term);
                continue;
            };
            let part = idf * tf * (k1 + 1.0) / (tf + length_norm);
            score += part;
            let fields = Field::ALL
                .into_iter()
                .filter_map(|field| {
                    let weight = self.settings.weights.get(field);
                    let count = tokenize(d.field(field), self.settings.stem)
                        .iter()
                        .filter(|t| **t == term)
                        .count();
                    (weight > 0.0 && count > 0).then(|| FieldShare {
                        field,
                        count: u32::try_from(count).unwrap_or(u32::MAX),
                        weight,
                        score: part * count as f32 * weight / tf,
                    })
                })
                .collect();
            terms.push(TermScore {
                term,
                idf,
                tf,
                score: part,
                fields,
            });
        }
        Some(Bm25Explanation {
            score,
            length_norm,
            terms,
            unmatched,
        })
    }
}

#[async_trait]
impl Retriever for Bm25Index {
    async fn search(&self, query: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        Ok(hits(&self.corpus, &self.scores(query, k, filter)))
    }

    async fn explain(
        &self,
        query: &str,
        apis: &[ApiId],
        _k: usize,
        _filter: &Filter,
    ) -> Result<Vec<Option<Explanation>>> {
        Ok(apis
            .iter()
            .map(|api| {
                let doc = self.corpus.position(api)?;
                self.explain_doc(query, doc).map(Explanation::Bm25)
            })
            .collect())
    }
}

/// Turns `(document, score)` pairs into hits.
pub(crate) fn hits(corpus: &Corpus, scored: &[(u32, f32)]) -> Vec<Hit> {
    scored
        .iter()
        .filter_map(|&(d, score)| {
            corpus.doc(d as usize).map(|doc| Hit {
                api: doc.api.clone(),
                tool: doc.tool.clone(),
                score,
                text: doc.summary(),
            })
        })
        .collect()
}
