//! The refine tables, in the catalog's database file (component `refine` of
//! `toolsmith_migrations`): runs, one row per finished API round (its checkpoint, written in
//! one transaction), and which APIs and tools a run has finished and which doc version each
//! got. `--resume` reads them back and redoes no finished round.

use std::path::Path;
use std::sync::MutexGuard;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use toolsmith_catalog::{ApiId, DocLabel, ToolId};
use toolsmith_plumbing::sqlite::{Migrations, SharedConnection};

use crate::error::{Error, Result};
use crate::record::{Method, Round, RunEnd, RunId};
use toolsmith_exec::Mode;
use toolsmith_plumbing::sqlite::{now_ms, write_transaction};
use toolsmith_plumbing::store::{from_column, to_column};

/// refine's schema; append only.
const MIGRATIONS: Migrations = Migrations::new(
    "refine",
    &["CREATE TABLE refine_runs (
    id INTEGER PRIMARY KEY,
    method TEXT NOT NULL,
    spec TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    finished_ms INTEGER,
    ended TEXT
);
CREATE TABLE refine_rounds (
    run INTEGER NOT NULL REFERENCES refine_runs(id) ON DELETE CASCADE,
    api TEXT NOT NULL,
    round INTEGER NOT NULL,
    record TEXT NOT NULL,
    stored_ms INTEGER NOT NULL,
    PRIMARY KEY (run, api, round)
);
CREATE INDEX refine_rounds_by_api ON refine_rounds(api, run);
CREATE TABLE refine_done (
    run INTEGER NOT NULL REFERENCES refine_runs(id) ON DELETE CASCADE,
    target TEXT NOT NULL,
    doc_version INTEGER,
    stored_ms INTEGER NOT NULL,
    PRIMARY KEY (run, target)
);"],
);

/// What a run refines and how: stored with the run, reused by `--resume`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// The method.
    pub method: Method,
    /// The APIs, in order.
    pub apis: Vec<ApiId>,
    /// The method's settings as JSON (its settings struct).
    pub settings: serde_json::Value,
    /// Where calls went (`simulate`, `live`, `replay`, ...).
    pub mode: Mode,
    /// The doc label refinement starts from.
    pub from_label: DocLabel,
    /// The model that wrote the docs (the model of [`Method::writer_role`]), so a gate can
    /// tell when its yardstick was written by the same model. `None` for runs stored before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writer: Option<String>,
}

/// A stored run's header.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunInfo {
    /// Its id.
    pub id: RunId,
    /// What it refines.
    pub spec: RunSpec,
    /// When it was created (ms since the epoch).
    pub created_ms: i64,
    /// When it ended, if it did.
    pub finished_ms: Option<i64>,
    /// How it ended, if it did.
    pub ended: Option<RunEnd>,
}

/// A round as stored, with its run and API.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoredRound {
    /// The run.
    pub run: RunId,
    /// The run's method.
    pub method: Method,
    /// The API.
    pub api: ApiId,
    /// The round.
    pub round: Round,
}

/// refine's tables. A struct over one connection; tests open it with [`RefineStore::in_memory`].
#[derive(Debug)]
pub struct RefineStore {
    conn: SharedConnection,
}

fn db(context: impl Into<String>) -> impl FnOnce(rusqlite::Error) -> Error {
    let context = context.into();
    move |source| Error::Store { context, source }
}

/// A stored run end: its JSON, or the bare name rows written before it was JSON kept
/// (`finished`, `budget`; the budget's message was not stored then).
fn read_end(text: &str) -> Result<RunEnd> {
    match text {
        "finished" => Ok(RunEnd::Finished),
        "budget" => Ok(RunEnd::Budget(String::new())),
        json => Ok(from_column("run end", json)?),
    }
}

/// The `refine_done` key of a tool (APIs use their id, which always has a `/`).
fn tool_key(tool: &ToolId) -> String {
    format!("tool:{tool}")
}

impl RefineStore {
    /// Opens refine's tables in the database at `path` (the catalog file), migrating as needed.
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

    /// Records a new run; returns its id.
    pub fn create_run(&self, spec: &RunSpec) -> Result<RunId> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO refine_runs (method, spec, created_ms) VALUES (?1, ?2, ?3)",
            params![spec.method.as_str(), to_column("run spec", spec)?, now_ms()],
        )
        .map_err(db("creating a refinement run"))?;
        Ok(RunId(conn.last_insert_rowid()))
    }

    /// A stored run.
    pub fn run(&self, id: RunId) -> Result<RunInfo> {
        self.conn()
            .query_row(
                "SELECT spec, created_ms, finished_ms, ended FROM refine_runs WHERE id = ?1",
                [id.0],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get::<_, Option<String>>(3)?,
                    ))
                },
            )
            .optional()
            .map_err(db(format!("reading run {id}")))?
            .ok_or(Error::UnknownRun(id.0))
            .and_then(|(spec, created_ms, finished_ms, ended)| {
                Ok(RunInfo {
                    id,
                    spec: from_column("run spec", &spec)?,
                    created_ms,
                    finished_ms,
                    ended: ended.as_deref().map(read_end).transpose()?,
                })
            })
    }

    /// Every run, newest first.
    pub fn runs(&self) -> Result<Vec<RunInfo>> {
        let ids: Vec<i64> = {
            let conn = self.conn();
            let mut stmt = conn
                .prepare("SELECT id FROM refine_runs ORDER BY id DESC")
                .map_err(db("listing runs"))?;
            stmt.query_map([], |r| r.get(0))
                .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                .map_err(db("listing runs"))?
        };
        ids.into_iter().map(|id| self.run(RunId(id))).collect()
    }

    /// The newest run, if any.
    pub fn latest_run(&self) -> Result<Option<RunId>> {
        self.conn()
            .query_row("SELECT MAX(id) FROM refine_runs", [], |r| {
                r.get::<_, Option<i64>>(0)
            })
            .map(|id| id.map(RunId))
            .map_err(db("finding the latest run"))
    }

    /// Marks a run ended, saying how.
    pub fn end_run(&self, id: RunId, how: &RunEnd) -> Result<()> {
        let how = to_column("run end", how)?;
        self.conn()
            .execute(
                "UPDATE refine_runs SET finished_ms = ?2, ended = ?3 WHERE id = ?1",
                params![id.0, now_ms(), how],
            )
            .map_err(db(format!("ending run {id}")))?;
        Ok(())
    }

    /// Stores one finished round: the checkpoint `--resume` continues from (one transaction).
    pub fn save_round(&self, run: RunId, api: &ApiId, round: &Round) -> Result<()> {
        let mut conn = self.conn();
        let tx = write_transaction(&mut conn)
            .map_err(db(format!("starting round {} of {api}", round.round)))?;
        tx.execute(
            "INSERT OR REPLACE INTO refine_rounds (run, api, round, record, stored_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![run.0, api.to_string(), round.round, to_column("round", round)?, now_ms()],
        )
        .map_err(db(format!("storing round {} of {api}", round.round)))?;
        tx.commit()
            .map_err(db(format!("committing round {} of {api}", round.round)))
    }

    /// The stored rounds of one API in one run, in order.
    pub fn rounds(&self, run: RunId, api: &ApiId) -> Result<Vec<Round>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT record FROM refine_rounds WHERE run = ?1 AND api = ?2 ORDER BY round")
            .map_err(db(format!("reading the rounds of {api}")))?;
        let rows = stmt
            .query_map(params![run.0, api.to_string()], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(db(format!("reading the rounds of {api}")))?;
        rows.iter()
            .map(|text| Ok(from_column("round", text)?))
            .collect()
    }

    /// Every stored round of one API, across runs, oldest run first: its revision history.
    pub fn history(&self, api: &ApiId) -> Result<Vec<StoredRound>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT r.run, u.method, r.record FROM refine_rounds r JOIN refine_runs u ON u.id = r.run
                 WHERE r.api = ?1 ORDER BY r.run, r.round",
            )
            .map_err(db(format!("reading the history of {api}")))?;
        let rows = stmt
            .query_map([api.to_string()], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(db(format!("reading the history of {api}")))?;
        rows.into_iter()
            .map(|(run, method, record)| {
                Ok(StoredRound {
                    run: RunId(run),
                    method: from_column("method", &format!("\"{method}\""))?,
                    api: api.clone(),
                    round: from_column("round", &record)?,
                })
            })
            .collect()
    }

    /// Records that a run finished an API (with the doc version it stored, if any).
    pub fn finish_api(&self, run: RunId, api: &ApiId, version: Option<u32>) -> Result<()> {
        self.finish(run, &api.to_string(), version)
    }

    /// Records that a run rewrote a tool's description.
    pub fn finish_tool(&self, run: RunId, tool: &ToolId, version: Option<u32>) -> Result<()> {
        self.finish(run, &tool_key(tool), version)
    }

    fn finish(&self, run: RunId, target: &str, version: Option<u32>) -> Result<()> {
        self.conn()
            .execute(
                "INSERT OR REPLACE INTO refine_done (run, target, doc_version, stored_ms) VALUES (?1, ?2, ?3, ?4)",
                params![run.0, target, version, now_ms()],
            )
            .map_err(db(format!("marking {target} done in run {run}")))?;
        Ok(())
    }

    /// Whether a run has finished an API.
    pub fn api_done(&self, run: RunId, api: &ApiId) -> Result<bool> {
        self.is_done(run, &api.to_string())
    }

    /// Whether a run has rewritten a tool's description.
    pub fn tool_done(&self, run: RunId, tool: &ToolId) -> Result<bool> {
        self.is_done(run, &tool_key(tool))
    }

    /// Records that a run finished a named step (ToolExpNet's per-iteration steps).
    pub fn finish_step(&self, run: RunId, step: &str) -> Result<()> {
        self.finish(run, &format!("step:{step}"), None)
    }

    /// Whether a run has finished a named step.
    pub fn step_done(&self, run: RunId, step: &str) -> Result<bool> {
        self.is_done(run, &format!("step:{step}"))
    }

    /// The named steps of a run that start with `prefix`, in the order they were finished.
    pub fn steps(&self, run: RunId, prefix: &str) -> Result<Vec<String>> {
        let what = || format!("reading the steps of run {run}");
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT target FROM refine_done WHERE run = ?1 AND substr(target, 1, ?2) = ?3 ORDER BY rowid")
            .map_err(db(what()))?;
        let full = format!("step:{prefix}");
        let rows = stmt
            .query_map(params![run.0, full.chars().count() as i64, full], |r| {
                r.get::<_, String>(0)
            })
            .map_err(db(what()))?;
        let mut out = Vec::new();
        for row in rows {
            let target = row.map_err(db(what()))?;
            if let Some(step) = target.strip_prefix("step:") {
                out.push(step.to_owned());
            }
        }
        Ok(out)
    }

    fn is_done(&self, run: RunId, target: &str) -> Result<bool> {
        self.conn()
            .query_row(
                "SELECT 1 FROM refine_done WHERE run = ?1 AND target = ?2",
                params![run.0, target],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
            .map_err(db(format!("checking {target} in run {run}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_and_done_marks_round_trip() {
        let store = RefineStore::in_memory().unwrap();
        let api: ApiId = "tmdb/search".parse().unwrap();
        let spec = RunSpec {
            method: Method::Draft,
            apis: vec![api.clone()],
            settings: serde_json::json!({}),
            mode: Mode::Simulate,
            from_label: "original".parse().unwrap(),
            writer: Some("m".into()),
        };
        let run = store.create_run(&spec).unwrap();
        assert_eq!(store.run(run).unwrap().spec, spec);
        store.save_round(run, &api, &Round::new(1, "a")).unwrap();
        store.save_round(run, &api, &Round::new(2, "b")).unwrap();
        let rounds = store.rounds(run, &api).unwrap();
        assert_eq!(rounds.iter().map(|r| r.round).collect::<Vec<_>>(), [1, 2]);
        assert!(!store.api_done(run, &api).unwrap());
        store.finish_api(run, &api, Some(3)).unwrap();
        assert!(store.api_done(run, &api).unwrap());
        assert_eq!(store.history(&api).unwrap().len(), 2);
        assert_eq!(store.latest_run().unwrap(), Some(run));
        assert!(matches!(store.run(RunId(99)), Err(Error::UnknownRun(99))));
    }

    #[test]
    fn a_run_end_reads_back_typed_and_old_rows_read_too() {
        let store = RefineStore::in_memory().unwrap();
        let spec = RunSpec {
            method: Method::EasyTool,
            apis: Vec::new(),
            settings: serde_json::json!({}),
            mode: Mode::Replay,
            from_label: "draft.r2".parse().unwrap(),
            writer: None,
        };
        let run = store.create_run(&spec).unwrap();
        assert_eq!(store.run(run).unwrap().ended, None);
        let end = RunEnd::Budget("100 calls".to_owned());
        store.end_run(run, &end).unwrap();
        assert_eq!(store.run(run).unwrap().ended, Some(end));
        // A row written when the end was its bare name.
        store
            .conn()
            .execute(
                "UPDATE refine_runs SET ended = 'finished' WHERE id = ?1",
                [run.0],
            )
            .unwrap();
        assert_eq!(store.run(run).unwrap().ended, Some(RunEnd::Finished));
        store
            .conn()
            .execute(
                "UPDATE refine_runs SET ended = 'teleported' WHERE id = ?1",
                [run.0],
            )
            .unwrap();
        assert!(matches!(store.run(run), Err(Error::StoredJson(_))));
    }
}
