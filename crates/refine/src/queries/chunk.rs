//! The batched view writer's chunks: which APIs of a tool one model request covers, and the
//! board where a chunk's members meet: the first to arrive writes the chunk, the others wait
//! for that write and take their own share of it.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;
use toolsmith_catalog::{ApiEntry, ApiId};
use toolsmith_plumbing::sqlite::lock;

use super::batch::Views;
use super::types::Discarded;
use crate::error::Result;
use crate::run::ApiJob;

/// Up to `size` APIs of one tool that one model request writes views for. A tool's planned
/// APIs, sorted by id, are cut into consecutive chunks, so a chunk never depends on which of
/// its APIs an earlier attempt finished: a resumed run asks the very same prompt again.
#[derive(Clone, Debug)]
pub(crate) struct Chunk {
    /// The chunk's APIs, sorted by id; the first one names the chunk.
    pub(crate) apis: Vec<ApiEntry>,
}

impl Chunk {
    /// The chunk of `job`'s API among its tool's planned APIs, `size` (at least 1) a chunk.
    /// An API missing from its job's tool is a chunk of its own.
    pub(crate) fn of(job: &ApiJob, size: usize) -> Self {
        let size = size.max(1);
        let mut sorted: Vec<&ApiEntry> = job.tool.apis.iter().collect();
        sorted.sort_by(|a, b| a.api.id.cmp(&b.api.id));
        let apis = sorted
            .iter()
            .position(|a| a.api.id == *job.id())
            .and_then(|at| sorted.chunks(size).nth(at / size))
            .map(|chunk| chunk.iter().map(|a| (*a).clone()).collect())
            .unwrap_or_else(|| vec![job.entry.clone()]);
        Self { apis }
    }

    /// The API that names the chunk (its first by id).
    pub(crate) fn key(&self) -> Option<&ApiId> {
        self.apis.first().map(|a| &a.api.id)
    }
}

/// A written chunk: each API's views, and the APIs that have not taken theirs yet.
struct Written {
    views: HashMap<ApiId, Views>,
    left: Mutex<HashSet<ApiId>>,
}

/// The chunks being written, or written and not yet taken by every member, by key. A
/// failed write leaves its chunk unwritten: the next member to come (or to be waiting)
/// writes it again, and each member that saw a failure reports its own.
#[derive(Default)]
pub(crate) struct ChunkBoard {
    cells: Mutex<HashMap<ApiId, Arc<OnceCell<Written>>>>,
}

impl ChunkBoard {
    /// `api`'s views of `chunk`: written by `write` (one [`Views`] per API of the chunk, in
    /// order) when no member has written them yet, else the write done or under way.
    pub(crate) async fn views<F, Fut>(&self, chunk: &Chunk, api: &ApiId, write: F) -> Result<Views>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Vec<Views>>>,
    {
        let Some(key) = chunk.key() else {
            return Ok(Views::default());
        };
        let cell = Arc::clone(lock(&self.cells).entry(key.clone()).or_default());
        let written = cell
            .get_or_try_init(|| async {
                let views = write().await?;
                let ids = chunk.apis.iter().map(|a| a.api.id.clone());
                Ok::<_, crate::Error>(Written {
                    views: ids.clone().zip(views).collect(),
                    left: Mutex::new(ids.collect()),
                })
            })
            .await?;
        let mine = written.views.get(api).cloned().unwrap_or_else(|| Views {
            discarded: vec![Discarded::Unusable {
                reason: "the chunk's write returned nothing for this API".into(),
            }],
            ..Views::default()
        });
        let all_taken = {
            let mut left = lock(&written.left);
            left.remove(api);
            left.is_empty()
        };
        // Members an earlier attempt finished never come: their chunk stays until the run ends.
        if all_taken {
            lock(&self.cells).remove(key);
        }
        Ok(mine)
    }
}
