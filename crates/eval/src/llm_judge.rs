//! [`LlmJudge`]: the [`Judge`] that asks a language model, with ToolEval's protocol (ToolLLM,
//! Qin et al. 2024, `tooleval/evaluators`): the answer's status from the final answer, and
//! from the whole trajectory when that first look is unsure; the task's solvability with the
//! tools offered; and which of two runs is better. Each question is one structured JSON
//! reply under the model role `judge` (`[llm] role_models.judge` picks its model). The
//! prompts are toolsmith's own (`prompts/judge_*.j2`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolsmith_catalog::ApiId;
use toolsmith_exec::ApiBook;
use toolsmith_llm::{
    Budget, ChatModel, ChatRequest, Message, Metered, Prompt, Role, Sampling, StructuredSettings,
    ask_json,
};
use toolsmith_plumbing::json::sha256_hex;

use crate::error::{Error, Result};
use crate::judge::{AnswerStatus, Judge, JudgeCase, JudgeUsage, Preference, TaskSolvability};
use crate::judge_record::{ShownRun, final_answer, shown};
use crate::run::RunRecord;

const ANSWER: Prompt = Prompt::new(
    "eval/judge_answer",
    include_str!("../prompts/judge_answer.j2"),
);
const TRAJECTORY: Prompt = Prompt::new(
    "eval/judge_trajectory",
    include_str!("../prompts/judge_trajectory.j2"),
);
const SOLVABLE: Prompt = Prompt::new(
    "eval/judge_solvable",
    include_str!("../prompts/judge_solvable.j2"),
);
const PREFER: Prompt = Prompt::new(
    "eval/judge_prefer",
    include_str!("../prompts/judge_prefer.j2"),
);

/// How the judge model is asked.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmJudgeSettings {
    /// Sampling temperature (ToolEval's evaluator: 0.2).
    pub temperature: Option<f32>,
    /// Largest reply (ToolEval: 1,000 tokens).
    pub max_tokens: Option<u32>,
    /// Each observation shown to the trajectory judge is cut to about this many characters,
    /// keeping the values the final answer cites (`judge_excerpt`).
    pub observation_chars: usize,
    /// Re-asks after a reply that is not the JSON asked for.
    pub max_repairs: u32,
}

impl LlmJudgeSettings {
    /// ToolEval's evaluator (`tooleval_gpt-3.5-turbo_default`): temperature 0.2, 1,000 tokens.
    pub const PAPER: Self = Self {
        temperature: Some(0.2),
        max_tokens: Some(1000),
        observation_chars: 500,
        max_repairs: 2,
    };
}

impl Default for LlmJudgeSettings {
    fn default() -> Self {
        Self::PAPER
    }
}

/// A [`Judge`] backed by a chat model.
///
/// Judgements are samples: the k-th time this judge is asked the very same question (ToolEval's
/// repeated samples, AnyTool's votes, another judge run) the request carries the sampling seed
/// k, so each is its own draw from the model and its own entry in the LLM cache, and judging
/// again in the same order replays every verdict from the cache.
pub struct LlmJudge {
    llm: Arc<dyn ChatModel>,
    meter: Arc<Budget>,
    settings: LlmJudgeSettings,
    book: Option<Arc<ApiBook>>,
    asked: Mutex<HashMap<String, u64>>,
}

/// A status reply: `{reason, status}`.
#[derive(Deserialize)]
struct StatusReply {
    #[serde(default)]
    #[allow(dead_code)] // asked for so the model reasons before it decides
    reason: String,
    status: String,
}

/// A preference reply: `{reason, better}`.
#[derive(Deserialize)]
struct PreferReply {
    #[serde(default)]
    #[allow(dead_code)] // asked for so the model reasons before it decides
    reason: String,
    better: String,
}

/// `llm` behind a meter of its own, and the meter: what a judge spends, counted apart.
pub(crate) fn metered(llm: Arc<dyn ChatModel>) -> (Arc<dyn ChatModel>, Arc<Budget>) {
    let meter = Arc::new(Budget::unlimited());
    (Arc::new(Metered::new(llm, Arc::clone(&meter))), meter)
}

impl LlmJudge {
    /// A judge asking `llm` (requests carry the role `judge`). Its own meter counts what it
    /// spends ([`Judge::usage`]).
    pub fn new(llm: Arc<dyn ChatModel>, settings: LlmJudgeSettings) -> Self {
        let (llm, meter) = metered(llm);
        Self {
            llm,
            meter,
            settings,
            book: None,
            asked: Mutex::new(HashMap::new()),
        }
    }

    /// Describes the offered tools to the solvability question from `book` (by default
    /// they are shown by id only).
    pub fn with_book(mut self, book: Arc<ApiBook>) -> Self {
        self.book = Some(book);
        self
    }

    async fn ask<T: serde::de::DeserializeOwned>(
        &self,
        prompt: &Prompt,
        ctx: serde_json::Value,
        query: &str,
    ) -> Result<T> {
        let text = prompt.render(&ctx).map_err(judge_err)?;
        let draw = {
            let mut asked = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
            let count = asked.entry(sha256_hex(text.as_bytes())).or_insert(0);
            *count += 1;
            *count - 1
        };
        let request = ChatRequest::new(Role::JUDGE, vec![Message::user(text)])
            .with_sampling(Sampling {
                temperature: self.settings.temperature,
                max_tokens: self.settings.max_tokens,
                seed: Some(draw),
                ..Sampling::default()
            })
            .with_query(query);
        let settings = StructuredSettings {
            max_repairs: self.settings.max_repairs,
            ..StructuredSettings::default()
        };
        Ok(ask_json(self.llm.as_ref(), request, &settings)
            .await
            .map_err(judge_err)?
            .value)
    }

    fn shown(&self, run: &RunRecord) -> ShownRun {
        shown(run, self.settings.observation_chars)
    }
}

fn judge_err(e: impl std::fmt::Display) -> Error {
    Error::Judge {
        message: e.to_string(),
    }
}

/// A status word, read leniently (case, spaces, quotes).
fn word(raw: &str) -> String {
    raw.trim()
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '.')
        .to_ascii_lowercase()
}

fn answer_status(raw: &str) -> Result<AnswerStatus> {
    match word(raw).as_str() {
        "solved" => Ok(AnswerStatus::Solved),
        "unsolved" => Ok(AnswerStatus::Unsolved),
        "unsure" => Ok(AnswerStatus::Unsure),
        other => Err(judge_err(format!(
            "the judge's status `{other}` is not solved, unsolved or unsure"
        ))),
    }
}

fn solvability(raw: &str) -> Result<TaskSolvability> {
    match word(raw).as_str() {
        "solvable" => Ok(TaskSolvability::Solvable),
        "unsolvable" => Ok(TaskSolvability::Unsolvable),
        "unsure" => Ok(TaskSolvability::Unsure),
        other => Err(judge_err(format!(
            "the judge's status `{other}` is not solvable, unsolvable or unsure"
        ))),
    }
}

fn preference(raw: &str) -> Result<Preference> {
    match word(raw).as_str() {
        "a" | "first" => Ok(Preference::First),
        "b" | "second" => Ok(Preference::Second),
        "tie" | "neither" | "equal" => Ok(Preference::Tie),
        other => Err(judge_err(format!(
            "the judge's choice `{other}` is not A, B or tie"
        ))),
    }
}

#[async_trait]
impl Judge for LlmJudge {
    async fn answer_status(&self, case: &JudgeCase<'_>) -> Result<AnswerStatus> {
        let answer = final_answer(case.run);
        let first: StatusReply = self
            .ask(
                &ANSWER,
                json!({"query": case.query, "answer": answer}),
                case.query,
            )
            .await?;
        let status = answer_status(&first.status)?;
        if status != AnswerStatus::Unsure {
            return Ok(status);
        }
        // ToolEval: an unsure first look is settled from the whole trajectory.
        let shown = self.shown(case.run);
        let second: StatusReply = self
            .ask(
                &TRAJECTORY,
                json!({"query": case.query, "answer": shown.answer, "calls": shown.calls}),
                case.query,
            )
            .await?;
        answer_status(&second.status)
    }

    async fn prefer(
        &self,
        query: &str,
        first: &RunRecord,
        second: &RunRecord,
    ) -> Result<Preference> {
        let reply: PreferReply = self
            .ask(
                &PREFER,
                json!({"query": query, "first": self.shown(first), "second": self.shown(second)}),
                query,
            )
            .await?;
        preference(&reply.better)
    }

    async fn task_solvability(&self, query: &str, offered: &[ApiId]) -> Result<TaskSolvability> {
        let tools: Vec<String> = offered
            .iter()
            .map(|id| {
                let about = self
                    .book
                    .as_ref()
                    .and_then(|b| b.get(id))
                    .map(|e| e.api.description().replace('\n', " "))
                    .unwrap_or_default();
                if about.is_empty() {
                    id.to_string()
                } else {
                    format!(
                        "{id}: {}",
                        toolsmith_plumbing::text::truncate_with(&about, 200, "...")
                    )
                }
            })
            .collect();
        let reply: StatusReply = self
            .ask(&SOLVABLE, json!({"query": query, "tools": tools}), query)
            .await?;
        solvability(&reply.status)
    }

    fn usage(&self) -> JudgeUsage {
        let total = self.meter.ledger().total;
        JudgeUsage {
            calls: total.calls.saturating_sub(total.cache_hits),
            cache_hits: total.cache_hits,
            prompt_tokens: total.prompt_tokens,
            completion_tokens: total.completion_tokens,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_words_are_read_leniently_and_unknown_ones_refused() {
        assert_eq!(answer_status(" Solved. ").ok(), Some(AnswerStatus::Solved));
        assert_eq!(
            solvability("\"UNSOLVABLE\"").ok(),
            Some(TaskSolvability::Unsolvable)
        );
        assert_eq!(preference("B").ok(), Some(Preference::Second));
        assert_eq!(preference("tie").ok(), Some(Preference::Tie));
        assert!(answer_status("maybe").is_err_and(|e| e.to_string().contains("`maybe`")));
    }

    #[test]
    fn every_prompt_renders() {
        let run = RunRecord {
            calls: Vec::new(),
            finish: toolsmith_solve::Finish::GaveUp,
            answer: None,
        };
        let judge = LlmJudge::new(
            Arc::new(toolsmith_llm::testing::ScriptedLlm::new([])),
            LlmJudgeSettings::PAPER,
        );
        let shown = judge.shown(&run);
        assert!(shown.answer.contains("gave_up"));
        for (prompt, ctx) in [
            (&ANSWER, json!({"query": "q", "answer": "a"})),
            (
                &TRAJECTORY,
                json!({"query": "q", "answer": "a", "calls": []}),
            ),
            (&SOLVABLE, json!({"query": "q", "tools": ["t/a"]})),
            (
                &PREFER,
                json!({"query": "q", "first": judge.shown(&run), "second": judge.shown(&run)}),
            ),
        ] {
            assert!(prompt.render(&ctx).is_ok(), "{}", prompt.name());
        }
    }
}
