//! DFSDT with ToolBench's semantics (`DFS_woFilter_w2`): depth-first search
//! over agent states, `width` children per node. Expanding a node again shows
//! the model its earlier children and asks for something different; a failed
//! branch backtracks to its sibling; `give_up_and_restart` abandons the parent
//! too (under toolsmith's protocol, a give-up at the root tries the root's next
//! child instead of ending the search); the first answer ends the search.

use std::future::Future;
use std::pin::Pin;

use async_trait::async_trait;
use toolsmith_llm::{ChatResponse, Message};

use crate::error::Result;
use crate::finish::Finish;
use crate::prompts::DFSDT_DIVERSITY;
use crate::react::{CALL_A_FUNCTION, ChainBudget, opening, refresh_system, search_budget_stop};
use crate::run::Run;
use crate::runtime::{Runtime, Stop};
use crate::settings::DfsdtSettings;
use crate::solver::{End, Solver, finished, stopped};
use crate::toolset::{FinishCall, Toolset};
use crate::trace::{BacktrackReason, RunLimit, TraceEvent, cut};

/// The DFSDT solver.
pub struct Dfsdt {
    runtime: Runtime,
    settings: DfsdtSettings,
}

impl Dfsdt {
    /// DFSDT over `runtime` with these settings.
    pub fn new(runtime: Runtime, settings: DfsdtSettings) -> Self {
        Self { runtime, settings }
    }
}

/// What a subtree gave.
enum Outcome {
    Answer(String),
    /// Nothing here: the caller tries its next child.
    Failed,
}

/// What one turn of a child's calls did.
enum Turn {
    /// `Finish` gave the answer.
    Answer(String),
    /// `Finish` gave up, for this reason.
    GaveUp(String),
    /// The child goes on.
    Go,
}

struct Search<'a> {
    query: &'a str,
    toolset: Toolset,
    llm_calls: usize,
    last_give_up: Option<String>,
    /// Children of the root expanded so far.
    root_branches: usize,
    /// The path the search walked last (opening included): AnyTool's reflection re-runs
    /// from it.
    last_path: Vec<Message>,
}

type Boxed<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

impl Dfsdt {
    fn expand<'a>(
        &'a self,
        messages: Vec<Message>,
        depth: usize,
        search: &'a mut Search<'_>,
    ) -> Boxed<'a, std::result::Result<Outcome, Stop>> {
        Box::pin(async move {
            let budget = ChainBudget::of(&self.runtime.settings, self.settings.max_depth);
            if depth >= budget.max() {
                self.runtime.tracer.emit(TraceEvent::Backtrack {
                    depth,
                    reason: BacktrackReason::DepthLimit,
                });
                return Ok(Outcome::Failed);
            }
            let mut children: Vec<String> = Vec::new();
            for _ in 0..self.settings.width.max(1) {
                let response = self.ask_child(&messages, &children, depth, search).await?;
                // The diversity note is shown once, not kept in the child's history.
                let mut child = messages.clone();
                child.push(response.to_message());
                search.last_path.clone_from(&child);
                let child_depth = depth + budget.cost(&response);
                if response.tool_calls.is_empty() {
                    child.push(Message::user(CALL_A_FUNCTION));
                    children.push(format!(
                        "replied without calling a function: {}",
                        cut(response.text(), 200)
                    ));
                } else {
                    let (summary, turn) = self.answer_child(&response, &mut child, search).await?;
                    children.push(summary);
                    match turn {
                        Turn::Answer(answer) => return Ok(Outcome::Answer(answer)),
                        Turn::GaveUp(reason) => {
                            self.runtime.tracer.emit(TraceEvent::Backtrack {
                                depth: child_depth,
                                reason: BacktrackReason::GiveUp,
                            });
                            search.last_give_up = Some(reason);
                            // ToolBench: a give-up prunes this child and abandons its parent
                            // as well, which at the root ends the search. toolsmith's protocol
                            // tries the root's next child instead (with the diversity note).
                            if depth == 0 && !self.runtime.settings.paper() {
                                continue;
                            }
                            return Ok(Outcome::Failed);
                        }
                        Turn::Go => {}
                    }
                }
                match self.expand(child, child_depth, search).await? {
                    Outcome::Answer(answer) => return Ok(Outcome::Answer(answer)),
                    Outcome::Failed => continue,
                }
            }
            Ok(Outcome::Failed)
        })
    }

    /// The model's next move from `messages` (a child of the node at `depth`), told the
    /// `children` already tried there; counts the call against the search's budget.
    async fn ask_child(
        &self,
        messages: &[Message],
        children: &[String],
        depth: usize,
        search: &mut Search<'_>,
    ) -> std::result::Result<ChatResponse, Stop> {
        if search.llm_calls >= self.settings.max_llm_calls {
            return Err(Stop::limit(
                Finish::StepLimit,
                RunLimit::SearchLlmCalls,
                format!(
                    "the search used its {} LLM calls",
                    self.settings.max_llm_calls
                ),
            ));
        }
        let mut asked = messages.to_vec();
        refresh_system(&mut asked, &search.toolset, &self.runtime.settings)?;
        if !children.is_empty() {
            let nudge = DFSDT_DIVERSITY
                .render(&serde_json::json!({"attempts": children}))
                .map_err(|e| Stop::error(Finish::Error, e.to_string()))?;
            asked.push(Message::user(nudge));
        }
        let response = self
            .runtime
            .ask("agent", asked, search.toolset.specs(), search.query)
            .await?;
        search.llm_calls += 1;
        if depth == 0 {
            search.root_branches += 1;
        }
        Ok(response)
    }

    /// Runs the calls of `response`, adds their answers to `child`, and says what the turn
    /// did: a one-line summary for the next sibling's diversity note, and whether it
    /// answered, gave up or goes on.
    async fn answer_child(
        &self,
        response: &ChatResponse,
        child: &mut Vec<Message>,
        search: &mut Search<'_>,
    ) -> std::result::Result<(String, Turn), Stop> {
        let answers = self
            .runtime
            .answer_calls(
                &response.tool_calls,
                &mut search.toolset,
                search.query,
                response.content.as_deref(),
            )
            .await;
        let summary: Vec<String> = response
            .tool_calls
            .iter()
            .zip(&answers)
            .map(|(call, answered)| {
                format!(
                    "{}({}) -> {}",
                    call.name,
                    cut(&call.arguments, 200),
                    cut(&answered.content, 200)
                )
            })
            .collect();
        let mut turn = Turn::Go;
        for answered in answers {
            child.push(Message::tool(answered.call_id, answered.content));
            search.last_path.clone_from(child);
            match answered.finish {
                Some(FinishCall::Answer(answer)) => {
                    return Ok((summary.join("; "), Turn::Answer(answer)));
                }
                Some(FinishCall::GiveUp(reason)) => turn = Turn::GaveUp(reason),
                _ => {}
            }
        }
        if let Some(stop) = search_budget_stop(&search.toolset, &self.runtime.settings) {
            return Err(stop);
        }
        Ok((summary.join("; "), turn))
    }
}

#[async_trait]
impl Solver for Dfsdt {
    fn name(&self) -> &str {
        "dfsdt"
    }

    async fn solve(&self, query: &str, toolset: Toolset) -> Result<Run> {
        Ok(self.solve_from(query, toolset, Vec::new()).await?.0)
    }
}

impl Dfsdt {
    /// DFSDT whose root continues `prior` (messages after the opening: an earlier attempt's
    /// steps, as AnyTool's reflection cleans them); also returns the last path walked, after
    /// the opening.
    pub(crate) async fn solve_from(
        &self,
        query: &str,
        toolset: Toolset,
        prior: Vec<Message>,
    ) -> Result<(Run, Vec<Message>)> {
        let tracer = &self.runtime.tracer;
        crate::solver::started(tracer, self.name(), query, &toolset);
        let mut messages = match opening(&toolset, query, &self.runtime.settings) {
            Ok(m) => m,
            Err(stop) => {
                return Ok((stopped(tracer, self.name(), query, stop), Vec::new()));
            }
        };
        let opened = messages.len();
        messages.extend(prior);
        let mut search = Search {
            query,
            toolset,
            llm_calls: 0,
            last_give_up: None,
            root_branches: 0,
            last_path: messages.clone(),
        };
        let end = match self.expand(messages, 0, &mut search).await {
            Ok(Outcome::Answer(answer)) => End::answered(answer),
            Ok(Outcome::Failed) => match search.last_give_up.take() {
                Some(reason) => End::without(Finish::GaveUp, reason),
                None => {
                    let budget = ChainBudget::of(&self.runtime.settings, self.settings.max_depth);
                    End {
                        limit: Some(budget.limit()),
                        ..End::without(
                            Finish::StepLimit,
                            format!("every branch reached the limit of {budget}"),
                        )
                    }
                }
            },
            Err(stop) => End::stopped(stop),
        };
        let end = End {
            root_branches: Some(search.root_branches),
            ..end
        };
        let path = search
            .last_path
            .split_off(opened.min(search.last_path.len()));
        Ok((finished(tracer, self.name(), query, end), path))
    }
}
