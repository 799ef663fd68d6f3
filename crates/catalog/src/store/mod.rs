//! The catalog store: one SQLite file in WAL mode, schema migrations versioned
//! from the start, and every write in a transaction.

mod migrations;
mod read;
mod write;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

pub use read::{ApiEntry, Catalog, DocSelector, Scope, ToolEntry};
pub use write::{ImportReport, NewDoc};

use crate::error::Result;

/// The catalog database. Open one per process (or per thread); SQLite's WAL
/// lets readers and one writer share the file.
pub struct Store {
    conn: Connection,
    path: Option<PathBuf>,
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
