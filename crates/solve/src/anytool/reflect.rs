//! AnyTool's self-reflection (§4.3): after a failed answer, the reason goes to every agent,
//! failing APIs leave the pool, and unfinished agents search again.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use toolsmith_catalog::ApiId;
use toolsmith_llm::Message;

use super::agents::Shared;
use super::failures::Failures;
use super::labels::{AgentLevel, AgentStatus};
use crate::trace::TraceEvent;

/// One round of self-reflection: the reason into every history, failing APIs out of the
/// pool, cut category listings widened (`reflection_widen`), then unfinished agents
/// re-activated tool, category, meta in turn. Returns whether a listing was widened.
pub(super) async fn reflect(
    shared: &Arc<Shared>,
    pool_cap: usize,
    round: usize,
    reason: &str,
    failures: &Failures,
) -> bool {
    let failing = failures.failing();
    let note = format!(
        "The request is not solved yet: {reason}. {} Search again for APIs that can help.",
        failures.note()
    );
    let (removed, size) = match shared.pool.lock() {
        Ok(mut pool) => {
            let before = pool.apis.clone();
            pool.apis.retain(|a| !failing.contains(a));
            let removed: Vec<ApiId> = before
                .into_iter()
                .filter(|a| !pool.apis.contains(a))
                .collect();
            (removed, pool.apis.len())
        }
        Err(_) => (Vec::new(), 0),
    };
    let mut order: Vec<(AgentLevel, Vec<usize>)> = Vec::new();
    let mut no_meta = false;
    let mut widened = false;
    if let Ok(mut agents) = shared.agents.lock() {
        no_meta = !agents.iter().any(|a| a.level == AgentLevel::Meta);
        for agent in agents.iter_mut() {
            agent.messages.push(Message::user(note.clone()));
        }
        for agent in agents
            .iter_mut()
            .filter(|a| a.level == AgentLevel::Category)
        {
            if let Some(more) = shared.widen(agent) {
                widened = true;
                agent.messages.push(Message::user(more));
                if agent.status == AgentStatus::Finished {
                    agent.status = AgentStatus::Paused;
                }
            }
        }
        let mut any = false;
        for level in [AgentLevel::Tool, AgentLevel::Category, AgentLevel::Meta] {
            let ids: Vec<usize> = agents
                .iter()
                .enumerate()
                .filter(|(_, a)| a.level == level && a.status == AgentStatus::Paused)
                .map(|(i, _)| i)
                .collect();
            any |= !ids.is_empty();
            order.push((level, ids));
        }
        // Nothing left unfinished: the meta agent searches again.
        if !any && let Some(meta) = agents.iter().position(|a| a.level == AgentLevel::Meta) {
            order = vec![(AgentLevel::Meta, vec![meta])];
        }
        for (_, ids) in &order {
            for &id in ids {
                if let Some(agent) = agents.get_mut(id) {
                    agent.status = AgentStatus::Active;
                    agent.rounds = 0;
                }
            }
        }
    }
    // The search stage answered without agents: the meta agent starts now, told why.
    if no_meta {
        let meta = shared.create(AgentLevel::Meta, None, None, Vec::new(), Some(note));
        order = vec![(AgentLevel::Meta, vec![meta])];
    }
    shared.runtime.tracer.emit(TraceEvent::Reflection {
        round,
        reason: reason.to_owned(),
        failing: failing.clone(),
        reactivated: order.iter().flat_map(|(_, ids)| ids.clone()).collect(),
    });
    if !removed.is_empty() {
        shared.runtime.tracer.emit(TraceEvent::PoolChanged {
            agent: None,
            added: Vec::new(),
            removed,
            size,
        });
    }
    let full = size >= pool_cap;
    shared.stop.store(full, Ordering::SeqCst);
    for (_, ids) in order {
        if shared.stopped() {
            // The pool is full or a check said solvable: the others stay paused.
            for id in ids {
                if let Ok(mut agents) = shared.agents.lock()
                    && let Some(agent) = agents.get_mut(id)
                {
                    agent.status = AgentStatus::Paused;
                }
            }
            continue;
        }
        for id in ids {
            shared.spawn(id);
        }
        shared.join().await;
    }
    widened
}
