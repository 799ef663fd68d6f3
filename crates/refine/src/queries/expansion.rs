//! `refine --method queries`: Re-Invoke's document expansion as a [`Refiner`]. Per API, the
//! [`QueryWriter`] writes `count` diverse single-call requests; the API's new doc version
//! (label `queries`) is its starting doc, description and examples as they were, with those
//! requests as its `queries`, which retrieval indexes as views of the API.

use async_trait::async_trait;
use toolsmith_catalog::{ToolEntry, UsageExample};

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

/// Synthetic-query expansion of API docs.
pub struct QueryExpansion {
    writer: QueryWriter,
}

impl QueryExpansion {
    /// Expansion with `writer` (and its settings' `count` per API).
    pub fn new(writer: QueryWriter) -> Self {
        Self { writer }
    }

    fn settings(&self) -> &QueryWriterSettings {
        self.writer.settings()
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
        let request = WriteRequest {
            steps: vec![PathStep::new(job.entry.clone())],
            count: self.settings().count,
            phrasings: Phrasing::for_steps(1),
            avoid: Vec::new(),
            voice: Voice::View,
        };
        let report = self.writer.write_report(&request).await?;
        let mut round = Round::new(1, job.original());
        round.examples = job
            .entry
            .doc
            .as_ref()
            .map(|v| v.doc.examples.clone())
            .unwrap_or_default();
        round.queries = report.queries.into_iter().map(|q| q.text).collect();
        for discarded in report.discarded {
            record(&mut round, discarded);
        }
        if round.queries.is_empty() {
            round.refused = Some(format!(
                "no usable request in {} ask(s){}",
                report.asks,
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
                query: item
                    .get("text")
                    .and_then(|t| t.as_str())
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
    /// each with its repairs; no tool call.
    pub fn estimate(&self, job: &ApiJob) -> Estimate {
        let doc_tokens = (job.render_with(job.original()).len() / CHARS_PER_TOKEN) as u64;
        let count = self.count as u64;
        Estimate::of_requests(
            u64::from(self.max_asks),
            doc_tokens + PROMPT_OVERHEAD_TOKENS + count * TOKENS_PER_QUERY * 2,
            0,
        )
    }
}
