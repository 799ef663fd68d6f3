//! DRAFT (Qu et al., ICLR 2025): each API's doc rewritten from its own trial and error. Per
//! round, the explorer proposes a request and its arguments (asked again, at most
//! `diversity_tries` times, while the request's embedding has cosine >= phi with an earlier
//! one), the call is executed, the analyzer compares doc and observation (told the doc's
//! lint findings as facts to correct), and the rewriter
//! writes the next description and exploration direction; the loop stops when the doc
//! settles (Delta > tau, [`stop`]) or after I rounds. A tool's description is rewritten from
//! its refined APIs at the end.

mod stop;

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use toolsmith_catalog::{ToolEntry, UsageExample};
use toolsmith_exec::{Executor, Provenance};
use toolsmith_llm::{ChatModel, Embedder, Message, Role};
use toolsmith_plumbing::text::truncate_chars;

use crate::ask::{At, ask, first_message};
use crate::error::{Error, Result};
use crate::guard::{check_description, max_description_chars};
use crate::prompts::{ANALYZER, EXPLORER, REWRITER, TOO_SIMILAR};
use crate::record::{Method, Rejected, Round, Stop, Trial};
use crate::run::{ApiJob, CHARS_PER_TOKEN, Estimate, Refiner, RoundSink};
use crate::settings::DraftSettings;

/// Tokens a DRAFT call costs beyond the doc itself (instructions, history, reply), for the
/// dry-run estimate.
const CALL_OVERHEAD_TOKENS: u64 = 900;

/// DRAFT over a chat model, an embedder and an executor.
pub struct Draft {
    llm: Arc<dyn ChatModel>,
    embedder: Arc<dyn Embedder>,
    executor: Arc<dyn Executor>,
    settings: DraftSettings,
}

#[derive(Deserialize)]
struct ExplorerReply {
    query: String,
    #[serde(default)]
    arguments: Map<String, Value>,
}

#[derive(Deserialize)]
struct AnalyzerReply {
    suggestions: String,
}

#[derive(Deserialize)]
struct RewriterReply {
    description: String,
    #[serde(default)]
    next_exploration: String,
}

/// A trial as the prompts read it (arguments as JSON text).
#[derive(Serialize)]
struct TrialView<'a> {
    query: &'a str,
    arguments: String,
    ok: bool,
    observation: &'a str,
    synthetic: bool,
}

impl<'a> From<&'a Trial> for TrialView<'a> {
    fn from(t: &'a Trial) -> Self {
        Self {
            query: &t.query,
            arguments: t.arguments.to_string(),
            ok: t.ok,
            observation: &t.observation,
            synthetic: t.synthetic,
        }
    }
}

/// The explorer's accepted request, its embedding and the requests turned down before it.
struct Explored {
    query: String,
    arguments: Value,
    embedding: Vec<f32>,
    rejected: Vec<Rejected>,
}

impl Draft {
    /// DRAFT with `settings` (checked).
    pub fn new(
        llm: Arc<dyn ChatModel>,
        embedder: Arc<dyn Embedder>,
        executor: Arc<dyn Executor>,
        settings: DraftSettings,
    ) -> Result<Self> {
        settings.validate()?;
        Ok(Self {
            llm,
            embedder,
            executor,
            settings,
        })
    }

    async fn embed(&self, text: &str, at: At<'_>) -> Result<Vec<f32>> {
        self.embedder
            .embed_one(text)
            .await
            .map_err(|source| Error::Llm {
                api: at.api.clone(),
                round: at.round,
                what: "embedding",
                source: Box::new(source),
            })
    }

    /// The explorer's request for this round, asked again while it is too close to an earlier
    /// one (the last try is kept). `Ok(Err)` when the replies stayed malformed.
    async fn explore(
        &self,
        doc: &str,
        direction: &str,
        earlier: &[(String, Vec<f32>)],
        at: At<'_>,
    ) -> Result<Result<Explored, String>> {
        let explored: Vec<&str> = earlier.iter().map(|(q, _)| q.as_str()).collect();
        let ctx = serde_json::json!({"doc": doc, "direction": direction, "explored": explored});
        let mut messages = vec![first_message(&EXPLORER, &ctx)?];
        let mut rejected = Vec::new();
        let tries = self.settings.diversity_tries;
        for attempt in 1..=tries {
            let reply = match ask::<ExplorerReply>(
                self.llm.as_ref(),
                Role::EXPLORER,
                &EXPLORER,
                messages.clone(),
                self.settings.temperature,
                at,
            )
            .await?
            {
                Ok(r) => r,
                Err(reason) => return Ok(Err(reason)),
            };
            let query = reply.value.query.trim().to_owned();
            if query.is_empty() {
                return Ok(Err("explorer: the request is empty".into()));
            }
            let embedding = self.embed(&query, at).await?;
            let closest = earlier
                .iter()
                .map(|(q, e)| (q, toolsmith_llm::cosine(&embedding, e)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let too_close = closest.filter(|(_, c)| {
                self.settings.diversity && *c >= self.settings.diversity_threshold
            });
            match too_close {
                Some((similar_to, cosine)) if attempt < tries => {
                    tracing::debug!(api = %at.api, %query, cosine, "exploration too similar");
                    let follow_up = TOO_SIMILAR
                        .render(&serde_json::json!({
                            "query": query, "similar_to": similar_to, "cosine": format!("{cosine:.2}")
                        }))
                        .map_err(|e| Error::Prompt(Box::new(e)))?;
                    rejected.push(Rejected {
                        query,
                        cosine,
                        similar_to: similar_to.clone(),
                    });
                    messages.push(Message::assistant(reply.reply));
                    messages.push(Message::user(follow_up));
                }
                _ => {
                    return Ok(Ok(Explored {
                        query,
                        arguments: Value::Object(reply.value.arguments),
                        embedding,
                        rejected,
                    }));
                }
            }
        }
        Ok(Err("explorer: no request".into()))
    }
}

#[async_trait]
impl Refiner for Draft {
    fn method(&self) -> Method {
        Method::Draft
    }

    fn settings_json(&self) -> Value {
        serde_json::to_value(&self.settings).unwrap_or(Value::Null)
    }

    async fn refine_api(&self, job: &ApiJob, done: Vec<Round>, sink: &dyn RoundSink) -> Result<()> {
        if done.last().is_some_and(|r| r.stop.is_some()) {
            return Ok(());
        }
        let api = job.id();
        let original = job.original().to_owned();
        let original_chars = original.chars().count();
        let mut history = vec![original];
        let mut queries: Vec<(String, Vec<f32>)> = Vec::new();
        let mut direction = String::new();
        let mut examples: Vec<UsageExample> = Vec::new();
        for r in &done {
            if let Some(trial) = &r.exploration {
                let at = At {
                    api,
                    round: r.round,
                    what: "embedding",
                };
                queries.push((trial.query.clone(), self.embed(&trial.query, at).await?));
            }
            history.push(r.description.clone());
            direction = r.direction.clone().unwrap_or_default();
            examples.clone_from(&r.examples);
        }
        let first = u32::try_from(done.len())
            .unwrap_or(u32::MAX)
            .saturating_add(1);
        for n in first..=self.settings.max_rounds {
            let current = history.last().cloned().unwrap_or_default();
            let doc = job.render_with(&current);
            let mut round = Round::new(n, current.clone());
            round.examples.clone_from(&examples);
            let at = |what| At {
                api,
                round: n,
                what,
            };
            // 1. Explore.
            let explored = match self
                .explore(&doc, &direction, &queries, at("explorer"))
                .await?
            {
                Ok(e) => e,
                Err(reason) => {
                    round.refused = Some(reason);
                    round.stop = Some(Stop::Malformed);
                    return sink.save(&round);
                }
            };
            let observation =
                self.executor
                    .call(api, &explored.arguments)
                    .await
                    .map_err(|source| Error::Exec {
                        api: api.clone(),
                        source: Box::new(source),
                    })?;
            let mut shown = observation.body.to_text();
            if let Some(kind) = observation.failure() {
                shown = format!("{} {shown}", kind.as_str());
            }
            let trial = Trial {
                query: explored.query.clone(),
                arguments: explored.arguments.clone(),
                ok: observation.is_ok(),
                failure: observation.failure(),
                observation: truncate_chars(&shown, self.settings.max_observation_chars),
                synthetic: matches!(
                    observation.provenance,
                    Provenance::Simulated | Provenance::SimulatedLlm
                ),
            };
            round.rejected_queries = explored.rejected;
            queries.push((explored.query, explored.embedding));
            round.exploration = Some(trial.clone());
            let earlier: Vec<&String> = history.iter().skip(1).collect();
            // 2. Analyze.
            let ctx = serde_json::json!({
                "doc": doc, "trial": TrialView::from(&trial), "history": earlier,
                "findings": job.findings(&current),
            });
            let analysis = ask::<AnalyzerReply>(
                self.llm.as_ref(),
                Role::ANALYZER,
                &ANALYZER,
                vec![first_message(&ANALYZER, &ctx)?],
                self.settings.temperature,
                at("analyzer"),
            )
            .await?;
            let suggestions = match analysis {
                Ok(a) => a.value.suggestions,
                Err(reason) => {
                    round.refused = Some(reason);
                    round.stop = Some(Stop::Malformed);
                    return sink.save(&round);
                }
            };
            round.suggestions = Some(suggestions.clone());
            // 3. Rewrite.
            let ctx = serde_json::json!({
                "doc": doc, "trial": TrialView::from(&trial), "suggestions": suggestions,
                "history": earlier,
                "max_chars": max_description_chars(original_chars, self.settings.max_growth),
            });
            let rewrite = ask::<RewriterReply>(
                self.llm.as_ref(),
                Role::REWRITER,
                &REWRITER,
                vec![first_message(&REWRITER, &ctx)?],
                self.settings.temperature,
                at("rewriter"),
            )
            .await?;
            let rewrite = match rewrite {
                Ok(r) => r.value,
                Err(reason) => {
                    round.refused = Some(reason);
                    round.stop = Some(Stop::Malformed);
                    return sink.save(&round);
                }
            };
            round.direction = Some(rewrite.next_exploration.clone());
            direction = rewrite.next_exploration;
            if trial.ok {
                examples = vec![UsageExample {
                    query: trial.query.clone(),
                    arguments: trial.arguments.clone(),
                    call: None,
                }];
                round.examples.clone_from(&examples);
            }
            match check_description(
                &rewrite.description,
                original_chars,
                self.settings.max_growth,
            ) {
                Ok(new) => {
                    // 4. Tool-adaptive termination.
                    let prev_emb = self.embed(&current, at("embedding")).await?;
                    let new_emb = self.embed(&new, at("embedding")).await?;
                    let delta = stop::delta(&current, &new, &prev_emb, &new_emb);
                    round.delta = Some(delta);
                    round.description.clone_from(&new);
                    if self.settings.adaptive_stop
                        && delta > f64::from(self.settings.stop_similarity)
                    {
                        round.stop = Some(Stop::Settled);
                    }
                }
                Err(reason) => round.refused = Some(format!("rewriter: {reason}")),
            }
            if round.stop.is_none() && n == self.settings.max_rounds {
                round.stop = Some(Stop::MaxRounds);
            }
            history.push(round.description.clone());
            sink.save(&round)?;
            if round.stop.is_some() {
                return Ok(());
            }
        }
        Ok(())
    }

    async fn describe_tool(&self, tool: &ToolEntry) -> Result<Option<String>> {
        let current = tool.doc.as_ref().map_or("", |v| v.doc.description.as_str());
        crate::tool_doc::describe(
            self.llm.as_ref(),
            tool,
            current,
            self.settings.temperature,
            self.settings.max_growth,
        )
        .await
    }

    /// Each round rewrites the doc: every one is kept as `draft.r<N>` (the paper's revision
    /// trajectories, Tables 9-12).
    fn round_versions(&self) -> bool {
        true
    }

    fn estimate(&self, job: &ApiJob) -> Estimate {
        self.settings.estimate(job)
    }
}

impl DraftSettings {
    /// The most one API can cost with these settings (no model needed): per round the
    /// explorer's tries, the analyzer and the rewriter, every request with its repairs; one
    /// exploration executed per round.
    pub fn estimate(&self, job: &ApiJob) -> Estimate {
        let doc_tokens = (job.render_with(job.original()).len() / CHARS_PER_TOKEN) as u64;
        let rounds = u64::from(self.max_rounds);
        let explorer_requests = if self.diversity {
            u64::from(self.diversity_tries)
        } else {
            1
        };
        Estimate::of_requests(
            rounds * (explorer_requests + 2),
            doc_tokens + CALL_OVERHEAD_TOKENS,
            rounds,
        )
    }
}
