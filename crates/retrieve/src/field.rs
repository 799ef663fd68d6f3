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
        }
    }

    /// Every field, in document order.
    pub const ALL: [Self; 8] = [
        Self::ToolName,
        Self::ApiName,
        Self::ToolDescription,
        Self::ApiDescription,
        Self::Params,
        Self::Examples,
        Self::Returns,
        Self::Queries,
    ];
}
