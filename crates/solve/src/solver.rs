//! The [`Solver`] contract and the bookkeeping every solver shares.

use std::sync::Arc;

use async_trait::async_trait;

use crate::error::Result;
use crate::run::{Finish, Run};
use crate::toolset::Toolset;
use crate::trace::{TraceEvent, Tracer};

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

pub(crate) fn finished(
    tracer: &Tracer,
    solver: &str,
    query: &str,
    finish: Finish,
    answer: Option<String>,
    detail: Option<String>,
) -> Run {
    tracer.emit(TraceEvent::Finished {
        finish,
        answer: answer.clone(),
        detail: detail.clone(),
    });
    Run {
        solver: solver.to_owned(),
        query: query.to_owned(),
        finish,
        answer,
        detail,
        trace: tracer.events(),
    }
}

/// Ends a run that had to stop early (budget, limit, LLM failure).
pub(crate) fn stopped(
    tracer: &Tracer,
    solver: &str,
    query: &str,
    stop: crate::runtime::Stop,
) -> Run {
    finished(tracer, solver, query, stop.finish, None, Some(stop.detail))
}
