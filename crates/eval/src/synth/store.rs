//! [`SynthStore`]: synthesized sets in the catalog database (eval's component, tables
//! `synth_sets`, `synth_paths`, `synth_queries`). A path's requests are written with the
//! path's done mark in one transaction, so a killed run redoes only unfinished paths.

use std::path::Path;
use std::sync::MutexGuard;

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};
use toolsmith_plumbing::sqlite::{SharedConnection, now_ms, write_transaction};
use toolsmith_plumbing::store::{from_column, to_column};

use super::filter::DropReason;
use super::path::GoldPath;
use super::spec::SetSpec;
use super::writer::{Phrasing, PlannedCall};
use crate::error::{Error, Result};
use crate::harness::store::MIGRATIONS;

/// Which part of a set a kept request belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Held out for measuring: never indexed, never shown to a refiner.
    Eval,
    /// May be used by synthetic-query expansion.
    Index,
}

impl Split {
    /// The stable name (`eval`, `index`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Eval => "eval",
            Self::Index => "index",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "eval" => Some(Self::Eval),
            "index" => Some(Self::Index),
            _ => None,
        }
    }
}

impl std::fmt::Display for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What became of a written request.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Fate {
    /// In the set.
    Kept {
        /// Its split.
        split: Split,
        /// The model's short answer from the responses, when it was asked.
        reference: Option<String>,
    },
    /// Left out.
    Dropped {
        /// Why.
        reason: DropReason,
    },
}

/// One written request of a set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SynthQuery {
    /// Its id within the set (`<path>-<n>`).
    pub id: String,
    /// The index of its path in the set.
    pub path_idx: usize,
    /// What the user asks.
    pub text: String,
    /// How it is worded.
    pub phrasing: Phrasing,
    /// Its gold path.
    pub path: GoldPath,
    /// The calls that answer it.
    pub calls: Vec<PlannedCall>,
    /// Kept or dropped.
    pub fate: Fate,
}

/// A stored set's header.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SynthSet {
    /// Its row id.
    pub id: i64,
    /// Its name (what `--dataset synth:NAME` names).
    pub name: String,
    /// How it was made.
    pub spec: SetSpec,
    /// When it was created (ms since the epoch).
    pub created_ms: i64,
    /// When its last path was done; `None` while unfinished.
    pub finished_ms: Option<i64>,
}

/// A stored path and whether its requests are stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPath {
    /// Its index in the set.
    pub idx: usize,
    /// The path.
    pub path: GoldPath,
    /// Whether its requests are stored.
    pub done: bool,
}

/// The synthesized sets' tables.
#[derive(Debug)]
pub struct SynthStore {
    conn: SharedConnection,
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl SynthStore {
    /// Opens the tables in the database at `path` (the catalog file), migrating as needed.
    pub fn open(path: &Path) -> Result<Self> {
        Ok(Self {
            conn: SharedConnection::open(path, &MIGRATIONS)?,
        })
    }

    /// A private store in memory.
    pub fn in_memory() -> Result<Self> {
        Ok(Self {
            conn: SharedConnection::in_memory(&MIGRATIONS)?,
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock()
    }

    /// Creates the set `name` with its sampled `paths`, in one transaction; fails when a set
    /// of that name exists.
    pub fn create_set(&self, name: &str, spec: &SetSpec, paths: &[GoldPath]) -> Result<i64> {
        if self.set(name)?.is_some() {
            return Err(Error::BadSpec(format!(
                "a synthesized set named `{name}` exists: resume it with --resume, or pick another name"
            )));
        }
        let mut conn = self.conn();
        let context = || format!("creating the synthesized set {name}");
        let tx = write_transaction(&mut conn).map_err(Error::store(context()))?;
        tx.execute(
            "INSERT INTO synth_sets (name, spec, created_ms) VALUES (?1, ?2, ?3)",
            params![name, to_column("set spec", spec)?, now_ms()],
        )
        .map_err(Error::store(context()))?;
        let id = tx.last_insert_rowid();
        for (idx, path) in paths.iter().enumerate() {
            tx.execute(
                "INSERT INTO synth_paths (set_id, idx, path) VALUES (?1, ?2, ?3)",
                params![id, to_i64(idx), to_column("gold path", path)?],
            )
            .map_err(Error::store(context()))?;
        }
        tx.commit().map_err(Error::store(context()))?;
        Ok(id)
    }

    /// The set named `name`, if stored.
    pub fn set(&self, name: &str) -> Result<Option<SynthSet>> {
        let raw = self
            .conn()
            .query_row(
                "SELECT id, name, spec, created_ms, finished_ms FROM synth_sets WHERE name = ?1",
                params![name],
                RawSet::read,
            )
            .optional()
            .map_err(Error::store(format!("reading the synthesized set {name}")))?;
        raw.map(RawSet::parse).transpose()
    }

    /// Every set, oldest first.
    pub fn sets(&self) -> Result<Vec<SynthSet>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT id, name, spec, created_ms, finished_ms FROM synth_sets ORDER BY id")
            .map_err(Error::store("listing synthesized sets"))?;
        let rows = stmt
            .query_map([], RawSet::read)
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(Error::store("listing synthesized sets"))?;
        rows.into_iter().map(RawSet::parse).collect()
    }

    /// A set's paths in order.
    pub fn paths(&self, set: i64) -> Result<Vec<StoredPath>> {
        let conn = self.conn();
        let context = || format!("reading the paths of synthesized set {set}");
        let mut stmt = conn
            .prepare("SELECT idx, path, done_ms FROM synth_paths WHERE set_id = ?1 ORDER BY idx")
            .map_err(Error::store(context()))?;
        let rows: Vec<(i64, String, Option<i64>)> = stmt
            .query_map(params![set], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(Error::store(context()))?;
        rows.into_iter()
            .map(|(idx, path, done)| {
                Ok(StoredPath {
                    idx: usize::try_from(idx).unwrap_or_default(),
                    path: from_column("gold path", &path)?,
                    done: done.is_some(),
                })
            })
            .collect()
    }

    /// Stores a path's requests and marks it done, in one transaction.
    pub fn finish_path(&self, set: i64, idx: usize, queries: &[SynthQuery]) -> Result<()> {
        let mut conn = self.conn();
        let context = || format!("storing path {idx} of synthesized set {set}");
        let tx = write_transaction(&mut conn).map_err(Error::store(context()))?;
        for q in queries {
            let (split, reference, dropped) = match &q.fate {
                Fate::Kept { split, reference } => (Some(split.as_str()), reference.clone(), None),
                Fate::Dropped { reason } => (None, None, Some(reason.as_str())),
            };
            tx.execute(
                "INSERT OR REPLACE INTO synth_queries (set_id, query_id, path_idx, text, phrasing, kind, gold, calls, split, reference, dropped, stored_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    set,
                    q.id,
                    to_i64(q.path_idx),
                    q.text,
                    q.phrasing.as_str(),
                    q.path.kind.as_str(),
                    to_column("gold path", &q.path)?,
                    to_column("planned calls", &q.calls)?,
                    split,
                    reference,
                    dropped,
                    now_ms()
                ],
            )
            .map_err(Error::store(context()))?;
        }
        tx.execute(
            "UPDATE synth_paths SET done_ms = ?3 WHERE set_id = ?1 AND idx = ?2",
            params![set, to_i64(idx), now_ms()],
        )
        .map_err(Error::store(context()))?;
        tx.commit().map_err(Error::store(context()))
    }

    /// Marks a set finished.
    pub fn mark_finished(&self, set: i64) -> Result<()> {
        self.conn()
            .execute(
                "UPDATE synth_sets SET finished_ms = ?2 WHERE id = ?1",
                params![set, now_ms()],
            )
            .map_err(Error::store(format!("finishing synthesized set {set}")))?;
        Ok(())
    }

    /// Every stored request of a set (kept and dropped), by path then id.
    pub fn queries(&self, set: i64) -> Result<Vec<SynthQuery>> {
        let conn = self.conn();
        let context = || format!("reading the requests of synthesized set {set}");
        let mut stmt = conn
            .prepare(
                "SELECT query_id, path_idx, text, phrasing, gold, calls, split, reference, dropped
                 FROM synth_queries WHERE set_id = ?1 ORDER BY path_idx, query_id",
            )
            .map_err(Error::store(context()))?;
        let rows = stmt
            .query_map(params![set], RawQuery::read)
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(Error::store(context()))?;
        rows.into_iter().map(RawQuery::parse).collect()
    }

    /// The kept requests of one split.
    pub fn split(&self, set: i64, split: Split) -> Result<Vec<SynthQuery>> {
        Ok(self
            .queries(set)?
            .into_iter()
            .filter(|q| matches!(&q.fate, Fate::Kept { split: s, .. } if *s == split))
            .collect())
    }
}

struct RawSet {
    id: i64,
    name: String,
    spec: String,
    created_ms: i64,
    finished_ms: Option<i64>,
}

impl RawSet {
    fn read(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: r.get(0)?,
            name: r.get(1)?,
            spec: r.get(2)?,
            created_ms: r.get(3)?,
            finished_ms: r.get(4)?,
        })
    }

    fn parse(self) -> Result<SynthSet> {
        Ok(SynthSet {
            id: self.id,
            name: self.name,
            spec: from_column("set spec", &self.spec)?,
            created_ms: self.created_ms,
            finished_ms: self.finished_ms,
        })
    }
}

struct RawQuery {
    id: String,
    path_idx: i64,
    text: String,
    phrasing: String,
    gold: String,
    calls: String,
    split: Option<String>,
    reference: Option<String>,
    dropped: Option<String>,
}

impl RawQuery {
    fn read(r: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self {
            id: r.get(0)?,
            path_idx: r.get(1)?,
            text: r.get(2)?,
            phrasing: r.get(3)?,
            gold: r.get(4)?,
            calls: r.get(5)?,
            split: r.get(6)?,
            reference: r.get(7)?,
            dropped: r.get(8)?,
        })
    }

    fn parse(self) -> Result<SynthQuery> {
        let bad = |what: &str, value: &str| {
            Error::BadSpec(format!(
                "synthesized request {}: unknown {what} `{value}`",
                self.id
            ))
        };
        let phrasing: Phrasing = serde_json::from_value(self.phrasing.clone().into())
            .map_err(|_| bad("phrasing", &self.phrasing))?;
        let fate = match (&self.split, &self.dropped) {
            (Some(s), _) => Fate::Kept {
                split: Split::parse(s).ok_or_else(|| bad("split", s))?,
                reference: self.reference.clone(),
            },
            (None, Some(d)) => Fate::Dropped {
                reason: serde_json::from_value(d.clone().into()).map_err(|_| bad("reason", d))?,
            },
            (None, None) => return Err(bad("verdict", "none")),
        };
        Ok(SynthQuery {
            path_idx: usize::try_from(self.path_idx).unwrap_or_default(),
            text: self.text,
            phrasing,
            path: from_column("gold path", &self.gold)?,
            calls: from_column("planned calls", &self.calls)?,
            fate,
            id: self.id,
        })
    }
}
