//! The check of a final answer that decides whether AnyTool reflects: a trait, so the
//! binary can plug in another judge, and [`LlmJudge`], a small majority-vote judge with
//! toolsmith's own prompt (solve never depends on the evaluation crate).

use async_trait::async_trait;
use toolsmith_llm::Message;

use super::labels::Verdict;
use crate::runtime::{Runtime, Stop};

/// A verdict with its reason.
#[derive(Clone, Debug, PartialEq)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// Why.
    pub reason: String,
}

/// Checks a final answer against the query.
#[async_trait]
pub trait AnswerCheck: Send + Sync {
    /// The verdict on `answer`; `Err` when the model or budget failed.
    async fn check(&self, query: &str, answer: &str) -> Result<Judgement, Stop>;
}

/// Asks the model `votes` times and passes only a majority of `Solved` votes.
pub struct LlmJudge {
    runtime: Runtime,
    votes: usize,
    early: bool,
}

impl LlmJudge {
    /// A judge asking through `runtime`'s model (role `anytool_judge`).
    pub fn new(runtime: Runtime, votes: usize) -> Self {
        Self {
            runtime,
            votes: votes.max(1),
            early: false,
        }
    }

    /// Stops asking once a majority of all `votes` is `Solved` or `Unsolved`: the verdict and
    /// reason are those of every vote, for fewer calls.
    pub fn with_early_stop(mut self, early: bool) -> Self {
        self.early = early;
        self
    }
}

/// The role of the judge's LLM calls.
pub const JUDGE_ROLE: &str = "anytool_judge";

const JUDGE_PROMPT: &str = "You review whether an assistant's final answer really resolves a user's request. \
Reply with one word on the first line: SOLVED if the answer gives everything the request asks for with concrete \
content, UNSOLVED if it misses a part, refuses, or only says it could not help, UNSURE if you cannot tell. \
On the second line give a short reason.";

/// Reads a reply: the first of `unsolved`, `unsure`, `solved` in its first line.
pub(crate) fn parse_verdict(reply: &str) -> Judgement {
    let mut lines = reply.trim().lines();
    let first = lines.next().unwrap_or("").to_ascii_lowercase();
    let verdict = if first.contains("unsolved") {
        Verdict::Unsolved
    } else if first.contains("unsure") {
        Verdict::Unsure
    } else if first.contains("solved") {
        Verdict::Solved
    } else {
        Verdict::Unsure
    };
    let rest: Vec<&str> = lines.collect();
    let reason = if rest.is_empty() {
        first
    } else {
        rest.join(" ").trim().to_owned()
    };
    Judgement { verdict, reason }
}

#[async_trait]
impl AnswerCheck for LlmJudge {
    async fn check(&self, query: &str, answer: &str) -> Result<Judgement, Stop> {
        let mut votes = Vec::with_capacity(self.votes);
        for k in 0..self.votes {
            // Numbered so each vote is its own request (and cache entry); no total, since
            // an early stop at a majority sends fewer than `votes`.
            let messages = vec![
                Message::system(JUDGE_PROMPT),
                Message::user(format!(
                    "Request: {query}\n\nFinal answer: {answer}\n\n(review {})",
                    k + 1
                )),
            ];
            let response = self
                .runtime
                .ask(JUDGE_ROLE, messages, Vec::new(), query)
                .await?;
            votes.push(parse_verdict(response.text()));
            let count = |verdict| votes.iter().filter(|v| v.verdict == verdict).count();
            if self.early
                && (count(Verdict::Solved) * 2 > self.votes
                    || count(Verdict::Unsolved) * 2 > self.votes)
            {
                break;
            }
        }
        let solved = votes
            .iter()
            .filter(|v| v.verdict == Verdict::Solved)
            .count();
        let verdict = if solved * 2 > self.votes {
            Verdict::Solved
        } else if votes
            .iter()
            .filter(|v| v.verdict == Verdict::Unsolved)
            .count()
            * 2
            > self.votes
        {
            Verdict::Unsolved
        } else {
            Verdict::Unsure
        };
        let reason = votes
            .iter()
            .find(|v| v.verdict == verdict)
            .or(votes.first())
            .map_or_else(String::new, |v| v.reason.clone());
        Ok(Judgement { verdict, reason })
    }
}
