//! Temporary files for hand-written inputs (the shared benchmark data and the TMDB catalog
//! come from `toolsmith_catalog::testing`).

use std::path::PathBuf;

/// Writes `text` to a file named `name` in a fresh temporary folder.
pub(crate) fn write_temp(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}
