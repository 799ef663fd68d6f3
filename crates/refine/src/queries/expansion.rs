//! `refine --method queries`: Re-Invoke's document expansion as a [`Refiner`]. Per API, the
//! [`QueryWriter`] writes `count` diverse single-call requests; the API's new doc version
//! (label `queries`) is its starting doc, description and examples as they were, with those
//! requests as its `queries`, which retrieval indexes as views of the API. With
//! `apis_per_call` above 1, the views of a chunk of a tool's APIs (with `pack_tools`, of
//! several small tools) are written by one model request (texts only); the chunk's first API
//! to arrive writes it, its other APIs wait for that write, and each stores its own round as
//! before.

use async_trait::async_trait;
use toolsmith_catalog::{ToolEntry, UsageExample, render};

use super::batch::Views;
use super::chunk::ChunkBoard;
use super::doc::step_markdown;
use super::settings::QueryWriterSettings;
use super::types::{Discarded, PathStep, Phrasing, Voice, WriteRequest};
use super::writer::QueryWriter;
use crate::error::Result;
use crate::record::{Dropped, Method, Rejected, Round, Stop};
use crate::run::{ApiJob, CHARS_PER_TOKEN, Estimate, Refiner, RoundSink};

/// Prompt tokens of one writer request beyond the API's doc (instructions, the list of
/// requests kept so far).
const PROMPT_OVERHEAD_TOKENS: u64 = 450;

/// Completion tokens per request written (its text and its call's arguments).
const TOKENS_PER_QUERY: u64 = 45;

/// Prompt tokens of one batched request beyond the tool's header and its APIs' docs.
const BATCH_PROMPT_OVERHEAD_TOKENS: u64 = 350;

/// Completion tokens per request written in a batch (its text alone).
const TOKENS_PER_VIEW: u64 = 25;

/// Synthetic-query expansion of API docs.
pub struct QueryExpansion {
    writer: QueryWriter,
    /// The chunks being written (`apis_per_call` above 1).
    chunks: ChunkBoard,
}

impl QueryExpansion {
    /// Expansion with `writer` (and its settings' `count` per API).
    pub fn new(writer: QueryWriter) -> Self {
        Self {
            writer,
            chunks: ChunkBoard::default(),
        }
    }

    fn settings(&self) -> &QueryWriterSettings {
        self.writer.settings()
    }

    /// The API's views from a request of its own, each checked with its call's arguments.
    async fn write_one(&self, job: &ApiJob) -> Result<Views> {
        let request = WriteRequest {
            steps: vec![PathStep::new(job.entry.clone())],
            count: self.settings().count,
            phrasings: Phrasing::for_steps(1),
            avoid: Vec::new(),
            voice: Voice::View,
        };
        let report = self.writer.write_report(&request).await?;
        Ok(Views {
            texts: report.queries.into_iter().map(|q| q.text).collect(),
            discarded: report.discarded,
            asks: report.asks,
        })
    }

    /// The API's share of its chunk's views, writing the chunk unless a sibling has.
    async fn write_batched(&self, job: &ApiJob) -> Result<Views> {
        let chunk = job.chunk(self.settings().chunking());
        self.chunks
            .views(&chunk, job.id(), || self.writer.write_views(&chunk))
            .await
    }
}

#[async_trait]
impl Refiner for QueryExpansion {
    fn method(&self) -> Method {
        Method::Queries
    }

    fn settings_json(&self) -> serde_json::Value {
        serde_json::to_value(self.settings()).unwrap_or_default()
    }

    async fn refine_api(&self, job: &ApiJob, done: Vec<Round>, sink: &dyn RoundSink) -> Result<()> {
        if done.last().is_some_and(|r| r.stop.is_some()) {
            return Ok(());
        }
        let views = if self.settings().apis_per_call > 1 {
            self.write_batched(job).await?
        } else {
            self.write_one(job).await?
        };
        let mut round = Round::new(1, job.original());
        round.examples = job
            .entry
            .doc
            .as_ref()
            .map(|v| v.doc.examples.clone())
            .unwrap_or_default();
        round.queries = views.texts;
        for discarded in views.discarded {
            record(&mut round, discarded);
        }
        if round.queries.is_empty() {
            round.refused = Some(format!(
                "no usable request in {} ask(s){}",
                views.asks,
                round
                    .refused
                    .as_deref()
                    .map(|r| format!(" (last: {r})"))
                    .unwrap_or_default()
            ));
        }
        round.stop = Some(Stop::Done);
        sink.save(&round)
    }

    async fn describe_tool(&self, _tool: &ToolEntry) -> Result<Option<String>> {
        Ok(None)
    }

    fn estimate(&self, job: &ApiJob) -> Estimate {
        self.settings().estimate(job)
    }
}

/// Keeps what the writer discarded on the round, where `docs history --rounds` shows it.
fn record(round: &mut Round, discarded: Discarded) {
    match discarded {
        Discarded::NearDuplicate {
            text,
            similar_to,
            cosine,
        } => round.rejected_queries.push(Rejected {
            query: text,
            cosine,
            similar_to,
        }),
        Discarded::Malformed { item, reason } => round.dropped.push(Dropped {
            example: UsageExample {
                // A batched view is a bare string; a per-API one an object with its calls.
                query: item
                    .as_str()
                    .or_else(|| item.get("text").and_then(|t| t.as_str()))
                    .unwrap_or_default()
                    .to_owned(),
                arguments: item.get("calls").cloned().unwrap_or_default(),
                call: None,
            },
            reason,
        }),
        Discarded::Unusable { reason } => round.refused = Some(reason),
    }
}

impl QueryWriterSettings {
    /// The most one API's expansion can cost (no model needed): `max_asks` writer requests,
    /// each with its repairs; no tool call. Batched (`apis_per_call` above 1), a chunk's
    /// requests are counted once, on its first API; its other APIs add nothing.
    pub fn estimate(&self, job: &ApiJob) -> Estimate {
        if self.apis_per_call > 1 {
            return self.chunk_estimate(job);
        }
        let doc_tokens = (job.render_with(job.original()).len() / CHARS_PER_TOKEN) as u64;
        let count = self.count as u64;
        Estimate::of_requests(
            u64::from(self.max_asks),
            doc_tokens + PROMPT_OVERHEAD_TOKENS + count * TOKENS_PER_QUERY * 2,
            0,
        )
    }

    /// What `job`'s chunk costs when `job` is its first API: `max_asks` requests showing
    /// each tool and every API of the chunk, each request writing (and later showing) the
    /// views of all of them. A packed chunk is counted once, as any other.
    fn chunk_estimate(&self, job: &ApiJob) -> Estimate {
        let chunk = job.chunk(self.chunking());
        if chunk.key() != Some(job.id()) {
            return Estimate::default();
        }
        let headers: usize = chunk
            .tools
            .iter()
            .map(|t| render::tool_header(t).len())
            .sum();
        let shown = headers + chunk.apis().map(|a| step_markdown(a).len()).sum::<usize>();
        let views = (self.count * chunk.apis().count()) as u64;
        Estimate::of_requests(
            u64::from(self.max_asks),
            (shown / CHARS_PER_TOKEN) as u64
                + BATCH_PROMPT_OVERHEAD_TOKENS
                + views * TOKENS_PER_VIEW * 2,
            0,
        )
    }
}
