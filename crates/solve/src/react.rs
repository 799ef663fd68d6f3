//! ReAct as ToolBench runs it (CoT@n): one chain of thought, tool call and
//! observation until `Finish` or the depth limit; `n` independent tries, the
//! first answer wins.

use async_trait::async_trait;
use toolsmith_llm::{ChatResponse, Message, ToolSpec};

use crate::error::Result;
use crate::finish::Finish;
use crate::names::{FINISH, SEARCH_TOOLS};
use crate::prompts::{AGENT_SYSTEM, stated_today, tool_lines};
use crate::run::Run;
use crate::runtime::{Runtime, Stop};
use crate::settings::AgentSettings;
use crate::settings::ReactSettings;
use crate::solver::{End, Solver, finished, stopped};
use crate::toolset::{FinishCall, Toolset};
use crate::trace::RunLimit;

/// The reminder sent when a reply calls no function.
pub(crate) const CALL_A_FUNCTION: &str = "Continue by calling a function. If you have the answer, call Finish with return_type \"give_answer\".";

/// The ReAct solver.
pub struct React {
    runtime: Runtime,
    settings: ReactSettings,
}

impl React {
    /// ReAct over `runtime` with these settings.
    pub fn new(runtime: Runtime, settings: ReactSettings) -> Self {
        Self { runtime, settings }
    }
}

/// How many of ToolBench's nodes a reply adds to a chain: a thought (if the
/// reply has text) plus an action and its input per step.
pub(crate) fn nodes(response: &ChatResponse) -> usize {
    usize::from(!response.text().trim().is_empty())
        + if response.tool_calls.is_empty() { 0 } else { 2 }
}

/// How a chain's length is counted, and where it stops: ToolBench's nodes under the paper's
/// protocol, steps (model turns) under toolsmith's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChainBudget {
    /// At most this many nodes (a thought, an action and its input each count one).
    Nodes(usize),
    /// At most this many steps (a model turn with its calls).
    Steps(usize),
}

impl ChainBudget {
    /// The budget of a chain under `settings`; `max_nodes` is the solver's node limit.
    pub(crate) fn of(settings: &AgentSettings, max_nodes: usize) -> Self {
        if settings.paper() {
            Self::Nodes(max_nodes)
        } else {
            Self::Steps(settings.max_steps)
        }
    }

    /// The limit.
    pub(crate) fn max(self) -> usize {
        match self {
            Self::Nodes(n) | Self::Steps(n) => n,
        }
    }

    /// What a reply spends: its [`nodes`] (at least one), or one step; a turn of nothing but
    /// `search_tools` calls spends no steps (searches have their own budget).
    pub(crate) fn cost(self, response: &ChatResponse) -> usize {
        match self {
            Self::Nodes(_) => nodes(response).max(1),
            Self::Steps(_) => {
                let only_searches = !response.tool_calls.is_empty()
                    && response.tool_calls.iter().all(|c| c.name == SEARCH_TOOLS);
                usize::from(!only_searches)
            }
        }
    }

    /// The limit that ends a run that spent it.
    pub(crate) fn limit(self) -> RunLimit {
        match self {
            Self::Nodes(_) => RunLimit::Nodes,
            Self::Steps(_) => RunLimit::Steps,
        }
    }
}

impl std::fmt::Display for ChainBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Nodes(n) => write!(f, "{n} nodes"),
            Self::Steps(n) => write!(f, "{n} steps"),
        }
    }
}

/// The stop after a turn that spent more searches than the budget allows, if this one did.
pub(crate) fn search_budget_stop(toolset: &Toolset, settings: &AgentSettings) -> Option<Stop> {
    toolset.over_search_budget().then(|| {
        Stop::limit(
            Finish::BudgetExhausted,
            RunLimit::Searches,
            format!(
                "the model searched for tools again after its {} searches",
                settings.max_searches
            ),
        )
    })
}

/// The system prompt of a chain over `toolset` as it stands: it lists every function offered
/// but `search_tools`, which it explains in words, and `Finish`, which it lists in its own
/// words after the others (so `read_result` is listed once an observation was cut, and the
/// functions a search found once it found them); under toolsmith's protocol it states today's
/// date and, by default, asks that an item be read from its own record.
pub(crate) fn system_prompt(
    toolset: &Toolset,
    settings: &AgentSettings,
) -> std::result::Result<String, Stop> {
    let search = toolset.has_search_tool();
    let max_searches = (search && !settings.paper()).then_some(settings.max_searches);
    let listed: Vec<ToolSpec> = toolset
        .specs()
        .into_iter()
        .filter(|s| s.name != FINISH && s.name != SEARCH_TOOLS)
        .collect();
    AGENT_SYSTEM
        .render(&serde_json::json!({
            "tools": tool_lines(&listed),
            "search": search,
            "max_searches": max_searches,
            "today": stated_today(settings),
            "item_records": settings.states_item_records(),
        }))
        .map_err(|e| Stop::error(Finish::Error, e.to_string()))
}

/// The opening messages of a chain.
pub(crate) fn opening(
    toolset: &Toolset,
    query: &str,
    settings: &AgentSettings,
) -> std::result::Result<Vec<Message>, Stop> {
    Ok(vec![
        Message::system(system_prompt(toolset, settings)?),
        Message::user(format!("{query}\nBegin!")),
    ])
}

/// Brings the system prompt that opens `messages` up to date with what `toolset` offers now,
/// so that the functions it lists are the functions the request offers.
pub(crate) fn refresh_system(
    messages: &mut [Message],
    toolset: &Toolset,
    settings: &AgentSettings,
) -> std::result::Result<(), Stop> {
    if let Some(Message::System(text)) = messages.first_mut() {
        *text = system_prompt(toolset, settings)?;
    }
    Ok(())
}

enum ChainEnd {
    Answer(String),
    GaveUp(String),
    DepthLimit,
}

impl React {
    async fn chain(
        &self,
        toolset: &mut Toolset,
        query: &str,
    ) -> std::result::Result<ChainEnd, Stop> {
        let mut messages = opening(toolset, query, &self.runtime.settings)?;
        let budget = ChainBudget::of(&self.runtime.settings, self.settings.max_depth);
        let mut depth = 0;
        while depth < budget.max() {
            refresh_system(&mut messages, toolset, &self.runtime.settings)?;
            let response = self
                .runtime
                .ask("agent", messages.clone(), toolset.specs(), query)
                .await?;
            depth += budget.cost(&response);
            messages.push(response.to_message());
            if response.tool_calls.is_empty() {
                messages.push(Message::user(CALL_A_FUNCTION));
                continue;
            }
            let answers = self
                .runtime
                .answer_calls(
                    &response.tool_calls,
                    toolset,
                    query,
                    response.content.as_deref(),
                )
                .await;
            let mut end = None;
            for answered in answers {
                messages.push(Message::tool(answered.call_id, answered.content));
                match answered.finish {
                    Some(FinishCall::Answer(answer)) => end = Some(ChainEnd::Answer(answer)),
                    Some(FinishCall::GiveUp(reason)) if end.is_none() => {
                        end = Some(ChainEnd::GaveUp(reason))
                    }
                    _ => {}
                }
            }
            if let Some(end) = end {
                return Ok(end);
            }
            if let Some(stop) = search_budget_stop(toolset, &self.runtime.settings) {
                return Err(stop);
            }
        }
        Ok(ChainEnd::DepthLimit)
    }
}

#[async_trait]
impl Solver for React {
    fn name(&self) -> &str {
        "react"
    }

    async fn solve(&self, query: &str, mut toolset: Toolset) -> Result<Run> {
        let tracer = &self.runtime.tracer;
        crate::solver::started(tracer, self.name(), query, &toolset);
        let mut last = End::without(Finish::StepLimit, "no try was made".to_owned());
        for _ in 0..self.settings.tries.max(1) {
            match self.chain(&mut toolset, query).await {
                Ok(ChainEnd::Answer(answer)) => {
                    return Ok(finished(tracer, self.name(), query, End::answered(answer)));
                }
                Ok(ChainEnd::GaveUp(reason)) => last = End::without(Finish::GaveUp, reason),
                Ok(ChainEnd::DepthLimit) => {
                    let budget = ChainBudget::of(&self.runtime.settings, self.settings.max_depth);
                    last = End {
                        limit: Some(budget.limit()),
                        ..End::without(Finish::StepLimit, format!("no answer within {budget}"))
                    }
                }
                Err(stop) => {
                    return Ok(stopped(tracer, self.name(), query, stop));
                }
            }
        }
        Ok(finished(tracer, self.name(), query, last))
    }
}
