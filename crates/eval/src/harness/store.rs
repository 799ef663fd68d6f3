//! [`BenchStore`]: eval's tables in the catalog database, migrated as the component `eval`
//! through plumbing: `bench_runs` (one row per run: name, spec, when created and finished)
//! and `bench_results` (one row per finished query: its typed, versioned trace, the record
//! the metrics read, and the scores). Each query's result is written in its own transaction,
//! so a killed run loses nothing that had finished. `retrieval_results` keeps each
//! `bench retrieval` measurement ([`RetrievalResult`]) for the report's NDCG@k curves.

use std::collections::HashSet;
use std::path::Path;
use std::sync::MutexGuard;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use toolsmith_catalog::{ApiId, DocLabel};
use toolsmith_plumbing::sqlite::{Migrations, SharedConnection};
use toolsmith_retrieve::Method;
use toolsmith_solve::{Finish, Run};

use crate::error::{Error, Result};
use crate::harness::query::{QueryJudgement, QueryResult};
use crate::harness::score::{QueryScores, RunSummary};
use crate::harness::spec::BenchSpec;
use crate::metrics::win_rate::PairedVerdict;
use crate::run::RunRecord;
use toolsmith_plumbing::sqlite::{now_ms, write_transaction};
use toolsmith_plumbing::store::{from_column, to_column};

/// eval's schema, the component `eval` of `toolsmith_migrations`; append only.
pub(crate) const MIGRATIONS: Migrations = Migrations::new(
    "eval",
    &[
        "CREATE TABLE bench_runs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    spec TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    finished_ms INTEGER
);
CREATE TABLE bench_results (
    run INTEGER NOT NULL REFERENCES bench_runs(id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    finish TEXT NOT NULL,
    trace TEXT NOT NULL,
    record TEXT NOT NULL,
    offered TEXT NOT NULL,
    scores TEXT NOT NULL,
    stored_ms INTEGER NOT NULL,
    PRIMARY KEY (run, query_id)
);",
        // Judged pass rates (one row per query and judge run) and pairwise preferences (one row
        // per query and round of a candidate run against a reference run).
        "CREATE TABLE bench_judgements (
    run INTEGER NOT NULL REFERENCES bench_runs(id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    judge_run INTEGER NOT NULL,
    judgement TEXT NOT NULL,
    stored_ms INTEGER NOT NULL,
    PRIMARY KEY (run, query_id, judge_run)
);
CREATE TABLE bench_preferences (
    run INTEGER NOT NULL REFERENCES bench_runs(id) ON DELETE CASCADE,
    reference INTEGER NOT NULL REFERENCES bench_runs(id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    verdict TEXT NOT NULL,
    stored_ms INTEGER NOT NULL,
    PRIMARY KEY (run, reference, query_id, round)
);",
        // `bench retrieval` results, for the report's NDCG@k curves.
        "CREATE TABLE retrieval_results (
    id INTEGER PRIMARY KEY,
    dataset TEXT NOT NULL,
    method TEXT NOT NULL,
    doc_version TEXT,
    result TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);",
        // Synthesized evaluation sets (`toolsmith synth`, module `synth`): a set, its sampled
        // gold paths (a path is done once its requests are stored, so a run resumes), and every
        // written request, kept with its split or dropped with the reason.
        "CREATE TABLE synth_sets (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    spec TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    finished_ms INTEGER
);
CREATE TABLE synth_paths (
    set_id INTEGER NOT NULL REFERENCES synth_sets(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    path TEXT NOT NULL,
    done_ms INTEGER,
    PRIMARY KEY (set_id, idx)
);
CREATE TABLE synth_queries (
    set_id INTEGER NOT NULL REFERENCES synth_sets(id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    path_idx INTEGER NOT NULL,
    text TEXT NOT NULL,
    phrasing TEXT NOT NULL,
    kind TEXT NOT NULL,
    gold TEXT NOT NULL,
    calls TEXT NOT NULL,
    split TEXT,
    reference TEXT,
    dropped TEXT,
    stored_ms INTEGER NOT NULL,
    PRIMARY KEY (set_id, query_id)
);",
    ],
);

/// A stored benchmark run's id (the one run id type, shared with refine's runs).
pub use toolsmith_plumbing::store::RunId;

/// A stored run's header.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchRun {
    /// Its id.
    pub id: RunId,
    /// Its name.
    pub name: String,
    /// What ran.
    pub spec: BenchSpec,
    /// When it was created (ms since the epoch).
    pub created_ms: i64,
    /// When its last selected query finished; `None` while unfinished (stopped or running).
    pub finished_ms: Option<i64>,
}

/// One stored query result.
#[derive(Clone, Debug, Serialize)]
pub struct StoredResult {
    /// The query's id.
    pub query_id: String,
    /// The solver's run with its typed trace (every event carries its format version).
    pub run: Run,
    /// What the metrics read of it.
    pub record: RunRecord,
    /// The APIs offered.
    pub offered: Vec<ApiId>,
    /// Its scores.
    pub scores: QueryScores,
}

/// One `bench retrieval` measurement: a method's scores on a dataset's queries with one doc
/// version. Scores are percentages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RetrievalResult {
    /// The dataset's name (`restbench-tmdb`, a file path, ...).
    pub dataset: String,
    /// How it retrieved.
    pub method: Method,
    /// The docs it searched; `None` for the original (active) ones.
    pub doc_version: Option<DocLabel>,
    /// Queries scored.
    pub queries: usize,
    /// Mean NDCG@k for k = 1, 2, ... (entry `k - 1`), in percent.
    pub ndcg: Vec<f64>,
    /// Mean Recall@5, in percent.
    pub recall_5: f64,
    /// Mean Recall@10, in percent.
    pub recall_10: f64,
}

/// A stored [`RetrievalResult`] with its id and time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoredRetrieval {
    /// Its row id.
    pub id: i64,
    /// When it was stored (ms since the epoch).
    pub created_ms: i64,
    /// The measurement.
    #[serde(flatten)]
    pub result: RetrievalResult,
}

/// eval's tables. A struct over one connection; tests open it with [`BenchStore::in_memory`].
#[derive(Debug)]
pub struct BenchStore {
    conn: SharedConnection,
}

impl BenchStore {
    /// Opens eval's tables in the database at `path` (the catalog file), creating and
    /// migrating them as needed.
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

    /// Records a new run of `spec`; returns its id.
    pub fn create_run(&self, spec: &BenchSpec) -> Result<RunId> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO bench_runs (name, spec, created_ms) VALUES (?1, ?2, ?3)",
            params![spec.name, to_column("run spec", spec)?, now_ms()],
        )
        .map_err(Error::store("creating a benchmark run"))?;
        Ok(RunId(conn.last_insert_rowid()))
    }

    /// A run's header.
    pub fn run(&self, id: RunId) -> Result<BenchRun> {
        let row = self
            .conn()
            .query_row(
                "SELECT id, name, spec, created_ms, finished_ms FROM bench_runs WHERE id = ?1",
                params![id.0],
                run_row,
            )
            .optional()
            .map_err(Error::store(format!("reading benchmark run {id}")))?;
        row.ok_or(Error::UnknownRun(id))?.parse()
    }

    /// Every run, oldest first.
    pub fn runs(&self) -> Result<Vec<BenchRun>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT id, name, spec, created_ms, finished_ms FROM bench_runs ORDER BY id")
            .map_err(Error::store("listing benchmark runs"))?;
        let rows = stmt
            .query_map([], run_row)
            .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
            .map_err(Error::store("listing benchmark runs"))?;
        rows.into_iter().map(RawRun::parse).collect()
    }

    /// Stores one query's result (replacing an earlier one of the same query), in one
    /// transaction.
    pub fn save_result(&self, run: RunId, result: &QueryResult) -> Result<()> {
        let mut conn = self.conn();
        let context = || format!("storing query {} of run {run}", result.query_id);
        let tx = write_transaction(&mut conn).map_err(Error::store(context()))?;
        tx.execute(
            "INSERT OR REPLACE INTO bench_results (run, query_id, finish, trace, record, offered, scores, stored_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                run.0,
                result.query_id,
                result.run.finish.as_str(),
                to_column("trace", &result.run)?,
                to_column("run record", &result.record)?,
                to_column("offered APIs", &result.offered)?,
                to_column("scores", &result.scores)?,
                now_ms()
            ],
        )
        .map_err(Error::store(context()))?;
        tx.commit().map_err(Error::store(context()))
    }

    /// The queries of a run that have a result to keep: every stored one except those that
    /// ended in [`Finish::Error`] (the LLM failed; a resume redoes them).
    pub fn finished_queries(&self, run: RunId) -> Result<HashSet<String>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT query_id FROM bench_results WHERE run = ?1 AND finish != ?2")
            .map_err(Error::store(format!("reading the results of run {run}")))?;
        stmt.query_map(params![run.0, Finish::Error.as_str()], |r| r.get(0))
            .and_then(Iterator::collect)
            .map_err(Error::store(format!("reading the results of run {run}")))
    }

    /// Replaces a run's spec and name (a resume that changes the limit).
    pub fn update_spec(&self, run: RunId, spec: &BenchSpec) -> Result<()> {
        let changed = self
            .conn()
            .execute(
                "UPDATE bench_runs SET name = ?2, spec = ?3 WHERE id = ?1",
                params![run.0, spec.name, to_column("run spec", spec)?],
            )
            .map_err(Error::store(format!("updating run {run}")))?;
        if changed == 0 {
            return Err(Error::UnknownRun(run));
        }
        Ok(())
    }

    /// Marks a run finished now.
    pub fn mark_finished(&self, run: RunId) -> Result<()> {
        self.conn()
            .execute(
                "UPDATE bench_runs SET finished_ms = ?2 WHERE id = ?1",
                params![run.0, now_ms()],
            )
            .map_err(Error::store(format!("finishing run {run}")))?;
        Ok(())
    }

    /// Every stored query's scores of a run, by query id.
    pub fn scores(&self, run: RunId) -> Result<Vec<(String, QueryScores)>> {
        self.run(run)?;
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT query_id, scores FROM bench_results WHERE run = ?1 ORDER BY rowid")
            .map_err(Error::store(format!("reading the scores of run {run}")))?;
        let rows: Vec<(String, String)> = stmt
            .query_map(params![run.0], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(Iterator::collect)
            .map_err(Error::store(format!("reading the scores of run {run}")))?;
        rows.into_iter()
            .map(|(id, scores)| Ok((id, from_column("scores", &scores)?)))
            .collect()
    }

    /// The summary of every stored result of a run.
    pub fn summary(&self, run: RunId) -> Result<RunSummary> {
        let scores = self.scores(run)?;
        Ok(RunSummary::of(scores.iter().map(|(_, s)| s)))
    }

    /// Stores one judge run's verdicts on one query (replacing an earlier one).
    pub fn save_judgement(
        &self,
        run: RunId,
        query_id: &str,
        judge_run: usize,
        judgement: &QueryJudgement,
    ) -> Result<()> {
        self.conn()
            .execute(
                "INSERT OR REPLACE INTO bench_judgements (run, query_id, judge_run, judgement, stored_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    run.0,
                    query_id,
                    i64::try_from(judge_run).unwrap_or(i64::MAX),
                    to_column("judgement", judgement)?,
                    now_ms()
                ],
            )
            .map_err(Error::store(format!("storing the judgement of query {query_id} of run {run}")))?;
        Ok(())
    }

    /// Every stored judgement of a run: `(query id, judge run, judgement)`.
    pub fn judgements(&self, run: RunId) -> Result<Vec<(String, usize, QueryJudgement)>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT query_id, judge_run, judgement FROM bench_judgements WHERE run = ?1
                 ORDER BY judge_run, rowid",
            )
            .map_err(Error::store(format!("reading the judgements of run {run}")))?;
        let rows: Vec<(String, i64, String)> = stmt
            .query_map(params![run.0], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(Iterator::collect)
            .map_err(Error::store(format!("reading the judgements of run {run}")))?;
        rows.into_iter()
            .map(|(query, judge_run, text)| {
                Ok((
                    query,
                    usize::try_from(judge_run).unwrap_or(0),
                    from_column("judgement", &text)?,
                ))
            })
            .collect()
    }

    /// Stores one round of pairwise verdicts of `run` against `reference` on one query.
    pub fn save_preference(
        &self,
        run: RunId,
        reference: RunId,
        query_id: &str,
        round: usize,
        verdict: &PairedVerdict,
    ) -> Result<()> {
        self.conn()
            .execute(
                "INSERT OR REPLACE INTO bench_preferences (run, reference, query_id, round, verdict, stored_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    run.0,
                    reference.0,
                    query_id,
                    i64::try_from(round).unwrap_or(i64::MAX),
                    to_column("preference", verdict)?,
                    now_ms()
                ],
            )
            .map_err(Error::store(format!(
                "storing the preference on query {query_id} of run {run} against run {reference}"
            )))?;
        Ok(())
    }

    /// Every stored round of `run` against `reference`: `(query id, round, verdict)`.
    pub fn preferences(
        &self,
        run: RunId,
        reference: RunId,
    ) -> Result<Vec<(String, usize, PairedVerdict)>> {
        let conn = self.conn();
        let context = || format!("reading the preferences of run {run} against run {reference}");
        let mut stmt = conn
            .prepare(
                "SELECT query_id, round, verdict FROM bench_preferences
                 WHERE run = ?1 AND reference = ?2 ORDER BY rowid",
            )
            .map_err(Error::store(context()))?;
        let rows: Vec<(String, i64, String)> = stmt
            .query_map(params![run.0, reference.0], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .and_then(Iterator::collect)
            .map_err(Error::store(context()))?;
        rows.into_iter()
            .map(|(query, round, text)| {
                Ok((
                    query,
                    usize::try_from(round).unwrap_or(0),
                    from_column("preference", &text)?,
                ))
            })
            .collect()
    }

    /// Every stored result of a run, traces included, in the order they were stored.
    pub fn results(&self, run: RunId) -> Result<Vec<StoredResult>> {
        self.run(run)?;
        let rows: Vec<(String, String, String, String, String)> = {
            let conn = self.conn();
            let mut stmt = conn
                .prepare(
                    "SELECT query_id, trace, record, offered, scores FROM bench_results
                     WHERE run = ?1 ORDER BY rowid",
                )
                .map_err(Error::store(format!("reading the results of run {run}")))?;
            stmt.query_map(params![run.0], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .and_then(Iterator::collect)
            .map_err(Error::store(format!("reading the results of run {run}")))?
        };
        rows.into_iter()
            .map(|(query_id, trace, record, offered, scores)| {
                Ok(StoredResult {
                    query_id,
                    run: from_column("trace", &trace)?,
                    record: from_column("run record", &record)?,
                    offered: from_column("offered APIs", &offered)?,
                    scores: from_column("scores", &scores)?,
                })
            })
            .collect()
    }

    /// Stores one `bench retrieval` measurement; returns its id.
    pub fn save_retrieval(&self, result: &RetrievalResult) -> Result<i64> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO retrieval_results (dataset, method, doc_version, result, created_ms)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                result.dataset,
                result.method.as_str(),
                result.doc_version.as_ref().map(DocLabel::to_string),
                to_column("retrieval result", result)?,
                now_ms()
            ],
        )
        .map_err(Error::store("storing a retrieval result"))?;
        Ok(conn.last_insert_rowid())
    }

    /// Every stored retrieval measurement, oldest first.
    pub fn retrieval_results(&self) -> Result<Vec<StoredRetrieval>> {
        let rows: Vec<(i64, String, i64)> = {
            let conn = self.conn();
            let mut stmt = conn
                .prepare("SELECT id, result, created_ms FROM retrieval_results ORDER BY id")
                .map_err(Error::store("listing retrieval results"))?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .and_then(Iterator::collect)
                .map_err(Error::store("listing retrieval results"))?
        };
        rows.into_iter()
            .map(|(id, result, created_ms)| {
                Ok(StoredRetrieval {
                    id,
                    created_ms,
                    result: from_column("retrieval result", &result)?,
                })
            })
            .collect()
    }

    /// One query's stored result, trace included.
    pub fn result(&self, run: RunId, query_id: &str) -> Result<Option<StoredResult>> {
        let row: Option<(String, String, String, String)> = self
            .conn()
            .query_row(
                "SELECT trace, record, offered, scores FROM bench_results WHERE run = ?1 AND query_id = ?2",
                params![run.0, query_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()
            .map_err(Error::store(format!("reading query {query_id} of run {run}")))?;
        let Some((trace, record, offered, scores)) = row else {
            return Ok(None);
        };
        Ok(Some(StoredResult {
            query_id: query_id.to_owned(),
            run: from_column("trace", &trace)?,
            record: from_column("run record", &record)?,
            offered: from_column("offered APIs", &offered)?,
            scores: from_column("scores", &scores)?,
        }))
    }
}

/// A `bench_runs` row before its spec is parsed.
struct RawRun {
    id: i64,
    name: String,
    spec: String,
    created_ms: i64,
    finished_ms: Option<i64>,
}

fn run_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawRun> {
    Ok(RawRun {
        id: r.get(0)?,
        name: r.get(1)?,
        spec: r.get(2)?,
        created_ms: r.get(3)?,
        finished_ms: r.get(4)?,
    })
}

impl RawRun {
    fn parse(self) -> Result<BenchRun> {
        Ok(BenchRun {
            id: RunId(self.id),
            name: self.name,
            spec: from_column("run spec", &self.spec)?,
            created_ms: self.created_ms,
            finished_ms: self.finished_ms,
        })
    }
}
