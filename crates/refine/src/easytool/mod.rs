//! EasyTool (Yuan et al., 2024): concise, unified tool instructions. Per API: the doc is
//! cleaned deterministically ([`cleanup`], which also fixes what lint can fix mechanically),
//! then the model, told the API's remaining lint findings, writes a short description and
//! usage scenarios (a user request with concrete arguments). Every example is executed and
//! kept only if the call succeeds; a failed one is regenerated once with its error, then
//! dropped. The requests land in the doc's examples, which the retriever indexes. A tool's
//! description becomes "what it can do, and its N functions, one line each".
//!
//! An example keeps only its request and arguments, never a response, so a simulated success
//! keeps the call and quotes nothing invented; a failure the simulator or a model made up is
//! shown to the regeneration as `invented_values` says (marked, or as its skeleton).

mod cleanup;

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Map, Value};
use toolsmith_catalog::{ToolEntry, UsageExample};
use toolsmith_exec::Executor;
use toolsmith_llm::{ChatModel, Role};
use toolsmith_plumbing::text::truncate_chars;

use crate::ask::{At, ask, first_message};
use crate::error::{Error, Result};
use crate::guard::check_description;
use crate::invented;
use crate::prompts::{EASYTOOL_API, EASYTOOL_RETRY};
use crate::record::{Dropped, Method, Round, Stop};
use crate::run::{ApiJob, CHARS_PER_TOKEN, Estimate, Refiner, RoundSink};
use crate::settings::EasyToolSettings;

/// Characters of a failed call's response quoted back to the model.
const ERROR_CHARS: usize = 600;

/// Tokens an EasyTool call costs beyond the doc itself, for the dry-run estimate.
const CALL_OVERHEAD_TOKENS: u64 = 500;

/// EasyTool over a chat model and an executor.
pub struct EasyTool {
    llm: Arc<dyn ChatModel>,
    executor: Arc<dyn Executor>,
    settings: EasyToolSettings,
}

#[derive(Deserialize)]
struct ApiReply {
    description: String,
    #[serde(default)]
    examples: Vec<ExampleReply>,
}

/// A failed example call as the retry prompt shows it.
struct Failed {
    /// `kind: body`, cut.
    error: String,
    /// `""`, `spec` or `llm`: see [`invented::Shown`].
    invented: &'static str,
    skeleton: bool,
}

#[derive(Clone, Deserialize)]
struct ExampleReply {
    request: String,
    #[serde(default)]
    arguments: Map<String, Value>,
}

impl EasyTool {
    /// EasyTool with `settings` (checked).
    pub fn new(
        llm: Arc<dyn ChatModel>,
        executor: Arc<dyn Executor>,
        settings: EasyToolSettings,
    ) -> Result<Self> {
        settings.validate()?;
        Ok(Self {
            llm,
            executor,
            settings,
        })
    }

    /// Executes an example: `Ok(None)` when it succeeded, `Ok(Some(failure))` when not. A
    /// success is all EasyTool keeps of a response (the example is the request and its
    /// arguments), so an invented one puts no value into the doc; an invented failure is
    /// shown to the retry as `invented_values` says.
    async fn try_example(&self, job: &ApiJob, example: &ExampleReply) -> Result<Option<Failed>> {
        let args = Value::Object(example.arguments.clone());
        let obs = self
            .executor
            .call(job.id(), &args)
            .await
            .map_err(|source| Error::Exec {
                api: job.id().clone(),
                source: Box::new(source),
            })?;
        Ok(obs.failure().map(|kind| {
            let shown = invented::show(&obs, self.settings.invented_values);
            Failed {
                error: format!(
                    "{}: {}",
                    kind.as_str(),
                    truncate_chars(&shown.text, ERROR_CHARS)
                ),
                invented: shown.invented,
                skeleton: shown.skeleton,
            }
        }))
    }

    /// The example if it (or its regeneration) succeeds, else why it was dropped.
    async fn keep_or_drop(
        &self,
        job: &ApiJob,
        doc: &str,
        mut example: ExampleReply,
    ) -> Result<Result<UsageExample, Dropped>> {
        let mut regenerations = 0;
        loop {
            let failed = match self.try_example(job, &example).await? {
                None => {
                    return Ok(Ok(UsageExample {
                        query: example.request,
                        arguments: Value::Object(example.arguments),
                        call: None,
                    }));
                }
                Some(failed) => failed,
            };
            let error = failed.error;
            let dropped = |example: &ExampleReply, reason: String| Dropped {
                example: UsageExample {
                    query: example.request.clone(),
                    arguments: Value::Object(example.arguments.clone()),
                    call: None,
                },
                reason,
            };
            if regenerations >= self.settings.regenerations {
                return Ok(Err(dropped(&example, error)));
            }
            regenerations += 1;
            let ctx = serde_json::json!({
                "doc": doc, "request": example.request,
                "arguments": Value::Object(example.arguments.clone()).to_string(), "error": error,
                "invented": failed.invented, "skeleton": failed.skeleton,
            });
            let at = At {
                api: job.id(),
                round: 1,
                what: "example regeneration",
            };
            match ask::<ExampleReply>(
                self.llm.as_ref(),
                Role::REWRITER,
                &EASYTOOL_RETRY,
                vec![first_message(&EASYTOOL_RETRY, &ctx)?],
                self.settings.temperature,
                at,
            )
            .await?
            {
                Ok(new) => example = new.value,
                Err(reason) => return Ok(Err(dropped(&example, format!("{error}; {reason}")))),
            }
        }
    }
}

#[async_trait]
impl Refiner for EasyTool {
    fn method(&self) -> Method {
        Method::EasyTool
    }

    fn settings_json(&self) -> Value {
        serde_json::to_value(&self.settings).unwrap_or(Value::Null)
    }

    async fn refine_api(&self, job: &ApiJob, done: Vec<Round>, sink: &dyn RoundSink) -> Result<()> {
        if done.last().is_some_and(|r| r.stop.is_some()) {
            return Ok(());
        }
        let original = job.original();
        let api = &job.entry.api;
        let cleaned = cleanup::fix_lint(api, &cleanup::clean(original));
        let doc = job.render_with(&cleaned);
        let mut round = Round::new(1, cleaned.clone());
        round.stop = Some(Stop::Done);
        let ctx = serde_json::json!({
            "doc": doc, "tool": job.tool_name, "count": self.settings.examples_per_api,
            "findings": job.findings(&cleaned),
        });
        let at = At {
            api: job.id(),
            round: 1,
            what: "instruction",
        };
        let reply = match ask::<ApiReply>(
            self.llm.as_ref(),
            Role::REWRITER,
            &EASYTOOL_API,
            vec![first_message(&EASYTOOL_API, &ctx)?],
            self.settings.temperature,
            at,
        )
        .await?
        {
            Ok(r) => r.value,
            Err(reason) => {
                // The clean-up alone still stands: it lost nothing a model needs.
                round.refused = Some(reason);
                return sink.save(&round);
            }
        };
        match check_description(
            &reply.description,
            original.chars().count(),
            self.settings.max_growth,
        ) {
            Ok(description) => round.description = cleanup::fix_lint(api, &description),
            Err(reason) => round.refused = Some(format!("instruction: {reason}")),
        }
        let doc = job.render_with(&round.description);
        for example in reply
            .examples
            .into_iter()
            .filter(|e| !e.request.trim().is_empty())
            .take(self.settings.examples_per_api)
        {
            match self.keep_or_drop(job, &doc, example).await? {
                Ok(kept) => round.examples.push(kept),
                Err(dropped) => round.dropped.push(dropped),
            }
        }
        sink.save(&round)
    }

    async fn describe_tool(&self, tool: &ToolEntry) -> Result<Option<String>> {
        let current = tool
            .doc
            .as_ref()
            .map(|v| cleanup::clean(&v.doc.description))
            .unwrap_or_default();
        crate::tool_doc::describe(
            self.llm.as_ref(),
            tool,
            &current,
            self.settings.temperature,
            self.settings.max_growth,
        )
        .await
    }

    fn estimate(&self, job: &ApiJob) -> Estimate {
        self.settings.estimate(job)
    }
}

impl EasyToolSettings {
    /// The most one API can cost with these settings (no model needed): the instruction and
    /// each example's regenerations, every request with its repairs; each example executed
    /// once and once per regeneration.
    pub fn estimate(&self, job: &ApiJob) -> Estimate {
        let doc_tokens = (job.render_with(job.original()).len() / CHARS_PER_TOKEN) as u64;
        let examples = self.examples_per_api as u64;
        let requests = 1 + examples * u64::from(self.regenerations);
        Estimate::of_requests(
            requests,
            doc_tokens + CALL_OVERHEAD_TOKENS,
            examples * (1 + u64::from(self.regenerations)),
        )
    }
}
