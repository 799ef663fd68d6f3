//! Reading dataset files: JSON in, and the error naming the file that is wrong.

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};

pub(crate) fn file_stem(path: &Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// Reads and parses a JSON file.
pub(crate) fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| Error::Json {
        path: path.to_owned(),
        source,
    })
}

/// Reads a JSON file holding an array of items.
pub(crate) fn read_items(path: &Path) -> Result<Vec<Value>> {
    match read_json(path)? {
        Value::Array(items) => Ok(items),
        other => Err(bad(
            path,
            format!(
                "expected a JSON array of queries, found {}",
                toolsmith_plumbing::json::type_name(&other)
            ),
        )),
    }
}

pub(crate) fn bad(path: &Path, reason: impl Into<String>) -> Error {
    Error::BadDataset {
        path: path.to_owned(),
        reason: reason.into(),
    }
}
