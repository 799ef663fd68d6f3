//! Why an API was offered: the parts of its score, as each retriever computed it.
//!
//! [`Retriever::explain`](crate::Retriever::explain) answers, on request only (a search does
//! none of this work): BM25 gives each matched query term's contribution and the fields it
//! came from ([`Bm25Explanation`]), dense retrieval the cosine similarity and which text was
//! embedded ([`DenseExplanation`]), hybrid retrieval each list's raw score, its normalized
//! value, its weight and the fused sum ([`HybridExplanation`]), and dependency expansion the
//! offered API an added one serves and through which parameter ([`ExpandedExplanation`]).
//! The parts add up to the score the search reported, within float rounding.

use std::fmt;

use serde::Serialize;
use toolsmith_catalog::ApiId;

use crate::field::Field;
use crate::view_score::ViewScore;

/// Why one API scored what it did for a query.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "method", rename_all = "snake_case")]
pub enum Explanation {
    /// A BM25 score.
    Bm25(Bm25Explanation),
    /// A dense (embedding) score.
    Dense(DenseExplanation),
    /// A fused BM25 + dense score.
    Hybrid(HybridExplanation),
    /// An API offered by dependency expansion.
    Expanded(ExpandedExplanation),
    /// An API one intent of the request brought into a fused list.
    Intent(IntentExplanation),
    /// An API of the window the reranker reordered.
    Reranked(RerankExplanation),
}

impl Explanation {
    /// The score the parts add up to (an added API's is its ranking's, 0 when it was not
    /// ranked).
    pub fn score(&self) -> f32 {
        match self {
            Self::Bm25(e) => e.score,
            Self::Dense(e) => e.similarity,
            Self::Hybrid(e) => e.score,
            Self::Expanded(e) => e.ranking.as_ref().map_or(0.0, |r| r.score()),
            Self::Intent(e) => e.score,
            Self::Reranked(e) => e.score,
        }
    }

    /// Writes the explanation as indented lines, `depth` levels in.
    fn write(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        match self {
            Self::Bm25(e) => e.write(f, depth),
            Self::Dense(e) => e.write(f, depth),
            Self::Hybrid(e) => e.write(f, depth),
            Self::Expanded(e) => e.write(f, depth),
            Self::Intent(e) => e.write(f, depth),
            Self::Reranked(e) => e.write(f, depth),
        }
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, 0)
    }
}

/// Starts a line `depth` levels in (two spaces a level), after a newline unless first.
fn indent(f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
    write!(f, "{:width$}", "", width = depth * 2)
}

/// Which intent of the request brought an API into the fused list of
/// [`IntentRetriever`](crate::IntentRetriever), and why it ranked there for that intent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IntentExplanation {
    /// The intent (a search query the model wrote).
    pub intent: String,
    /// Its place (from 1) among the request's intents.
    pub index: usize,
    /// The API's rank (from 1) in the intent's own list.
    pub rank: usize,
    /// The fused score (round-robin: `1 / rank`; RRF: the sum over intents).
    pub score: f32,
    /// How many intents the request had.
    pub intents: usize,
    /// The inner ranking's explanation of the API for the intent.
    pub ranking: Option<Box<Explanation>>,
}

impl IntentExplanation {
    fn write(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        indent(f, depth)?;
        write!(
            f,
            "intent {} of {} {:?}, rank {} in its list, fused score {:.4}",
            self.index, self.intents, self.intent, self.rank, self.score
        )?;
        if let Some(ranking) = &self.ranking {
            writeln!(f)?;
            ranking.write(f, depth + 1)?;
        }
        Ok(())
    }
}

/// Where the reranker ([`RerankingRetriever`](crate::RerankingRetriever)) put an API of its
/// window, and why the first stage ranked it where it was.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RerankExplanation {
    /// Its rank (from 1) after reranking.
    pub rank: usize,
    /// Its rank (from 1) in the first stage's list (0 when the list, read as deep as the
    /// window needs, does not hold it).
    pub first_stage_rank: usize,
    /// Whether the model named it (else it kept its old order after the named ones).
    pub picked: bool,
    /// How many candidates the model saw.
    pub window: usize,
    /// The score of its new place (the window's scores, handed out again in the new order).
    pub score: f32,
    /// With a per-intent window: the need the model picked it for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub need: Option<ServedNeed>,
    /// The first stage's explanation of the API.
    pub ranking: Option<Box<Explanation>>,
}

/// The need (an intent of the request) a reranker's pick was chosen for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServedNeed {
    /// Its place (from 1) among the request's needs.
    pub index: usize,
    /// How many needs the request had.
    pub needs: usize,
    /// The intent, as extraction wrote it.
    pub intent: String,
}

impl RerankExplanation {
    fn write(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        indent(f, depth)?;
        let how = match (&self.need, self.picked) {
            (Some(need), _) => format!(
                "named by the reranker for need {} of {} {:?}",
                need.index, need.needs, need.intent
            ),
            (None, true) => "named by the reranker".to_owned(),
            (None, false) => "not named by the reranker".to_owned(),
        };
        let moved = match self.rank.cmp(&self.first_stage_rank) {
            std::cmp::Ordering::Less => "moved up",
            std::cmp::Ordering::Greater => "moved down",
            std::cmp::Ordering::Equal => "kept",
        };
        write!(
            f,
            "reranked: {moved} to rank {} from {} of {} ({how})",
            self.rank, self.first_stage_rank, self.window
        )?;
        if let Some(ranking) = &self.ranking {
            writeln!(f)?;
            ranking.write(f, depth + 1)?;
        }
        Ok(())
    }
}

/// A BM25 score as the sum of its matched terms' contributions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bm25Explanation {
    /// The score: the sum of [`Bm25Explanation::terms`]' scores.
    pub score: f32,
    /// The document's length normalization, `k1 · (1 − b + b · length / average length)`.
    pub length_norm: f32,
    /// The query's terms found in the document, in the order they are summed.
    pub terms: Vec<TermScore>,
    /// The query's terms (after tokenizing and stemming) the document lacks.
    pub unmatched: Vec<String>,
}

impl Bm25Explanation {
    fn write(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        indent(f, depth)?;
        write!(
            f,
            "bm25 {:.4} = sum of {} term(s) (length norm {:.3})",
            self.score,
            self.terms.len(),
            self.length_norm
        )?;
        for t in &self.terms {
            writeln!(f)?;
            indent(f, depth + 1)?;
            write!(
                f,
                "{} {:.4}: idf {:.3}, weighted tf {:.2} from",
                t.term, t.score, t.idf, t.tf
            )?;
            for (i, share) in t.fields.iter().enumerate() {
                let sep = if i == 0 { " " } else { ", " };
                write!(
                    f,
                    "{sep}{} {} x w{} = {:.4}",
                    share.field.as_str(),
                    share.count,
                    share.weight,
                    share.score
                )?;
            }
        }
        if !self.unmatched.is_empty() {
            writeln!(f)?;
            indent(f, depth + 1)?;
            write!(f, "not in the doc: {}", self.unmatched.join(", "))?;
        }
        Ok(())
    }
}

/// One query term's part of a BM25 score: `idf · tf · (k1 + 1) / (tf + length norm)`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TermScore {
    /// The term (tokenized, stemmed when stemming is on).
    pub term: String,
    /// Its inverse document frequency.
    pub idf: f32,
    /// Its field-weighted frequency in the document: the sum of each field's count times
    /// the field's weight.
    pub tf: f32,
    /// Its contribution to the score.
    pub score: f32,
    /// Where in the document it occurs; the fields' scores split the term's score by their
    /// share of the weighted frequency.
    pub fields: Vec<FieldShare>,
}

/// A term's occurrences in one field of the document.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldShare {
    /// The field.
    pub field: Field,
    /// How many times the term occurs in it.
    pub count: u32,
    /// The field's weight.
    pub weight: f32,
    /// The field's share of the term's score.
    pub score: f32,
}

/// A dense score: the cosine similarity of the query's and the API's vectors; with views
/// (synthetic user requests embedded one vector each), their cosines aggregated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DenseExplanation {
    /// The score: [`DenseExplanation::doc_similarity`] when the API has no views, else the
    /// aggregate of it and its views' cosines ([`DenseExplanation::aggregation`]).
    pub similarity: f32,
    /// The embedding model.
    pub model: String,
    /// Which of the API's text was embedded into its doc vector.
    pub view: DenseView,
    /// The cosine of the query's and the doc's vector (both unit length: their dot product).
    pub doc_similarity: f32,
    /// Views of the API scored (0: none embedded, or `views = "doc_only"`).
    pub views: usize,
    /// How the doc's and the views' cosines make the score.
    pub aggregation: ViewScore,
    /// The view most similar to the query, when the API has views.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_view: Option<MatchedView>,
}

/// The view (a synthetic user request) most similar to the query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchedView {
    /// The request's text.
    pub text: String,
    /// Its cosine with the query.
    pub similarity: f32,
}

impl DenseExplanation {
    fn write(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        indent(f, depth)?;
        let fields: Vec<&str> = self.view.fields.iter().map(|f| f.as_str()).collect();
        write!(
            f,
            "dense cosine {:.4} ({}; embedded: {}",
            self.similarity,
            self.model,
            fields.join(", ")
        )?;
        match self.view.passages {
            0 | 1 => write!(f, ")")?,
            n => write!(f, "; {n} passages pooled)")?,
        }
        if let Some(best) = &self.best_view {
            writeln!(f)?;
            indent(f, depth + 1)?;
            write!(
                f,
                "{} of doc {:.4} and {} view(s); best view {:.4}: {:?}",
                self.aggregation.as_str(),
                self.doc_similarity,
                self.views,
                best.similarity,
                best.text
            )?;
        }
        Ok(())
    }
}

/// The text an API's vector was embedded from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DenseView {
    /// The fields joined into the embedded text (those not empty for this API).
    pub fields: Vec<Field>,
    /// Passages the text was split into, their vectors pooled into one (1: embedded whole;
    /// see `[retrieve.dense] chunk_chars` and `pooling`).
    pub passages: usize,
}

/// A fused score as the sum of each list's weighted part.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HybridExplanation {
    /// The fused score: `bm25.contribution + dense.contribution`.
    pub score: f32,
    /// How each list's raw scores were made comparable.
    pub normalization: Normalization,
    /// Lists read this deep before fusing.
    pub depth: usize,
    /// BM25's list.
    pub bm25: ListPart,
    /// The dense list.
    pub dense: ListPart,
}

impl HybridExplanation {
    fn write(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        indent(f, depth)?;
        let normalized = self.normalization.as_str();
        write!(
            f,
            "hybrid {:.4} = {:.2} x {normalized} {:.4} (bm25) + {:.2} x {normalized} {:.4} (dense)",
            self.score,
            self.bm25.weight,
            self.bm25.normalized,
            self.dense.weight,
            self.dense.normalized
        )?;
        for (name, part) in [("bm25", &self.bm25), ("dense", &self.dense)] {
            writeln!(f)?;
            indent(f, depth + 1)?;
            match (part.rank, part.raw) {
                (Some(rank), Some(raw)) => write!(
                    f,
                    "{name}: rank {rank} of the top {}, raw {raw:.4}",
                    self.depth
                )?,
                _ => write!(
                    f,
                    "{name}: not in the top {} (scored as its lowest)",
                    self.depth
                )?,
            }
            if let Some(detail) = &part.detail {
                writeln!(f)?;
                detail.write(f, depth + 2)?;
            }
        }
        Ok(())
    }
}

/// How a fusion makes each list's raw scores comparable (`[retrieve.hybrid] fusion`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Normalization {
    /// `(raw − mean) / standard deviation` within the list's top.
    ZScore,
    /// `(raw − lowest) / (highest − lowest)` within the list's top.
    MinMax,
    /// `1 / (k + rank)`: reciprocal-rank fusion reads ranks only.
    ReciprocalRank {
        /// The rank constant.
        k: f32,
    },
}

impl Normalization {
    /// A short name for text output.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ZScore => "z",
            Self::MinMax => "min-max",
            Self::ReciprocalRank { .. } => "1/(k+rank)",
        }
    }
}

/// One list's part of a fused score.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ListPart {
    /// The API's rank in the list (from 1), when it is in the list's top
    /// [`HybridExplanation::depth`].
    pub rank: Option<usize>,
    /// Its raw score there (BM25 score or cosine), when it is in the list.
    pub raw: Option<f32>,
    /// The raw score normalized as the fusion does: its z-score (the list's lowest when it
    /// is missing), its min-max value (0 when missing), or `1 / (k + rank)` (0 when missing).
    pub normalized: f32,
    /// The list's weight in the fusion.
    pub weight: f32,
    /// `weight · normalized`: the list's part of the fused score.
    pub contribution: f32,
    /// The list's own explanation of the raw score.
    pub detail: Option<Box<Explanation>>,
}

/// An API dependency expansion added, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExpandedExplanation {
    /// The link that added it: the offered API it serves and the parameter carried.
    pub added: Added,
    /// Its own score's parts in the ranking, when it has one.
    pub ranking: Option<Box<Explanation>>,
}

impl ExpandedExplanation {
    fn write(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        indent(f, depth)?;
        let a = &self.added;
        match a.link {
            Link::Producer => write!(
                f,
                "added by expansion: produces `{}` that {} needs",
                a.param, a.feeds
            )?,
            Link::Consumer => write!(
                f,
                "added by expansion: takes `{}` from {}",
                a.param, a.feeds
            )?,
            Link::Rank => write!(f, "added by expansion: the ranking's next API")?,
        }
        if let Some(ranking) = &self.ranking {
            writeln!(f)?;
            ranking.write(f, depth + 1)?;
        }
        Ok(())
    }
}

/// How an added API is linked to the offered one it was added for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Link {
    /// It produces `param` of the offered API.
    Producer,
    /// It takes `param` from the offered API's output.
    Consumer,
    /// No edge: a next-ranked API filling a swapped slot.
    Rank,
}

/// One API added by expansion, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Added {
    /// The API added.
    pub api: ApiId,
    /// The offered API it is linked to: the one whose need it meets ([`Link::Producer`]),
    /// or the one whose output feeds it ([`Link::Consumer`]); itself for [`Link::Rank`].
    pub feeds: ApiId,
    /// The parameter the link carries (empty for [`Link::Rank`]).
    pub param: String,
    /// How it is linked.
    pub link: Link,
}
