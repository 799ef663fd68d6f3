//! Schema migrations of the catalog's tables, run by the shared runner
//! ([`toolsmith_plumbing::sqlite::Migrations`]): each entry runs once, in order,
//! in its own transaction; the version reached is kept in
//! `toolsmith_migrations` under the component `catalog` (other crates keep
//! their own components in the same table and file).

use toolsmith_plumbing::sqlite::Migrations;

/// The catalog's migrations: step `i` brings the schema from version `i` to `i + 1`. Append
/// only.
pub(super) const MIGRATIONS: Migrations = Migrations::new(
    "catalog",
    &[
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
        // 2: each API's access facts (security requirement, declared effects) as JSON.
        "ALTER TABLE apis ADD COLUMN access TEXT NOT NULL DEFAULT '{}';",
        // 3: each doc version's synthetic user requests (retrieval views) as a JSON array.
        "ALTER TABLE docs ADD COLUMN queries TEXT NOT NULL DEFAULT '[]';",
        // 4: the gate's doc decisions: per round and target, the candidate and the version
        // active before, what was decided, by which rule, and the figures it rested on.
        "
    CREATE TABLE doc_decisions (
        id INTEGER PRIMARY KEY,
        round INTEGER NOT NULL,
        target TEXT NOT NULL,
        label TEXT NOT NULL,
        candidate INTEGER NOT NULL,
        previous INTEGER,
        outcome TEXT NOT NULL,
        evidence TEXT NOT NULL,
        rule TEXT NOT NULL,
        figures TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL
    );
    CREATE INDEX doc_decisions_by_target ON doc_decisions(target, round);
    CREATE INDEX doc_decisions_by_round ON doc_decisions(round);
    ",
    ],
);
