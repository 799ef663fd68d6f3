//! The [`Solver`] contract and the bookkeeping every solver shares.

use std::sync::Arc;

use async_trait::async_trait;

use crate::error::Result;
use crate::finish::Finish;
use crate::refusal::is_refusal;
use crate::run::Run;
use crate::runtime::Stop;
use crate::toolset::Toolset;
use crate::trace::{CallCounts, RunLimit, TraceEvent, Tracer};

/// Makes a fresh solver for each task, over a runtime the maker already holds: how `serve`
/// answers `/v1/solve` and ExpNet runs its actor. (A benchmark's `SolverFactory`, in eval,
/// builds one over a runtime it is given instead.)
pub type MakeSolver = Arc<dyn Fn() -> Box<dyn Solver> + Send + Sync>;

/// Answers a query with the tools it is given. Every run ends in a final
/// state with a trace; `Err` is only for toolsmith's own failures.
#[async_trait]
pub trait Solver: Send + Sync {
    /// The solver's name (`react`, `dfsdt`, `conagents`).
    fn name(&self) -> &str;
    /// Solves one query.
    async fn solve(&self, query: &str, toolset: Toolset) -> Result<Run>;
}

#[async_trait]
impl<T: Solver + ?Sized> Solver for Arc<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    async fn solve(&self, query: &str, toolset: Toolset) -> Result<Run> {
        (**self).solve(query, toolset).await
    }
}

pub(crate) fn started(tracer: &Tracer, solver: &str, query: &str, toolset: &Toolset) {
    let tools = toolset.specs().into_iter().map(|s| s.name).collect();
    tracer.emit(TraceEvent::Started {
        solver: solver.to_owned(),
        query: query.to_owned(),
        tools,
    });
}

/// How a run ends: what [`finished`] records.
pub(crate) struct End {
    pub(crate) finish: Finish,
    pub(crate) answer: Option<String>,
    pub(crate) detail: Option<String>,
    pub(crate) limit: Option<RunLimit>,
    pub(crate) root_branches: Option<usize>,
}

impl End {
    /// An end in `finish`, with nothing else said.
    pub(crate) fn new(finish: Finish) -> Self {
        Self {
            finish,
            answer: None,
            detail: None,
            limit: None,
            root_branches: None,
        }
    }

    /// An answer.
    pub(crate) fn answered(answer: String) -> Self {
        Self {
            answer: Some(answer),
            ..Self::new(Finish::Answered)
        }
    }

    /// No answer, and why.
    pub(crate) fn without(finish: Finish, detail: String) -> Self {
        Self {
            detail: Some(detail),
            ..Self::new(finish)
        }
    }

    /// An answer that declines the task ([`is_refusal`]) is a give-up, its text the detail.
    fn refusal_as_give_up(self) -> Self {
        match (self.finish, &self.answer) {
            (Finish::Answered, Some(answer)) if is_refusal(answer) => Self {
                finish: Finish::GaveUp,
                detail: Some(format!("the answer declines the task: {answer}")),
                answer: None,
                ..self
            },
            _ => self,
        }
    }

    /// A run that had to stop early (budget, limit, LLM failure).
    pub(crate) fn stopped(stop: Stop) -> Self {
        Self {
            limit: stop.limit,
            ..Self::without(stop.finish, stop.detail)
        }
    }
}

/// Records the end of a run (with its call counts) and returns the run. Every solver ends
/// here, so this is where an answer that is a refusal becomes a give-up.
pub(crate) fn finished(tracer: &Tracer, solver: &str, query: &str, end: End) -> Run {
    let end = end.refusal_as_give_up();
    let calls = CallCounts::of(&tracer.events());
    tracer.emit(TraceEvent::Finished {
        finish: end.finish,
        answer: end.answer.clone(),
        detail: end.detail.clone(),
        limit: end.limit,
        calls: Some(calls),
        root_branches: end.root_branches,
    });
    Run {
        solver: solver.to_owned(),
        query: query.to_owned(),
        finish: end.finish,
        answer: end.answer,
        detail: end.detail,
        trace: tracer.events(),
    }
}

/// Ends a run that had to stop early (budget, limit, LLM failure).
pub(crate) fn stopped(tracer: &Tracer, solver: &str, query: &str, stop: Stop) -> Run {
    finished(tracer, solver, query, End::stopped(stop))
}
