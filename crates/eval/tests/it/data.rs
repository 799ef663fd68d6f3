//! Where the shared benchmark data lives.

use std::path::PathBuf;

/// `../shared/data` beside the repository (or `TOOLSMITH_DATA`).
pub fn data_dir() -> PathBuf {
    let root = std::env::var_os("TOOLSMITH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    assert!(
        root.join("restbench-tmdb").is_dir(),
        "benchmark data missing under {} (set TOOLSMITH_DATA)",
        root.display()
    );
    root
}
