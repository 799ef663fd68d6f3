//! The bound on the call log: every call `serve` answers adds a row to `tool_calls` (the
//! executor's log, which `toolsmith report` counts by provenance), so `serve` keeps only the
//! newest `[serve] call_log_keep` rows, pruning at start, every minute and at shutdown.

use std::path::{Path, PathBuf};
use std::time::Duration;

use toolsmith_serve::CancellationToken;

/// How often a running server prunes.
const EVERY: Duration = Duration::from_secs(60);

/// Prunes now and then every minute until `stop` is cancelled.
pub(super) async fn prune_every_minute(db: PathBuf, keep: usize, stop: CancellationToken) {
    let mut ticks = tokio::time::interval(EVERY);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            () = stop.cancelled() => return,
        }
        let db = db.clone();
        if let Err(err) = tokio::task::spawn_blocking(move || prune(&db, keep)).await {
            tracing::warn!(%err, "pruning the call log did not finish");
        }
    }
}

/// Drops the oldest rows of `tool_calls` past the newest `keep`; a failure is logged, never
/// fatal (the log is a statistic).
pub(super) fn prune(db: &Path, keep: usize) {
    match try_prune(db, keep) {
        Ok(0) => {}
        Ok(dropped) => tracing::debug!(dropped, keep, "pruned the call log"),
        Err(err) => tracing::warn!(%err, db = %db.display(), "could not prune the call log"),
    }
}

fn try_prune(db: &Path, keep: usize) -> anyhow::Result<usize> {
    let conn = toolsmith_plumbing::sqlite::open(db)?;
    let exists: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'tool_calls'",
        [],
        |row| row.get(0),
    )?;
    if exists == 0 {
        return Ok(0);
    }
    let keep = i64::try_from(keep).unwrap_or(i64::MAX);
    // Ids grow with every call, so the newest `keep` rows are those above max - keep.
    Ok(conn.execute(
        "DELETE FROM tool_calls WHERE id <= (SELECT MAX(id) FROM tool_calls) - ?1",
        [keep],
    )?)
}
