//! Record and replay: a cache of tool responses in SQLite (the catalog's
//! file, its own tables), keyed by API id and the canonical JSON of the
//! arguments, and the [`ModeExecutor`] that chooses between live calls, the
//! cache and the simulator.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_catalog::ApiId;
use toolsmith_plumbing::sqlite::Migrations;

use crate::canonical::canonical_json;
use crate::error::{Error, Result};
use crate::executor::Executor;
use crate::observation::{Observation, Provenance};
use crate::redact::Redactor;
use toolsmith_plumbing::sqlite::now_ms;

/// The cache's tables, versioned as the component `exec` of `toolsmith_migrations`. Step `i`
/// brings them from version `i` to `i + 1`; append only.
const MIGRATIONS: Migrations = Migrations::new(
    "exec",
    &["
    CREATE TABLE tool_responses (
        api TEXT NOT NULL,
        args TEXT NOT NULL,
        observation TEXT NOT NULL,
        recorded_at_ms INTEGER NOT NULL,
        PRIMARY KEY (api, args)
    ) WITHOUT ROWID;
    CREATE TABLE tool_calls (
        id INTEGER PRIMARY KEY,
        api TEXT NOT NULL,
        provenance TEXT NOT NULL,
        at_ms INTEGER NOT NULL
    );
    CREATE INDEX tool_calls_by_provenance ON tool_calls(provenance);
"],
);

/// Where calls go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Every call goes to the live backend; nothing is stored.
    Live,
    /// Live calls, each stored in the cache.
    Record,
    /// Only the cache; a miss is [`Error::ReplayMiss`].
    Replay,
    /// The cache, and the simulator on a miss.
    ReplayOrSimulate,
    /// Only the simulator (the default: offline and deterministic).
    #[default]
    Simulate,
}

impl Mode {
    /// Every mode.
    pub const ALL: [Self; 5] = [
        Self::Live,
        Self::Record,
        Self::Replay,
        Self::ReplayOrSimulate,
        Self::Simulate,
    ];

    /// The name on the command line (`replay-or-simulate`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Live => "live",
            Self::Record => "record",
            Self::Replay => "replay",
            Self::ReplayOrSimulate => "replay-or-simulate",
            Self::Simulate => "simulate",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(raw: &str) -> std::result::Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|m| m.as_str() == raw.trim())
            .ok_or_else(|| {
                format!(
                    "unknown mode `{raw}`: use live, record, replay, replay-or-simulate or simulate"
                )
            })
    }
}

/// How many calls each backend served, from the call log.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Calls answered live.
    pub live: u64,
    /// Calls answered from the cache.
    pub replayed: u64,
    /// Calls answered by the simulator from a schema or an example.
    pub simulated: u64,
    /// Calls answered by a language model writing the response (`simulated+llm`).
    pub invented: u64,
    /// Distinct (API, arguments) pairs recorded in the cache.
    pub recorded: u64,
}

/// The response cache and call log, in SQLite.
pub struct ResponseCache {
    conn: Mutex<Connection>,
}

impl fmt::Debug for ResponseCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResponseCache").finish_non_exhaustive()
    }
}

impl ResponseCache {
    /// Opens (creating if needed) the cache tables in the database at `path`
    /// (normally the catalog's file), set up as every toolsmith store is (WAL, busy timeout).
    pub fn open(path: &Path) -> Result<Self> {
        Ok(Self::with(MIGRATIONS.open(path)?))
    }

    /// A private cache in memory, for tests.
    pub fn in_memory() -> Result<Self> {
        Ok(Self::with(MIGRATIONS.open_in_memory()?))
    }

    fn with(conn: Connection) -> Self {
        Self {
            conn: Mutex::new(conn),
        }
    }

    fn with_conn<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self.conn.lock().map_err(|_| {
            Error::CacheCorrupt("a thread panicked while holding the cache".to_owned())
        })?;
        f(&conn)
    }

    /// The recorded observation of a call, if any.
    pub fn get(&self, api: &ApiId, args: &Value) -> Result<Option<Observation>> {
        let key = canonical_json(args);
        let text: Option<String> = self.with_conn(|conn| {
            conn.query_row(
                "SELECT observation FROM tool_responses WHERE api = ?1 AND args = ?2",
                params![api.to_string(), key],
                |r| r.get(0),
            )
            .optional()
            .map_err(Error::cache(format!("looking up {api}")))
        })?;
        text.map(|t| {
            serde_json::from_str(&t)
                .map_err(|e| Error::CacheCorrupt(format!("recorded response of {api} {key}: {e}")))
        })
        .transpose()
    }

    /// Stores the observation of a call, replacing an earlier one.
    pub fn put(&self, api: &ApiId, args: &Value, observation: &Observation) -> Result<()> {
        let text = serde_json::to_string(observation)
            .map_err(|e| Error::CacheCorrupt(format!("serializing a response of {api}: {e}")))?;
        self.with_conn(|conn| {
            conn.execute(
                "INSERT INTO tool_responses (api, args, observation, recorded_at_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(api, args) DO UPDATE SET observation = excluded.observation, recorded_at_ms = excluded.recorded_at_ms",
                params![api.to_string(), canonical_json(args), text, now_ms()],
            )
            .map_err(Error::cache(format!("recording {api}")))?;
            Ok(())
        })
    }

    /// Logs that a call was served, by whom.
    pub fn log_call(&self, api: &ApiId, provenance: Provenance) -> Result<()> {
        self.with_conn(|conn| {
            conn.execute(
                "INSERT INTO tool_calls (api, provenance, at_ms) VALUES (?1, ?2, ?3)",
                params![api.to_string(), provenance.as_str(), now_ms()],
            )
            .map_err(Error::cache("logging a call"))?;
            Ok(())
        })
    }

    /// Counts of calls by provenance, and of recorded responses.
    pub fn coverage(&self) -> Result<Coverage> {
        let mut total = Coverage::default();
        for (_, part) in self.coverage_by_tool()? {
            total.live += part.live;
            total.replayed += part.replayed;
            total.simulated += part.simulated;
            total.invented += part.invented;
            total.recorded += part.recorded;
        }
        Ok(total)
    }

    /// The same counts per tool (the part of the API id before `/`), in tool order.
    pub fn coverage_by_tool(&self) -> Result<Vec<(String, Coverage)>> {
        self.with_conn(|conn| {
            let mut by_tool: std::collections::BTreeMap<String, Coverage> = Default::default();
            let tool = "substr(api, 1, instr(api || '/', '/') - 1)";
            let calls =
                format!("SELECT {tool}, provenance, COUNT(*) FROM tool_calls GROUP BY 1, 2");
            let mut stmt = conn
                .prepare(&calls)
                .map_err(Error::cache("counting calls"))?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)?,
                    ))
                })
                .map_err(Error::cache("counting calls"))?;
            for row in rows {
                let (tool, provenance, count) = row.map_err(Error::cache("counting calls"))?;
                let count = u64::try_from(count).unwrap_or(0);
                let coverage = by_tool.entry(tool).or_default();
                match provenance.as_str() {
                    "live" => coverage.live += count,
                    "replayed" => coverage.replayed += count,
                    "simulated" => coverage.simulated += count,
                    "simulated+llm" | "invented" => coverage.invented += count,
                    other => {
                        return Err(Error::CacheCorrupt(format!(
                            "unknown provenance `{other}` in tool_calls"
                        )));
                    }
                }
            }
            let recorded = format!("SELECT {tool}, COUNT(*) FROM tool_responses GROUP BY 1");
            let mut stmt = conn
                .prepare(&recorded)
                .map_err(Error::cache("counting recorded responses"))?;
            let rows = stmt
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
                .map_err(Error::cache("counting recorded responses"))?;
            for row in rows {
                let (tool, count) = row.map_err(Error::cache("counting recorded responses"))?;
                by_tool.entry(tool).or_default().recorded = u64::try_from(count).unwrap_or(0);
            }
            Ok(by_tool.into_iter().collect())
        })
    }
}

/// Routes each call by [`Mode`]: to the live executor, the cache or the
/// simulator, recording and logging as the mode says.
#[derive(Clone)]
pub struct ModeExecutor {
    mode: Mode,
    live: Option<Arc<dyn Executor>>,
    simulator: Option<Arc<dyn Executor>>,
    cache: Arc<ResponseCache>,
    redactor: Arc<Redactor>,
}

impl fmt::Debug for ModeExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModeExecutor")
            .field("mode", &self.mode)
            .field("live", &self.live.is_some())
            .field("simulator", &self.simulator.is_some())
            .finish()
    }
}

impl ModeExecutor {
    /// An executor in `mode` over `cache`, with no backends yet.
    pub fn new(mode: Mode, cache: Arc<ResponseCache>) -> Self {
        Self {
            mode,
            live: None,
            simulator: None,
            cache,
            redactor: Arc::new(Redactor::new()),
        }
    }

    /// Takes `redactor`'s secrets out of every observation before it is
    /// recorded or returned, whichever backend produced it.
    pub fn redacting(mut self, redactor: Redactor) -> Self {
        self.redactor = Arc::new(redactor);
        self
    }

    /// Sets the live backend (needed by `live` and `record`).
    pub fn live(mut self, live: Arc<dyn Executor>) -> Self {
        self.live = Some(live);
        self
    }

    /// Sets the simulator (needed by `simulate` and `replay-or-simulate`).
    pub fn simulator(mut self, simulator: Arc<dyn Executor>) -> Self {
        self.simulator = Some(simulator);
        self
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The cache.
    pub fn cache(&self) -> &Arc<ResponseCache> {
        &self.cache
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&ResponseCache) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let cache = Arc::clone(&self.cache);
        tokio::task::spawn_blocking(move || f(&cache))
            .await
            .map_err(|e| Error::CacheCorrupt(format!("cache task failed: {e}")))?
    }

    async fn replayed(&self, api: &ApiId, args: &Value) -> Result<Option<Observation>> {
        let start = Instant::now();
        let (key_api, key_args) = (api.clone(), args.clone());
        let hit = self.blocking(move |c| c.get(&key_api, &key_args)).await?;
        Ok(hit.map(|mut obs| {
            obs.provenance = Provenance::Replayed;
            obs.latency = start.elapsed();
            obs
        }))
    }

    fn backend(&self, which: &'static str) -> Result<&Arc<dyn Executor>> {
        let slot = if which == "live" {
            &self.live
        } else {
            &self.simulator
        };
        slot.as_ref().ok_or(Error::MissingBackend {
            mode: self.mode.as_str(),
            backend: which,
        })
    }
}

#[async_trait]
impl Executor for ModeExecutor {
    async fn call(&self, api: &ApiId, args: &Value) -> Result<Observation> {
        let obs = match self.mode {
            Mode::Live => self.backend("live")?.call(api, args).await?,
            Mode::Simulate => self.backend("simulator")?.call(api, args).await?,
            Mode::Record => {
                let obs = self
                    .redactor
                    .redact(self.backend("live")?.call(api, args).await?);
                // Transient failures (rate limits, 5xx, timeouts) are not worth replaying.
                if !obs.failure().is_some_and(|k| k.is_retryable()) {
                    let (a, v, o) = (api.clone(), args.clone(), obs.clone());
                    self.blocking(move |c| c.put(&a, &v, &o)).await?;
                }
                obs
            }
            Mode::Replay => match self.replayed(api, args).await? {
                Some(obs) => obs,
                None => {
                    return Err(Error::ReplayMiss {
                        api: api.clone(),
                        args: canonical_json(args),
                    });
                }
            },
            Mode::ReplayOrSimulate => match self.replayed(api, args).await? {
                Some(obs) => obs,
                None => self.backend("simulator")?.call(api, args).await?,
            },
        };
        let obs = self.redactor.redact(obs);
        let (a, provenance) = (api.clone(), obs.provenance);
        self.blocking(move |c| c.log_call(&a, provenance)).await?;
        Ok(obs)
    }

    /// The simulator is the backend with a session; live backends keep none.
    fn fork_for(&self, task: Option<&str>) -> Option<Arc<dyn Executor>> {
        let simulator = self.simulator.as_ref()?.fork_for(task)?;
        Some(Arc::new(Self {
            mode: self.mode,
            live: self.live.clone(),
            simulator: Some(simulator),
            cache: Arc::clone(&self.cache),
            redactor: Arc::clone(&self.redactor),
        }))
    }
}
