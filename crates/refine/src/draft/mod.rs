//! DRAFT (Qu et al., ICLR 2025): each API's doc rewritten from its own trial and error. Per
//! round, the explorer proposes a request and its arguments (asked again, at most
//! `diversity_tries` times, while the request's embedding has cosine >= phi with an earlier
//! one), the call is executed, the analyzer compares doc and observation (told the doc's
//! lint findings as facts to correct: the schema's in the first round only, see
//! [`round_findings`]), and the rewriter
//! writes the next description and exploration direction; the loop stops when the doc
//! settles (Delta > tau, [`stop`]) or after I rounds. A tool's description is rewritten from
//! its refined APIs at the end.
//!
//! The call carries only the arguments the API documents: any other name the explorer gave
//! is dropped and named to the analyzer and rewriter, unless the API's request body is open
//! ([`arguments`]). An API that takes no input stops after its first round
//! ([`Stop::NoParameters`]): every later call would be the same call.
//!
//! A response the simulator or a model made up is shown as `invented_values` says (marked,
//! or as its skeleton), and a rewrite is checked against it: a sentence quoting one of its
//! literals that neither the original doc, the spec nor the request held is flagged in the
//! round and removed (kept under `trust`); a rewrite left empty is refused. The schema
//! defaults a simulated call carried for parameters the explorer left out are shown beside
//! its arguments, so a response reflecting them is read right.

mod arguments;
mod stop;

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use toolsmith_catalog::{ToolEntry, UsageExample};
use toolsmith_exec::Executor;
use toolsmith_llm::{ChatModel, Embedder, Message, Role};
use toolsmith_plumbing::text::truncate_chars;

use crate::ask::{At, ask, first_message};
use crate::error::{Error, Result};
use crate::guard::check_description_within;
use crate::invented;
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

/// A trial as the prompts read it (arguments as JSON text), with how its response is marked.
#[derive(Serialize)]
struct TrialView<'a> {
    query: &'a str,
    arguments: String,
    /// The schema defaults the simulator added for parameters left out, as JSON text
    /// (`""` when none): see [`crate::defaults::added_defaults`].
    defaults: String,
    /// The explorer's arguments left out of the call as undocumented, as JSON text (`""` when
    /// none): see [`arguments::check`].
    undocumented: String,
    ok: bool,
    observation: &'a str,
    /// `""` (evidence), `spec` or `llm`: see [`invented::Shown`].
    invented: &'static str,
    skeleton: bool,
    /// The invented body is only an error or a status message: see [`invented::Shown`].
    status_only: bool,
}

/// One executed exploration: the trial stored, how the prompts mark it, and the literals of
/// its response if it was invented (for the post-check).
struct Observed {
    trial: Trial,
    invented: &'static str,
    skeleton: bool,
    status_only: bool,
    literals: Vec<String>,
}

impl Observed {
    fn view(&self) -> TrialView<'_> {
        TrialView {
            query: &self.trial.query,
            arguments: self.trial.arguments.to_string(),
            defaults: json_text(&self.trial.defaults),
            undocumented: json_text(&self.trial.undocumented),
            ok: self.trial.ok,
            observation: &self.trial.observation,
            invented: self.invented,
            skeleton: self.skeleton,
            status_only: self.status_only,
        }
    }
}

/// `map` as JSON text, `""` when it is empty (a prompt then says nothing of it).
fn json_text(map: &Map<String, Value>) -> String {
    if map.is_empty() {
        String::new()
    } else {
        Value::Object(map.clone()).to_string()
    }
}

/// An API's loop state: its descriptions so far (the original first), the requests explored
/// with their embeddings, the next direction and the examples kept.
struct Resumed {
    history: Vec<String>,
    queries: Vec<(String, Vec<f32>)>,
    direction: String,
    examples: Vec<UsageExample>,
}

/// The explorer's accepted request, its embedding and the requests turned down before it.
struct Explored {
    query: String,
    arguments: Map<String, Value>,
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
                        arguments: reply.value.arguments,
                        embedding,
                        rejected,
                    }));
                }
            }
        }
        Ok(Err("explorer: no request".into()))
    }

    /// Where the API's loop stands after the `done` rounds of an earlier attempt.
    async fn resume(&self, job: &ApiJob, done: &[Round]) -> Result<Resumed> {
        let mut state = Resumed {
            history: vec![job.original().to_owned()],
            queries: Vec::new(),
            direction: String::new(),
            examples: Vec::new(),
        };
        for r in done {
            if let Some(trial) = &r.exploration {
                let at = At {
                    api: job.id(),
                    round: r.round,
                    what: "embedding",
                };
                let embedding = self.embed(&trial.query, at).await?;
                state.queries.push((trial.query.clone(), embedding));
            }
            state.history.push(r.description.clone());
            state.direction = r.direction.clone().unwrap_or_default();
            state.examples.clone_from(&r.examples);
        }
        Ok(state)
    }

    /// Steps 2 and 3: the analyzer's suggestions (kept in `round`), then the rewriter's reply.
    /// `None` when a reply stayed malformed (the reason is in `round.refused`).
    async fn analyze_and_rewrite(
        &self,
        job: &ApiJob,
        doc: &str,
        current: &str,
        observed: &Observed,
        earlier: &[&String],
        round: &mut Round,
    ) -> Result<Option<RewriterReply>> {
        let at = |what| At {
            api: job.id(),
            round: round.round,
            what,
        };
        let ctx = serde_json::json!({
            "doc": doc, "trial": observed.view(), "history": earlier,
            "findings": round_findings(job, current, round.round),
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
                return Ok(None);
            }
        };
        round.suggestions = Some(suggestions.clone());
        let original_chars = job.original().chars().count();
        let ctx = serde_json::json!({
            "doc": doc, "trial": observed.view(), "suggestions": suggestions,
            "history": earlier,
            "max_chars": self.settings.description_limit(original_chars),
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
        Ok(match rewrite {
            Ok(r) => Some(r.value),
            Err(reason) => {
                round.refused = Some(reason);
                None
            }
        })
    }

    /// Step 4, tool-adaptive termination: `new` becomes the round's doc, with its Delta to
    /// `current`, and the round stops the API when the doc settled.
    async fn settle(
        &self,
        current: &str,
        new: String,
        round: &mut Round,
        at: At<'_>,
    ) -> Result<()> {
        let prev_emb = self.embed(current, at).await?;
        let new_emb = self.embed(&new, at).await?;
        let delta = stop::delta(current, &new, &prev_emb, &new_emb);
        round.delta = Some(delta);
        round.description = new;
        if self.settings.adaptive_stop && delta > f64::from(self.settings.stop_similarity) {
            round.stop = Some(Stop::Settled);
        }
        Ok(())
    }

    /// Executes the explored call, without the arguments the API does not document, and
    /// shows its response as `invented_values` says.
    async fn observe(&self, job: &ApiJob, explored: &Explored) -> Result<Observed> {
        let api = job.id();
        let checked = arguments::check(&job.entry.api, explored.arguments.clone());
        let sent = Value::Object(checked.sent);
        let observation = self
            .executor
            .call(api, &sent)
            .await
            .map_err(|source| Error::Exec {
                api: api.clone(),
                source: Box::new(source),
            })?;
        let shown = invented::show(&observation, self.settings.invented_values);
        let text = match observation.failure() {
            Some(kind) => format!("{} {}", kind.as_str(), shown.text),
            None => shown.text,
        };
        Ok(Observed {
            trial: Trial {
                query: explored.query.clone(),
                // Only the simulator fills defaults in; a live or replayed call sent what it got.
                defaults: if invented::is_invented(observation.provenance) {
                    crate::defaults::added_defaults(&job.entry.api, &sent)
                } else {
                    Map::new()
                },
                arguments: sent,
                undocumented: checked.dropped,
                ok: observation.is_ok(),
                failure: observation.failure(),
                observation: truncate_chars(&text, self.settings.max_observation_chars),
                provenance: observation.provenance,
            },
            invented: shown.invented,
            skeleton: shown.skeleton,
            status_only: shown.status_only,
            literals: invented::literals(&observation, &job.entry.api),
        })
    }

    /// Checks a rewrite (its length, the values it quotes) and, if it passes, makes it the
    /// round's doc and says whether the doc settled; a refused rewrite is noted and the
    /// doc stays.
    async fn take_rewrite(
        &self,
        job: &ApiJob,
        current: &str,
        observed: &Observed,
        description: &str,
        round: &mut Round,
        at: At<'_>,
    ) -> Result<()> {
        let limit = self
            .settings
            .description_limit(job.original().chars().count());
        let checked = check_description_within(description, limit)
            .and_then(|new| self.post_check(job, current, observed, new, round));
        match checked {
            Ok(new) => self.settle(current, new, round, at).await?,
            Err(reason) => round.refused = Some(format!("rewriter: {reason}")),
        }
        Ok(())
    }

    /// Why the loop ends after round `n` when the doc has not settled: the API takes no input
    /// (every later call would repeat this one, so exploring again shows nothing new), or `n`
    /// is the last round allowed.
    fn stop_after(&self, job: &ApiJob, n: u32) -> Option<Stop> {
        if job.entry.api.takes_nothing() {
            Some(Stop::NoParameters)
        } else if n == self.settings.max_rounds {
            Some(Stop::MaxRounds)
        } else {
            None
        }
    }

    /// The rewritten doc after the invented-values check: literals only the invented response
    /// held are flagged in `round`; unless the rule is `trust` their sentences are removed,
    /// and a doc left empty is refused (the API keeps `current`).
    fn post_check(
        &self,
        job: &ApiJob,
        current: &str,
        observed: &Observed,
        new: String,
        round: &mut Round,
    ) -> std::result::Result<String, String> {
        if observed.literals.is_empty() {
            return Ok(new);
        }
        let spec = serde_json::to_string(&job.entry.api).unwrap_or_default();
        let known = [
            job.render_with(job.original()),
            spec,
            current.to_owned(),
            observed.trial.query.clone(),
            observed.trial.arguments.to_string(),
        ]
        .join("\n");
        let rule = self.settings.invented_values;
        let (kept, quotes) = invented::check(&new, &observed.literals, &known, rule);
        round.invented_quotes = quotes;
        if kept.is_empty() {
            return Err("every sentence quoted values only an invented response held".into());
        }
        Ok(kept)
    }
}

/// The lint findings the analyzer is told in round `n`. Those a rewrite of the description
/// can remove come every round, as long as the doc has them. The schema's (a required
/// parameter's default, a parameter without a description) come in the first round only:
/// the doc can explain them once, but no rewrite makes them go, and repeated every round
/// they had the model re-address what its doc already said. Showing them once beats showing
/// them "until the doc addresses them", which would need a guess at whether prose covers a
/// schema fact; it is also how the tool-wide findings are shown (while the doc is original).
fn round_findings(job: &ApiJob, current: &str, n: u32) -> Vec<String> {
    if n == 1 {
        job.findings(current)
    } else {
        job.description_findings(current)
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
        let Resumed {
            mut history,
            mut queries,
            mut direction,
            mut examples,
        } = self.resume(job, &done).await?;
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
            let observed = self.observe(job, &explored).await?;
            let trial = observed.trial.clone();
            round.rejected_queries = explored.rejected;
            queries.push((explored.query, explored.embedding));
            round.exploration = Some(trial.clone());
            let earlier: Vec<&String> = history.iter().skip(1).collect();
            let Some(rewrite) = self
                .analyze_and_rewrite(job, &doc, &current, &observed, &earlier, &mut round)
                .await?
            else {
                round.stop = Some(Stop::Malformed);
                return sink.save(&round);
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
            self.take_rewrite(
                job,
                &current,
                &observed,
                &rewrite.description,
                &mut round,
                at("embedding"),
            )
            .await?;
            round.stop = round.stop.or_else(|| self.stop_after(job, n));
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
    /// exploration executed per round. An API that takes no input has one round.
    pub fn estimate(&self, job: &ApiJob) -> Estimate {
        let doc_tokens = (job.render_with(job.original()).len() / CHARS_PER_TOKEN) as u64;
        let rounds = if job.entry.api.takes_nothing() {
            1
        } else {
            u64::from(self.max_rounds)
        };
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
