//! The fields an API's document is cut into: a leaf type the indexes and the explanations
//! of their scores share.

use serde::Serialize;

/// A field of an API's document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum Field {
    ToolName,
    ApiName,
    ToolDescription,
    ApiDescription,
    Params,
    Examples,
    Returns,
    /// Synthetic user requests the API answers (the doc version's `queries`, one a line):
    /// Re-Invoke's views of the doc.
    Queries,
    /// The API's description as imported (its `original` doc version), kept only when the
    /// chosen doc rewrote it: a refinement adds words for search but never takes the source's
    /// away. Never part of the doc's embedded text; the dense index embeds it as a view.
    Source,
}

impl Field {
    /// The field's name, as in `toolsmith.toml`'s field weights.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ToolName => "tool_name",
            Self::ApiName => "api_name",
            Self::ToolDescription => "tool_description",
            Self::ApiDescription => "api_description",
            Self::Params => "params",
            Self::Examples => "examples",
            Self::Returns => "returns",
            Self::Queries => "queries",
            Self::Source => "source",
        }
    }

    /// Number of fields: the length of [`CorpusDoc::fields`](crate::CorpusDoc::fields).
    pub const COUNT: usize = 9;

    /// Every field, in document order.
    pub const ALL: [Self; Self::COUNT] = [
        Self::ToolName,
        Self::ApiName,
        Self::ToolDescription,
        Self::ApiDescription,
        Self::Params,
        Self::Examples,
        Self::Returns,
        Self::Queries,
        Self::Source,
    ];

    /// Whether the field belongs in the doc's own embedded text (the source is a view of its
    /// own, see [`CorpusDoc::source_text`](crate::CorpusDoc::source_text)).
    pub(crate) fn in_doc_text(self) -> bool {
        self != Self::Source
    }
}
