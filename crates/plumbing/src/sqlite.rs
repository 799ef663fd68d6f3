//! SQLite opened the one way every toolsmith store does, and per-component schema migrations.
//!
//! Several components (catalog, LLM cache, response cache, solve runs) keep their tables in
//! ONE database file. Each has its own ordered list of migrations ([`Migrations`]) and its own
//! version, a row of `toolsmith_migrations(component, version)`; a migration runs once, in its
//! own transaction, together with the update of that row.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

/// How long a statement waits for another connection's lock before failing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// What can go wrong while opening or migrating a database.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The database's folder could not be created.
    #[error("cannot create the folder {}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// SQLite failed.
    #[error("{context}")]
    Sqlite {
        /// What was being done (`opening x.db`, `migrating catalog to version 2`).
        context: String,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// The file was migrated by a newer toolsmith than this one.
    #[error(
        "`{component}` tables are at schema version {found}, newer than this build knows ({known}); upgrade toolsmith"
    )]
    TooNew {
        /// The component.
        component: &'static str,
        /// The version recorded in the file.
        found: i64,
        /// The latest version this build has migrations for.
        known: u32,
    },
}

/// `Result` with this module's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn sqlite(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> Error {
    let context = context.into();
    move |source| Error::Sqlite { context, source }
}
/// Milliseconds since the Unix epoch: the creation and update times every store writes
/// (0 if the clock is before 1970, `i64::MAX` past the year 292 million).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Locks a store's shared connection. A panic in another thread while it held the lock
/// leaves SQLite consistent (every write is a transaction), so the poison is ignored
/// rather than failing every later call.
pub fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// A store's one connection, shared by `&self` methods across threads: what every
/// component store (refine runs, benchmark runs, the graph) holds instead of its own
/// `Mutex<Connection>` wrapper. Opened with the component's [`Migrations`] applied.
pub struct SharedConnection {
    conn: std::sync::Mutex<Connection>,
}

impl std::fmt::Debug for SharedConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedConnection").finish_non_exhaustive()
    }
}

impl SharedConnection {
    /// Opens the database at `path` (as [`open`] does) with `migrations` applied.
    pub fn open(path: &Path, migrations: &Migrations) -> Result<Self> {
        migrations.open(path).map(Self::from)
    }

    /// A private in-memory database with `migrations` applied (tests, one-off runs).
    pub fn in_memory(migrations: &Migrations) -> Result<Self> {
        migrations.open_in_memory().map(Self::from)
    }

    /// The connection, locked for as long as the guard lives ([`lock`]: a poisoned lock is
    /// taken over, since every write is a transaction).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        lock(&self.conn)
    }

    /// Runs `f` on the locked connection (`&mut` for transactions).
    pub fn with<T>(&self, f: impl FnOnce(&mut Connection) -> T) -> T {
        f(&mut self.lock())
    }
}

impl From<Connection> for SharedConnection {
    fn from(conn: Connection) -> Self {
        Self {
            conn: std::sync::Mutex::new(conn),
        }
    }
}

/// Opens (creating it and its folder if needed) the database at `path`: WAL journal,
/// `synchronous = NORMAL`, foreign keys on and a [`BUSY_TIMEOUT`].
pub fn open(path: &Path) -> Result<Connection> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| Error::CreateDir {
            path: dir.to_owned(),
            source,
        })?;
    }
    let conn = Connection::open(path).map_err(sqlite(format!("opening {}", path.display())))?;
    // `journal_mode` answers with the mode now in force.
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))
        .map_err(sqlite("enabling WAL"))?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(sqlite("setting synchronous"))?;
    configure(&conn)?;
    Ok(conn)
}

/// Begins a transaction that will write: `BEGIN IMMEDIATE`, which takes the file's write lock
/// up front (waiting up to [`BUSY_TIMEOUT`] for another connection's). A deferred transaction
/// that reads and then writes fails at once with "database is locked" (`SQLITE_BUSY_SNAPSHOT`)
/// when another connection committed after its read, as two `refine` runs on one catalog did.
pub fn write_transaction(conn: &mut Connection) -> rusqlite::Result<Transaction<'_>> {
    conn.transaction_with_behavior(TransactionBehavior::Immediate)
}

/// A private database in memory (for tests and one-off runs), set up as [`open`] does where
/// that applies (no WAL in memory).
pub fn open_in_memory() -> Result<Connection> {
    let conn = Connection::open_in_memory().map_err(sqlite("opening an in-memory database"))?;
    configure(&conn)?;
    Ok(conn)
}

fn configure(conn: &Connection) -> Result<()> {
    conn.pragma_update(None, "foreign_keys", "ON")
        .map_err(sqlite("enabling foreign keys"))?;
    conn.busy_timeout(BUSY_TIMEOUT)
        .map_err(sqlite("setting the busy timeout"))?;
    Ok(())
}

/// One component's schema: its name in `toolsmith_migrations` and its migrations in order.
/// Migration `i` brings the component from version `i` to `i + 1`; the list is append only.
#[derive(Clone, Copy, Debug)]
pub struct Migrations {
    component: &'static str,
    steps: &'static [&'static str],
}

impl Migrations {
    /// The migrations `steps` (SQL batches, oldest first) of `component`.
    pub const fn new(component: &'static str, steps: &'static [&'static str]) -> Self {
        Self { component, steps }
    }

    /// The component's name, the key of its row in `toolsmith_migrations`.
    pub fn component(&self) -> &'static str {
        self.component
    }

    /// The version the last migration reaches.
    pub fn latest(&self) -> u32 {
        u32::try_from(self.steps.len()).unwrap_or(u32::MAX)
    }

    /// Opens the database at `path` as [`open`] does, with these migrations applied: what a
    /// component's store calls to get its connection.
    pub fn open(&self, path: &Path) -> Result<Connection> {
        let mut conn = open(path)?;
        self.apply(&mut conn)?;
        Ok(conn)
    }

    /// A private in-memory database with these migrations applied.
    pub fn open_in_memory(&self) -> Result<Connection> {
        let mut conn = open_in_memory()?;
        self.apply(&mut conn)?;
        Ok(conn)
    }

    /// Runs the migrations the database has not had yet; returns the version reached. A file
    /// already past [`Migrations::latest`] is [`Error::TooNew`] and is left untouched.
    pub fn apply(&self, conn: &mut Connection) -> Result<u32> {
        ensure_table(conn)?;
        let current = self.recorded(conn)?;
        let known = self.latest();
        let done = match u32::try_from(current) {
            Ok(v) if v <= known => v,
            _ => {
                return Err(Error::TooNew {
                    component: self.component,
                    found: current,
                    known,
                });
            }
        };
        for (version, sql) in (1u32..).zip(self.steps).skip(done as usize) {
            let context = format!("migrating {} to schema version {version}", self.component);
            let tx = write_transaction(conn).map_err(sqlite(context.clone()))?;
            tx.execute_batch(sql).map_err(sqlite(context.clone()))?;
            tx.execute(
                "INSERT INTO toolsmith_migrations (component, version) VALUES (?1, ?2)
                 ON CONFLICT(component) DO UPDATE SET version = excluded.version",
                params![self.component, version],
            )
            .map_err(sqlite(context.clone()))?;
            tx.commit().map_err(sqlite(context))?;
        }
        Ok(known)
    }

    /// The schema version the database is at for this component (0 before any migration).
    pub fn current(&self, conn: &Connection) -> Result<u32> {
        ensure_table(conn)?;
        let found = self.recorded(conn)?;
        u32::try_from(found).map_err(|_| Error::TooNew {
            component: self.component,
            found,
            known: self.latest(),
        })
    }

    fn recorded(&self, conn: &Connection) -> Result<i64> {
        conn.query_row(
            "SELECT version FROM toolsmith_migrations WHERE component = ?1",
            [self.component],
            |r| r.get::<_, Option<i64>>(0),
        )
        .optional()
        .map(|v| v.flatten().unwrap_or(0))
        .map_err(sqlite(format!(
            "reading the schema version of {}",
            self.component
        )))
    }
}

fn ensure_table(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS toolsmith_migrations (component TEXT PRIMARY KEY, version INTEGER NOT NULL)",
    )
    .map_err(sqlite("creating the migrations table"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTES: Migrations = Migrations::new(
        "notes",
        &[
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)",
            "ALTER TABLE notes ADD COLUMN author TEXT",
        ],
    );
    const TAGS: Migrations = Migrations::new(
        "tags",
        &["CREATE TABLE tags (note INTEGER NOT NULL REFERENCES notes(id))"],
    );

    #[test]
    fn components_migrate_independently_in_one_file_and_only_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/t.db");
        let mut conn = open(&path).unwrap();
        assert_eq!(NOTES.current(&conn).unwrap(), 0);
        assert_eq!(NOTES.apply(&mut conn).unwrap(), 2);
        assert_eq!(TAGS.apply(&mut conn).unwrap(), 1);
        conn.execute("INSERT INTO notes (text, author) VALUES ('a', 'b')", [])
            .unwrap();
        drop(conn);
        let mut conn = open(&path).unwrap();
        assert_eq!(
            NOTES.apply(&mut conn).unwrap(),
            2,
            "a second open re-runs nothing"
        );
        assert_eq!(NOTES.current(&conn).unwrap(), 2);
        assert_eq!(TAGS.current(&conn).unwrap(), 1);
        let rows: i64 = conn
            .query_row("SELECT COUNT(*) FROM notes", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 1);
    }

    #[test]
    fn files_are_wal_with_foreign_keys_and_a_busy_timeout() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = open(&dir.path().join("t.db")).unwrap();
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let timeout: i64 = conn
            .query_row("PRAGMA busy_timeout", [], |r| r.get(0))
            .unwrap();
        assert_eq!(timeout, 10_000);
        NOTES.apply(&mut conn).unwrap();
        TAGS.apply(&mut conn).unwrap();
        let orphan = conn.execute("INSERT INTO tags (note) VALUES (42)", []);
        assert!(orphan.is_err(), "foreign keys are enforced");
    }

    #[test]
    fn a_newer_file_is_refused_and_left_alone() {
        let mut conn = open_in_memory().unwrap();
        NOTES.apply(&mut conn).unwrap();
        let older = Migrations::new("notes", &["CREATE TABLE notes (id INTEGER PRIMARY KEY)"]);
        let err = older.apply(&mut conn).unwrap_err();
        assert!(
            matches!(
                err,
                Error::TooNew {
                    component: "notes",
                    found: 2,
                    known: 1
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("upgrade toolsmith"));
        assert_eq!(NOTES.current(&conn).unwrap(), 2);
    }

    #[test]
    fn a_shared_connection_is_migrated_and_usable_from_threads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let shared = std::sync::Arc::new(SharedConnection::open(&path, &NOTES).unwrap());
        let writers: Vec<_> = (0..4)
            .map(|i| {
                let shared = std::sync::Arc::clone(&shared);
                std::thread::spawn(move || {
                    shared.with(|conn| {
                        let tx = conn.transaction().unwrap();
                        tx.execute("INSERT INTO notes (text) VALUES (?1)", [i.to_string()])
                            .unwrap();
                        tx.commit().unwrap();
                    });
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        let rows: i64 = shared
            .lock()
            .query_row("SELECT COUNT(*) FROM notes", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 4);
        let memory = SharedConnection::in_memory(&TAGS).unwrap();
        assert_eq!(TAGS.current(&memory.lock()).unwrap(), 1);
    }

    #[test]
    fn a_failed_migration_rolls_back_and_names_itself() {
        let mut conn = open_in_memory().unwrap();
        let broken = Migrations::new("broken", &["CREATE TABLE ok (x)", "NOT SQL"]);
        let err = broken.apply(&mut conn).unwrap_err();
        assert_eq!(err.to_string(), "migrating broken to schema version 2");
        assert!(std::error::Error::source(&err).is_some());
        assert_eq!(broken.current(&conn).unwrap(), 1);
    }
}
