//! The run: every unfinished path of a set is written, filtered and stored, a bounded number
//! at once. A path's requests are stored together with its done mark, so a killed run
//! resumes at the first unfinished path and asks the writer nothing twice.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::StreamExt as _;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use toolsmith_catalog::{ApiEntry, ApiId, Catalog};
use toolsmith_exec::{Executor, fresh_session};
use toolsmith_llm::Embedder;

use super::check::{AnswerCheck, Answered};
use super::dedup::Dedup;
use super::echo::doc_echo;
use super::filter::{DropReason, run_planned};
use super::store::{Fate, Split, StoredPath, SynthQuery, SynthSet, SynthStore};
use super::writer::{PathWriter, WriteAsk, WrittenQuery};
use crate::error::Result;

/// Hears about a run's progress.
pub trait SynthObserver: Send + Sync {
    /// A path's requests were stored (`done` of `total` paths now).
    fn path_done(&self, done: usize, total: usize);
    /// A path failed and stays unfinished (a resume retries it).
    fn path_failed(&self, idx: usize, why: &str) {
        let _ = (idx, why);
    }
}

/// What a set is made with.
pub struct Synthesizer {
    /// Writes the requests.
    pub writer: Arc<dyn PathWriter>,
    /// Runs the planned calls (each request in a fresh session).
    pub executor: Arc<dyn Executor>,
    /// Checks that the responses answer the request, when on.
    pub checker: Option<Arc<dyn AnswerCheck>>,
    /// Embeds requests for de-duplication by cosine (exact words without one).
    pub embedder: Option<Arc<dyn Embedder>>,
    /// Paths worked on at once.
    pub concurrency: usize,
}

/// A set's figures: kept requests by split and by path kind, dropped ones by reason.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SetSummary {
    /// The set's name.
    pub name: String,
    /// Paths sampled.
    pub paths: usize,
    /// Paths whose requests are stored.
    pub paths_done: usize,
    /// Kept requests per split.
    pub kept: BTreeMap<String, usize>,
    /// Kept requests per path kind.
    pub kinds: BTreeMap<String, usize>,
    /// Kept requests per gold path length.
    pub lengths: BTreeMap<usize, usize>,
    /// Dropped requests per reason.
    pub dropped: BTreeMap<String, usize>,
    /// Distinct APIs on the gold paths of the eval split.
    pub eval_apis: usize,
}

impl SetSummary {
    /// The figures of `set` as stored.
    pub fn of(store: &SynthStore, set: &SynthSet) -> Result<Self> {
        let paths = store.paths(set.id)?;
        let mut out = Self {
            name: set.name.clone(),
            paths: paths.len(),
            paths_done: paths.iter().filter(|p| p.done).count(),
            ..Self::default()
        };
        let mut eval_apis = std::collections::BTreeSet::new();
        for q in store.queries(set.id)? {
            match q.fate {
                Fate::Kept { split, .. } => {
                    *out.kept.entry(split.to_string()).or_default() += 1;
                    *out.kinds.entry(q.path.kind.to_string()).or_default() += 1;
                    *out.lengths.entry(q.path.apis.len()).or_default() += 1;
                    if split == Split::Eval {
                        eval_apis.extend(q.path.apis);
                    }
                }
                Fate::Dropped { reason } => {
                    *out.dropped.entry(reason.to_string()).or_default() += 1
                }
            }
        }
        out.eval_apis = eval_apis.len();
        Ok(out)
    }
}

impl Synthesizer {
    /// Works through every unfinished path of `set`, storing each as it finishes; marks the
    /// set finished when none is left. `catalog` gives the paths' docs.
    pub async fn run(
        &self,
        store: &SynthStore,
        set: &SynthSet,
        catalog: &Catalog,
        observer: &dyn SynthObserver,
    ) -> Result<SetSummary> {
        let paths = store.paths(set.id)?;
        let dedup = Dedup::new(self.embedder.clone(), set.spec.dedup_threshold);
        for q in store.queries(set.id)? {
            if matches!(q.fate, Fate::Kept { .. }) {
                dedup.admit(&q.text).await;
            }
        }
        let entries: BTreeMap<&ApiId, &ApiEntry> =
            catalog.apis().map(|(_, a)| (&a.api.id, a)).collect();
        let total = paths.len();
        let mut done = paths.iter().filter(|p| p.done).count();
        let pending: Vec<&StoredPath> = paths.iter().filter(|p| !p.done).collect();
        let mut work = futures::stream::iter(pending.into_iter().map(|p| {
            let dedup = &dedup;
            let entries = &entries;
            async move { (p.idx, self.path(set, p, entries, dedup).await) }
        }))
        .buffer_unordered(self.concurrency.max(1));
        while let Some((idx, made)) = work.next().await {
            match made {
                Ok(queries) => {
                    store.finish_path(set.id, idx, &queries)?;
                    done += 1;
                    observer.path_done(done, total);
                }
                Err(why) => observer.path_failed(idx, &why),
            }
        }
        if done == total {
            store.mark_finished(set.id)?;
        }
        let latest = store.set(&set.name)?.unwrap_or_else(|| set.clone());
        SetSummary::of(store, &latest)
    }

    /// One path's requests with their fates; `Err` (a message) leaves the path unfinished.
    async fn path(
        &self,
        set: &SynthSet,
        stored: &StoredPath,
        entries: &BTreeMap<&ApiId, &ApiEntry>,
        dedup: &Dedup,
    ) -> std::result::Result<Vec<SynthQuery>, String> {
        let steps = stored
            .path
            .apis
            .iter()
            .map(|api| {
                entries
                    .get(api)
                    .map(|e| (*e).clone())
                    .ok_or_else(|| format!("{api} is no longer in the catalog"))
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let ask = WriteAsk {
            path: stored.path.clone(),
            steps: steps.clone(),
            count: set.spec.per_path,
            phrasings: set.spec.phrasings.clone(),
        };
        let written = self.writer.write(&ask).await.map_err(|e| e.to_string())?;
        let mut out = Vec::with_capacity(written.len());
        for (n, query) in written.into_iter().enumerate() {
            let id = format!("{}-{n}", stored.idx);
            let fate = self.fate(set, &id, stored, &steps, &query, dedup).await?;
            out.push(SynthQuery {
                id,
                path_idx: stored.idx,
                text: query.text,
                phrasing: query.phrasing,
                path: stored.path.clone(),
                calls: query.calls,
                fate,
            });
        }
        Ok(out)
    }

    async fn fate(
        &self,
        set: &SynthSet,
        id: &str,
        stored: &StoredPath,
        steps: &[ApiEntry],
        query: &WrittenQuery,
        dedup: &Dedup,
    ) -> std::result::Result<Fate, String> {
        let dropped = |reason| Ok(Fate::Dropped { reason });
        let executor = fresh_session(&self.executor);
        let responses = match run_planned(executor.as_ref(), &stored.path, &query.calls).await {
            Ok(r) => r,
            Err(reason) => return dropped(reason),
        };
        // Checked before the answer check, whose model call it saves.
        let values: Vec<&serde_json::Value> = responses
            .iter()
            .chain(query.calls.iter().map(|c| &c.arguments))
            .collect();
        let echo = doc_echo(&query.text, steps, &values);
        if echo > set.spec.doc_echo_max {
            return dropped(DropReason::DocEcho);
        }
        if echo < set.spec.doc_echo_min {
            return dropped(DropReason::DocEchoLow);
        }
        let reference = match &self.checker {
            Some(checker) => match checker
                .check(&query.text, &responses)
                .await
                .map_err(|e| e.to_string())?
            {
                Answered::Yes(answer) => Some(answer),
                Answered::No => return dropped(DropReason::NotAnswered),
            },
            None => None,
        };
        if !dedup.admit(&query.text).await {
            return dropped(DropReason::Duplicate);
        }
        Ok(Fate::Kept {
            split: split_of(set, id),
            reference,
        })
    }
}

/// The split of request `id`: drawn from the set's seed and the id, so it never changes.
fn split_of(set: &SynthSet, id: &str) -> Split {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut rng = StdRng::seed_from_u64(set.spec.sizes.seed ^ hash);
    if rng.random_bool(set.spec.eval_share.clamp(0.0, 1.0)) {
        Split::Eval
    } else {
        Split::Index
    }
}
