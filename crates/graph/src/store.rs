//! The graph in the catalog's SQLite file: nodes, edges and the experience pool of each edge,
//! versioned as the component `graph` of `toolsmith_migrations`.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use toolsmith_catalog::ApiId;
use toolsmith_plumbing::sqlite::{Migrations, SharedConnection};

use crate::error::{Error, Result, store_err};
use crate::model::{Edge, EdgeKind, Evidence, Graph, Node};
use toolsmith_plumbing::sqlite::{now_ms, write_transaction};
use toolsmith_plumbing::store::{from_column, to_column};

/// The graph's tables. Step `i` brings them from version `i` to `i + 1`; append only.
const MIGRATIONS: Migrations = Migrations::new(
    "graph",
    &["CREATE TABLE graph_nodes (
        api TEXT PRIMARY KEY,
        ordinal INTEGER NOT NULL,
        insight TEXT NOT NULL,
        lookup TEXT NOT NULL
    );
    CREATE TABLE graph_edges (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('similarity', 'dependency')),
        src TEXT NOT NULL,
        dst TEXT NOT NULL,
        weight REAL NOT NULL,
        strength REAL NOT NULL,
        evidence TEXT NOT NULL,
        UNIQUE (kind, src, dst)
    );
    CREATE INDEX graph_edges_by_dst ON graph_edges(dst);
    CREATE TABLE graph_experiences (
        id INTEGER PRIMARY KEY,
        edge_id INTEGER NOT NULL REFERENCES graph_edges(id) ON DELETE CASCADE,
        iteration INTEGER NOT NULL,
        query TEXT NOT NULL,
        label TEXT NOT NULL,
        answer TEXT NOT NULL,
        correct INTEGER NOT NULL,
        trace TEXT NOT NULL,
        created_at_ms INTEGER NOT NULL
    );
    CREATE INDEX graph_experiences_by_edge ON graph_experiences(edge_id);
    CREATE TABLE graph_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    ) WITHOUT ROWID;"],
);

/// One trial of an edge (paper §3.1): a simulated query, its label, the actor's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Experience {
    /// The trial-and-error iteration that ran it, from 1.
    pub iteration: u32,
    /// The simulated user query.
    pub query: String,
    /// The right tools, in order (one for a similarity edge, the sequence for a dependency).
    pub label: Vec<ApiId>,
    /// The tools the actor chose, in order.
    pub answer: Vec<ApiId>,
    /// Whether the answer matched the label.
    pub correct: bool,
    /// The actor's trace, as its stage serializes it.
    pub trace: Value,
}

/// An edge named by its ends: what the trial loop and `graph show` refer to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EdgeKey {
    /// Its kind.
    pub kind: EdgeKind,
    /// Its first end.
    pub from: ApiId,
    /// Its second end.
    pub to: ApiId,
}

impl EdgeKey {
    /// The key of `edge`.
    pub fn of(edge: &Edge) -> Self {
        Self {
            kind: edge.kind,
            from: edge.from.clone(),
            to: edge.to.clone(),
        }
    }
}

/// How a stored graph was built, kept beside it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildInfo {
    /// Φ used for the similarity edges (`None`: no similarity edges were built).
    pub phi: Option<f32>,
    /// The embedder's model id.
    pub embedder: Option<String>,
    /// Which doc version the node docs came from (`active`, `draft`, ...).
    pub docs: String,
    /// When it was built, in Unix milliseconds.
    pub built_at_ms: i64,
}

/// The graph tables of one database file.
#[derive(Debug)]
pub struct GraphStore {
    conn: SharedConnection,
}

fn parse_api(raw: &str, what: &str) -> Result<ApiId> {
    raw.parse().map_err(|e| Error::Invalid {
        what: what.to_owned(),
        why: format!("{e}"),
    })
}

impl GraphStore {
    /// Opens the graph tables in the database at `path` (creating them if needed).
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

    /// Replaces the stored graph (nodes, edges, build info) by `graph` in one transaction.
    /// The experiences of the old edges go with them.
    pub fn replace(&mut self, graph: &Graph, info: &BuildInfo) -> Result<()> {
        let mut conn = self.conn.lock();
        let tx =
            write_transaction(&mut conn).map_err(store_err("starting the graph transaction"))?;
        tx.execute_batch(
            "DELETE FROM graph_experiences; DELETE FROM graph_edges; DELETE FROM graph_nodes; DELETE FROM graph_meta;",
        )
        .map_err(store_err("clearing the old graph"))?;
        {
            let mut node = tx
                .prepare(
                    "INSERT INTO graph_nodes (api, ordinal, insight, lookup) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(store_err("preparing the node insert"))?;
            for (i, n) in graph.nodes.iter().enumerate() {
                node.execute(params![
                    n.api.to_string(),
                    i64::try_from(i).unwrap_or(i64::MAX),
                    n.insight,
                    to_column("node lookup inputs", &n.lookup)?
                ])
                .map_err(store_err(format!("storing the node {}", n.api)))?;
            }
            let mut edge = tx
                .prepare(
                    "INSERT INTO graph_edges (kind, src, dst, weight, strength, evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(store_err("preparing the edge insert"))?;
            for e in &graph.edges {
                let evidence = to_column("edge evidence", &e.evidence)?;
                edge.execute(params![
                    e.kind.as_str(),
                    e.from.to_string(),
                    e.to.to_string(),
                    f64::from(e.weight),
                    f64::from(e.strength),
                    evidence
                ])
                .map_err(store_err(format!(
                    "storing the edge {} -> {}",
                    e.from, e.to
                )))?;
            }
        }
        let info = BuildInfo {
            built_at_ms: if info.built_at_ms == 0 {
                now_ms()
            } else {
                info.built_at_ms
            },
            ..info.clone()
        };
        tx.execute(
            "INSERT INTO graph_meta (key, value) VALUES ('build', ?1)",
            params![to_column("build info", &info)?],
        )
        .map_err(store_err("storing the build info"))?;
        tx.commit().map_err(store_err("committing the graph"))
    }

    /// The stored graph (empty when none was built).
    pub fn load(&self) -> Result<Graph> {
        // The connection is locked while the nodes are read, and free again for the edges.
        let nodes = {
            let conn = self.conn.lock();
            let mut stmt = conn
                .prepare("SELECT api, insight, lookup FROM graph_nodes ORDER BY ordinal")
                .map_err(store_err("reading the graph nodes"))?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                    ))
                })
                .map_err(store_err("reading the graph nodes"))?;
            let mut nodes = Vec::new();
            for row in rows {
                let (api, insight, lookup) = row.map_err(store_err("reading a graph node"))?;
                nodes.push(Node {
                    api: parse_api(&api, "stored graph node")?,
                    insight,
                    lookup: from_column("stored graph node lookup inputs", &lookup)?,
                });
            }
            nodes
        };
        let edges = self.edges_where("1 = 1", params![])?;
        Ok(Graph { nodes, edges })
    }

    fn edges_where(&self, condition: &str, args: impl rusqlite::Params) -> Result<Vec<Edge>> {
        let sql = format!(
            "SELECT id, kind, src, dst, weight, strength, evidence FROM graph_edges WHERE {condition} ORDER BY kind DESC, src, dst"
        );
        let conn = self.conn.lock();
        let mut stmt = conn
            .prepare(&sql)
            .map_err(store_err("reading the graph edges"))?;
        let rows = stmt
            .query_map(args, |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, f64>(4)?,
                    r.get::<_, f64>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })
            .map_err(store_err("reading the graph edges"))?;
        let mut edges = Vec::new();
        for row in rows {
            let (id, kind, src, dst, weight, strength, evidence) =
                row.map_err(store_err("reading a graph edge"))?;
            let what = format!("stored graph edge {id}");
            edges.push(Edge {
                kind: kind.parse()?,
                from: parse_api(&src, &what)?,
                to: parse_api(&dst, &what)?,
                weight: weight as f32,
                strength: strength as f32,
                evidence: from_column::<Evidence>(&what, &evidence)?,
            });
        }
        Ok(edges)
    }

    /// How the stored graph was built (`None` when no graph is stored).
    pub fn build_info(&self) -> Result<Option<BuildInfo>> {
        let raw: Option<String> = self
            .conn
            .lock()
            .query_row(
                "SELECT value FROM graph_meta WHERE key = 'build'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(store_err("reading the graph's build info"))?;
        raw.map(|r| Ok(from_column("the graph's build info", &r)?))
            .transpose()
    }

    /// Adds an edge (or replaces the one with the same kind and ends).
    pub fn upsert_edge(&self, edge: &Edge) -> Result<()> {
        self.conn
            .lock()
            .execute(
                "INSERT INTO graph_edges (kind, src, dst, weight, strength, evidence) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (kind, src, dst) DO UPDATE SET weight = excluded.weight, strength = excluded.strength, evidence = excluded.evidence",
                params![
                    edge.kind.as_str(),
                    edge.from.to_string(),
                    edge.to.to_string(),
                    f64::from(edge.weight),
                    f64::from(edge.strength),
                    to_column("edge evidence", &edge.evidence)?
                ],
            )
            .map_err(store_err(format!("storing the edge {} -> {}", edge.from, edge.to)))?;
        Ok(())
    }

    /// Removes an edge and its experiences; whether it existed.
    pub fn remove_edge(&self, key: &EdgeKey) -> Result<bool> {
        remove_edge_in(&self.conn.lock(), key)
    }

    /// Sets an edge's sampling weight.
    pub fn set_weight(&self, key: &EdgeKey, weight: f32) -> Result<()> {
        set_weight_in(&self.conn.lock(), key, weight)
    }

    /// Sets a node's insight.
    pub fn set_insight(&self, api: &ApiId, insight: &str) -> Result<()> {
        let n = self
            .conn
            .lock()
            .execute(
                "UPDATE graph_nodes SET insight = ?1 WHERE api = ?2",
                params![insight, api.to_string()],
            )
            .map_err(store_err("updating an insight"))?;
        if n == 0 {
            return Err(Error::Invalid {
                what: "node".into(),
                why: format!("{api} is not in the graph"),
            });
        }
        Ok(())
    }

    /// Adds one experience to an edge's pool.
    pub fn add_experience(&self, key: &EdgeKey, experience: &Experience) -> Result<()> {
        add_experience_in(&self.conn.lock(), key, experience)
    }

    /// Stores one edge's trial of an iteration at once (one transaction): its experiences,
    /// then its new weight, or its removal (`weight` `None`). With [`GraphStore::trial_recorded`]
    /// this makes a resumed trial step add no experience twice.
    pub fn record_trial(
        &self,
        key: &EdgeKey,
        experiences: &[Experience],
        weight: Option<f32>,
    ) -> Result<()> {
        let mut conn = self.conn.lock();
        let tx =
            write_transaction(&mut conn).map_err(store_err("starting the trial transaction"))?;
        for e in experiences {
            add_experience_in(&tx, key, e)?;
        }
        match weight {
            Some(w) => set_weight_in(&tx, key, w)?,
            None => {
                remove_edge_in(&tx, key)?;
            }
        }
        tx.commit().map_err(store_err("storing a trial"))
    }

    /// Whether the trial of `key` in `iteration` is stored: the edge has experiences of that
    /// iteration, or is gone (the trial removed it).
    pub fn trial_recorded(&self, key: &EdgeKey, iteration: u32) -> Result<bool> {
        self.conn
            .lock()
            .query_row(
                "SELECT NOT EXISTS (SELECT 1 FROM graph_edges WHERE kind = ?1 AND src = ?2 AND dst = ?3)
                     OR EXISTS (SELECT 1 FROM graph_experiences x JOIN graph_edges e ON e.id = x.edge_id
                                WHERE e.kind = ?1 AND e.src = ?2 AND e.dst = ?3 AND x.iteration = ?4)",
                params![key.kind.as_str(), key.from.to_string(), key.to.to_string(), iteration],
                |r| r.get::<_, bool>(0),
            )
            .map_err(store_err("reading an edge's trials"))
    }

    /// The experiences of every edge touching `api`, oldest first.
    pub fn experiences_of(&self, api: &ApiId) -> Result<Vec<(EdgeKey, Experience)>> {
        let conn = self.conn.lock();
        let mut stmt = conn
            .prepare(
                "SELECT e.kind, e.src, e.dst, x.iteration, x.query, x.label, x.answer, x.correct, x.trace
                 FROM graph_experiences x JOIN graph_edges e ON e.id = x.edge_id
                 WHERE e.src = ?1 OR e.dst = ?1 ORDER BY x.id",
            )
            .map_err(store_err("reading experiences"))?;
        let rows = stmt
            .query_map(params![api.to_string()], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, u32>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, bool>(7)?,
                    r.get::<_, String>(8)?,
                ))
            })
            .map_err(store_err("reading experiences"))?;
        let mut out = Vec::new();
        for row in rows {
            let (kind, src, dst, iteration, query, label, answer, correct, trace) =
                row.map_err(store_err("reading an experience"))?;
            let what = "stored experience";
            out.push((
                EdgeKey {
                    kind: kind.parse()?,
                    from: parse_api(&src, what)?,
                    to: parse_api(&dst, what)?,
                },
                Experience {
                    iteration,
                    query,
                    label: from_column(what, &label)?,
                    answer: from_column(what, &answer)?,
                    correct,
                    trace: from_column(what, &trace)?,
                },
            ));
        }
        Ok(out)
    }
}

/// The id of an edge, on a connection the caller holds (inside a transaction).
fn edge_id_in(conn: &Connection, key: &EdgeKey) -> Result<i64> {
    conn.query_row(
        "SELECT id FROM graph_edges WHERE kind = ?1 AND src = ?2 AND dst = ?3",
        params![key.kind.as_str(), key.from.to_string(), key.to.to_string()],
        |r| r.get(0),
    )
    .optional()
    .map_err(store_err("finding an edge"))?
    .ok_or_else(|| Error::Invalid {
        what: "edge".into(),
        why: format!(
            "no {} edge {} -> {} in the graph",
            key.kind, key.from, key.to
        ),
    })
}

/// [`GraphStore::remove_edge`] on a connection the caller holds.
fn remove_edge_in(conn: &Connection, key: &EdgeKey) -> Result<bool> {
    let n = conn
        .execute(
            "DELETE FROM graph_edges WHERE kind = ?1 AND src = ?2 AND dst = ?3",
            params![key.kind.as_str(), key.from.to_string(), key.to.to_string()],
        )
        .map_err(store_err("removing an edge"))?;
    Ok(n > 0)
}

/// [`GraphStore::set_weight`] on a connection the caller holds.
fn set_weight_in(conn: &Connection, key: &EdgeKey, weight: f32) -> Result<()> {
    let id = edge_id_in(conn, key)?;
    conn.execute(
        "UPDATE graph_edges SET weight = ?1 WHERE id = ?2",
        params![f64::from(weight), id],
    )
    .map_err(store_err("updating an edge weight"))?;
    Ok(())
}

/// [`GraphStore::add_experience`] on a connection the caller holds.
fn add_experience_in(conn: &Connection, key: &EdgeKey, experience: &Experience) -> Result<()> {
    let id = edge_id_in(conn, key)?;
    conn.execute(
            "INSERT INTO graph_experiences (edge_id, iteration, query, label, answer, correct, trace, created_at_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                id,
                experience.iteration,
                experience.query,
                to_column("experience label", &experience.label)?,
                to_column("experience answer", &experience.answer)?,
                experience.correct,
                to_column("experience trace", &experience.trace)?,
                now_ms()
            ],
        )
        .map_err(store_err("storing an experience"))?;
    Ok(())
}
