//! The response cache in SQLite: [`CacheDb`] owns the tables (`llm_cache`, `embedding_cache`),
//! [`CachedChat`] wraps any [`ChatModel`].
//!
//! The tables live in the same database file as the rest of toolsmith; this crate's schema
//! version is the row `component = 'llm'` of `toolsmith_migrations`. The connection sits behind
//! a `Mutex` and every query runs in `tokio::task::spawn_blocking`, holding the lock only for
//! that one statement or transaction, so the async runtime is never blocked on disk.
//!
//! A chat entry is keyed by the sha256 of the canonical JSON (object keys sorted) of the model,
//! messages, tools, tool choice, response format, sampling parameters and prompt id. It stores
//! the server's raw body, so a hit returns the same bytes.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolsmith_plumbing::json::{canonical_json, sha256_hex};
use toolsmith_plumbing::sqlite::Migrations;
use toolsmith_plumbing::text::truncate_chars;

use crate::chat::{ChatModel, ChatRequest, ChatResponse};
use crate::error::{Error, Result};
use crate::role::Role;

/// This crate's tables, versioned as the component `llm` of `toolsmith_migrations`. Step `i`
/// brings them from version `i` to `i + 1`; append only.
const MIGRATIONS: Migrations = Migrations::new(
    "llm",
    &["CREATE TABLE IF NOT EXISTS llm_cache(
          key TEXT PRIMARY KEY,
          model TEXT NOT NULL,
          response TEXT NOT NULL,
          raw TEXT NOT NULL,
          created_at INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS embedding_cache(
          model TEXT NOT NULL,
          text_sha256 TEXT NOT NULL,
          dims INTEGER NOT NULL,
          vector BLOB NOT NULL,
          PRIMARY KEY (model, text_sha256)
      ) WITHOUT ROWID;"],
);
/// Characters of the last message shown in a replay miss.
const REPLAY_MISS_CHARS: usize = 80;

/// How the cache is used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheMode {
    /// Never read nor write.
    Off,
    /// Read hits, write misses. The default, and the benchmarks' mode.
    #[default]
    ReadWrite,
    /// Read only: a miss is [`Error::ReplayMiss`]. For reproducing a recorded run offline.
    Replay,
}

impl CacheMode {
    /// The setting's spelling: `off`, `read-write`, `replay`.
    pub fn as_str(&self) -> &'static str {
        match self {
            CacheMode::Off => "off",
            CacheMode::ReadWrite => "read-write",
            CacheMode::Replay => "replay",
        }
    }
}

impl fmt::Display for CacheMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for CacheMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "off" => Ok(CacheMode::Off),
            "read-write" | "readwrite" | "rw" => Ok(CacheMode::ReadWrite),
            "replay" => Ok(CacheMode::Replay),
            other => Err(Error::Config {
                field: "cache mode",
                reason: format!("`{other}` is not one of off, read-write, replay"),
            }),
        }
    }
}

/// The SQLite database holding the LLM and embedding caches. Cheap to clone (shared connection).
#[derive(Clone)]
pub struct CacheDb {
    conn: Arc<Mutex<Connection>>,
    path: Arc<PathBuf>,
}

impl fmt::Debug for CacheDb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CacheDb")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl CacheDb {
    /// Opens (creating if needed) the database at `path` as every toolsmith store does (WAL,
    /// busy timeout) and migrates this crate's tables. Blocking: call it at start-up or inside
    /// `spawn_blocking`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        Ok(Self::with(MIGRATIONS.open(&path)?, path))
    }

    /// A private in-memory database, for tests.
    pub fn in_memory() -> Result<Self> {
        Ok(Self::with(
            MIGRATIONS.open_in_memory()?,
            PathBuf::from(":memory:"),
        ))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn with(conn: Connection, path: PathBuf) -> Self {
        Self {
            conn: Arc::new(Mutex::new(conn)),
            path: Arc::new(path),
        }
    }

    /// Runs `f` on the connection in a blocking task.
    pub(crate) async fn with_conn<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, &Path) -> Result<T> + Send + 'static,
    {
        let conn = Arc::clone(&self.conn);
        let path = Arc::clone(&self.path);
        tokio::task::spawn_blocking(move || {
            let mut guard = toolsmith_plumbing::sqlite::lock(&conn);
            f(&mut guard, &path)
        })
        .await
        .map_err(|e| Error::Task(format!("cache task: {e}")))?
    }

    /// Number of cached chat responses.
    pub async fn chat_entries(&self) -> Result<u64> {
        self.with_conn(|conn, path| {
            conn.query_row("SELECT COUNT(*) FROM llm_cache", [], |r| r.get::<_, i64>(0))
                .map(|n| u64::try_from(n).unwrap_or(0))
                .map_err(|source| Error::Cache {
                    path: path.to_path_buf(),
                    source,
                })
        })
        .await
    }
}

/// The cache key of `req` when answered by `model`.
pub(crate) fn cache_key(model: &str, req: &ChatRequest) -> Result<String> {
    let keyed = json!({
        "model": model,
        "messages": req.messages,
        "tools": req.tools,
        "tool_choice": req.tool_choice,
        "response_format": req.response_format,
        "sampling": req.sampling,
        "prompt_id": req.prompt_id,
    });
    Ok(sha256_hex(canonical_json(&keyed)))
}

/// Any [`ChatModel`] with a response cache in front. Successful answers are cached; errors
/// never are.
#[derive(Clone, Debug)]
pub struct CachedChat<M> {
    inner: M,
    db: CacheDb,
    mode: CacheMode,
}

impl<M> CachedChat<M> {
    /// Caches `inner`'s answers in `db`.
    pub fn new(inner: M, db: CacheDb, mode: CacheMode) -> Self {
        Self { inner, db, mode }
    }

    /// The wrapped model.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    /// The mode.
    pub fn mode(&self) -> CacheMode {
        self.mode
    }
}

#[derive(Serialize, Deserialize)]
struct Stored {
    response: String,
    raw: String,
}

#[async_trait]
impl<M: ChatModel> ChatModel for CachedChat<M> {
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse> {
        if self.mode == CacheMode::Off {
            return self.inner.chat(req).await;
        }
        let model = self.inner.model_for(&req.role).to_owned();
        let key = cache_key(&model, req)?;
        let lookup_key = key.clone();
        let hit = self
            .db
            .with_conn(move |conn, path| {
                conn.query_row(
                    "SELECT response, raw FROM llm_cache WHERE key = ?1",
                    params![lookup_key],
                    |r| {
                        Ok(Stored {
                            response: r.get(0)?,
                            raw: r.get(1)?,
                        })
                    },
                )
                .optional()
                .map_err(|source| Error::Cache {
                    path: path.to_path_buf(),
                    source,
                })
            })
            .await?;
        if let Some(stored) = hit {
            let mut response: ChatResponse =
                serde_json::from_str(&stored.response).map_err(|e| Error::CacheCorrupt {
                    path: self.db.path().to_path_buf(),
                    key: key.clone(),
                    reason: e.to_string(),
                })?;
            response.cache_hit = true;
            response.raw = stored.raw;
            return Ok(response);
        }
        if self.mode == CacheMode::Replay {
            return Err(Error::ReplayMiss {
                model,
                last_message_start: truncate_chars(req.last_message(), REPLAY_MISS_CHARS),
            });
        }
        let response = self.inner.chat(req).await?;
        let mut to_store = response.clone();
        to_store.cache_hit = false;
        let stored_json = serde_json::to_string(&to_store)
            .map_err(|e| Error::Task(format!("serializing a response: {e}")))?;
        let raw = response.raw.clone();
        self.db
            .with_conn(move |conn, path| {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
                conn.execute(
                    "INSERT OR REPLACE INTO llm_cache(key, model, response, raw, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![key, model, stored_json, raw, now],
                )
                .map(|_| ())
                .map_err(|source| Error::Cache {
                    path: path.to_path_buf(),
                    source,
                })
            })
            .await?;
        Ok(response)
    }

    fn model_name(&self) -> &str {
        self.inner.model_name()
    }

    fn model_for(&self, role: &Role) -> &str {
        self.inner.model_for(role)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{Message, ToolSpec};
    use serde_json::Value;

    #[test]
    fn cache_keys_ignore_key_order_and_query_but_not_prompt_or_model() {
        let tool = |params: Value| ToolSpec {
            name: "t".into(),
            description: "d".into(),
            parameters: params,
        };
        let a = ChatRequest::new("agent", vec![Message::user("hi")]).with_tools(
            vec![tool(json!({"type": "object", "properties": {}}))],
            None,
        );
        let mut b = ChatRequest::new("agent", vec![Message::user("hi")]).with_tools(
            vec![tool(json!({"properties": {}, "type": "object"}))],
            None,
        );
        b.query = Some("q7".into());
        assert_eq!(cache_key("m", &a).unwrap(), cache_key("m", &b).unwrap());
        assert_ne!(cache_key("m", &a).unwrap(), cache_key("m2", &a).unwrap());
        let mut c = a.clone();
        c.prompt_id = Some("p@1234".into());
        assert_ne!(cache_key("m", &a).unwrap(), cache_key("m", &c).unwrap());
    }

    #[test]
    fn migration_is_recorded_and_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        drop(CacheDb::open(&path).unwrap());
        drop(CacheDb::open(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        let v: i64 = conn
            .query_row(
                "SELECT version FROM toolsmith_migrations WHERE component='llm'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(v, 1);
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn modes_parse() {
        assert_eq!("replay".parse::<CacheMode>().unwrap(), CacheMode::Replay);
        assert_eq!(
            "read-write".parse::<CacheMode>().unwrap(),
            CacheMode::ReadWrite
        );
        assert!("sometimes".parse::<CacheMode>().is_err());
    }
}
