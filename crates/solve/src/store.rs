//! Runs kept in the SQLite file beside the catalog: one row per run with its
//! final state and its whole trace as JSON.

use std::path::Path;

use rusqlite::{Connection, params};
use toolsmith_plumbing::sqlite::Migrations;

use crate::error::{Error, Result};
use crate::run::Run;
use crate::trace::CallCounts;

/// The runs table, versioned as the component `solve` of `toolsmith_migrations`. Step `i`
/// brings it from version `i` to `i + 1`; append only.
const MIGRATIONS: Migrations = Migrations::new(
    "solve",
    &[
        "CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    solver TEXT NOT NULL,
    query TEXT NOT NULL,
    finish TEXT NOT NULL,
    answer TEXT,
    detail TEXT,
    llm_calls INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    trace TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL
)",
        // The tool calls counted apart (see `CallCounts`); rows from before read as zeros.
        "ALTER TABLE runs ADD COLUMN executed_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN rejected_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN unknown_tool_calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN searches INTEGER NOT NULL DEFAULT 0;",
    ],
);

/// The table of runs.
pub struct RunStore {
    conn: Connection,
}

fn store_err(context: &str) -> impl FnOnce(rusqlite::Error) -> Error + '_ {
    move |source| Error::Store {
        context: context.to_owned(),
        source,
    }
}

impl RunStore {
    /// Opens the runs table in the database at `path` (creating it if needed), set up as
    /// every toolsmith store is (WAL, busy timeout).
    pub fn open(path: &Path) -> Result<Self> {
        Ok(Self {
            conn: MIGRATIONS.open(path)?,
        })
    }

    /// A private store in memory.
    pub fn in_memory() -> Result<Self> {
        Ok(Self {
            conn: MIGRATIONS.open_in_memory()?,
        })
    }

    /// Stores a run; returns its id.
    pub fn save(&self, run: &Run) -> Result<i64> {
        let trace = serde_json::to_string(&run.trace).map_err(|e| Error::Trace(e.to_string()))?;
        let calls = run.call_counts();
        let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(0))
            .unwrap_or(0);
        self.conn
            .execute(
                "INSERT INTO runs (solver, query, finish, answer, detail, llm_calls, tokens, trace, created_at_ms,
                    executed_calls, rejected_calls, unknown_tool_calls, searches)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    run.solver,
                    run.query,
                    run.finish.as_str(),
                    run.answer,
                    run.detail,
                    i64::try_from(run.llm_calls()).unwrap_or(i64::MAX),
                    i64::try_from(run.tokens()).unwrap_or(i64::MAX),
                    trace,
                    now,
                    count(calls.executed),
                    count(calls.rejected),
                    count(calls.unknown_tool),
                    count(calls.searches)
                ],
            )
            .map_err(store_err("saving a run"))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The tool calls of a stored run as its columns count them (executed, rejected,
    /// unknown tools, searches; `not_run` is not stored and reads as 0).
    pub fn call_counts(&self, id: i64) -> Result<CallCounts> {
        let counts: [i64; 4] = self
            .conn
            .query_row(
                "SELECT executed_calls, rejected_calls, unknown_tool_calls, searches FROM runs WHERE id = ?1",
                [id],
                |r| Ok([r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?]),
            )
            .map_err(store_err("reading a run"))?;
        let n = |i: usize| {
            counts
                .get(i)
                .map_or(0, |v| usize::try_from(*v).unwrap_or(0))
        };
        Ok(CallCounts {
            executed: n(0),
            rejected: n(1),
            unknown_tool: n(2),
            not_run: 0,
            searches: n(3),
        })
    }

    /// The trace of a stored run.
    pub fn trace(&self, id: i64) -> Result<Vec<crate::trace::Stamped>> {
        let text: String = self
            .conn
            .query_row("SELECT trace FROM runs WHERE id = ?1", [id], |r| r.get(0))
            .map_err(store_err("reading a run"))?;
        // Each event carries its format version: older traces read too.
        serde_json::from_str(&text).map_err(|e| Error::ReadTrace {
            line: 1,
            message: e.to_string(),
        })
    }
}
