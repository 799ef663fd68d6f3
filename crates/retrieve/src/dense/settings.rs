//! The dense index's settings, and the passages a long doc is embedded in.

use serde::{Deserialize, Serialize};

use crate::corpus::{CorpusDoc, FieldWeights};
use crate::hnsw::{DenseBackend, HnswSettings};
use crate::view_score::ViewScore;

/// How the dense vectors are stored for the scan.
///
/// The default is int8: measured in release on 2 cores (`bench search-speed`, 384 dims) it
/// scans 46,802 vectors in 0.94 ms against 1.65 ms for f32 (1.7 against 6.3 ms at 100,000),
/// and with the rescoring its NDCG@10 equals f32's to the decimal on restbench-tmdb (52.2)
/// and ToolBench G1 (51.3, 46,803 APIs). Below ~5,000 vectors the two are equally fast.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VectorFormat {
    /// 4 bytes a dimension, exact scores.
    F32,
    /// 1 byte a dimension plus a scale per vector: a quarter of the bytes to scan; the best
    /// `k x rescore` candidates are rescored exactly from the f32 vectors, which stay in
    /// memory (the rescoring and the tool graph read them), so the codes add a quarter to
    /// the index's memory rather than saving three quarters.
    #[default]
    Int8,
}

/// How the dense index is built.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DenseSettings {
    /// Which fields make up the embedded text (those with weight above 0). By default
    /// [`DenseSettings::DEFAULT_FIELDS`]; a table naming some fields changes only those.
    #[serde(deserialize_with = "default_fields_with")]
    pub fields: FieldWeights,
    /// Texts per call to the embedder. By default 256.
    pub batch_size: usize,
    /// Characters of doc text embedded at most (MiniLM reads 256 word pieces, about 1,000
    /// characters; longer texts only cost tokenization). By default 2,000.
    pub max_chars: usize,
    /// How vectors are stored for the scan: `f32` or `int8`. By default int8 (see
    /// [`VectorFormat`]).
    pub vectors: VectorFormat,
    /// With int8 vectors, candidates rescored in f32 per result asked for (`k x rescore`).
    /// By default 4 (the exact top 10 in the fixed-seed test and in `bench search-speed`).
    pub rescore: usize,
    /// Which search answers: `exact` (scan every vector), `hnsw` (walk a graph, approximate)
    /// or `auto` (exact below [`DenseSettings::hnsw_from`] documents). By default auto.
    pub backend: DenseBackend,
    /// With `backend = "auto"`, catalogs of at least this many documents use HNSW. By default
    /// [`DenseSettings::HNSW_FROM`].
    pub hnsw_from: usize,
    /// The HNSW graph's settings (`[retrieve.dense.hnsw]`).
    pub hnsw: HnswSettings,
    /// Characters per passage of a long doc: an embedded text longer than this is split into
    /// passages of at most this many characters (at line, then sentence, then word
    /// boundaries), each passage is embedded and the doc's vector is their pooled mean (see
    /// [`DenseSettings::pooling`]), so the end of a long doc counts too (MiniLM reads only
    /// its first 256 word pieces, about 1,000 characters). 0 embeds the text whole, cut by
    /// the model (the behaviour before passages). By default
    /// [`DenseSettings::CHUNK_CHARS`].
    pub chunk_chars: usize,
    /// How the passage vectors of a long doc become its one vector. By default mean.
    pub pooling: Pooling,
    /// Query vectors kept in memory by a [`DenseRetriever`], the least recently used dropped
    /// first; 0 keeps none. Query vectors are never written to the embedding cache on disk
    /// (one per distinct query, they would grow without end). By default 1,024 (about 1.5 MB
    /// of 384-dimension vectors).
    pub query_cache_entries: usize,
    /// How a doc's synthetic user requests (its views, `Doc.queries`) count: each is embedded
    /// as a vector of its own and an API scores the best of its doc and its views (`max`,
    /// Re-Invoke's), the mean of the two best (`mean_top2`), or views are not embedded at all
    /// (`doc_only`). An API without views scores as before under all three. By default max
    /// (see [`ViewScore`]).
    pub views: ViewScore,
}

/// How the vectors of a doc's passages are pooled into the doc's vector (each passage vector
/// L2-normalized first, the sum renormalized).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// Every passage counts the same.
    #[default]
    Mean,
    /// Each passage weighted by its length in characters (a short tail counts less).
    Length,
}

impl DenseSettings {
    /// The text the index embeds for `doc`: its [`DenseSettings::fields`], cut at
    /// [`DenseSettings::max_chars`] characters.
    pub fn embedded_text(&self, doc: &CorpusDoc) -> String {
        doc.text(&self.fields)
            .chars()
            .take(self.max_chars)
            .collect()
    }

    /// The texts the index embeds for `doc`'s views, each cut at [`DenseSettings::max_chars`]
    /// characters: its synthetic requests, then, when [`FieldWeights::source`] is above 0 and
    /// the chosen doc rewrote the API's description, its source view
    /// ([`CorpusDoc::source_text`]); none with `views = "doc_only"`.
    pub fn view_texts(&self, doc: &CorpusDoc) -> Vec<String> {
        if self.views == ViewScore::DocOnly {
            return Vec::new();
        }
        let source = doc.source_text(&self.fields);
        doc.views()
            .chain(source.as_deref())
            .map(|v| v.chars().take(self.max_chars).collect())
            .collect()
    }

    /// The passages embedded for a doc whose embedded text is `text`: the text itself when it
    /// has at most [`DenseSettings::chunk_chars`] characters (or passages are off), else
    /// [`passages`] of it.
    pub fn passages<'a>(&self, text: &'a str) -> Vec<&'a str> {
        passages(text, self.chunk_chars)
    }

    /// Documents from which `backend = "auto"` walks an HNSW graph: 2,000,000. Measured in
    /// release on 2 cores (`bench search-speed`, 384 dims): the exact scan answers in 1.65 ms
    /// at 46,802 (int8: 0.94), 6.3 ms at 100,000 (int8: 1.7) and 63 ms at 1,000,000 (int8:
    /// 28), with recall 1 and nothing to build; the graph is rebuilt on every load (not
    /// persisted): 58 s at 46,802, 180 s at 100,000, about 20 minutes projected at 1,000,000.
    /// So below two million the exact scan (with `vectors = "int8"` past ~50,000) is the
    /// better default; `backend = "hnsw"` stays a choice.
    pub const HNSW_FROM: usize = 2_000_000;

    /// Characters per passage of a long doc: 0, passages off. Measured on restbench-tmdb
    /// (NDCG@10, mean over the doc versions original, easytool, draft, easytool-ref,
    /// draft-ref; `bench retrieval`): whole text 51.0 dense / 53.4 hybrid; passages of 500
    /// (length pooling) 50.8 / 53.9, 700 (mean) 50.9 / 53.6, 1,000 (mean) 50.1 / 53.2; max
    /// over passages (a scratch variant, not kept) 49.3 to 50.5 / 53.3 to 53.6. Nothing
    /// gains beyond noise, and the DRAFT docs lose 2 to 5 dense: MiniLM's first 256 word
    /// pieces already hold the API's name and purpose, and pooling in the tail blurs them.
    /// Held-out Spotify, EasyTool docs: dense 63.3 -> 64.1 (500) / 63.3 (700), hybrid
    /// 73.5 -> 72.6 / 73.5.
    pub const CHUNK_CHARS: usize = 0;

    /// Tool name, API name and path, the API's description and its usage examples (the
    /// synthetic requests are left out of the doc's text: each is a vector of its own, see
    /// [`DenseSettings::views`]); the tool's
    /// description and the parameters are left out (measured on restbench-tmdb, see the crate
    /// docs: the tool description costs 1.8 NDCG@10 on the original docs, all fields 3.8,
    /// while examples add 0.7 to 3.4 on the refined docs).
    pub const DEFAULT_FIELDS: FieldWeights = FieldWeights {
        tool_name: 1.0,
        api_name: 1.0,
        tool_description: 0.0,
        api_description: 1.0,
        params: 0.0,
        examples: 1.0,
        returns: 0.0,
        queries: 0.0,
        source: crate::bm25::SOURCE_WEIGHT,
    };
}

impl Default for DenseSettings {
    fn default() -> Self {
        Self {
            fields: Self::DEFAULT_FIELDS,
            batch_size: 256,
            max_chars: 2_000,
            vectors: VectorFormat::Int8,
            rescore: 4,
            backend: DenseBackend::Auto,
            hnsw_from: Self::HNSW_FROM,
            hnsw: HnswSettings::default(),
            chunk_chars: Self::CHUNK_CHARS,
            pooling: Pooling::Mean,
            query_cache_entries: 1_024,
            views: ViewScore::Max,
        }
    }
}

/// `text` split into passages of at most `max` characters each, in order, trimmed, none
/// empty, of about equal length: the text's length over the fewest passages of `max` is the
/// window from which each passage is cut. Each cut is at the last line break of the window,
/// else its last sentence end
/// (`.`, `!`, `?` or `;` before a space), else its last space, if that boundary lies in the
/// window's second half (so no passage is needlessly short); else at the last space anywhere
/// in the window; a word longer than `max` is cut inside. A text of at most `max` characters,
/// or `max` = 0, is one passage: the text unchanged.
pub fn passages(text: &str, max: usize) -> Vec<&str> {
    let chars = text.chars().count();
    if max == 0 || chars <= max {
        return vec![text];
    }
    // As many passages as `max` needs, of about equal length (no short tail).
    let target = chars.div_ceil(chars.div_ceil(max));
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let end = match rest.char_indices().nth(target) {
            Some((end, _)) if rest.chars().count() > max => end,
            _ => {
                out.push(rest.trim_end());
                break;
            }
        };
        let cut = passage_cut(rest, end).unwrap_or(end);
        let (head, tail) = rest.split_at(cut);
        let head = head.trim_end();
        if !head.is_empty() {
            out.push(head);
        }
        rest = tail.trim_start();
    }
    out
}

/// Where to end the passage cut from `rest[..end]` (a byte offset, after the boundary's
/// punctuation): see [`passages`]. `None` when the window has no space at all.
fn passage_cut(rest: &str, end: usize) -> Option<usize> {
    let window = rest.get(..end)?;
    let next = rest.get(end..).and_then(|t| t.chars().next());
    let half = window.len() / 2;
    let line = window.rfind('\n').map(|i| i + 1);
    let sentence = window
        .char_indices()
        .zip(window.chars().skip(1).map(Some).chain([next]))
        .filter(|((_, c), next)| {
            matches!(c, '.' | '!' | '?' | ';') && next.is_some_and(char::is_whitespace)
        })
        .map(|((i, c), _)| i + c.len_utf8())
        .last();
    let space = if next.is_some_and(char::is_whitespace) {
        Some(end)
    } else {
        window.rfind(char::is_whitespace)
    };
    [line, sentence, space]
        .into_iter()
        .flatten()
        .find(|&i| i > half)
        .or(space.filter(|&i| i > 0))
}

/// A `fields` table over [`DenseSettings::DEFAULT_FIELDS`].
fn default_fields_with<'de, D: serde::Deserializer<'de>>(d: D) -> Result<FieldWeights, D::Error> {
    crate::corpus::weights_over(d, DenseSettings::DEFAULT_FIELDS)
}
