//! [`ToolsOffered`]: which tools a solver is offered, a leaf the spec, the runner and the
//! crate's error all name.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A text that names no way of offering tools.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("tools offered `{0}`: use candidates, retrieve:K, retrieve:K+search, search-tool or all")]
pub struct BadToolsOffered(pub String);

/// Which tools a solver is offered for each query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolsOffered {
    /// The query's own candidate list (DRAFT's 5 TMDB candidates, ToolBench's `api_list`),
    /// shuffled with the run's seed.
    Candidates,
    /// The top `k` APIs a retriever finds for the query text, and with `search` also the
    /// `search_tools` meta-tool, so the solver can find a tool the retrieval missed (the
    /// person search a "latest film by a director" needs, when the offer holds only film APIs).
    Retrieve {
        /// How many retrieved APIs are offered (at least 1).
        k: usize,
        /// Whether `search_tools` is offered beside them.
        search: bool,
    },
    /// Only the `search_tools` meta-tool: the solver finds tools itself.
    SearchTool,
    /// Every API of the catalog (RestGPT offers the whole TMDB spec).
    All,
}

impl fmt::Display for ToolsOffered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Candidates => f.write_str("candidates"),
            Self::Retrieve { k, search: false } => write!(f, "retrieve:{k}"),
            Self::Retrieve { k, search: true } => write!(f, "retrieve:{k}+search"),
            Self::SearchTool => f.write_str("search-tool"),
            Self::All => f.write_str("all"),
        }
    }
}

impl FromStr for ToolsOffered {
    type Err = BadToolsOffered;

    /// `candidates`, `retrieve:K` (K > 0), `retrieve:K+search`, `search-tool` or `all`.
    fn from_str(s: &str) -> Result<Self, BadToolsOffered> {
        let bad = || BadToolsOffered(s.to_owned());
        Ok(match s {
            "candidates" => Self::Candidates,
            "search-tool" => Self::SearchTool,
            "all" => Self::All,
            other => {
                let rest = other.strip_prefix("retrieve:").ok_or_else(bad)?;
                let (k, search) = match rest.strip_suffix("+search") {
                    Some(k) => (k, true),
                    None => (rest, false),
                };
                let k = k.parse::<usize>().ok().filter(|k| *k > 0).ok_or_else(bad)?;
                Self::Retrieve { k, search }
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
