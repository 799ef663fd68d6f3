//! The store handle itself, below its read and write halves (`read`, `write`), which add
//! their methods to it.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

use crate::error::Result;
use crate::store::migrations;

/// The catalog database. Open one per process (or per thread); SQLite's WAL
/// lets readers and one writer share the file.
pub struct Store {
    pub(super) conn: Connection,
    pub(super) path: Option<PathBuf>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self> {
        Ok(Self {
            conn: migrations::MIGRATIONS.open(path)?,
            path: Some(path.to_owned()),
        })
    }

    /// A private database in memory, for tests and one-off runs.
    pub fn in_memory() -> Result<Self> {
        Ok(Self {
            conn: migrations::MIGRATIONS.open_in_memory()?,
            path: None,
        })
    }

    /// Where the database lives (`None` in memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The schema version this store is at.
    pub fn schema_version(&self) -> Result<u32> {
        Ok(migrations::MIGRATIONS.current(&self.conn)?)
    }
}
