//! Schema migrations of the catalog's tables. Each entry runs once, in order,
//! in its own transaction; the version reached is kept in
//! `toolsmith_migrations` under the component `catalog` (other crates keep
//! their own components in the same table and file).

use rusqlite::{Connection, OptionalExtension};

use crate::error::{Error, Result};

const COMPONENT: &str = "catalog";

/// Migration `i` brings the schema from version `i` to `i + 1`. Append only.
const MIGRATIONS: &[&str] = &[
    // 1: sources, tools, APIs, aliases and versioned docs.
    "
    CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        format TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        imported_at_ms INTEGER NOT NULL
    );
    CREATE TABLE tools (
        id TEXT PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        category TEXT NOT NULL,
        base_url TEXT,
        security TEXT NOT NULL,
        source_id INTEGER REFERENCES sources(id)
    );
    CREATE TABLE apis (
        id TEXT PRIMARY KEY,
        tool_id TEXT NOT NULL REFERENCES tools(id),
        ordinal INTEGER NOT NULL,
        name TEXT NOT NULL,
        source_name TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        params TEXT NOT NULL,
        request_body TEXT,
        response_schema TEXT,
        response_examples TEXT NOT NULL
    );
    CREATE INDEX apis_by_tool ON apis(tool_id, ordinal);
    CREATE TABLE aliases (
        alias TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('tool', 'api')),
        target TEXT NOT NULL,
        PRIMARY KEY (alias, kind, target)
    ) WITHOUT ROWID;
    CREATE TABLE docs (
        id INTEGER PRIMARY KEY,
        target TEXT NOT NULL,
        version INTEGER NOT NULL,
        label TEXT NOT NULL,
        source TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL,
        description TEXT NOT NULL,
        examples TEXT NOT NULL,
        UNIQUE (target, version)
    );
    CREATE INDEX docs_by_label ON docs(label, target);
    CREATE TABLE active_docs (
        target TEXT PRIMARY KEY,
        doc_id INTEGER NOT NULL REFERENCES docs(id)
    ) WITHOUT ROWID;
    ",
];

/// Brings the schema up to date.
pub(super) fn migrate(conn: &mut Connection) -> Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS toolsmith_migrations (component TEXT PRIMARY KEY, version INTEGER NOT NULL)",
    )
    .map_err(Error::store("creating the migrations table"))?;
    let current = current(conn)?;
    let known = MIGRATIONS.len();
    if current as usize > known {
        return Err(Error::Corrupt(format!(
            "schema version {current} is newer than this build knows ({known}); upgrade toolsmith"
        )));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        let version = i + 1;
        let tx = conn
            .transaction()
            .map_err(Error::store("starting a migration"))?;
        tx.execute_batch(sql).map_err(Error::store(format!(
            "migrating to schema version {version}"
        )))?;
        tx.execute(
            "INSERT INTO toolsmith_migrations (component, version) VALUES (?1, ?2)
             ON CONFLICT(component) DO UPDATE SET version = excluded.version",
            rusqlite::params![COMPONENT, version],
        )
        .map_err(Error::store("recording the schema version"))?;
        tx.commit()
            .map_err(Error::store(format!("committing schema version {version}")))?;
    }
    Ok(())
}

/// The schema version reached so far (0 for a new file).
pub(super) fn current(conn: &Connection) -> Result<u32> {
    conn.query_row(
        "SELECT version FROM toolsmith_migrations WHERE component = ?1",
        [COMPONENT],
        |r| r.get(0),
    )
    .optional()
    .map(|v| v.unwrap_or(0))
    .map_err(Error::store("reading the schema version"))
}
