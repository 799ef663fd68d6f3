//! The catalog store: one SQLite file in WAL mode, schema migrations versioned
//! from the start, and every write in a transaction.

mod migrations;
mod read;
mod write;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

pub use read::{ApiEntry, Catalog, DocSelector, Scope, ToolEntry};
pub use write::{ImportReport, NewDoc};

use crate::error::{Error, Result};

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
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                path: dir.to_owned(),
                source,
            })?;
        }
        let conn =
            Connection::open(path).map_err(Error::store(format!("opening {}", path.display())))?;
        Self::init(conn, Some(path.to_owned()))
    }

    /// A private database in memory, for tests and one-off runs.
    pub fn in_memory() -> Result<Self> {
        let conn =
            Connection::open_in_memory().map_err(Error::store("opening an in-memory database"))?;
        Self::init(conn, None)
    }

    fn init(mut conn: Connection, path: Option<PathBuf>) -> Result<Self> {
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(Error::store("enabling WAL"))?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(Error::store("setting synchronous"))?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(Error::store("enabling foreign keys"))?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(Error::store("setting busy timeout"))?;
        migrations::migrate(&mut conn)?;
        Ok(Self { conn, path })
    }

    /// Where the database lives (`None` in memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The schema version this store is at.
    pub fn schema_version(&self) -> Result<u32> {
        migrations::current(&self.conn)
    }
}

/// Milliseconds since the Unix epoch, for creation times.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
