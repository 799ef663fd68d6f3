//! Test doubles for crates that score runs: a judge that replays scripted verdicts.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use async_trait::async_trait;
use toolsmith_catalog::ApiId;

use crate::error::{Error, Result};
use crate::judge::{AnswerStatus, Judge, JudgeCase, JudgeUsage, Preference, TaskSolvability};
use crate::run::RunRecord;

/// Which judge method a recorded request went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JudgeRequest {
    /// [`Judge::answer_status`].
    AnswerStatus,
    /// [`Judge::prefer`].
    Prefer,
    /// [`Judge::task_solvability`].
    TaskSolvability,
}

#[derive(Debug, Default)]
struct Script {
    answers: VecDeque<AnswerStatus>,
    solvability: VecDeque<TaskSolvability>,
    preferences: VecDeque<Preference>,
    requests: Vec<(JudgeRequest, String)>,
}

/// A [`Judge`] that returns queued verdicts in order, one queue per method, and records every
/// request with its query. An empty queue is an error, so a test notices an unexpected call.
/// Clones share the script.
#[derive(Clone, Debug, Default)]
pub struct ScriptedJudge {
    script: Arc<Mutex<Script>>,
}

impl ScriptedJudge {
    /// A judge with nothing queued.
    pub fn new() -> Self {
        Self::default()
    }

    fn script(&self) -> MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues answer-status verdicts.
    pub fn answers(self, verdicts: impl IntoIterator<Item = AnswerStatus>) -> Self {
        self.script().answers.extend(verdicts);
        self
    }

    /// Queues solvability verdicts.
    pub fn solvability(self, verdicts: impl IntoIterator<Item = TaskSolvability>) -> Self {
        self.script().solvability.extend(verdicts);
        self
    }

    /// Queues preferences.
    pub fn preferences(self, verdicts: impl IntoIterator<Item = Preference>) -> Self {
        self.script().preferences.extend(verdicts);
        self
    }

    /// Every request so far: which method, and the query it was about. (Its
    /// [`Judge::usage`] counts them as calls.)
    pub fn requests(&self) -> Vec<(JudgeRequest, String)> {
        self.script().requests.clone()
    }

    fn next<T>(
        &self,
        request: JudgeRequest,
        query: &str,
        queue: impl FnOnce(&mut Script) -> Option<T>,
    ) -> Result<T> {
        let mut script = self.script();
        script.requests.push((request, query.to_owned()));
        queue(&mut script).ok_or_else(|| Error::Judge {
            message: format!("scripted judge has no {request:?} verdict left for `{query}`"),
        })
    }
}

#[async_trait]
impl Judge for ScriptedJudge {
    async fn answer_status(&self, case: &JudgeCase<'_>) -> Result<AnswerStatus> {
        self.next(JudgeRequest::AnswerStatus, case.query, |s| {
            s.answers.pop_front()
        })
    }

    async fn prefer(&self, query: &str, _: &RunRecord, _: &RunRecord) -> Result<Preference> {
        self.next(JudgeRequest::Prefer, query, |s| s.preferences.pop_front())
    }

    async fn task_solvability(&self, query: &str, _: &[ApiId]) -> Result<TaskSolvability> {
        self.next(JudgeRequest::TaskSolvability, query, |s| {
            s.solvability.pop_front()
        })
    }

    /// One call per request, no tokens.
    fn usage(&self) -> JudgeUsage {
        JudgeUsage {
            calls: u64::try_from(self.script().requests.len()).unwrap_or(u64::MAX),
            ..JudgeUsage::default()
        }
    }
}
