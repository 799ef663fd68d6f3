//! The board where the members of a batched view writer's chunk ([`Chunk`], cut by
//! `crate::chunking`) meet: the first to arrive writes the chunk, the others wait for that
//! write and take their own share of it.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;
use toolsmith_catalog::ApiId;
use toolsmith_plumbing::sqlite::lock;

use super::batch::Views;
use super::types::Discarded;
use crate::chunking::Chunk;
use crate::error::Result;

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
                let ids: Vec<ApiId> = chunk.apis().map(|a| a.api.id.clone()).collect();
                Ok::<_, crate::Error>(Written {
                    views: ids.iter().cloned().zip(views).collect(),
                    left: Mutex::new(ids.into_iter().collect()),
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
