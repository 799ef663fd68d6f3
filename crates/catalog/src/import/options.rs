//! How to read a source, and the small helpers every importer shares (kept below the
//! importers so none of them reaches back into `import`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::id::DocLabel;
use crate::import::detect::Format;

/// How to read a source.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ImportOptions {
    /// The format, when detection should not guess.
    pub format: Option<Format>,
    /// Tool name for sources that describe a single tool without naming it
    /// usefully (OpenAPI specs, OpenAI function lists). By default: the spec's
    /// `x-toolsmith-tool`, else the file name without `_oas`/`openapi` suffixes.
    pub tool: Option<String>,
    /// Category for single-tool sources. By default `x-toolsmith-category`, else `General`.
    pub category: Option<String>,
    /// Where the tool is called, for sources that cannot say it themselves:
    /// the MCP server address (`mcp+stdio:...`, `mcp+http://...`, `mcp://NAME`)
    /// of an MCP tool list. Other formats take the address from the source.
    pub base_url: Option<String>,
    /// Label for refined-doc files. By default from the format (`draft-ref`, `easytool-ref`).
    pub label: Option<DocLabel>,
    /// Import the good files of a folder or archive and report the bad ones,
    /// instead of failing the whole import.
    pub keep_going: bool,
}

/// The display form of a path for error messages and source records.
pub(crate) fn display_path(path: &Path) -> String {
    path.display().to_string()
}

/// `archive!member`, the path we report for a file inside an archive.
pub(crate) fn member_path(archive: &Path, member: &str) -> PathBuf {
    PathBuf::from(format!("{}!{member}", archive.display()))
}

/// Fails with every collected error unless `keep_going` lets the rest through.
pub(crate) fn collect_failures(errors: Vec<Error>, keep_going: bool) -> Result<Vec<Error>> {
    if errors.is_empty() || keep_going {
        Ok(errors)
    } else {
        Err(Error::Several(errors))
    }
}
