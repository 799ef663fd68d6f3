//! A gold path: the APIs a synthesized request needs, in call order, and how they were chosen.

use serde::{Deserialize, Serialize};
use toolsmith_catalog::ApiId;

/// How a path's APIs were put together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathKind {
    /// One API.
    Single,
    /// Two or three APIs along the tool graph's dependency edges: each one's output feeds a
    /// required parameter of the next.
    Chain,
    /// ToolBench's I1: several APIs of one tool, each answering a part of the request.
    WithinTool,
    /// ToolBench's I2: APIs of different tools in one category.
    WithinCategory,
    /// ToolBench's I3: APIs of tools in different categories.
    CrossCategory,
}

impl PathKind {
    /// Every kind, in the order sets report them.
    pub const ALL: [Self; 5] = [
        Self::Single,
        Self::Chain,
        Self::WithinTool,
        Self::WithinCategory,
        Self::CrossCategory,
    ];

    /// The stable name stored in the database (`single`, `chain`, `within_tool`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Single => "single",
            Self::Chain => "chain",
            Self::WithinTool => "within_tool",
            Self::WithinCategory => "within_category",
            Self::CrossCategory => "cross_category",
        }
    }

    /// Whether a later call reads an earlier call's response (a chain's calls do).
    pub fn is_dependent(self) -> bool {
        self == Self::Chain
    }
}

impl std::fmt::Display for PathKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The APIs a request needs, in call order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GoldPath {
    /// How they were chosen.
    pub kind: PathKind,
    /// The APIs, in the order they are called (distinct).
    pub apis: Vec<ApiId>,
}
