//! The store kit: what every component store (eval's benchmark runs, refine's runs, the
//! graph) needs to keep typed rows in SQLite, written once: JSON columns that say which value
//! failed, row ids as their own types ([`row_id!`](crate::row_id)), and the one [`RunId`].
//!
//! ```
//! use toolsmith_plumbing::store::{RunId, from_column, to_column};
//!
//! let text = to_column("tags", &vec!["a", "b"])?;
//! assert_eq!(from_column::<Vec<String>>("tags", &text)?, ["a", "b"]);
//! assert_eq!(from_column::<Vec<String>>("tags", "{").unwrap_err().to_string(),
//!            "stored tags is not readable JSON");
//! assert_eq!("12".parse::<RunId>()?, RunId(12));
//! assert_eq!("x".parse::<RunId>().unwrap_err().to_string(), "`x` is not a run id (a number)");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A value a store keeps as JSON text could not be written, or read back.
#[derive(Debug, thiserror::Error)]
#[error("stored {what} is not readable JSON")]
pub struct JsonColumnError {
    /// What the column holds (`spec`, `trace`, `evidence of edge 3`).
    pub what: String,
    /// serde_json's complaint.
    #[source]
    pub source: serde_json::Error,
}

/// `value` as the JSON text of a column holding `what`.
pub fn to_column<T: Serialize + ?Sized>(
    what: impl Into<String>,
    value: &T,
) -> Result<String, JsonColumnError> {
    serde_json::to_string(value).map_err(|source| JsonColumnError {
        what: what.into(),
        source,
    })
}

/// The value of a JSON column holding `what`.
pub fn from_column<T: DeserializeOwned>(
    what: impl Into<String>,
    text: &str,
) -> Result<T, JsonColumnError> {
    serde_json::from_str(text).map_err(|source| JsonColumnError {
        what: what.into(),
        source,
    })
}

/// A text that is not a row id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not {what} (a number)")]
pub struct BadId {
    /// Which id was expected (`a run id`).
    pub what: &'static str,
    /// The text given.
    pub text: String,
}

/// Declares a row id: a newtype over SQLite's `i64` rowid that prints and parses as the
/// number, serializes as it, and is not interchangeable with another table's id.
///
/// ```
/// toolsmith_plumbing::row_id!(
///     /// A stored node's id.
///     pub struct NodeId, "a node id"
/// );
/// assert_eq!("7".parse::<NodeId>(), Ok(NodeId(7)));
/// assert_eq!(NodeId(7).to_string(), "7");
/// ```
#[macro_export]
macro_rules! row_id {
    ($(#[$meta:meta])* $vis:vis struct $name:ident, $what:literal) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
            ::serde::Serialize, ::serde::Deserialize,
        )]
        #[serde(transparent)]
        $vis struct $name(pub i64);

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::store::BadId;
            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                s.trim().parse().map(Self).map_err(|_| $crate::store::BadId {
                    what: $what,
                    text: s.to_owned(),
                })
            }
        }
    };
}

row_id!(
    /// A stored run's id: a benchmark run in eval's tables, a refinement run in refine's.
    pub struct RunId,
    "a run id"
);
