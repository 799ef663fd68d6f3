//! Where the shared benchmark data lives: `$TOOLSMITH_DATA`, else a `shared/data` folder next
//! to the current folder or one of its ancestors (`../shared/data` beside the repository).
//!
//! For tests, examples and benches; the binary takes the folder from its `--data-dir` flag
//! (whose environment variable is the same [`ENV`]).

use std::path::{Path, PathBuf};

/// The environment variable naming the benchmark data folder.
pub const ENV: &str = crate::env::TOOLSMITH_DATA;

/// The folder searched for in the current folder and its ancestors when [`ENV`] is unset.
pub const DEFAULT_RELATIVE: &str = "shared/data";

/// The benchmark data folder was not found.
#[derive(Debug, thiserror::Error)]
#[error(
    "benchmark data not found: {reason} (set {ENV}, or put the data in ../{DEFAULT_RELATIVE} beside the repository)"
)]
pub struct NotFound {
    /// What was looked at.
    pub reason: String,
}

/// The benchmark data folder: `$TOOLSMITH_DATA` when set and non-empty, else the first
/// `shared/data` folder found by walking up from the current folder.
pub fn data_dir() -> Result<PathBuf, NotFound> {
    if let Some(dir) = std::env::var_os(ENV).filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        return if dir.is_dir() {
            Ok(dir)
        } else {
            Err(NotFound {
                reason: format!("{ENV}={} is not a folder", dir.display()),
            })
        };
    }
    let cwd = std::env::current_dir().map_err(|e| NotFound {
        reason: format!("no current folder ({e})"),
    })?;
    find_from(&cwd).ok_or_else(|| NotFound {
        reason: format!("no {DEFAULT_RELATIVE} in {} or above", cwd.display()),
    })
}

/// The first `shared/data` folder in `start` or one of its ancestors, nearest first.
pub fn find_from(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(DEFAULT_RELATIVE))
        .find(|candidate| candidate.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_shared_data_above_wins() {
        let root = tempfile::tempdir().unwrap();
        let repo = root.path().join("repo/crates/exec");
        std::fs::create_dir_all(&repo).unwrap();
        assert_eq!(find_from(&repo), None);
        let far = root.path().join("shared/data");
        std::fs::create_dir_all(&far).unwrap();
        assert_eq!(find_from(&repo), Some(far));
        let near = root.path().join("repo/shared/data");
        std::fs::create_dir_all(&near).unwrap();
        assert_eq!(find_from(&repo), Some(near));
    }

    #[test]
    fn a_file_named_shared_data_is_not_a_folder() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("shared")).unwrap();
        std::fs::write(root.path().join("shared/data"), "").unwrap();
        assert_eq!(find_from(root.path()), None);
    }
}
