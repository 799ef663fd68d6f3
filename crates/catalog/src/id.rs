//! Identifiers of tools, APIs and doc versions: validated once when made, trusted
//! everywhere after.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::names::slug;

/// A name that cannot serve as an identifier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{raw}` is not a valid {what}: {why}")]
pub struct InvalidId {
    /// The text that was rejected.
    pub raw: String,
    /// What kind of identifier it was meant to be.
    pub what: &'static str,
    /// Why it was rejected.
    pub why: &'static str,
}

fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

macro_rules! slug_id {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// Makes the identifier from any name, normalizing it to a slug
            /// (lowercase ASCII letters, digits and `_`).
            pub fn from_name(name: &str) -> Result<Self, InvalidId> {
                let id = slug(name);
                if id.is_empty() {
                    Err(InvalidId { raw: name.to_owned(), what: $what, why: "no letter or digit in it" })
                } else {
                    Ok(Self(id))
                }
            }

            /// The identifier as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = InvalidId;
            fn try_from(raw: String) -> Result<Self, InvalidId> {
                if is_slug(&raw) {
                    Ok(Self(raw))
                } else {
                    Err(InvalidId { raw, what: $what, why: "use lowercase letters, digits and `_`" })
                }
            }
        }

        impl FromStr for $name {
            type Err = InvalidId;
            fn from_str(raw: &str) -> Result<Self, InvalidId> {
                Self::try_from(raw.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

slug_id!(
    /// A tool's identifier in the catalog, such as `tmdb` or `vin_decoder_v4`.
    ToolId,
    "tool id"
);
slug_id!(
    /// An API's name within its tool, such as `get_movie_movie_id`.
    ApiName,
    "API name"
);

/// An API's identifier: `tool/api`, e.g. `tmdb/get_movie_movie_id`. Stable
/// across re-imports of the same source and typeable on a command line.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ApiId {
    tool: ToolId,
    api: ApiName,
}

impl ApiId {
    /// The id of API `api` of tool `tool`.
    pub fn new(tool: ToolId, api: ApiName) -> Self {
        Self { tool, api }
    }

    /// The tool this API belongs to.
    pub fn tool(&self) -> &ToolId {
        &self.tool
    }

    /// The API's name within its tool.
    pub fn api(&self) -> &ApiName {
        &self.api
    }
}

impl fmt::Display for ApiId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.tool, self.api)
    }
}

impl FromStr for ApiId {
    type Err = InvalidId;
    fn from_str(raw: &str) -> Result<Self, InvalidId> {
        let Some((tool, api)) = raw.split_once('/') else {
            return Err(InvalidId {
                raw: raw.to_owned(),
                what: "API id",
                why: "expected `tool/api`",
            });
        };
        Ok(Self {
            tool: tool.parse()?,
            api: api.parse()?,
        })
    }
}

impl TryFrom<String> for ApiId {
    type Error = InvalidId;
    fn try_from(raw: String) -> Result<Self, InvalidId> {
        raw.parse()
    }
}

impl From<ApiId> for String {
    fn from(id: ApiId) -> String {
        id.to_string()
    }
}

/// What a piece of documentation describes: a whole tool or one API.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DocTarget {
    /// The tool's own description.
    Tool(ToolId),
    /// One API's description and usage examples.
    Api(ApiId),
}

impl fmt::Display for DocTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tool(id) => write!(f, "tool:{id}"),
            Self::Api(id) => write!(f, "api:{id}"),
        }
    }
}

impl FromStr for DocTarget {
    type Err = InvalidId;
    /// Reads `tool:ID`, `api:TOOL/API`, or a bare `TOOL/API` (an API) or `TOOL` (a tool).
    fn from_str(raw: &str) -> Result<Self, InvalidId> {
        if let Some(rest) = raw.strip_prefix("tool:") {
            return Ok(Self::Tool(rest.parse()?));
        }
        if let Some(rest) = raw.strip_prefix("api:") {
            return Ok(Self::Api(rest.parse()?));
        }
        if raw.contains('/') {
            Ok(Self::Api(raw.parse()?))
        } else {
            Ok(Self::Tool(raw.parse()?))
        }
    }
}

/// The label of a doc version: where it came from (`original`, `easytool`,
/// `draft`, `expnet`, `manual`, `draft-ref`, `easytool-ref`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct DocLabel(String);

impl DocLabel {
    /// The docs as the source spec wrote them.
    pub const ORIGINAL: &'static str = "original";
    /// DRAFT's published refined docs, imported for comparison.
    pub const DRAFT_REF: &'static str = "draft-ref";
    /// EasyTool's published concise instructions, imported for comparison.
    pub const EASYTOOL_REF: &'static str = "easytool-ref";

    /// The label `original`.
    pub fn original() -> Self {
        Self(Self::ORIGINAL.to_owned())
    }

    /// The label as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for DocLabel {
    type Error = InvalidId;
    fn try_from(raw: String) -> Result<Self, InvalidId> {
        let ok = !raw.is_empty()
            && raw.len() <= 64
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
        if ok {
            Ok(Self(raw))
        } else {
            Err(InvalidId {
                raw,
                what: "doc label",
                why: "use letters, digits, `-`, `_` or `.` (at most 64)",
            })
        }
    }
}

impl FromStr for DocLabel {
    type Err = InvalidId;
    fn from_str(raw: &str) -> Result<Self, InvalidId> {
        Self::try_from(raw.to_owned())
    }
}

impl From<DocLabel> for String {
    fn from(label: DocLabel) -> String {
        label.0
    }
}

impl fmt::Display for DocLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_ids_round_trip_through_text() {
        let id: ApiId = "tmdb/get_movie_movie_id".parse().unwrap();
        assert_eq!(id.tool().as_str(), "tmdb");
        assert_eq!(id.to_string(), "tmdb/get_movie_movie_id");
        assert!("tmdb".parse::<ApiId>().is_err());
        assert!("TMDB/x".parse::<ApiId>().is_err());
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(serde_json::from_str::<ApiId>(&json).unwrap(), id);
    }

    #[test]
    fn ids_from_names_are_slugs() {
        assert_eq!(
            ToolId::from_name("The Movie DB").unwrap().as_str(),
            "the_movie_db"
        );
        assert!(ToolId::from_name("!!!").is_err());
    }

    #[test]
    fn doc_targets_parse_both_spellings() {
        assert_eq!(
            "tmdb".parse::<DocTarget>().unwrap().to_string(),
            "tool:tmdb"
        );
        assert_eq!(
            "tmdb/x".parse::<DocTarget>().unwrap().to_string(),
            "api:tmdb/x"
        );
        assert_eq!(
            "api:tmdb/x".parse::<DocTarget>().unwrap().to_string(),
            "api:tmdb/x"
        );
    }
}
