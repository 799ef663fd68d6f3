//! [`ToolsOffered`]: which tools a solver is offered, a leaf the spec, the runner and the
//! crate's error all name.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A text that names no way of offering tools.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tools offered `{0}`: use candidates, retrieve:K, search-tool or all")]
pub struct BadToolsOffered(pub String);

/// Which tools a solver is offered for each query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolsOffered {
    /// The query's own candidate list (DRAFT's 5 TMDB candidates, ToolBench's `api_list`),
    /// shuffled with the run's seed.
    Candidates,
    /// The top K APIs a retriever finds for the query text.
    Retrieve(usize),
    /// Only the `search_tools` meta-tool: the solver finds tools itself.
    SearchTool,
    /// Every API of the catalog (RestGPT offers the whole TMDB spec).
    All,
}

impl fmt::Display for ToolsOffered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Candidates => f.write_str("candidates"),
            Self::Retrieve(k) => write!(f, "retrieve:{k}"),
            Self::SearchTool => f.write_str("search-tool"),
            Self::All => f.write_str("all"),
        }
    }
}

impl FromStr for ToolsOffered {
    type Err = BadToolsOffered;

    /// `candidates`, `retrieve:K` (K > 0), `search-tool` or `all`.
    fn from_str(s: &str) -> Result<Self, BadToolsOffered> {
        let bad = || BadToolsOffered(s.to_owned());
        Ok(match s {
            "candidates" => Self::Candidates,
            "search-tool" => Self::SearchTool,
            "all" => Self::All,
            other => {
                let k = other
                    .strip_prefix("retrieve:")
                    .and_then(|k| k.parse::<usize>().ok())
                    .filter(|k| *k > 0)
                    .ok_or_else(bad)?;
                Self::Retrieve(k)
            }
        })
    }
}

impl Serialize for ToolsOffered {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ToolsOffered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
